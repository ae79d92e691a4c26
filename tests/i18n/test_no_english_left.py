"""No English left on a German or Japanese page (issue 50 item 4).

Every kind of page is rendered in ``de`` and ``ja``: the public ones (the lobby, open
tables, the rules, /help, /help/mail, the leaderboard, a game watched and replayed, the
"my games" form) and a seat's page facing each kind of decision the engine asks (found
by random play from fixed seeds, played into a real game through the services, as a
player would have played it). Each text node a reader sees is checked two ways:

- against the English catalogue: a node that *is* an English message (placeholders
  filled by anything) whose translation differs was rendered untranslated;
- against English itself: a Japanese page's node with a run of three English words, or
  a German page's node with an English function word ("the", "your", "you", ...), is a
  sentence nobody marked.

What people typed (the players' names) and what is not language (commands in
``<code>``/``<kbd>``, addresses, zone names) is left out.
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from app import engine, services
from app.engine.meaning import decision_of
from app.engine.words import PENDING_WORDS  # noqa: F401  (the kinds a page may ask)
from tests.e2e import positions

ROOT = Path(__file__).resolve().parent.parent.parent
SKIP_TAGS = {"script", "style", "code", "kbd", "pre", "textarea", "samp"}
NAMES = {"Ann", "Bob", "Cid", "Dee"}
#: A German page never says these (English function words).
ENGLISH_WORDS = re.compile(r"\b(the|your|you|with|of|is|are|this|that|what|when|which|"
                           r"has|have|from|here|there)\b", re.I)
#: Three English words in a row on a Japanese page.
ENGLISH_RUN = re.compile(r"\b[A-Za-z]+\s+[a-z]+\s+[a-z]{2,}\b")
#: Not language: addresses, links, zone names, card ids and reply commands.
NOT_WORDS = re.compile(r"\S+@\S+|https?://\S+|\b[A-Z][a-z]+/[A-Za-z_]+\b|\b[A-Z]{2,}\b")


class Text(HTMLParser):
    """The text nodes of a page a reader sees (and ``title``/``aria-label``/``alt``/
    ``placeholder`` values), with the tags that hold no language left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[str] = []
        self._skip = 0
        self._no_translate = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in SKIP_TAGS:
            self._skip += 1
        for name in ("title", "aria-label", "alt", "placeholder"):
            if values.get(name):
                self.nodes.append(str(values[name]))

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP_TAGS and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self._skip:
            self.nodes.append(text)


def nodes(page: str) -> list[str]:
    parser = Text()
    parser.feed(page)
    return parser.nodes


@lru_cache(maxsize=None)
def untranslated_patterns(code: str) -> list[re.Pattern[str]]:
    """An English message whose ``code`` translation differs, as a whole-node pattern."""
    with open(ROOT / "translations" / code / "LC_MESSAGES" / "messages.po", "rb") as po:
        catalogue = read_po(po, locale=code)
    found = []
    for entry in catalogue:
        msgid = entry.id if isinstance(entry.id, str) else entry.id[0]
        string = entry.string if isinstance(entry.string, str) else (entry.string or [""])[0]
        if not msgid or not string or string == msgid or "<" in msgid:
            continue
        plain = " ".join(msgid.split())
        if len(re.sub(r"%\(\w+\)[sd]|%[sd]", "", plain).split()) < 2:
            continue  # a single word ("Rules") may also be a name or a card's
        pattern = re.escape(plain)
        pattern = re.sub(r"%\\\(\w+\\\)[sd]|%[sd]", ".+?", pattern)
        found.append(re.compile(f"^{pattern}$"))
    return found


def english_left(page: str, code: str) -> list[str]:
    left = []
    for node in nodes(page):
        words = NOT_WORDS.sub(" ", node)
        for name in NAMES:
            words = words.replace(name, " ")
        if any(p.match(node) for p in untranslated_patterns(code)):
            left.append(f"untranslated message: {node[:90]!r}")
        elif code == "ja" and ENGLISH_RUN.search(words):
            left.append(f"English on a Japanese page: {node[:90]!r}")
        elif code == "de" and ENGLISH_WORDS.search(words):
            left.append(f"English on a German page: {node[:90]!r}")
    return left


# -- the positions: a seat facing each kind of decision ----------------------------------

def _kind(view: dict[str, Any], seat: int) -> str | None:
    kind = decision_of(view, seat)
    if kind == "drawn" and not any(a["type"] == "discard" for a in view["legal_actions"]):
        return "drawn_refused"
    return kind


@lru_cache(maxsize=1)
def decision_positions() -> dict[str, tuple[positions.Position, dict[str, Any] | None]]:
    """kind -> (seed and moves to reach it, the engine options), by random play."""
    found: dict[str, tuple[positions.Position, dict[str, Any] | None]] = {}
    for options in (None, {"simon": ["off"] * 3}):
        for seed in range(1, 40):
            rng, state = random.Random(seed), engine.new_game(3, seed, options=options)
            moves: positions.Moves = []
            while engine.view(state, None)["phase"] != "over":
                for seat in range(3):
                    kind = _kind(engine.view(state, seat), seat)
                    if kind and kind not in found:
                        found[kind] = (positions.Position(seed, list(moves), seat), options)
                seat = rng.choice(engine.view(state, None)["to_act"])
                action = rng.choice(engine.legal_actions(state, seat))
                state, _ = engine.apply_action(state, seat, action)
                moves.append((seat, action))
    return found


KINDS = ["peek", "turn", "drawn", "drawn_refused", "taken", "search", "gamble_more",
         "gamble_win", "twister", "ghost", "seer", "dracula", "underminer", "drunk", "nelly",
         "bomb", "simon_claims"]
LANGS = ["de", "ja"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_seat_page_facing_each_decision_says_it_all_in_the_readers_language(client, kind):
    found = decision_positions().get(kind)
    assert found is not None, f"no position found for {kind}"
    position, options = found
    created = positions.start(3, position, options=options)
    token = created.tokens[position.seat]
    for code in LANGS:
        answer = client.get(f"/play/{token}?lang={code}")
        assert answer.status_code == 200
        assert f'<html lang="{code}">' in answer.get_data(as_text=True)
        left = english_left(answer.get_data(as_text=True), code)
        assert not left, f"{kind} in {code}:\n" + "\n".join(left[:25])


def test_every_public_page_says_it_all_in_the_readers_language(client):
    created = positions.start(3, name="Friday")
    positions.play_out(created.game_id)
    pages = ["/", "/tables", "/rules", "/help", "/help/mail", "/leaderboard", "/my-games",
             f"/games/{created.game_id}", f"/games/{created.game_id}/replay",
             f"/play/{created.tokens[0]}"]
    problems = []
    for path in pages:
        for code in LANGS:
            answer = client.get(f"{path}?lang={code}")
            assert answer.status_code == 200, (path, answer.status_code)
            problems += [f"{path} {code}: {left}"
                         for left in english_left(answer.get_data(as_text=True), code)]
    assert not problems, "\n".join(problems[:60])


def test_the_check_finds_english_where_it_is_left():
    """The check is worth something: an English sentence on each page kind is caught."""
    assert english_left("<p>Your turn: draw a card</p>", "ja")
    assert english_left("<p>Du bist dran, take the discard</p>", "de")
    assert not english_left("<p>Ann zieht eine Karte.</p><code>DRAW, SKIP</code>", "de")
    assert not english_left("<p>Ann がカードを引きました。</p>", "ja")


def test_the_pages_behind_a_persons_keys_say_it_all_in_their_language(client):
    """The settings page (behind its mailed key), the seat's door to it, a person's
    standing page, a page that is not there, in German and Japanese."""
    from sqlmodel import select

    from app.db import read_session
    from app.standing.models import Standing
    from tests.person_keys import settings_link

    created = positions.start(3, name="Friday")
    positions.play_out(created.game_id)
    key = settings_link(client, created.tokens[0], "ann@example.com")
    client.get("/rules")  # (the English flash of the English page that asked for it is read)
    with read_session() as session:
        public = session.exec(select(Standing.public_id)).first()
    pages = [key, f"/play/{created.tokens[0]}/settings", "/games/no-such-game"]
    if public:
        pages.append(f"/people/{public}")
    problems = []
    for path in pages:
        for code in LANGS:
            answer = client.get(f"{path}?lang={code}")
            assert answer.status_code in (200, 404), (path, answer.status_code)
            assert f'<html lang="{code}">' in answer.get_data(as_text=True), path
            problems += [f"{path} {code}: {left}"
                         for left in english_left(answer.get_data(as_text=True), code)]
    assert public, "a finished game gives its people a standing page"
    assert not problems, "\n".join(problems[:60])
