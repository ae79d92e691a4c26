"""The engine's words in the reader's language (issue 50): a game's sentences, buttons,
status lines, illegal moves, a round's summary and the final place, and the rules and
help pages, said in German and Japanese with no English sentence left; English stays as
it was (the engine's own tests assert it)."""
from __future__ import annotations

import importlib
import random
import re

import pytest

from app import i18n
from app.engine import IllegalAction, apply_action, cards, new_game, to_act, view
from app.engine import words
from app.engine.bots import choose
from app.engine.summary import round_summary
from app.standing.outcome import place_words

describe = importlib.import_module("app.engine.describe")

NAMES = ["Ann", "James", "Kenji"]
#: English words none of the engine's German or Japanese sentences may hold (card names
#: are kept in German, and "Ann"/"James"/"Kenji" are people's names).
ENGLISH = re.compile(r"\b(the|your|you|drew|village|discarded|looked|Waiting|Round|"
                     r"turn|card|pile|from|with|and|or)\b")


def _said(language: str, seed: int = 3) -> list[str]:
    """Everything a whole game of bots makes the engine say, in ``language``."""
    rng = random.Random(seed)
    st = new_game(3, seed)
    said: list[str] = []
    with i18n.in_language(language):
        while st.phase != "over":
            seat = to_act(st)[0]
            seen = view(st, seat)
            said += [words.action_label(a, seen, seat, NAMES) for a in seen["legal_actions"]]
            said.append(words.pending_sentence(seen, seat, NAMES))
            said.append(words.pending_sentence(view(st, None), None, NAMES))
            try:
                apply_action(st, seat, {"type": "call"} if seen["pending"] != "turn"
                             else {"type": "exchange"})
            except IllegalAction as refused:
                said.append(str(refused))
            action = choose("random", st, seat, rng)
            st, events = apply_action(st, seat, action)
            said.append(describe.own_result(action, events, view(st, seat), NAMES, seat))
            for event in events:
                said += [describe.event_sentence(event, NAMES, me) for me in (None, 0, 1, 2)]
            said += describe.played_for(events, NAMES, seat, seat)
            summary = round_summary(events)
            if summary is not None:
                said += summary.words(NAMES)["lines"]
        said.append(place_words(view(st, 0), 0) or "")
        said += [words.card_text(card) for card in range(cards.DECK_SIZE)]
    return [line for line in said if line]


@pytest.mark.parametrize("language, expected", [
    ("de", ["Du bist dran", "hat eine Karte gezogen", "Nachziehstapel", "Dorf", "Twister"]),
    ("ja", ["あなた", "山札", "村", "ツイスター", "ゴースト"]),
])
def test_a_game_is_told_in_the_readers_language(language, expected):
    said = _said(language)
    text = "\n".join(said)
    for word in expected:
        assert word in text
    english = [line for line in said if ENGLISH.search(line)]
    assert english == []


def test_english_is_as_it_was():
    said = _said("en")
    assert "Draw from the deck" in said
    assert any(line.startswith("You drew ") for line in said)
    assert words.card_text(7) == ("2 Simon: Faceup in your village: when a card of the "
                                  "same value lands on the pile, discard a faceup card of "
                                  "that value from your village.")


@pytest.mark.parametrize("language, heading, card", [
    ("de", "So spielst du Silver Eye", "Ghost"),
    ("ja", "Silver Eye の遊び方", "ゴースト"),
])
def test_the_rules_and_help_pages_in_the_readers_language(client, language, heading, card):
    rules = client.get(f"/rules?lang={language}").get_data(as_text=True)
    assert heading in rules and card in rules
    assert "How to play Silver Eye" not in rules and "Every card" not in rules
    help_page = client.get(f"/help?lang={language}").get_data(as_text=True)
    assert "How Silver Eye Post works" not in help_page
    assert "the clock passes your turn" not in help_page.lower()
