"""Scenario tests for the Obsessor rulings R13-R15.

R13 the four Obsessors and the half of the deck each accepts; R14 enforcement
(a faceup refused card is not offered, a facedown one is shown to everyone and
stays facedown, a failed exchange adds the new card at an end without a
penalty card, a refused drawn card cannot be discarded and joins the village
when nothing can be attempted, the Underminer's bottom placement ignores
Obsessors, and the same demand binds Gambler and Simon discards); R15 several
cards in one action (only the first card placed must qualify).

Card ids (R1): 34 Even, 35 Odd, 36 Low, 37 High Obsessor; every deck is
stacked (R3) so each outcome is exact.
"""
from __future__ import annotations

import pytest

from app import engine as E
from tests.engine.scenario import (EVEN_OBSESSOR, HIGH_OBSESSOR, LOW_OBSESSOR, ODD_OBSESSOR, Game,
                                   discard, draw, exchange, ids, stack, take)

SIMON, SPOTTER, GAMBLER, TANNER, TWISTER = ids(2), ids(3), ids(4), ids(5), ids(6)
DRACULA, UNDERMINER = ids(10), ids(11)
NELLY, ILLUSIONIST = ids(-1), ids(0)

SKIP = {"type": "skip"}
PASS = {"type": "pass"}

#: R13, word for word: what each Obsessor accepts on top of it
ACCEPTS = {
    EVEN_OBSESSOR: {0, 2, 4, 6, 8, 10, 12},
    ODD_OBSESSOR: {-1, 3, 5, 7, 9, 11, 13},
    LOW_OBSESSOR: {-1, 0, 2, 3, 4, 5, 6},
    HIGH_OBSESSOR: {7, 8, 9, 10, 11, 12, 13},
}
VALUES = [-1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
RULE = {EVEN_OBSESSOR: "Even Obsessor on top of the pile accepts only even values (0, 2, 4, 6, 8, 10, 12)",
        ODD_OBSESSOR: "Odd Obsessor on top of the pile accepts only odd values (-1, 3, 5, 7, 9, 11, 13)",
        LOW_OBSESSOR: "Low Obsessor on top of the pile accepts only values 6 or lower",
        HIGH_OBSESSOR: "High Obsessor on top of the pile accepts only values 7 or higher"}


def of_type(events: list[dict], type_: str) -> list[dict]:
    return [e for e in events if e["type"] == type_]


def a_card_of(value: int, besides: int) -> int:
    """The last id of that value that is not `besides` (a 9 other than the Obsessor on top)."""
    return [c for c in ids(value) if c != besides][-1]


def started(*decks, seats: int = 2, first: int = 0) -> Game:
    game = Game.start(seats, *decks, first=first)
    game.peek_all()
    return game


def ids_of(cards_: list[dict]) -> list:
    return [c["id"] for c in cards_]


# --- R13 The four Obsessors ------------------------------------------------------------

@pytest.mark.parametrize("obsessor", sorted(ACCEPTS))
@pytest.mark.parametrize("value", VALUES)
def test_r13_each_obsessor_accepts_exactly_its_half_of_the_deck(obsessor, value):
    card = a_card_of(value, besides=obsessor)
    game = started(stack([], discard=obsessor, top=[card]))      # villages: any other cards
    game.act(0, draw())
    if value in ACCEPTS[obsessor]:
        assert discard() in game.legal(0)
        game.act(0, discard())
        assert game.pile() == [obsessor, card]
    else:
        assert discard() not in game.legal(0)
        message = game.illegal(0, discard())
        assert message == (f"The {RULE[obsessor]}, so {E.cards.label(card)} can't go on it. "
                           "Exchange it instead.")


def test_r13_each_half_holds_seven_of_the_fourteen_values():
    for accepted in ACCEPTS.values():
        assert len(accepted) == 7
    assert ACCEPTS[EVEN_OBSESSOR] | ACCEPTS[ODD_OBSESSOR] == set(VALUES)
    assert ACCEPTS[LOW_OBSESSOR] | ACCEPTS[HIGH_OBSESSOR] == set(VALUES)


def test_r13_a_qualifying_facedown_card_can_be_exchanged_onto_the_obsessor():
    game = started(stack([[10, 11, 46, 13, 14], [38, 39, 40, 41, 30]], discard=EVEN_OBSESSOR,
                         top=[22]))
    game.act(0, draw())
    events = game.act(0, exchange(2))                    # a 12 on the Even Obsessor
    assert events[0]["type"] == "exchange"
    assert game.pile() == [EVEN_OBSESSOR, 46]
    assert game.village(0) == [10, 11, 22, 13, 14]


# --- R14 Enforcement: a drawn card -----------------------------------------------------

def test_r14_a_drawn_card_the_obsessor_refuses_cannot_be_discarded_but_can_be_exchanged():
    game = started(stack([[10, 11, 12, 13, 14], [38, 39, 40, 41, 30]], discard=LOW_OBSESSOR,
                         top=[46]))
    game.act(0, draw())                                  # a 12: the Low Obsessor refuses it
    legal = game.legal(0)
    assert discard() not in legal
    assert exchange(0) in legal and exchange(0, 1, 2, 3) in legal
    assert game.illegal(0, discard()) == (
        f"The {RULE[LOW_OBSESSOR]}, so 12 Drunk can't go on it. Exchange it instead.")
    game.act(0, exchange(4))                             # the 4 goes on the Low Obsessor
    assert game.pile() == [LOW_OBSESSOR, 14]
    assert game.village(0) == [10, 11, 12, 13, 46]


def test_r14_a_refused_drawn_card_on_timeout_joins_the_right_end_facedown():
    game = started(stack([[10, 11, 12, 13, 14], [38, 39, 40, 41, 30]], discard=LOW_OBSESSOR,
                         top=[46]))
    game.act(0, draw())
    events = game.act(0, PASS)
    assert game.types(events) == ["kept"]
    assert game.village(0) == [10, 11, 12, 13, 14, 46]
    assert not game.faceup(46) and game.knows(0, 46) and not game.knows(1, 46)
    assert game.pile() == [LOW_OBSESSOR] and game.current == 1


def test_r14_a_refused_tanner_may_still_use_its_ability():
    game = started(stack([[10, 11, 38, 13, 14], [39, 40, 41, 30, 31]], discard=HIGH_OBSESSOR,
                         top=[TANNER[0]]))
    game.act(0, draw())                                  # a 5: the High Obsessor refuses it
    legal = game.legal(0)
    assert discard() not in legal
    assert {"type": "tanner", "end": "left"} in legal
    events = game.act(0, {"type": "tanner", "end": "left"})
    assert events[0]["type"] == "tanner"
    assert game.village(0) == [TANNER[0], 10, 11, 38, 13, 14]
    assert all(game.faceup(c) for c in game.village(0))
    assert game.pile() == [HIGH_OBSESSOR]                # it never touched the pile


def _tanned_village_under_a_high_obsessor(third: int) -> Game:
    """Seat 0 turns its low village faceup with a Tanner; seat 1 then discards
    the High Obsessor, which refuses every card seat 0 holds."""
    village = [NELLY[0], ILLUSIONIST[0], SPOTTER[0], TWISTER[0], TWISTER[1]]
    game = started(stack([village, [30, 31, 32, 33, 26]], discard=46,
                         top=[TANNER[0], HIGH_OBSESSOR, third]))
    game.act(0, draw())
    game.act(0, {"type": "tanner", "end": "right"})
    game.act(1, draw())
    game.act(1, discard())
    assert game.pile() == [46, HIGH_OBSESSOR]
    assert all(game.faceup(c) for c in game.village(0))
    return game


def test_r14_a_refused_drawn_card_is_forced_into_the_village_when_nothing_can_be_attempted():
    game = _tanned_village_under_a_high_obsessor(third=TWISTER[2])
    events = game.act(0, draw())                         # a 6: refused, and every card of seat 0 too
    assert game.types(events) == ["draw", "kept"]
    assert of_type(events, "kept")[0]["end"] == "right"
    assert game.village(0) == [NELLY[0], ILLUSIONIST[0], SPOTTER[0], TWISTER[0], TWISTER[1],
                               TANNER[0], TWISTER[2]]
    assert not game.faceup(TWISTER[2])
    assert game.knows(0, TWISTER[2]) and not game.knows(1, TWISTER[2])
    assert game.pile() == [46, HIGH_OBSESSOR]
    assert game.current == 1 and game.pending == "turn"


def test_r14_take_is_not_offered_when_none_of_the_cards_could_go_on_the_obsessor_below():
    game = _tanned_village_under_a_high_obsessor(third=DRACULA[0])
    game.act(0, PASS)
    game.act(1, draw())
    game.act(1, discard())                               # a 10 on the High Obsessor
    game.act(1, SKIP)                                    # its Dracula, declined
    assert game.pile() == [46, HIGH_OBSESSOR, DRACULA[0]]
    # taking the 10 would leave seat 0 an exchange it can't make
    assert game.legal(0) == [draw()]
    assert game.illegal(0, take()) == ("You can't take it: none of your cards could go on the "
                                       "Obsessor below it.")


# --- R14 Enforcement: faceup and facedown village cards --------------------------------------

def test_r14_a_faceup_card_the_obsessor_refuses_is_not_offered():
    game = started(stack([[10, 11, 12, 13, 14], [38, 39, 40, 41, 30]], discard=46,
                         top=[LOW_OBSESSOR, 22]))
    game.act(0, take())
    game.act(0, exchange(0))                             # the 12 is faceup in spot 0
    game.act(1, draw())
    game.act(1, discard())                               # the Low Obsessor tops the pile
    game.act(0, draw())                                  # a 6: it qualifies
    exchanges = [a["positions"] for a in game.legal(0) if a["type"] == "exchange"]
    assert [1] in exchanges and [1, 2, 3] in exchanges and [2, 3, 4] in exchanges
    assert all(0 not in positions for positions in exchanges)
    refused = f"The {RULE[LOW_OBSESSOR]}, so 12 Drunk can't go on it."
    assert game.illegal(0, exchange(0)) == refused
    assert game.illegal(0, exchange(0, 1)) == refused
    assert discard() in game.legal(0)


@pytest.mark.parametrize("end, village", [
    ("right", [10, 11, 46, 13, 14, 22]),
    ("left", [22, 10, 11, 46, 13, 14]),
])
def test_r14_a_refused_facedown_card_is_shown_and_the_exchange_fails_without_penalty(end, village):
    game = started(stack([[10, 11, 46, 13, 14], [38, 39, 40, 41, 30]], discard=LOW_OBSESSOR,
                         top=[22, 23]))
    game.act(0, draw())                                  # a 6
    events = game.act(0, exchange(2, end=end))           # the facedown 12 is refused
    failed = of_type(events, "exchange_failed")[0]
    assert failed["reason"] == "obsessor" and failed["obsessor"] == LOW_OBSESSOR
    assert failed["penalty"] is False and failed["end"] == end
    assert failed["revealed"] == [{"id": 46, "value": 12}]
    assert game.village(0) == village
    assert not game.faceup(46) and not game.faceup(22)
    # the 12 was shown to everyone and stays facedown in its spot; the 6 only its drawer knows
    for seat in (None, 0, 1):
        assert game.view(seat)["villages"][0][village.index(46)] == {"id": 46, "value": 12,
                                                                     "faceup": False}
    assert game.knows(0, 22) and not game.knows(1, 22)
    assert game.pile() == [LOW_OBSESSOR]
    assert game.deck()[0] == 23                          # no penalty card left the deck
    assert game.current == 1


def test_r14_a_refused_exchange_of_a_taken_card_adds_it_faceup():
    game = started(stack([[10, 11, 12, 13, 14], [46, 39, 40, 41, 30]], discard=LOW_OBSESSOR,
                         top=[22, 23]))
    game.act(0, draw())
    game.act(0, discard())                               # a 6 on the Low Obsessor
    game.act(0, SKIP)                                    # its Twister, declined
    game.act(1, take())                                  # the Low Obsessor is on top again
    events = game.act(1, exchange(0))                    # the facedown 12 is refused
    assert of_type(events, "exchange_failed")[0]["reason"] == "obsessor"
    assert game.village(1) == [46, 39, 40, 41, 30, 22]
    assert game.faceup(22) and not game.faceup(46)
    assert game.knows(0, 46) and game.knows(None, 46)
    assert game.pile() == [LOW_OBSESSOR]


# --- R14 Enforcement: other ways onto the pile -----------------------------------------------

def _gamble_on_an_obsessor(obsessor: int) -> Game:
    """Seat 0 takes a Gambler faceup, then gambles right on the Obsessor on the deck."""
    game = started(stack([[10, 11, 12, 13, 46], [38, 39, 40, 41, 30]], discard=GAMBLER[0],
                         top=[22, obsessor]))
    game.act(0, take())
    game.act(0, exchange(0))                             # [Gambler, 3, 3, 3, 12]
    game.act(1, draw())
    game.act(1, discard())
    game.act(1, SKIP)
    events = game.act(0, {"type": "gamble", "value": 9})
    gamble = of_type(events, "gamble")[0]
    assert gamble["right"] is True and gamble["to_pile"] is True
    assert game.pile()[-1] == obsessor and game.pending == "gamble_win"
    return game


def test_r14_a_gamblers_win_cannot_discard_a_faceup_card_the_obsessor_refuses():
    game = _gamble_on_an_obsessor(HIGH_OBSESSOR)
    positions = [a["position"] for a in game.legal(0) if a["type"] == "discard"]
    assert positions == [1, 2, 3, 4]                     # not the faceup Gambler (a 4)
    assert game.illegal(0, {"type": "discard", "position": 0}) == (
        f"The {RULE[HIGH_OBSESSOR]}, so 4 Gambler can't go on it.")
    game.act(0, {"type": "discard", "position": 4})      # the facedown 12 qualifies
    assert game.pile()[-2:] == [HIGH_OBSESSOR, 46]
    assert game.village(0) == [GAMBLER[0], 11, 12, 13]


def test_r14_a_gamblers_win_on_a_refused_facedown_card_shows_it_and_keeps_it():
    game = _gamble_on_an_obsessor(LOW_OBSESSOR)
    events = game.act(0, {"type": "discard", "position": 4})   # a facedown 12 on the Low Obsessor
    refused = of_type(events, "refused")[0]
    assert refused["card"] == {"id": 46, "value": 12} and refused["obsessor"] == LOW_OBSESSOR
    assert game.village(0) == [GAMBLER[0], 11, 12, 13, 46]
    assert not game.faceup(46) and game.knows(1, 46) and game.knows(None, 46)
    assert game.pile()[-1] == LOW_OBSESSOR
    assert game.current == 1


def _gambler_under_a_low_obsessor() -> Game:
    """Seat 0 takes a Gambler faceup; seat 1 puts the Low Obsessor on top; the
    deck's top card is a 12, which the Low Obsessor refuses."""
    game = started(stack([[10, 11, 12, 13, 30], [38, 39, 40, 41, 31]], discard=GAMBLER[0],
                         top=[LOW_OBSESSOR, 46, 47]))
    game.act(0, take())
    game.act(0, exchange(0))                             # [Gambler, 3, 3, 3, 8]
    game.act(1, draw())
    game.act(1, discard())
    assert game.pile() == [10, LOW_OBSESSOR]
    return game


def test_r14_a_gamblers_card_the_obsessor_refuses_stays_faceup_on_the_deck():
    game = _gambler_under_a_low_obsessor()
    events = game.act(0, {"type": "gamble", "value": 12})
    gamble = of_type(events, "gamble")[0]
    assert gamble["right"] is True and gamble["to_pile"] is False
    assert game.deck()[0] == 46 and game.faceup(46)
    assert game.view(1)["deck_top"] == {"id": 46, "value": 12, "faceup": True}
    assert game.pile() == [10, LOW_OBSESSOR]
    # the win's discard lands on the Low Obsessor, so it must qualify too
    events = game.act(0, {"type": "discard", "position": 4})   # a facedown 8: refused, shown
    assert of_type(events, "refused")[0]["card"] == {"id": 30, "value": 8}
    assert game.village(0) == [GAMBLER[0], 11, 12, 13, 30]


def test_r14_a_wrong_gamble_on_a_refused_card_puts_that_faceup_card_in_the_village():
    game = _gambler_under_a_low_obsessor()
    events = game.act(0, {"type": "gamble", "value": 3, "end": "left"})
    gamble = of_type(events, "gamble")[0]
    assert gamble["right"] is False and gamble["to_pile"] is False
    assert gamble["joined"] == {"id": 46, "value": 12} and gamble["end"] == "left"
    assert game.village(0) == [46, GAMBLER[0], 11, 12, 13, 30]
    assert game.faceup(46)                               # it keeps its orientation
    assert game.pile() == [10, LOW_OBSESSOR] and game.deck()[0] == 47


@pytest.mark.parametrize("obsessor, discarded", [(EVEN_OBSESSOR, False), (ODD_OBSESSOR, True)])
def test_r14_binds_an_automatic_simon_discard(obsessor, discarded):
    """Seat 1 holds a faceup Simon and a faceup High Obsessor; seat 0 then
    discards another Obsessor, a 9, which calls for seat 1's Simon (R16)."""
    game = started(stack([[10, 11, 12, 13, 14], [38, 39, 40, 41, 30]], discard=SIMON[0],
                         top=[HIGH_OBSESSOR, obsessor]), first=1)
    game.act(1, take())
    game.act(1, exchange(0))                             # the Simon, faceup
    game.act(0, draw())
    game.act(0, discard())                               # the High Obsessor (no Simon match: 2 vs 9)
    game.act(1, take())
    game.act(1, exchange(1))                             # the High Obsessor, faceup
    assert game.village(1) == [SIMON[0], HIGH_OBSESSOR, 40, 41, 30]
    game.act(0, draw())
    events = game.act(0, discard())                      # a 9 on top: Simon wants the faceup 9
    if discarded:
        assert of_type(events, "simon")[0]["card"] == {"id": HIGH_OBSESSOR, "value": 9}
        assert game.pile()[-2:] == [obsessor, HIGH_OBSESSOR]
        assert game.village(1) == [SIMON[0], 40, 41, 30]
    else:                                                # the Even Obsessor refuses a 9
        assert "simon" not in game.types(events)
        assert game.pile()[-1] == obsessor
        assert game.village(1) == [SIMON[0], HIGH_OBSESSOR, 40, 41, 30]


def test_r14_the_underminers_bottom_placement_ignores_obsessors():
    game = started(stack([[10, 11, 12, 13, 14], [38, 39, 40, 41, 46]], discard=HIGH_OBSESSOR,
                         top=[30, 31, UNDERMINER[0]]))
    game.act(0, draw())
    game.act(0, discard())                               # an 8 on the High Obsessor
    game.act(0, SKIP)
    game.act(1, draw())
    game.act(1, discard())                               # another 8
    game.act(1, SKIP)
    game.act(0, draw())
    game.act(0, discard())                               # the Underminer
    assert game.pile() == [HIGH_OBSESSOR, 30, 31, UNDERMINER[0]]
    game.act(0, {"type": "undermine", "seat": 0, "position": 0})
    game.act(0, {"type": "undermine", "seat": 0, "position": 1})
    game.act(0, {"type": "undermine", "pile": 1})
    events = game.act(0, {"type": "undermine", "pile": 2})
    # two facedown 3s go under the High Obsessor: not refused, not shown
    assert "refused" not in game.types(events)
    assert game.pile() == [10, 11, HIGH_OBSESSOR, UNDERMINER[0]]
    assert not game.faceup(10) and not game.faceup(11)
    assert ids_of(game.view(1)["discard"][:2]) == [None, None]
    assert game.village(0) == [30, 31, 12, 13, 14]
    assert game.faceup(30) and game.faceup(31)


# --- R15 Several cards in one action -------------------------------------------------------------

@pytest.mark.parametrize("positions, top, next_discard_allowed", [
    ([0, 2], HIGH_OBSESSOR, True),                        # Low first, High on top
    ([2, 0], LOW_OBSESSOR, False),                        # High first, Low on top
])
def test_r15_several_obsessors_discarded_together_only_the_first_must_qualify(
        positions, top, next_discard_allowed):
    # the Odd Obsessor accepts a 9; the second 9 lands on the first in the same action
    game = started(stack([[LOW_OBSESSOR, 10, HIGH_OBSESSOR, 11, 12], [38, 39, 40, 41, 30]],
                         discard=ODD_OBSESSOR, top=[46, 47]))
    game.act(0, draw())
    events = game.act(0, exchange(*positions))
    assert events[0]["type"] == "exchange"
    assert game.pile()[:2] == [ODD_OBSESSOR, [LOW_OBSESSOR, HIGH_OBSESSOR][positions[0] // 2]]
    assert game.pile()[-1] == top                         # the player chose which one is on top
    assert game.village(0) == [46, 10, 11, 12]
    game.act(1, draw())                                   # a 12: only the High Obsessor allows it
    assert (discard() in game.legal(1)) is next_discard_allowed


def test_r15_a_matching_set_the_obsessor_refuses_fails_without_a_penalty_card():
    game = started(stack([[ODD_OBSESSOR, LOW_OBSESSOR, HIGH_OBSESSOR, 10, 11], [38, 39, 40, 41, 30]],
                         discard=EVEN_OBSESSOR, top=[46, 47]))
    game.act(0, draw())
    events = game.act(0, exchange(0, 1, 2))               # three 9s match, but the first is refused
    failed = of_type(events, "exchange_failed")[0]
    assert failed["reason"] == "obsessor" and failed["penalty"] is False
    assert game.village(0) == [ODD_OBSESSOR, LOW_OBSESSOR, HIGH_OBSESSOR, 10, 11, 46]
    assert not any(game.faceup(c) for c in game.village(0))
    for card in (ODD_OBSESSOR, LOW_OBSESSOR, HIGH_OBSESSOR):
        assert game.knows(1, card) and game.knows(None, card)
    assert game.pile() == [EVEN_OBSESSOR]
    assert game.deck()[0] == 47


def test_r15_r45_a_spotters_match_declared_in_the_same_action_need_not_qualify():
    """R45 (docs/rules.md): the match goes onto the pile with its action's cards."""
    # seat 0: faceup Spotter, a facedown Low and High Obsessor; seat 1 hides the Even Obsessor
    game = started(stack([[10, LOW_OBSESSOR, HIGH_OBSESSOR, 11, 12], [EVEN_OBSESSOR, 23, 24, 25, 26]],
                         discard=SPOTTER[3], top=[22, 46]))
    game.act(0, take())
    game.act(0, exchange(0))                              # the Spotter faceup in spot 0
    game.act(1, draw())
    game.act(1, discard())
    game.act(1, SKIP)
    game.act(0, draw())
    game.act(0, exchange(2, 1, spotter=True))             # High then Low: the Low Obsessor on top
    game.act(0, {"type": "spot", "seat": 1})
    events = game.act(0, {"type": "look", "position": 0})  # the Even Obsessor: a 9, a match
    assert "refused" not in game.types(events)
    assert game.pile()[-3:] == [HIGH_OBSESSOR, LOW_OBSESSOR, EVEN_OBSESSOR]
