"""The reader's language (issue 50): which language a text is being written in now,
the catalogues that say it, and the CLDR forms of dates, lists and spans.

One home, below every other package, pure (Babel and ``contextvars`` only), so that
the engine's sentences, the mail composed by the sender and clock processes and the
pages all translate the same way. The language being written in is a context
variable, not a request attribute: a web request that queues mail for three readers
writes each one ``in_language(reader)``, and the clock's thread does the same with no
request at all. Flask-Babel chooses a request's language (``app.web.language``) and
the pages' Jinja reads the same catalogues through these functions.

Messages are marked with ``_`` (gettext), ``ngettext`` and ``pgettext``; placeholders
are named (``_("%(name)s drew a card", name=...)``) so a translator may move them.
English is the source: a message with no translation is said in English.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

from babel import Locale, UnknownLocaleError
from babel.support import LazyProxy, NullTranslations, Translations

#: The languages the server speaks, English first (the source).
LANGUAGES: tuple[str, ...] = ("en", "de", "ja")
DEFAULT = "en"
#: What each language calls itself (the switch on every page, the settings form).
NAMES = {"en": "English", "de": "Deutsch", "ja": "日本語"}
TRANSLATIONS = Path(__file__).resolve().parent.parent.parent / "translations"
DOMAIN = "messages"

_language: ContextVar[str] = ContextVar("silver_eye_language", default=DEFAULT)
#: Called after the language changes (the web registers Flask-Babel's ``refresh``,
#: so its per-request cache never keeps the previous reader's language).
_on_switch: list[Callable[[], None]] = []


def supported(code: str | None) -> str | None:
    """``code`` as one of ``LANGUAGES`` ('de-AT' -> 'de'), or None."""
    if not code:
        return None
    base = str(code).replace("_", "-").split("-")[0].strip().lower()
    return base if base in LANGUAGES else None


def current() -> str:
    """The language being written in now."""
    return _language.get()


def on_switch(callback: Callable[[], None]) -> None:
    if callback not in _on_switch:
        _on_switch.append(callback)


def _switched() -> None:
    for callback in _on_switch:
        callback()


def use(code: str | None) -> None:
    """Write in ``code`` from now on, in this context (a request once it knows its
    reader); an unknown code keeps English."""
    _language.set(supported(code) or DEFAULT)
    _switched()


@contextmanager
def in_language(code: str | None) -> Iterator[str]:
    """Write the block in ``code`` (a mail to one reader), then go back."""
    token = _language.set(supported(code) or DEFAULT)
    _switched()
    try:
        yield _language.get()
    finally:
        _language.reset(token)
        _switched()


@lru_cache(maxsize=None)
def catalogue(code: str) -> NullTranslations:
    """The compiled catalogue of ``code`` (English: none, the source is English)."""
    if code == DEFAULT:
        return NullTranslations()
    return Translations.load(str(TRANSLATIONS), [code], DOMAIN)


def translations() -> NullTranslations:
    return catalogue(current())


def _fill(text: str, values: dict[str, Any]) -> str:
    return text % values if values else text


def gettext(message: str, **values: Any) -> str:
    return _fill(translations().ugettext(message), values)


_ = gettext


def N_(message: str) -> str:
    """Mark a message for the catalogue without translating it now: a module-level table
    keeps its English (the message id) and the code that reads it says ``_(table[k])``
    when the reader's language is known. (Prefer this to ``lazy_gettext`` where the
    value may reach JSON or a dict key.)"""
    return message


def ngettext(singular: str, plural: str, num: int, **values: Any) -> str:
    values.setdefault("num", num)
    return _fill(translations().ungettext(singular, plural, num), values)


def pgettext(context: str, message: str, **values: Any) -> str:
    return _fill(translations().upgettext(context, message), values)


def npgettext(context: str, singular: str, plural: str, num: int, **values: Any) -> str:
    values.setdefault("num", num)
    return _fill(translations().unpgettext(context, singular, plural, num), values)


def lazy_gettext(message: str, **values: Any) -> LazyProxy:
    """A message said in the language current when it is read (module-level tables)."""
    return LazyProxy(gettext, message, enable_cache=False, **values)


def locale() -> Locale:
    return _locale(current())


@lru_cache(maxsize=None)
def _locale(code: str) -> Locale:
    try:
        return Locale.parse(code)
    except (UnknownLocaleError, ValueError):
        return Locale.parse(DEFAULT)


def negotiate(accept_language: str | None) -> str | None:
    """The best of ``LANGUAGES`` for an ``Accept-Language`` header, or None."""
    best: tuple[float, int, str] | None = None
    for order, part in enumerate(str(accept_language or "").split(",")):
        piece = part.strip()
        if not piece:
            continue
        tag, _sep, params = piece.partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        code = supported(tag.strip())
        if code is None or quality <= 0:
            continue
        if best is None or (quality, -order) > (best[0], best[1]):
            best = (quality, -order, code)
    return best[2] if best else None


def install(env: Any) -> None:
    """Give a Jinja environment (the pages', the mails') these catalogues: ``_()``,
    ``gettext``, ``ngettext``, ``pgettext`` and ``{% trans %}`` say the message in the
    language being written in when the template renders. New-style gettext: Jinja
    fills the placeholders (escaping them in HTML), and ``{% trans %}`` blocks are
    trimmed (one line of whitespace however the template is indented)."""
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    # (added to the environment by the extension, so the type checker cannot see it)
    getattr(env, "install_gettext_callables")(
        lambda message: translations().ugettext(message),
        lambda singular, plural, n: translations().ungettext(singular, plural, n),
        newstyle=True,
        pgettext=lambda context, message: translations().upgettext(context, message),
        npgettext=lambda context, singular, plural, n: translations().unpgettext(
            context, singular, plural, n))
    # ``_`` is Jinja's alias that looks ``gettext`` up again and calls it through the
    # context a second time: on a seat page's 150 messages that was a tenth of the
    # render. Point it at the same callable directly.
    env.globals["_"] = env.globals["gettext"]
