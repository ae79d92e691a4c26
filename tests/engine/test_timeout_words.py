"""R29: the words that say what the clock will do at a seat's deadline say what it does.

A reminder ends "2 hours left, then the clock discards the card for you", the turn mail
says it after its deadline and the seat page under its question (issue 49 item 1). For
every decision the engine asks, a position where a seat faces it is found (random play
from fixed seeds, or a stacked deck for the Spotter, R3), the engine's own
``default_action`` is applied, and what happened is what ``words.timeout_words`` promised.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine
from app.engine import words
from app.engine.meaning import decision_of
from tests.engine.test_rulings_abilities import exchange, spotter_game

#: What the clock's words must say, and the events its move must make.
DOES: dict[str, tuple[str, list[tuple[str, Any]]]] = {
    "peek": ("looks at your first two facedown cards", [("peek", None)]),         # R5
    "turn": ("passes your turn", [("pass", None)]),                  # no card moves
    "drawn": ("discards the card for you, without its ability", [("discard", None)]),
    "drawn_refused": ("adds the card facedown at the right end",     # R13, R14
                      [("kept", None)]),
    "taken": ("puts the card back on the pile", [("put_back", None)]),
    "search": ("takes the top card of the deck and discards it",     # R38
               [("pick", None), ("discard", None)]),
    "gamble_more": ("ends your turn", [("skip", "gamble_more")]),
    "gamble_win": ("skips the discard", [("skip", "gamble_win"), ("skip", "gamble_more")]),
    "twister": ("skips it", [("skip", "twister")]),                  # not begun (R37)
    "ghost": ("skips the Ghost", [("skip", "ghost")]),
    "seer": ("skips the Split Seer", [("skip", "seer")]),
    "dracula": ("skips Dracula", [("skip", "dracula")]),
    "underminer": ("skips the Underminer", [("skip", "underminer")]),
    "drunk": ("skips the Drunk", [("skip", "drunk")]),
    "nelly": ("leaves your Nelly untucked", [("skip", "nelly")]),
    "bomb": ("leaves your Mad Bomber unused", [("skip", "bomb")]),
    "simon_claims": ("keeps your cards as they are", [("skip", "simon_claim")]),  # R16
    "spotter": ("skips the search", [("skip", "spotter")]),          # R17
}


def _kind(view: dict[str, Any], seat: int) -> str | None:
    """The decision's words key: a drawn card the pile refuses has words of its own."""
    kind = decision_of(view, seat)
    if kind == "drawn" and not any(a["type"] == "discard" for a in view["legal_actions"]):
        return "drawn_refused"
    return kind


def _found(options: dict[str, Any] | None, wanted: set[str]) -> dict[str, tuple]:
    """For each kind in ``wanted``: (state, seat) where a seat first faces it."""
    found: dict[str, tuple] = {}
    for seed in range(1, 60):
        rng, state = random.Random(seed), engine.new_game(3, seed, options=options)
        while engine.view(state, None)["phase"] != "over" and not wanted <= set(found):
            for seat in range(3):
                kind = _kind(engine.view(state, seat), seat)
                if kind in wanted and kind not in found:
                    found[kind] = (state, seat)
            seat = rng.choice(engine.view(state, None)["to_act"])
            state, _ = engine.apply_action(state, seat,
                                           rng.choice(engine.legal_actions(state, seat)))
        if wanted <= set(found):
            break
    return found


@pytest.fixture(scope="module")
def positions() -> dict[str, tuple]:
    found = _found(None, set(DOES) - {"simon_claims", "spotter"})
    found.update(_found({"simon": ["off"] * 3}, {"simon_claims"}))
    game = spotter_game([30, 31, 47, 48, 32])
    game.act(0, exchange(1, spotter=True))           # the Spotter's search waits (R17)
    found["spotter"] = (game.state, 0)
    return found


@pytest.mark.parametrize("kind", sorted(DOES))
def test_r29_what_the_clock_is_said_to_do_is_what_it_does(positions, kind):
    state, seat = positions[kind]
    view = engine.view(state, seat)
    assert _kind(view, seat) == kind
    said, does = DOES[kind]
    promised = words.timeout_words(decision_of(view, seat), view["legal_actions"])
    assert promised.startswith("the clock ") and said in promised, promised
    _, events = engine.apply_action(state, seat, engine.default_action(state, seat))
    did = [(e["type"], e.get("what")) for e in events
           if e["type"] not in ("round_scored", "game_over", "turn", "round_over")]
    assert did[:len(does)] == does, f"{kind}: {promised!r}, but {did}"


def test_r29_every_decision_the_engine_asks_has_clock_words():
    asked = set(words.SUBJECT_WORDS) | {"turn"}
    assert asked <= set(words.TIMEOUT_WORDS), asked - set(words.TIMEOUT_WORDS)
    assert words.timeout_words(None) == "the clock plays the default for you"



@pytest.mark.parametrize("kind", sorted(set(DOES) - {"drawn_refused"}))
def test_the_page_and_the_turn_mail_ask_in_the_same_words(positions, kind):
    """Issue 49 item 1, one vocabulary: the seat page's status line ("Your move: …") and
    the turn mail's first line, which every notice and push repeats, say the same words
    for the decision, with its public progress and the discard it may take."""
    from app.mail.compose import lead_words

    state, seat = positions[kind]
    view, names = engine.view(state, seat), ["Ann", "Bob", "Cai"]
    asked = lead_words(decision_of(view, seat), view, seat, names)
    page = words.pending_sentence(view, seat, names)
    assert page in (f"Your move: {asked}.", f"Your move (scoring the round): {asked}."), \
        (page, asked)
