"""Scenario tests for round end, scoring and async play: rulings R24-R30, on
stacked decks (R3).

Covers R24 round end (faceup at scoring, Nelly tucks incl. under a Mad Bomber
and -13, Illusionist, Mad Bomber removals incl. the other Bomber, resolution
order from the eye holder), R25 caller scoring, R26 where the silver eye goes
(ties, negative sums), R27 using the eye (search, pick, reshuffle, closing),
R28 game end and tie-breaks, R29 every timeout default (`pass` and
`engine.default_action`, with docs/rules.md R37/R38), R30 knowledge (the
`memory` option, the spectator). Card abilities (R16-R23) are in
`test_rulings_abilities.py`.

Card ids (R1): 0-3 Nelly, 4-5 Illusionist, 6-9 Simon, 10-13 Spotter,
14-17 Gambler, 18-21 Tanner, 22-25 Twister, 26-29 Ghost, 30-33 Split Seer,
34-37 Obsessors (Even, Odd, Low, High), 38-41 Dracula, 42-45 Underminer,
46-49 Drunk, 50-51 Mad Bomber.
"""
from __future__ import annotations

import pytest

from app import engine as E
from tests.engine.scenario import Game, discard, draw, exchange, stack, take

EVEN_O = 34
SKIP = {"type": "skip"}
PASS = {"type": "pass"}
CALL = {"type": "call"}


def tan(game: Game, seat: int) -> None:
    """The seat draws the Tanner on top of the deck and uses it: all faceup (R19)."""
    game.act(seat, draw())
    game.act(seat, {"type": "tanner", "end": "right"})


def play_call_round(game: Game, caller: int) -> list[dict]:
    """A quick round: the caller draws and exchanges its leftmost pair (a match:
    4 cards left), then calls on its next turn; every other turn is a timeout."""
    rnd = game.state.round
    game.peek_all()
    events = []
    while game.state.round == rnd and game.state.phase == "play":
        seat = game.current
        if seat == caller and game.state.caller is None:
            if len(game.village(seat)) > 4:
                events += game.act(seat, draw())
                events += game.act(seat, exchange(0, 1))
            else:
                events += game.act(seat, CALL)
        else:
            events += game.act(seat, PASS)
    return events


def scored(events) -> dict:
    return next(e for e in events if e["type"] == "round_scored")


def known_ids(view: dict) -> set[int]:
    """Every card id a view shows, wherever it lies."""
    cards = [c for v in view["villages"] for c in v] + view["discard"]
    cards += [k["card"] for k in view["deck_known"]]
    if view["hand"]:
        cards.append(view["hand"])
    return {c["id"] for c in cards if c["id"] is not None}


# --- R24 round end ------------------------------------------------------------------

def test_r24_faceup_at_scoring_is_noted_before_all_cards_turn_up_and_a_nelly_is_tucked():
    deck = stack(villages=[[46, 47, 6, 7, 14], [1, 4, 48, 49, 42]], discard=0)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))                      # the Nelly faceup, two 12s gone
    game.act(1, PASS)
    game.act(0, CALL)
    events = game.act(1, PASS)
    end = next(e for e in events if e["type"] == "round_end")
    assert end["reason"] == "call" and end["faceup_at_scoring"] == [0]
    view = game.view(None)
    assert view["phase"] == "resolve" and view["scoring"]["faceup_at_scoring"] == [0]
    assert all(c["faceup"] for v in view["villages"] for c in v), "then all turned faceup"
    assert view["to_act"] == [0] and view["pending"] == "nelly"
    # not under itself, a 0 (the Illusionist) or a negative card (the other Nelly)
    assert game.legal(0) == [{"type": "nelly", "seat": 0, "position": p} for p in (1, 2, 3)] + \
        [{"type": "nelly", "seat": 1, "position": p} for p in (2, 3, 4)] + [SKIP]
    assert game.illegal(0, {"type": "nelly", "seat": 1, "position": 1}) == \
        "A Nelly can't go under a 0 or under a card that is already negative."
    events = game.act(0, {"type": "nelly", "seat": 1, "position": 2})
    s = scored(events)
    # seat 0: 2+2+4, the tucked Nelly scores 0; seat 1: the facedown-at-scoring
    # Nelly -1, the facedown Illusionist 0, the 12 with a Nelly -12, 12, 11
    assert s["sums"] == [8, 10] and s["scores"] == [0, 10]
    assert game.state.round == 2, "no other choice: scored, next round dealt (R4)"


def test_r24_nelly_may_go_under_a_mad_bomber_which_then_scores_minus_13():
    deck = stack(villages=[[50, 51, 6, 7, 8], [46, 14, 15, 18, 19]], discard=0)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))                      # both Bombers to the pile, 51 on top
    game.act(1, take())
    game.act(1, exchange(0))                         # seat 1: Mad Bomber faceup
    game.act(0, CALL)
    game.act(1, PASS)
    assert game.view(None)["pending"] == "nelly"
    assert {"type": "nelly", "seat": 1, "position": 0} in game.legal(0)
    game.act(0, {"type": "nelly", "seat": 1, "position": 0})
    assert game.view(None)["to_act"] == [1] and game.view(None)["pending"] == "bomb"
    events = game.act(1, SKIP)                       # the Bomber not used
    s = scored(events)
    assert s["sums"] == [6, -13 + 4 + 4 + 5 + 5]
    assert s["scores"] == [16, 5], "R25: the caller is not lowest: 6 + 10"
    assert (s["eye_holder"], s["eye_open"]) == (1, False)


def test_r24_mad_bomber_removes_itself_and_one_card_with_the_nelly_under_it():
    deck = stack(villages=[[0, 1, 6, 7, 8], [46, 47, 14, 15, 18]], discard=50)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))                      # Bomber faceup; the two Nellys to the pile
    game.act(1, take())
    game.act(1, exchange(0))                         # seat 1: a faceup Nelly
    game.act(0, CALL)
    game.act(1, PASS)
    # Nellys before Mad Bombers: seat 1 first although seat 0 holds the eye
    assert game.view(None)["to_act"] == [1] and game.view(None)["pending"] == "nelly"
    game.act(1, {"type": "nelly", "seat": 1, "position": 1})     # under its own 12
    assert game.village(1) == [47, 14, 15, 18]
    assert game.view(None)["to_act"] == [0] and game.view(None)["pending"] == "bomb"
    events = game.act(0, {"type": "bomb", "seat": 1, "position": 0})
    bomb = next(e for e in events if e["type"] == "bomb")
    assert [c["id"] for c in bomb["removed"]] == [50, 47, 1]
    s = scored(events)
    assert s["sums"] == [6, 13] and s["scores"] == [0, 13]


def bomber_duel(first: int) -> Game:
    """Seat 0 takes a Mad Bomber (pair exchange), seat 1 tans one faceup, seat 0 calls."""
    deck = stack(villages=[[46, 47, 6, 7, 8], [51, 14, 15, 30, 31]], discard=50, top=[18])
    game = Game.start(2, deck, first=first)
    game.peek_all()
    if first == 1:
        tan(game, 1)
    game.act(0, take())
    game.act(0, exchange(0, 1))
    if first == 0:
        tan(game, 1)
    else:
        game.act(1, PASS)
    game.act(0, CALL)
    game.act(1, PASS)
    assert game.view(None)["phase"] == "resolve"
    return game


def test_r24_a_mad_bomber_may_hit_the_other_bomber_before_it_resolves():
    game = bomber_duel(first=0)
    assert game.view(None)["to_act"] == [0], "the eye holder resolves first"
    assert {"type": "bomb", "seat": 1, "position": 0} in game.legal(0)
    events = game.act(0, {"type": "bomb", "seat": 1, "position": 0})
    bomb = next(e for e in events if e["type"] == "bomb")
    assert [c["id"] for c in bomb["removed"]] == [50, 51]
    s = scored(events)                               # seat 1's Bomber is gone: no choice left
    assert s["sums"] == [6, 4 + 4 + 8 + 8 + 5] and s["scores"] == [0, 29]


def test_r24_resolution_goes_clockwise_from_the_silver_eye_holder():
    game = bomber_duel(first=1)
    assert game.view(None)["to_act"] == [1] and game.legal(0) == []
    events = game.act(1, {"type": "bomb", "seat": 0, "position": 0})
    assert scored(events)["sums"] == [6, 29]


def test_r24_faceup_illusionist_scores_minus_the_deck_count_and_a_facedown_one_zero():
    deck = stack(villages=[[46, 47, 6, 7, 8], [5, 14, 15, 18, 19]], discard=4)
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))
    game.act(1, PASS)
    game.act(0, CALL)
    events = game.act(1, PASS)                       # no round-end choice: scored at once
    s = scored(events)
    assert s["deck_count"] == 31
    assert s["sums"] == [-31 + 6, 0 + 4 + 4 + 5 + 5]
    assert s["scores"] == [0, 18]


# --- R25 caller scoring, R26 the silver eye ----------------------------------------

@pytest.mark.parametrize("village1, sums, scores, eye", [
    ([10, 11, 12, 0, 4], [8, 8], [0, 8], (0, True)),     # tied for lowest: 0, eye open
    ([10, 11, 12, 0, 1], [8, 7], [18, 7], (1, False)),   # not lowest: 8 + 10
])
def test_r25_caller_scores_zero_when_lowest_or_tied_else_sum_plus_10(village1, sums, scores, eye):
    deck = stack(villages=[[46, 47, 6, 7, 8], village1], discard=22, top=[9])
    game = Game.start(2, deck, first=0)
    s = scored(play_call_round(game, caller=0))
    assert s["caller"] == 0 and s["sums"] == sums and s["scores"] == scores
    assert s["successful"] is (scores[0] == 0)
    assert (s["eye_holder"], s["eye_open"]) == eye
    assert game.view(1)["silver_eye"] == {"holder": eye[0], "open": eye[1]}
    assert game.view(1)["round_scores"] == [scores] and game.view(1)["totals"] == scores


def test_r26_a_tie_with_the_successful_caller_goes_to_the_caller_open():
    # seat 1 starts and holds the eye; both end with 0 points; the caller wins it
    deck = stack(villages=[[48, 49, 0, 1, 6], [46, 47, 2, 3, 7]], discard=22, top=[5, 4])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    game.act(1, draw())
    game.act(1, exchange(0, 1))                      # [Illusionist, Nelly, Nelly, 2] = 0
    game.act(0, draw())
    game.act(0, exchange(0, 1))                      # the same: 0
    game.act(1, PASS)
    game.act(0, CALL)
    s = scored(game.act(1, PASS))
    assert s["sums"] == [0, 0] and s["scores"] == [0, 0]
    assert (s["eye_holder"], s["eye_open"]) == (0, True)
    assert game.state.current == 0, "the eye holder starts the next round (R6)"


def test_r26_a_negative_sum_beats_the_successful_callers_zero():
    deck = stack(villages=[[46, 47, 6, 7, 8], [5, 9, 10, 11, 12]], discard=4, top=[18])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))                      # a faceup Illusionist
    tan(game, 1)                                     # seat 1's Illusionist faceup too
    game.act(0, CALL)
    s = scored(game.act(1, PASS))
    assert s["deck_count"] == 30
    assert s["sums"] == [-30 + 6, -30 + 2 + 3 + 3 + 3 + 5]
    assert s["scores"] == [0, -14]
    assert (s["eye_holder"], s["eye_open"]) == (1, False)


THREE_SEAT_FAILED_CALL = dict(
    villages=[[6, 7, 10, 11, 14], [46, 47, 48, 49, 42], [8, 9, 12, 13, 15]], discard=22, top=[43])


def test_r26_tie_without_the_caller_the_holder_keeps_the_eye():
    game = Game.start(3, stack(**THREE_SEAT_FAILED_CALL), first=0)
    s = scored(play_call_round(game, caller=1))
    assert s["sums"] == [14, 46, 14] and s["scores"] == [14, 56, 14]
    assert (s["eye_holder"], s["eye_open"]) == (0, False)


def test_r26_tie_without_the_holder_goes_first_clockwise_from_the_left_of_the_start_player():
    game = Game.start(3, stack(**THREE_SEAT_FAILED_CALL), first=1)
    s = scored(play_call_round(game, caller=1))
    assert s["scores"] == [14, 56, 14]
    assert (s["eye_holder"], s["eye_open"]) == (2, False), "seat 2 is left of the start player"


# --- R27 using the silver eye ---------------------------------------------------------

ROUND_WON_BY_SEAT_0 = stack(villages=[[46, 47, 6, 7, 8], [18, 19, 20, 21, 22]], discard=23, top=[9])
ROUND_WON_BY_SEAT_1 = stack(villages=[[18, 19, 20, 21, 22], [46, 47, 6, 7, 8]], discard=23, top=[9])


def open_eye_game(round2: list[int]) -> Game:
    """Round 1: seat 0 calls with 8 against 26 and wins the eye open; round 2 is `round2`."""
    game = Game.start(2, ROUND_WON_BY_SEAT_0, round2, first=0)
    play_call_round(game, caller=0)
    assert game.state.round == 2
    assert game.view(0)["silver_eye"] == {"holder": 0, "open": True}
    game.peek_all()
    return game


def test_r27_the_open_eye_searches_the_deck_takes_a_card_as_if_drawn_and_reshuffles():
    round2 = stack(villages=[[30, 31, 32, 33, 46], [39, 40, 41, 42, 47]], discard=22,
                   top=[38], bottom=[26])
    game = open_eye_game(round2)
    game.act(0, draw())                              # a Dracula: the 6 goes faceup under the deck
    game.act(0, discard())
    game.act(0, {"type": "dracula"})
    assert game.deck()[-2:] == [26, 22] and game.faceup(22)
    game.act(1, PASS)
    assert {"type": "search"} in game.legal(0), "any one of its turns, not only the first"
    assert {"type": "search"} not in game.legal(1)
    game.act(0, {"type": "search"})
    assert len(game.view(0)["deck_known"]) == 31, "the holder sees the whole deck"
    assert known_ids(game.view(1)) & set(game.deck()) == {22}
    assert {a["type"] for a in game.legal(0)} == {"pick"}, "no call, no draw: pick a card"
    before = [c for c in game.deck() if c != 26]
    assert game.deck().index(26) == 29
    events = game.act(0, {"type": "pick", "position": 29})   # the Ghost, second from the bottom
    assert events[0]["type"] == "pick" and game.state.hand == 26
    assert sorted(game.deck()) == sorted(before) and game.deck() != before, "reshuffled"
    assert game.faceup(22) and sum(game.faceup(c) for c in game.deck()) == 1, "orientations kept"
    assert all(k["card"]["id"] == 22 for k in game.view(0)["deck_known"]), "positions forgotten (R30)"
    assert game.view(1)["silver_eye"] == {"holder": 0, "open": False}, "the eye closes"
    game.act(0, discard())
    assert game.pending == "ghost", "a card found with the eye keeps its ability"
    game.act(0, SKIP)
    game.act(1, PASS)
    assert {"type": "search"} not in game.legal(0)


def test_r27_the_eye_is_not_used_on_a_call_and_an_unused_eye_closes_at_round_end():
    round2 = stack(villages=[[46, 47, 6, 7, 8], [18, 19, 20, 21, 22]], discard=0)
    game = open_eye_game(round2)
    game.act(0, take())
    game.act(0, exchange(0, 1))                      # a faceup Nelly, four cards
    game.act(1, PASS)
    legal = game.legal(0)
    assert CALL in legal and {"type": "search"} in legal, "alternatives: one or the other"
    game.act(0, CALL)
    assert game.view(1)["silver_eye"] == {"holder": 0, "open": True}
    game.act(1, PASS)
    view = game.view(None)
    assert view["phase"] == "resolve" and view["pending"] == "nelly"
    assert view["silver_eye"] == {"holder": 0, "open": False}, "unused: closed at round end"


def test_r27_r38_a_search_that_times_out_takes_the_top_card_and_discards_it():
    round2 = stack(villages=[[30, 31, 32, 33, 46], [39, 40, 41, 42, 47]], discard=22, top=[26])
    game = open_eye_game(round2)
    game.act(0, {"type": "search"})
    assert E.default_action(game.state, 0) == PASS
    events = game.act(0, PASS)
    assert [e["type"] for e in events][:2] == ["pick", "discard"]
    assert game.top() == 26 and game.current == 1, "discarded without the Ghost's ability"
    assert game.view(1)["silver_eye"]["open"] is False


# --- R28 game end -------------------------------------------------------------------------

def test_r28_after_four_rounds_a_tied_total_goes_to_the_silver_eye_holder():
    game = Game.start(2, ROUND_WON_BY_SEAT_0, ROUND_WON_BY_SEAT_1, ROUND_WON_BY_SEAT_0,
                      ROUND_WON_BY_SEAT_1, first=0)
    for caller in (0, 1, 0, 1):
        events = play_call_round(game, caller)
    view = game.view(None)
    assert view["round_scores"] == [[0, 26], [26, 0], [0, 26], [26, 0]]
    assert view["phase"] == "over" and view["totals"] == [26 * 2, 26 * 2]
    assert view["silver_eye"]["holder"] == 1 and view["winner"] == 1
    over = next(e for e in events if e["type"] == "game_over")
    assert over["winner"] == 1 and over["totals"] == [52, 52]
    assert game.illegal(0, draw()) == "The game is over."
    assert E.default_action(game.state, 0) is None and game.legal(0) == []


def test_r28_a_tie_without_the_holder_goes_to_the_tied_seat_first_clockwise_from_it():
    failed = stack(villages=[[18, 19, 6, 7, 10], [38, 39, 46, 47, 42], [20, 21, 8, 9, 11]],
                   discard=22, top=[43])
    won = stack(villages=[[6, 7, 10, 11, 4], [0, 1, 2, 3, 14], [8, 9, 12, 13, 5]],
                discard=22, top=[15])
    game = Game.start(3, failed, won, won, won, first=1)
    first = scored(play_call_round(game, caller=1))
    assert first["scores"] == [17, 56, 17] and first["eye_holder"] == 2   # R26 from left of seat 1
    for _ in range(3):
        assert scored(play_call_round(game, caller=1))["scores"] == [10, 0, 10]
    view = game.view(None)
    assert view["totals"] == [47, 56, 47] and view["silver_eye"]["holder"] == 1
    assert view["winner"] == 2, "seats 0 and 2 tie; seat 2 is first clockwise from the holder"


# --- R29 timeouts ------------------------------------------------------------------------

PLAIN = dict(villages=[[31, 32, 33, 40, 41], [43, 44, 45, 47, 48]], discard=23)


def test_r29_a_turn_not_begun_times_out_as_a_pass_that_moves_no_card():
    game = Game.start(2, stack(**PLAIN), first=0)
    game.peek_all()
    before = (game.village(0), game.village(1), game.pile(), game.deck())
    assert E.default_action(game.state, 0) == PASS
    assert E.default_action(game.state, 1) is None
    assert game.illegal(1, PASS) == "You have nothing to decide right now."
    events = game.act(0, PASS)
    assert [e["type"] for e in events] == ["pass"]
    assert (game.village(0), game.village(1), game.pile(), game.deck()) == before
    assert game.current == 1


def test_r29_a_pass_counts_as_the_final_turn_after_a_call():
    deck = stack(villages=[[46, 47, 6, 7, 8], [18, 19, 20, 21, 22]], discard=23, top=[9])
    game = Game.start(2, deck, first=0)
    types = [e["type"] for e in play_call_round(game, caller=0)]
    i = types.index("call")
    assert types[i:i + 3] == ["call", "pass", "round_end"]


def test_r29_a_drawn_card_is_discarded_without_its_ability():
    game = Game.start(2, stack(**PLAIN, top=[26]), first=0)
    game.peek_all()
    game.act(0, draw())
    assert E.default_action(game.state, 0) == PASS
    game.act(0, PASS)
    assert game.pile() == [23, 26] and game.current == 1 and game.pending == "turn"


def test_r29_a_drawn_card_the_pile_refuses_joins_the_village_facedown_at_the_right_end():
    deck = stack(villages=PLAIN["villages"], discard=EVEN_O, top=[27])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, PASS)
    assert game.village(0) == [31, 32, 33, 40, 41, 27] and not game.faceup(27)
    assert game.knows(0, 27) and not game.knows(None, 27)
    assert game.pile() == [EVEN_O] and game.current == 1


def test_r29_a_taken_card_goes_back_on_top_with_no_simon_reaction():
    deck = stack(villages=[[30, 31, 32, 33, 46], [6, 10, 40, 41, 47]], discard=11, top=[18])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    tan(game, 1)                                     # seat 1: a faceup Simon and a faceup 3
    game.act(0, take())                              # the 3
    events = game.act(0, PASS)
    assert [e["type"] for e in events] == ["put_back"]
    assert game.pile() == [11] and game.village(1) == [6, 10, 40, 41, 47, 18]
    assert game.village(0) == [30, 31, 32, 33, 46] and game.current == 1


@pytest.mark.parametrize("card, kind", [(22, "twister"), (26, "ghost"), (30, "seer"),
                                        (38, "dracula"), (46, "drunk")])
def test_r29_a_drawn_cards_ability_not_yet_used_is_declined(card, kind):
    game = Game.start(2, stack(**PLAIN, top=[card]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pending == kind and E.default_action(game.state, 0) == PASS
    before = (game.village(0), game.village(1), game.pile(), game.deck())
    events = game.act(0, PASS)
    assert events[0] == {**events[0], "type": "skip", "what": kind, "timeout": True}
    assert (game.village(0), game.village(1), game.pile(), game.deck()) == before
    assert not any(game.faceup(c) for v in (0, 1) for c in game.village(v))
    assert game.current == 1


def test_r29_an_underminer_half_chosen_is_declined_and_nothing_moves():
    game = Game.start(2, stack(**PLAIN, top=[0, 42]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(1, draw())
    game.act(1, discard())
    game.act(1, {"type": "undermine", "seat": 0, "position": 0})
    game.act(1, {"type": "undermine", "seat": 0, "position": 1})
    game.act(1, {"type": "undermine", "pile": 0})
    game.act(1, PASS)
    assert game.village(0) == [31, 32, 33, 40, 41] and game.pile() == [23, 0, 42]
    assert game.current == 0


def test_r29_a_split_seer_part_used_and_a_spotter_search_part_done_are_declined():
    deck = stack(villages=[[30, 46, 38, 39, 40], [41, 42, 47, 43, 44]], discard=10, top=[31, 48])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0))                         # faceup Spotter; the 8 to the pile
    game.act(1, draw())                              # a Split Seer
    game.act(1, discard())
    game.act(1, {"type": "see", "seat": 0, "position": 2})
    game.act(1, PASS)                                # seat 1's own village not looked into
    assert game.knows(1, 38) and not game.knows(1, 43) and game.current == 0
    game.act(0, draw())                              # a 12
    game.act(0, exchange(1, spotter=True))           # the 12 goes, the Spotter starts
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 0})
    game.act(0, PASS)                                # the 12 at position 2 is never found
    assert game.village(1) == [41, 42, 47, 43, 44]
    assert game.knows(0, 41) and not game.knows(0, 47) and game.current == 1


def test_r29_a_gamblers_right_guess_discards_nothing_on_timeout():
    deck = stack(villages=[[30, 46, 38, 39, 40], [41, 42, 47, 43, 44]], discard=14, top=[45])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0))
    game.act(1, PASS)
    game.act(0, {"type": "gamble", "value": 11})
    assert game.pending == "gamble_win"
    game.act(0, PASS)
    assert game.village(0) == [14, 46, 38, 39, 40] and game.pile() == [30, 45]
    assert game.current == 1


def test_r29_r37_a_started_twister_turns_the_leftmost_cards_needed():
    game = Game.start(2, stack(**PLAIN, top=[22]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "twist", "seat": 1, "position": 0})
    assert E.default_action(game.state, 0) == PASS
    game.act(0, PASS)
    up = {c for c in range(52) if game.faceup(c)} - set(game.pile())
    assert up == {43, 31, 32, 33, 40}, "own village first, from the left"
    assert game.current == 1


def test_r29_the_initial_peek_defaults_to_the_two_leftmost_facedown_cards():
    game = Game.start(2, stack(**PLAIN, top=[22]), first=0)
    game.act(0, {"type": "peek", "positions": [3, 4]})
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "twist", "seat": 1, "position": 0})   # seat 1's leftmost card faceup
    assert E.default_action(game.state, 1) == {"type": "peek", "positions": [1, 2]}
    events = game.act(1, PASS)                       # not its turn: only the peek is settled
    assert [e["type"] for e in events] == ["peek"] and events[0]["positions"] == [1, 2]
    assert game.knows(1, 44) and game.knows(1, 45) and not game.knows(1, 47)
    assert game.current == 0 and game.pending == "twister"


def test_r29_round_end_nelly_and_mad_bomber_default_to_not_used():
    deck = stack(villages=[[46, 47, 6, 7, 8], [51, 14, 15, 30, 1]], discard=50, top=[18])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))                      # seat 0: a faceup Mad Bomber
    tan(game, 1)                                     # seat 1: a faceup Mad Bomber and Nelly
    game.act(0, CALL)
    game.act(1, PASS)
    assert game.view(None)["pending"] == "nelly"
    assert E.default_action(game.state, 1) == SKIP and E.default_action(game.state, 0) is None
    game.act(1, PASS)
    assert game.view(None)["pending"] == "bomb" and game.view(None)["to_act"] == [0]
    game.act(0, PASS)
    events = game.act(1, PASS)
    assert [e["type"] for e in game.events if e["type"] == "skip"] == ["skip"] * 3
    s = scored(events)
    assert s["sums"] == [13 + 6, 13 + 4 + 4 + 8 - 1 + 5]


# --- R30 knowledge --------------------------------------------------------------------------

def memory_scenario(options):
    deck = stack(villages=[[30, 31, 32, 33, 46], [39, 40, 41, 42, 47]], discard=23,
                 top=[14, 15, 16])
    game = Game.start(2, deck, first=0, options=options)
    game.act(0, {"type": "peek", "positions": [0, 1]})
    return game


def test_r30_memory_option_forgets_known_facedown_cards_after_the_seats_next_action():
    game = memory_scenario({"memory": True})
    assert game.knows(0, 30) and game.knows(0, 31)
    game.act(1, {"type": "peek", "positions": [0, 1]})
    assert game.knows(0, 30), "another seat's action makes nobody forget"
    game.act(0, draw())
    assert not game.knows(0, 30) and not game.knows(0, 31)
    assert game.knows(0, 14), "the card in hand stays known"
    game.act(0, exchange(2))                         # kept facedown, the 8 to the pile
    assert game.knows(0, 14) and game.knows(0, 32), "faceup cards are never forgotten"
    game.act(1, draw())
    game.act(1, discard())
    assert game.knows(0, 14)
    game.act(0, draw())
    assert not game.knows(0, 14)
    assert game.view(0)["options"]["memory"] is True


def test_r30_perfect_recall_is_the_default():
    game = memory_scenario(None)
    game.act(1, {"type": "peek", "positions": [0, 1]})
    game.act(0, draw())
    game.act(0, exchange(2))
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, draw())
    assert all(game.knows(0, c) for c in (30, 31, 14))
    assert game.view(0)["options"]["memory"] is False


def test_r30_the_spectator_knows_exactly_what_was_public():
    deck = stack(villages=[[30, 46, 38, 39, 40], [41, 42, 43, 44, 45]], discard=22, top=[47, 31])
    game = Game.start(2, deck, first=0)
    game.peek_all()                                  # seat 0: 30, 46; seat 1: 41, 42
    game.act(0, draw())                              # 47, seen by seat 0 only
    game.act(0, exchange(0, 1))                      # 8 and 12 shown to all, back facedown
    assert game.village(0) == [30, 46, 38, 39, 40, 47]
    game.act(1, draw())                              # a Split Seer
    game.act(1, discard())
    game.act(1, {"type": "see", "seat": 0, "position": 2})
    game.act(1, {"type": "see", "seat": 1, "position": 4})
    assert known_ids(game.view(None)) == {22, 31, 30, 46}
    assert known_ids(game.view(0)) == {22, 31, 30, 46, 47}
    assert known_ids(game.view(1)) == {22, 31, 30, 46, 41, 42, 38, 45}


def test_r30_memory_fades_for_the_seats_but_never_for_the_table():
    deck = stack(villages=[[30, 46, 38, 39, 40], [41, 42, 43, 44, 45]], discard=22, top=[47, 14])
    game = Game.start(2, deck, first=0, options={"memory": True})
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(0, 1))                      # 8 and 12 shown to all, back facedown
    assert {30, 46} <= known_ids(game.view(1)) and {30, 46} <= known_ids(game.view(None))
    game.act(1, draw())                              # seat 1's next action: it forgets them
    assert {30, 46, 41, 42}.isdisjoint(known_ids(game.view(1)))
    assert known_ids(game.view(1)) == {22, 14}, "the pile and the card in hand"
    assert known_ids(game.view(None)) == {22, 30, 46}, "the table's knowledge never fades (R43)"
