"""Scenario tests for the card abilities: rulings R16-R23 on stacked decks (R3).

Covers R16 Simon (auto reactions, seat order, never below 1, a Simon discarding
itself, the Obsessor binding it, no chain reaction, the `off` claim window),
R17 Spotter, R18 Gambler, R19 Tanner, R20 Twister, R21 Ghost, R22 Split Seer,
R23 Dracula, Underminer and Drunk (with the empty-deck edges of R12), and the
rule that "drawn from deck" abilities never work for a card taken from the pile
or turned up by a Gambler. Round end and scoring (R24-R30) are in
`test_rulings_scoring_and_async.py`.

Card ids (R1): 0-3 Nelly, 4-5 Illusionist, 6-9 Simon, 10-13 Spotter,
14-17 Gambler, 18-21 Tanner, 22-25 Twister, 26-29 Ghost, 30-33 Split Seer,
34-37 Obsessors (Even, Odd, Low, High), 38-41 Dracula, 42-45 Underminer,
46-49 Drunk, 50-51 Mad Bomber.
"""
from __future__ import annotations

import pytest

from tests.engine.scenario import Game, discard, draw, exchange, stack, take

EVEN_O, ODD_O, LOW_O, HIGH_O = 34, 35, 36, 37

SKIP = {"type": "skip"}
PASS = {"type": "pass"}


def tan(game: Game, seat: int, end: str = "right") -> None:
    """The seat draws the Tanner on top of the deck and uses it (R19): its whole
    village is faceup afterwards, the quickest honest way to get faceup cards."""
    game.act(seat, draw())
    game.act(seat, {"type": "tanner", "end": end})


def simon_events(events):
    return [(e["seat"], e["card"]["id"], e["auto"]) for e in events if e["type"] == "simon"]


def burn(game: Game, until: int) -> None:
    """Draw and discard (declining every ability) until `until` cards are left."""
    while game.state.phase == "play" and len(game.state.deck) > until:
        seat = game.current
        game.act(seat, draw())
        game.act(seat, discard() if game.can(seat, discard()) else exchange(0))
        while game.state.phase == "play" and game.current == seat and game.pending != "turn":
            game.act(seat, SKIP)


# --- R16 Simon ------------------------------------------------------------------

def test_r16_auto_simon_discards_one_matching_faceup_card_per_simon_on_another_seats_turn():
    deck = stack(villages=[[22, 23, 24, 25, 30], [6, 10, 12, 46, 47]], discard=31,
                 top=[18, 11])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    tan(game, 1)                       # seat 1: Simon, 3, 3, 12, 12, Tanner, all faceup
    game.act(0, draw())                # a 3 (Spotter)
    events = game.act(0, discard())
    assert game.pile() == [31, 11, 10]
    assert game.village(1) == [6, 12, 46, 47, 18], "one Simon: one 3 goes, the leftmost"
    assert simon_events(events) == [(1, 10, True)]
    simon = next(e for e in events if e["type"] == "simon")
    assert simon["position"] == 1
    assert game.current == 1 and game.pending == "turn"


def test_r16_auto_simon_reactions_go_in_seat_order_from_the_acting_seat():
    deck = stack(villages=[[6, 13, 46, 47, 42], [7, 11, 48, 49, 43], [8, 12, 38, 39, 44]],
                 discard=22, top=[18, 19, 20, 10])
    game = Game.start(3, deck, first=0)
    game.peek_all()
    tan(game, 0)
    tan(game, 1)
    tan(game, 2)
    game.act(0, PASS)
    game.act(1, draw())
    events = game.act(1, discard())    # seat 1 discards a 3: seats 1, 2, 0 react in that order
    assert game.pile() == [22, 10, 11, 12, 13]
    assert simon_events(events) == [(1, 11, True), (2, 12, True), (0, 13, True)]


def test_r16_auto_simon_never_discards_a_card_below_1():
    deck = stack(villages=[[22, 23, 24, 25, 30], [6, 4, 0, 46, 47]], discard=31,
                 top=[18, 5, 1])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    tan(game, 1)                       # seat 1: Simon, Illusionist, Nelly faceup
    game.act(0, draw())
    events = game.act(0, discard())    # an Illusionist (0) on top
    assert game.top() == 5 and simon_events(events) == []
    assert game.village(1) == [6, 4, 0, 46, 47, 18]
    assert not any(a["type"] == "simon" for a in game.legal(1)), "auto: no claim window either"
    game.act(1, draw())
    events = game.act(1, discard())    # a Nelly (-1) on top, seat 1's own turn
    assert game.top() == 1 and simon_events(events) == []
    assert 0 in game.village(1)


def test_r16_a_two_on_top_lets_each_simon_discard_a_simon_itself():
    deck = stack(villages=[[22, 23, 24, 25, 30], [6, 7, 46, 47, 42]], discard=31, top=[18, 8])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    tan(game, 1)
    game.act(0, draw())
    events = game.act(0, discard())
    assert game.pile() == [31, 8, 6, 7]
    assert game.village(1) == [46, 47, 42, 18]
    assert simon_events(events) == [(1, 6, True), (1, 7, True)]


def test_r16_the_obsessor_on_top_binds_simon_discards():
    # High Obsessor discarded: seat 1's two Simons may discard faceup 9s; the Even
    # Obsessor goes (9 is "7 or higher"), then it is on top and refuses the Odd one.
    deck = stack(villages=[[22, 23, 24, 25, 30], [6, 7, EVEN_O, ODD_O, 46]], discard=31,
                 top=[18, HIGH_O])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    tan(game, 1)
    game.act(0, draw())
    events = game.act(0, discard())
    assert game.pile() == [31, HIGH_O, EVEN_O]
    assert game.village(1) == [6, 7, ODD_O, 46, 18]
    assert simon_events(events) == [(1, EVEN_O, True)]


def test_r16_simon_discards_trigger_no_chain_reaction():
    deck = stack(villages=[[6, 10, 11, 46, 47], [7, 12, 48, 49, 42]], discard=22,
                 top=[18, 19, 13])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)
    tan(game, 1)
    game.act(0, draw())
    events = game.act(0, discard())
    # seat 0 (the acting seat) reacts first, then seat 1; seat 1's 3 landing on
    # top does not give seat 0's Simon another go at its second 3
    assert game.pile() == [22, 13, 10, 12]
    assert simon_events(events) == [(0, 10, True), (1, 12, True)]
    assert game.village(0) == [6, 11, 46, 47, 18]
    assert game.faceup(11)


def test_r16_off_preference_opens_a_claim_window_while_that_value_is_on_top():
    deck = stack(villages=[[22, 23, 24, 25, 30], [6, 27, 28, 46, 47]], discard=31,
                 top=[18, 26])
    game = Game.start(2, deck, first=1, options={"simon": ["auto", "off"]})
    game.peek_all()
    tan(game, 1)                       # seat 1: Simon, 7, 7, 12, 12, Tanner faceup
    game.act(0, draw())
    game.act(0, discard())             # a Ghost (7) on top; seat 0 now holds its Ghost decision
    assert game.village(1) == [6, 27, 28, 46, 47, 18], "`off`: nothing is discarded for seat 1"
    view = game.view(None)
    assert view["to_act"] == [0] and view["pending"] == "ghost", "an open claim is not in to_act"
    assert game.legal(1) == [{"type": "simon", "position": 1}, {"type": "simon", "position": 2}]

    events = game.act(1, {"type": "simon", "position": 2})   # claimed on seat 0's turn
    assert game.top() == 28 and simon_events(events) == [(1, 28, False)]
    assert game.legal(1) == [], "one Simon: one claim"
    assert "no Simon discard" in game.illegal(1, {"type": "simon", "position": 1})
    assert game.current == 0 and game.pending == "ghost", "the claim did not touch seat 0's turn"

    game.act(0, {"type": "ghost", "seat": 1, "position": 2})  # a 12 goes on top: a new window
    assert game.village(1) == [6, 27, 47, 18]
    assert game.current == 1, "seat 0's turn is over, seat 1's begins"
    assert [a for a in game.legal(1) if a["type"] == "simon"] == [{"type": "simon", "position": 2}]
    msg = game.illegal(1, {"type": "simon", "position": 1})  # the 7's window has closed
    assert "must be faceup and match the top of the pile" in msg


def test_r16_a_manual_claim_triggers_no_reaction_from_auto_seats():
    deck = stack(villages=[[6, 10, 11, 46, 47], [7, 12, 48, 49, 42]], discard=22,
                 top=[18, 19, 13])
    game = Game.start(2, deck, first=0, options={"simon": ["auto", "off"]})
    game.peek_all()
    tan(game, 0)
    tan(game, 1)
    game.act(0, draw())
    events = game.act(0, discard())                  # a 3: seat 0's Simon discards one of its 3s
    assert simon_events(events) == [(0, 10, True)]
    assert [a for a in game.legal(1) if a["type"] == "simon"] == [{"type": "simon", "position": 1}]
    events = game.act(1, {"type": "simon", "position": 1})
    assert simon_events(events) == [(1, 12, False)]
    assert game.pile() == [22, 13, 10, 12]
    assert 11 in game.village(0), "seat 0's other 3 stays: a claim is a reaction, no chain"


def test_r16_an_off_seat_may_claim_a_card_below_1_by_hand():
    deck = stack(villages=[[22, 23, 24, 25, 30], [6, 4, 0, 46, 47]], discard=31, top=[18, 5])
    game = Game.start(2, deck, first=1, options={"simon": ["auto", "off"]})
    game.peek_all()
    tan(game, 1)
    game.act(0, draw())
    game.act(0, discard())                           # an Illusionist on top
    assert {"type": "simon", "position": 1} in game.legal(1)
    assert {"type": "simon", "position": 2} not in game.legal(1), "the Nelly does not match"
    game.act(1, {"type": "simon", "position": 1})
    assert game.pile() == [31, 5, 4] and game.village(1) == [6, 0, 46, 47, 18]


# --- R17 Spotter ----------------------------------------------------------------

def spotter_game(village1, top=(14,)):
    """Seat 0 takes the Spotter that starts the pile (it is faceup in its village
    afterwards, 22 goes to the pile), seat 1 passes, seat 0 draws `top[0]`."""
    deck = stack(villages=[[22, 46, 23, 24, 25], village1], discard=10, top=list(top))
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0))
    game.act(1, PASS)
    game.act(0, draw())
    assert game.village(0) == [10, 46, 23, 24, 25] and game.faceup(10)
    return game


def test_r17_spotter_declared_in_a_matching_exchange_discards_the_first_match_found():
    game = spotter_game([30, 31, 47, 48, 32])
    game.act(0, exchange(1, spotter=True))          # the 12 goes, the Spotter search starts
    assert game.pending == "spotter" and game.pile() == [22, 46]
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 0})    # an 8: no match, keep looking
    events = game.act(0, {"type": "look", "position": 2})   # a 12: discarded too
    assert [e["type"] for e in events] == ["look", "spotted"]
    assert game.pile() == [22, 46, 47]
    assert game.village(1) == [30, 31, 48, 32], "only the first match is discarded"
    assert game.knows(0, 30), "a looked-at card stays known to the looker (R30)"
    assert not game.knows(None, 30) and not game.knows(0, 32)
    assert game.current == 1 and game.pending == "turn"


def test_r17_spotter_may_stop_after_any_look():
    game = spotter_game([30, 31, 47, 48, 32])
    game.act(0, exchange(1, spotter=True))
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 4})
    assert game.can(0, SKIP)
    game.act(0, SKIP)
    assert game.village(1) == [30, 31, 47, 48, 32]
    assert game.knows(0, 32) and not game.knows(0, 47)
    assert game.current == 1


def test_r17_spotter_finding_no_match_changes_nothing_else():
    game = spotter_game([30, 31, 32, 33, 26])
    game.act(0, exchange(1, spotter=True))
    game.act(0, {"type": "spot", "seat": 1})
    for pos in range(4):
        game.act(0, {"type": "look", "position": pos})
        assert game.pending == "spotter"
    events = game.act(0, {"type": "look", "position": 4})  # the last facedown card: search over
    assert [e["type"] for e in events] == ["look"] and events[0]["found"] is False
    assert game.village(1) == [30, 31, 32, 33, 26]
    assert game.pile() == [22, 46], "the planned discard still happened, nothing more"
    assert all(game.knows(0, c) for c in [30, 31, 32, 33, 26])
    assert not any(game.faceup(c) for c in [30, 31, 32, 33, 26])
    assert game.current == 1


def test_r17_spotter_must_be_declared_in_the_discarding_action():
    game = spotter_game([30, 31, 47, 48, 32])
    game.act(0, exchange(1))                        # not declared: no search afterwards
    assert game.current == 1 and game.pending == "turn"
    game.act(1, draw())
    assert game.illegal(1, exchange(0, spotter=True)) == "You have no faceup Spotter to use."


def test_r17_spotter_is_not_used_when_the_exchange_fails():
    game = spotter_game([30, 31, 47, 48, 32])
    events = game.act(0, exchange(1, 2, spotter=True))   # 12 and 6: no match
    assert "exchange_failed" in [e["type"] for e in events]
    assert game.current == 1 and game.pending == "turn"


def test_r17_spotter_after_a_right_gamble_discard():
    deck = stack(villages=[[10, 14, 46, 22, 23], [47, 30, 31, 32, 33]], discard=24,
                 top=[18, 38])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)                                     # Spotter and Gambler faceup
    game.act(1, PASS)
    game.act(0, {"type": "gamble", "value": 10})     # right: a Dracula
    game.act(0, {"type": "discard", "position": 2, "spotter": True})   # the 12
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 0})
    assert game.pile() == [24, 38, 46, 47]
    assert game.village(1) == [30, 31, 32, 33]
    assert game.current == 1


def test_r17_spotter_with_a_ghost_on_the_seats_own_card():
    game = spotter_game([30, 31, 47, 48, 32], top=(26,))    # seat 0 draws a Ghost
    game.act(0, discard())
    assert game.illegal(0, {"type": "ghost", "seat": 1, "position": 0, "spotter": True}) == \
        "A Spotter only helps when you discard from your own village."
    # seat 0's village: Spotter, 12, 6, 6, 6 -> ghost its 12 and search its own village
    game.act(0, {"type": "ghost", "seat": 0, "position": 2, "spotter": True})
    assert game.village(0) == [10, 46, 24, 25]
    game.act(0, {"type": "spot", "seat": 0})
    game.act(0, {"type": "look", "position": 2})      # a 6: the Twister ghosted matches
    assert game.pile() == [22, 26, 23, 24]
    assert game.village(0) == [10, 46, 25]


# --- R18 Gambler ----------------------------------------------------------------

def gambler_game(village0, top, village1=(30, 31, 32, 33, 48)):
    """Seat 0 takes the Gambler that starts the pile for its leftmost card, seat 1 passes."""
    deck = stack(villages=[village0, list(village1)], discard=14, top=top)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0))
    game.act(1, PASS)
    return game


def test_r18_right_guess_discards_any_card_even_the_gambler_then_the_turn_ends():
    game = gambler_game([22, 46, 23, 24, 25], top=[38])
    assert {"type": "gamble", "value": 10} in game.legal(0)
    events = game.act(0, {"type": "gamble", "value": 10})
    gamble = events[0]
    assert gamble["type"] == "gamble" and gamble["right"] is True and gamble["to_pile"] is True
    assert game.pile() == [22, 38] and game.pending == "gamble_win"
    assert game.legal(0) == [{"type": "discard", "position": p} for p in range(5)] + [SKIP]
    game.act(0, {"type": "discard", "position": 0})          # the Gambler itself
    assert game.pile() == [22, 38, 14]
    assert game.village(0) == [46, 23, 24, 25]
    # no Dracula decision: a Gambler's flipped card has no "drawn from deck" ability
    assert game.current == 1 and game.pending == "turn"


def test_r18_wrong_guess_adds_the_next_deck_card_unseen_and_the_flipped_card_has_no_ability():
    game = gambler_game([22, 46, 23, 24, 25], top=[26, 47])
    events = game.act(0, {"type": "gamble", "value": 12, "end": "left"})
    assert events[0]["right"] is False
    assert game.pile() == [22, 26]                    # the Ghost, without its ability
    assert game.village(0) == [47, 14, 46, 23, 24, 25]
    assert not game.faceup(47)
    assert not game.knows(0, 47) and not game.knows(1, 47) and not game.knows(None, 47)
    assert game.current == 1 and game.pending == "turn"


def test_r18_obsessor_keeps_a_right_flipped_card_faceup_on_the_deck():
    game = gambler_game([EVEN_O, 46, 23, 24, 25], top=[27])   # the Even Obsessor goes on top
    assert game.pile() == [EVEN_O]
    events = game.act(0, {"type": "gamble", "value": 7})
    assert events[0]["right"] is True and events[0]["to_pile"] is False
    assert game.deck()[0] == 27 and game.faceup(27)
    assert game.view(1)["deck_top"] == {"id": 27, "value": 7, "faceup": True}
    assert game.pile() == [EVEN_O]
    game.act(0, SKIP)                                 # right, but nothing discarded
    assert game.current == 1


def test_r18_obsessor_keeps_the_flipped_card_which_then_joins_on_a_wrong_guess():
    game = gambler_game([EVEN_O, 46, 23, 24, 25], top=[27, 28])
    events = game.act(0, {"type": "gamble", "value": 3})
    assert events[0]["right"] is False and events[0]["to_pile"] is False
    assert game.village(0) == [14, 46, 23, 24, 25, 27]
    assert game.faceup(27), "the top deck card joins in its orientation: faceup"
    assert game.deck()[0] == 28 and game.pile() == [EVEN_O]
    assert game.current == 1


def test_r18_several_gamblers_one_after_another_then_the_turn_ends():
    deck = stack(villages=[[14, 15, 47, 42, 22], [30, 31, 32, 33, 48]], discard=EVEN_O,
                 top=[18, 27])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)                                     # [G, G, 12, 11, 6, Tanner] all faceup
    game.act(1, PASS)
    assert game.illegal(0, {"type": "gamble"}) == "Name a card value to gamble on: -1, 0, 2 to 13."
    game.act(0, {"type": "gamble", "value": 7})       # right; the Even Obsessor keeps it on the deck
    # R14: faceup odd cards (the 11 and the Tanner) can't be discarded onto the Even Obsessor
    assert game.legal(0) == [{"type": "discard", "position": p} for p in (0, 1, 2, 4)] + [SKIP]
    game.act(0, SKIP)
    assert game.pending == "gamble_more"
    assert {"type": "done"} in game.legal(0) and {"type": "gamble", "value": 7} in game.legal(0)
    events = game.act(0, {"type": "gamble", "value": 7})   # the faceup top card: easy, but named
    assert events[0]["card"] == {"id": 27, "value": 7}
    game.act(0, {"type": "discard", "position": 2})
    assert game.pile() == [EVEN_O, 47]
    assert game.current == 1, "both Gamblers used: the turn ends"


def test_r18_done_ends_a_gambling_turn_early():
    deck = stack(villages=[[14, 15, 47, 42, 22], [30, 31, 32, 33, 48]], discard=23,
                 top=[18, 38])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)
    game.act(1, PASS)
    game.act(0, {"type": "gamble", "value": 10})
    game.act(0, SKIP)
    game.act(0, {"type": "done"})
    assert game.current == 1 and game.pile() == [23, 38]


def test_r18_r35_a_gambler_that_discards_itself_leaves_the_other_gambler_usable():
    # docs/rules.md R35: each Gambler faceup when gambling began gives one guess; the
    # Gambler discarded by its own win is the used one, so the other may still guess.
    deck = stack(villages=[[14, 15, 47, 42, 22], [30, 31, 32, 33, 48]], discard=23,
                 top=[18, 38, 39])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)
    game.act(1, PASS)
    game.act(0, {"type": "gamble", "value": 10})      # right
    game.act(0, {"type": "discard", "position": 0})   # "even the Gambler itself"
    assert game.pile() == [23, 38, 14] and game.faceup(15)
    assert game.current == 0 and game.pending == "gamble_more"
    game.act(0, {"type": "gamble", "value": 10})      # the second Gambler: right again
    game.act(0, {"type": "skip"})
    assert game.current == 1 and game.pending == "turn"


# --- R19 Tanner -----------------------------------------------------------------

@pytest.mark.parametrize("end, expected", [("left", [18, 30, 31, 32, 33, 46]),
                                           ("right", [30, 31, 32, 33, 46, 18])])
def test_r19_tanner_goes_faceup_at_either_end_and_turns_the_village_faceup(end, expected):
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=22, top=[18])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    assert {"type": "tanner", "end": end} in game.legal(0)
    game.act(0, {"type": "tanner", "end": end})
    assert game.village(0) == expected
    assert all(game.faceup(c) for c in expected)
    assert all(game.knows(None, c) for c in expected)
    assert game.pile() == [22], "the Tanner never touches the pile"
    assert not any(game.faceup(c) for c in game.village(1))
    assert game.current == 1


def test_r19_tanner_ignores_the_obsessor_on_top():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=EVEN_O, top=[18])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    assert discard() not in game.legal(0), "the Even Obsessor refuses the 5"
    game.act(0, {"type": "tanner", "end": "left"})
    assert game.village(0) == [18, 30, 31, 32, 33, 46] and game.pile() == [EVEN_O]


def test_r19_tanner_kept_by_exchange_goes_facedown_with_no_ability():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=22, top=[18])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(2))
    assert game.village(0) == [30, 31, 18, 33, 46]
    assert not any(game.faceup(c) for c in game.village(0))
    assert game.knows(0, 18) and not game.knows(1, 18)
    assert game.pile() == [22, 32] and game.current == 1


def test_r19_tanner_taken_from_the_pile_has_no_ability():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=18)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    assert {a["type"] for a in game.legal(0)} == {"exchange"}
    assert game.illegal(0, {"type": "tanner", "end": "left"}) == \
        "You took the top discard: exchange it for one or more of your cards."


def test_r19_a_drawn_tanner_may_simply_be_discarded():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=22, top=[18])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pile() == [22, 18] and not any(game.faceup(c) for c in game.village(0))
    assert game.current == 1


# --- R20 Twister ----------------------------------------------------------------

def test_r20_twister_turns_exactly_as_many_cards_as_the_village_holds():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 42]], discard=47, top=[22])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pending == "twister"
    legal = game.legal(0)
    assert len(legal) == 11 and legal[-1] == SKIP     # any of the 10 cards, or decline
    game.act(0, {"type": "twist", "seat": 1, "position": 0})
    assert game.illegal(0, SKIP) == "You can't skip this: turn over cards in any villages."
    assert game.illegal(0, {"type": "twist", "seat": 1, "position": 0}) == \
        "You already turned that card with this Twister: choose another."
    for seat, pos in [(1, 1), (0, 0), (0, 4)]:
        game.act(0, {"type": "twist", "seat": seat, "position": pos})
    assert game.pending == "twister" and game.view(1)["pending_detail"]["left"] == 1
    game.act(0, {"type": "twist", "seat": 1, "position": 4})
    assert game.current == 1, "five cards turned: done"
    up = {c for c in range(52) if game.faceup(c)} - set(game.pile())
    assert up == {38, 39, 30, 46, 42}
    assert all(game.knows(None, c) for c in up)


def test_r20_twister_count_is_the_village_size_when_it_starts_and_faceup_cards_turn_down():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 42]], discard=47, top=[18, 22])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)                                      # six faceup cards
    game.act(1, PASS)
    game.act(0, draw())
    game.act(0, discard())
    for pos in range(5):
        game.act(0, {"type": "twist", "seat": 0, "position": pos})
        assert game.current == 0 and game.pending == "twister"
    game.act(0, {"type": "twist", "seat": 0, "position": 5})
    assert game.current == 1
    assert not any(game.faceup(c) for c in game.village(0))
    # they were public: everyone still knows them where they lie (R30)
    assert all(game.knows(1, c) and game.knows(None, c) for c in game.village(0))


# --- R21 Ghost ------------------------------------------------------------------

def test_r21_ghost_discards_one_card_from_any_village():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 42]], discard=47, top=[26])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pending == "ghost"
    assert len(game.legal(0)) == 11 and SKIP in game.legal(0)
    events = game.act(0, {"type": "ghost", "seat": 1, "position": 2})
    assert events[0]["type"] == "ghost" and events[0]["card"] == {"id": 40, "value": 10}
    assert game.pile() == [47, 26, 40] and game.faceup(40)
    assert game.village(1) == [38, 39, 41, 42]
    assert game.current == 1


def test_r21_ghost_may_be_declined():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 42]], discard=47, top=[26])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, SKIP)
    assert game.pile() == [47, 26] and len(game.village(1)) == 5 and game.current == 1


# --- R22 Split Seer -------------------------------------------------------------

def test_r22_split_seer_views_one_facedown_card_of_each_village_its_own_included():
    deck = stack(villages=[[38, 39, 40, 41, 46], [42, 43, 44, 45, 47]], discard=22, top=[30])
    game = Game.start(2, deck, first=0)
    game.peek_all()                                   # both seats know their cards 0 and 1
    game.act(0, draw())
    game.act(0, discard())
    assert game.pending == "seer"
    game.act(0, {"type": "see", "seat": 0, "position": 3})
    assert game.illegal(0, {"type": "see", "seat": 0, "position": 4}) == \
        "You already looked at a card in that village."
    assert {"type": "see", "seat": 1, "position": 4} in game.legal(0)
    game.act(0, {"type": "see", "seat": 1, "position": 4})
    assert game.current == 1, "every village seen: the ability is over"
    assert game.knows(0, 41) and game.knows(0, 47)
    assert not game.knows(0, 40) and not game.knows(0, 44)
    assert not game.knows(1, 47) and not game.knows(None, 41) and not game.knows(None, 47)
    assert not game.faceup(41) and not game.faceup(47)


def test_r22_each_village_may_be_skipped_and_a_faceup_village_is_not_offered():
    deck = stack(villages=[[38, 39, 40, 41, 46], [42, 43, 44, 45, 47], [23, 24, 25, 26, 48]],
                 discard=22, top=[18, 30])
    game = Game.start(3, deck, first=1)
    game.peek_all()
    tan(game, 1)                                      # seat 1 has no facedown card left
    game.act(2, PASS)
    game.act(0, draw())
    game.act(0, discard())
    assert {a.get("seat") for a in game.legal(0) if a["type"] == "see"} == {0, 2}
    game.act(0, {"type": "see", "seat": 2, "position": 3})
    game.act(0, SKIP)                                 # its own village is skipped
    assert game.current == 1
    assert game.knows(0, 26) and not game.knows(0, 40)


# --- R23 Dracula ------------------------------------------------------------------

def test_r23_dracula_moves_the_five_cards_under_it_to_the_deck_bottom_in_order():
    deck = stack(villages=[[30, 31, 32, 33, 46], [42, 43, 44, 45, 47]], discard=22,
                 top=[0, 1, 2, 3, 4, 5, 38])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for card in [0, 1, 2, 3, 4, 5]:
        game.act(game.current, draw())
        game.act(game.current, discard())
    assert game.pile() == [22, 0, 1, 2, 3, 4, 5]
    game.act(0, draw())
    game.act(0, discard())
    assert game.legal(0) == [{"type": "dracula"}, SKIP]
    events = game.act(0, {"type": "dracula"})
    assert events[0]["type"] == "dracula"
    assert game.pile() == [22, 0, 38]
    # the card that was just under the Dracula (5) is the first of them to be drawn
    assert game.deck()[-5:] == [5, 4, 3, 2, 1]
    assert all(game.faceup(c) for c in [1, 2, 3, 4, 5]), "faceup cards stay faceup in the deck"
    n = game.view(1)["deck_count"]
    assert n == 31 - 7 + 5
    known = game.view(1)["deck_known"]
    assert {"position": n - 5, "card": {"id": 5, "value": 0, "faceup": True}} in known
    assert {"position": n - 1, "card": {"id": 1, "value": -1, "faceup": True}} in known
    assert game.current == 1


def test_r23_dracula_moves_all_the_cards_under_it_when_fewer_than_five():
    deck = stack(villages=[[30, 31, 32, 33, 46], [42, 43, 44, 45, 47]], discard=22,
                 top=[0, 38])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(1, draw())
    game.act(1, discard())
    game.act(1, {"type": "dracula"})
    assert game.pile() == [38]
    assert game.deck()[-2:] == [0, 22]


# --- R23 Underminer -------------------------------------------------------------

def test_r23_underminer_swaps_two_village_cards_with_two_pile_cards():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=22,
                 top=[0, 42])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())                            # pile: 6, Nelly
    game.act(1, draw())
    game.act(1, discard())                            # pile: 6, Nelly, Underminer
    assert game.pending == "underminer"
    game.act(1, {"type": "undermine", "seat": 0, "position": 3})
    assert game.illegal(1, {"type": "undermine", "seat": 1, "position": 0}) == \
        "Both cards must come from the same village."
    game.act(1, {"type": "undermine", "seat": 0, "position": 1})
    assert game.legal(1) == [{"type": "undermine", "pile": 0}, {"type": "undermine", "pile": 1}, SKIP]
    assert game.illegal(1, {"type": "undermine", "pile": 2}) == \
        "You can't take the Underminer you just played."
    game.act(1, {"type": "undermine", "pile": 1})     # the Nelly, paired with position 3
    assert game.illegal(1, {"type": "undermine", "pile": 1}) == "You already chose that pile card."
    game.act(1, {"type": "undermine", "pile": 0})     # the 6, paired with position 1
    assert game.village(0) == [30, 22, 32, 0, 46]
    assert game.faceup(22) and game.faceup(0), "pile cards stay faceup in the village"
    assert game.pile() == [33, 31, 42], "village cards go to the pile bottom"
    assert not game.faceup(33) and not game.faceup(31), "...facedown as they were"
    assert game.view(None)["discard"][0] == {"id": None, "value": None, "faceup": False}
    assert game.view(0)["discard"][1]["id"] == 31, "seat 0 peeked at 31 and still knows it"
    assert game.view(0)["discard"][0]["id"] is None
    assert game.current == 0


def test_r23_underminer_needs_two_pile_cards_besides_itself():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=22, top=[42])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pile() == [22, 42]
    assert game.current == 1 and game.pending == "turn", "no Underminer decision offered"


# --- R23 Drunk ----------------------------------------------------------------------

def test_r23_drunk_gives_the_top_deck_card_to_an_end_of_any_village_unseen():
    deck = stack(villages=[[30, 31, 32, 33, 38], [39, 40, 41, 42, 47]], discard=22, top=[46, 0])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.legal(0) == [{"type": "drunk", "seat": s, "end": e}
                             for s in (0, 1) for e in ("left", "right")] + [SKIP]
    game.act(0, {"type": "drunk", "seat": 1, "end": "left"})
    assert game.village(1) == [0, 39, 40, 41, 42, 47]
    assert not game.faceup(0)
    assert not game.knows(0, 0) and not game.knows(1, 0) and not game.knows(None, 0)
    assert game.current == 1


def unused_seats_hold_the_obsessors(v0, v1):
    """Villages for a 2-seat deck whose removed third village holds the four
    Obsessors, so that burning the deck never meets one (R2)."""
    return [v0, v1, [EVEN_O, ODD_O, LOW_O, HIGH_O, 50]]


def test_r23_dracula_refills_an_empty_deck_and_the_drunk_keeps_a_faceup_card_faceup():
    deck = stack(villages=unused_seats_hold_the_obsessors([30, 31, 32, 33, 40], [39, 41, 42, 43, 47]),
                 discard=22, bottom=[4, 46, 38])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    burn(game, 3)
    a = game.current
    game.act(a, draw())                               # the Illusionist
    game.act(a, discard())
    b = game.current
    game.act(b, draw())                               # the Drunk, declined
    game.act(b, discard())
    game.act(b, SKIP)
    game.act(a, draw())                               # the Dracula: the deck is empty now
    game.act(a, discard())
    assert game.state.deck == [] and game.pending == "dracula"
    under = game.pile()[-6:-1]
    game.act(a, {"type": "dracula"})
    assert game.state.phase == "play", "the step refilled the deck: play goes on (R12)"
    assert game.deck() == under[::-1] and game.deck()[:2] == [46, 4]
    assert game.current == b
    game.act(b, draw())                               # the faceup Drunk, drawn from the deck
    game.act(b, discard())
    assert game.pending == "drunk"
    game.act(b, {"type": "drunk", "seat": a, "end": "right"})
    assert game.village(a)[-1] == 4 and game.faceup(4), "a faceup card stays faceup"


def test_r23_drunk_drawn_as_the_last_card_does_nothing_and_the_round_ends():
    deck = stack(villages=unused_seats_hold_the_obsessors([30, 31, 32, 33, 40], [39, 41, 42, 43, 47]),
                 discard=22, bottom=[46])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    burn(game, 1)
    seat = game.current
    game.act(seat, draw())
    events = game.act(seat, discard())
    assert "drunk" not in [e["type"] for e in events]
    assert "round_end" in [e["type"] for e in events]
    assert game.state.round == 2


def test_r23_a_dracula_declined_on_an_empty_deck_lets_the_round_end():
    deck = stack(villages=unused_seats_hold_the_obsessors([30, 31, 32, 33, 40], [39, 41, 42, 43, 47]),
                 discard=22, bottom=[38])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    burn(game, 1)
    seat = game.current
    game.act(seat, draw())
    game.act(seat, discard())
    assert game.pending == "dracula" and game.state.deck == []
    events = game.act(seat, SKIP)
    assert "round_end" in [e["type"] for e in events] and game.state.round == 2


def test_r18_a_wrong_guess_on_the_last_deck_card_adds_nothing_and_the_round_ends():
    deck = stack(villages=unused_seats_hold_the_obsessors([14, 30, 31, 32, 33], [39, 41, 42, 43, 47]),
                 discard=22, top=[18], bottom=[40])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    tan(game, 0)                                     # a faceup Gambler
    burn(game, 1)
    if game.current != 0:
        game.act(1, PASS)
    village = game.village(0)
    events = game.act(0, {"type": "gamble", "value": 2})
    gamble = events[0]
    assert gamble["right"] is False and gamble["to_pile"] is True and gamble["joined"] is None
    assert "round_end" in [e["type"] for e in events]
    assert events[-1]["type"] != "gamble" and game.state.round == 2
    end = next(e for e in events if e["type"] == "round_end")
    assert [c["id"] for c in end["villages"][0]] == village, "nothing joined seat 0's village"


# --- drawn-from-deck abilities: never for a taken card -------------------------------

def test_drawn_from_deck_ability_is_not_offered_for_a_card_taken_from_the_pile():
    deck = stack(villages=[[30, 31, 32, 33, 46], [38, 39, 40, 41, 47]], discard=26)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())                               # a Ghost
    assert {a["type"] for a in game.legal(0)} == {"exchange"}
    game.act(0, exchange(2))
    assert game.village(0) == [30, 31, 26, 33, 46] and game.faceup(26)
    assert game.current == 1 and game.pending == "turn"
