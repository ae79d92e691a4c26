"""The catalogues are complete (issue 50 item 4): every message marked in the code and
the templates has a German and a Japanese translation, none fuzzy, each with the same
placeholders and the same HTML tags as its English.

The messages are extracted afresh from the source here (Babel, ``babel.cfg``), so a
message marked and never run through ``make translations`` fails as missing, not only
one whose PO entry is empty. Source only: no app, no store; a few seconds.
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from app import i18n

ROOT = Path(__file__).resolve().parent.parent.parent
LANGUAGES = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3), "lazy_gettext": None, "N_": None}
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdfr]|%[sdf]")
#: HTML inside a message (not a command's "<card>" placeholder words)
TAG = re.compile(r"</?(a|abbr|b|br|code|em|i|kbd|li|mark|ol|p|samp|small|span|strong|sub|"
                 r"sup|time|u|ul)\b[^>]*>")


@lru_cache(maxsize=1)
def source_messages() -> dict[tuple[str, str | None], list[str]]:
    """(message id, context) -> where it is marked, of every message in the tree."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[tuple[str, str | None], list[str]] = {}
    for filename, lineno, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        msgid = message[0] if isinstance(message, (list, tuple)) else message
        if msgid:
            found.setdefault((msgid, context), []).append(f"{filename}:{lineno}")
    return found


def catalogue(code: str) -> Catalog:
    with open(ROOT / "translations" / code / "LC_MESSAGES" / "messages.po", "rb") as po:
        return read_po(po, locale=code)


def placeholders(text: str) -> Counter[str]:
    return Counter(PLACEHOLDER.findall(text) or [m.group(0) for m in
                                                  re.finditer(r"%[sdf]", text)])


def tags(text: str) -> Counter[str]:
    return Counter(name.lower() for name in TAG.findall(text))


def test_the_source_marks_messages_at_all():
    """The check below is only worth something if extraction finds the marked messages."""
    assert len(source_messages()) > 10
    assert ("Open tables", None) in source_messages()


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_marked_message_is_translated(code):
    """0 missing: each message of the source has a non-empty, non-fuzzy translation."""
    cat = catalogue(code)
    missing = []
    for (msgid, context), where in sorted(source_messages().items(), key=lambda kv: kv[1]):
        entry = cat.get(msgid, context=context)
        strings = ([entry.string] if isinstance(entry.string, str) else list(entry.string)
                   ) if entry is not None else []
        if entry is None or entry.fuzzy or not strings or not all(strings):
            missing.append(f"{where[0]}: {msgid[:70]!r}")
    assert not missing, (f"{len(missing)} message(s) without a {code} translation "
                         "(run `make translations`, then translate):\n" + "\n".join(missing[:60]))


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translation_keeps_the_placeholders_and_the_tags_of_its_english(code):
    wrong = []
    for entry in catalogue(code):
        if not entry.id or not entry.string:
            continue
        ids = [entry.id] if isinstance(entry.id, str) else list(entry.id)
        strings = [entry.string] if isinstance(entry.string, str) else list(entry.string)
        for text in strings:
            if not text:
                continue
            if set(placeholders(text)) != set(placeholders(ids[-1])) and set(
                    placeholders(text)) != set(placeholders(ids[0])):
                wrong.append(f"placeholders differ: {ids[0][:60]!r} -> {text[:60]!r}")
            if tags(text) != tags(ids[0]):
                wrong.append(f"tags differ: {ids[0][:60]!r} -> {text[:60]!r}")
    assert not wrong, "\n".join(wrong[:40])


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_catalogue_says_what_it_is(code):
    cat = catalogue(code)
    assert str(cat.locale) == code
    assert cat.num_plurals == (1 if code == "ja" else 2)


def _own_scope(node: ast.AST):
    """The nodes of a function's own scope (not of nested functions, lambdas, classes or
    comprehensions, which have scopes of their own)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                              ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        yield child
        yield from _own_scope(child)


def _is_gettext(value: ast.AST | None) -> bool:
    return isinstance(value, (ast.Name, ast.Attribute)) and (
        getattr(value, "id", None) == "gettext" or getattr(value, "attr", None) == "gettext")


def test_no_function_hides_gettext_behind_a_throwaway_name():
    """A function that names an argument or a loop variable ``_`` and also says
    ``_("…")`` calls the wrong thing (a refused setting once answered with a TypeError
    instead of its words): every such function in app/ is listed here."""
    hidden = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            own = list(_own_scope(func))
            calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                        and n.func.id == "_" for n in own)
            if not calls:
                continue
            args = [a.arg for a in func.args.args + func.args.kwonlyargs + func.args.posonlyargs]
            stores = [n for n in own if isinstance(n, ast.Name) and n.id == "_"
                      and isinstance(n.ctx, ast.Store)]
            aliases = [n for n in own if isinstance(n, ast.Assign) and _is_gettext(n.value)]
            if "_" in args or len(stores) > len(aliases):
                hidden.append(f"{path.relative_to(ROOT)}:{func.lineno} {func.name}")
    assert not hidden, hidden
