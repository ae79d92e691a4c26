"""The events in words (R31) say what the picture shows after the step.

Every sentence here comes from a real step of a stacked-deck game; the position
a sentence names is looked up in the view after that step, the way a player
reads the message and then looks at the table.
"""
from __future__ import annotations

import re

import pytest

from app.engine import cards
from app.engine.describe import as_seen_by, describe, event_sentence, move_result, new_card_spot
from tests.engine.scenario import Game, discard, draw, exchange, stack
from tests.engine.test_rulings_abilities import spotter_game

NAMES = ["Ann", "Bob"]


def spots_named(sentence: str) -> list[int]:
    """The 0-based positions a sentence names ('cards #3 and #5' -> [2, 4])."""
    return [int(n) - 1 for n in re.findall(r"#(\d+)", sentence)]


def test_r8_after_an_exchange_of_three_the_sentence_names_where_the_new_card_now_sits():
    # three 8s at #1, #3, #5, the new card into #5: the row closes up to three cards
    game = Game.start(2, stack([[30, 10, 31, 11, 32], [22, 23, 24, 25, 26]], discard=46,
                               top=[38]), first=0)
    game.peek_all()
    game.act(0, draw())
    event = game.act(0, exchange(0, 2, 4, into=4))[0]
    sentence = event_sentence(event, NAMES, 0)
    assert spots_named(sentence) == [new_card_spot([0, 2, 4], 4)] == [2]
    assert game.view(0)["villages"][0][2]["id"] == 38, "the spot named holds the new card"
    for card in (30, 31, 32):                       # the cards that left are named, not placed
        assert cards.label(card) in sentence
    assert sentence == (f"You exchanged 3 cards ({cards.label(30)}, {cards.label(31)} and "
                        f"{cards.label(32)}) for the new card, now card #3.")
    # right after the move Ann is told the card she drew, read off her own view
    said = move_result([(exchange(0, 2, 4, into=4), [event])], game.view(0), NAMES, 0)
    assert said.endswith(f"for {cards.label(38)}, now card #3.")
    # the others read the same sentence about Ann, without the drawn card's value
    assert describe(event, NAMES).startswith("Ann exchanged 3 cards (")
    assert "now card #3" in describe(event, NAMES)


@pytest.mark.parametrize("end", ["left", "right"])
def test_r8_a_failed_exchange_names_the_tried_cards_where_they_are_after_the_new_one_joined(end):
    game = Game.start(2, stack([[10, 30, 11, 38, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[39, 40]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(1, 3, end=end))   # an 8 and a 10: no match
    failed = [e for e in events if e["type"] == "exchange_failed"][0]
    named = spots_named(describe(failed, NAMES))
    seen = game.view(1)["villages"][0]               # the public picture after the step
    assert [seen[p]["id"] for p in named] == [30, 38], (end, named)


def test_r44_a_penalty_card_at_the_left_end_pushes_the_tried_cards_two_spots():
    game = Game.start(2, stack([[30, 10, 38, 11, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[47, 40]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(0, 2, 4, end="left"))   # three values: a penalty card
    failed = [e for e in events if e["type"] == "exchange_failed"][0]
    assert failed["penalty"] is True
    named = spots_named(describe(failed, NAMES))
    seen = game.view(1)["villages"][0]
    assert [seen[p]["id"] for p in named] == [30, 38, 12]


def test_r17_a_spotter_match_is_named_by_its_card_not_by_a_spot_that_is_gone():
    game = spotter_game([30, 31, 47, 48, 32])
    game.act(0, exchange(1, spotter=True))
    game.act(0, {"type": "spot", "seat": 1})
    missed = game.act(0, {"type": "look", "position": 0})
    assert spots_named(describe(missed[0], NAMES)) == [0]   # a miss: the card stays at #1
    events = game.act(0, {"type": "look", "position": 2})   # the 12 at #3 is discarded
    said = [describe(e, NAMES) for e in events]
    assert not any(spots_named(s) for s in said), said
    assert cards.label(47) in said[1]
    assert move_result([({"type": "look", "position": 2}, events)], game.view(0), NAMES, 0) == (
        f"You looked at a facedown card of Bob's village: a match. "
        f"Your Spotter discarded {cards.label(47)} from Bob's village.")


def test_r23_an_underminer_in_one_post_says_what_it_swapped_and_never_done():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=22,
                 top=[0, 42])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(1, draw())
    game.act(1, discard())
    steps = [{"type": "undermine", "seat": 0, "position": 3},
             {"type": "undermine", "seat": 0, "position": 1},
             {"type": "undermine", "pile": 1}, {"type": "undermine", "pile": 0}]
    results = [(step, game.act(1, step)) for step in steps]
    view = game.view(1)
    one_post = move_result(results, view, NAMES, 1)
    assert one_post == f"Your Underminer swapped Ann's cards #4 and #2 with {cards.label(0)} " \
                       f"and {cards.label(22)} from the pile."
    # posted one step at a time (no JavaScript), each early choice is said in words
    first = move_result(results[:1], view, NAMES, 1)
    assert first.startswith("Underminer: you chose Ann's card #4") and "done" not in first.lower()
    third = move_result(results[2:3], view, NAMES, 1)
    assert third.startswith("Underminer: you chose to take the ") and "done" not in third.lower()


@pytest.mark.parametrize("value", sorted(set(cards.VALUE)))
def test_r31_a_spotter_looks_for_an_8_and_an_11_in_the_engine_sentence(value):
    """The article is right at the source, so mails and replays say it too."""
    sentence = describe({"type": "spot", "seat": 0, "target": 1, "value": value}, NAMES)
    expected = "an" if value in (8, 11, 18) else "a"
    assert f"looking for {expected} {value}." in sentence
    assert not re.search(r"\ba (8|11|18)\b", sentence)


def test_r13_an_obsessor_refusing_a_value_says_an_8():
    from app.engine.table import refusal_text
    from tests.engine.scenario import ODD_OBSESSOR
    assert "so an 8 can't go on it" in refusal_text(ODD_OBSESSOR, value=8)


def test_the_events_in_words_build_on_the_one_vocabulary_without_a_cycle():
    """describe.py takes its small words from words.py; words.py needs nothing of describe."""
    import ast
    import importlib
    from pathlib import Path

    from app.engine import words
    describe_module = importlib.import_module("app.engine.describe")  # the package exports the function

    def imports(module) -> set[str]:
        found = set()
        for node in ast.walk(ast.parse(Path(module.__file__).read_text())):
            if isinstance(node, ast.ImportFrom):
                found.add("." * node.level + (node.module or ""))
        return found

    assert ".words" in imports(describe_module)
    assert ".describe" not in imports(words)


def test_a_drawn_card_is_named_to_its_seat_while_it_holds_it_and_to_no_one_else():
    """Issue 51 item 3 ("You drew a card." did not name it): Ann draws the 10 Dracula; her
    own words name it (right after the move, and in her page's log while she holds it),
    Bob's and a spectator's say "Ann drew a card."; once she has exchanged it, her old
    draw line is as the table saw it, and the exchange names the card instead (R30)."""
    game = Game.start(2, stack([[30, 10, 31, 11, 32], [22, 23, 24, 25, 26]], discard=46,
                               top=[38]), first=0)
    game.peek_all()
    [drew] = game.act(0, draw())
    mine, drawn = game.view(0), cards.label(38)
    assert move_result([(draw(), [drew])], mine, NAMES, 0) == f"You drew {drawn} from the deck."
    assert event_sentence(as_seen_by(drew, mine, 0), NAMES, 0) == \
        f"You drew {drawn} from the deck."
    assert event_sentence(as_seen_by(drew, game.view(1), 1), NAMES, 1) == "Ann drew a card."
    assert event_sentence(as_seen_by(drew, game.view(None), None), NAMES, None) == \
        "Ann drew a card."
    game.act(0, exchange(1))
    after = game.view(0)
    assert event_sentence(as_seen_by(drew, after, 0), NAMES, 0) == "You drew a card."
    assert drawn in move_result([(exchange(1), game.events[-1:])], after, NAMES, 0)
