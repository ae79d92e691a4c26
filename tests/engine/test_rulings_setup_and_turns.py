"""Scenario tests for the rulings on cards, setup and turns: R1-R12.

R1 deck and ids, R2 players and unused villages, R3 dealing order, R4 rounds
and reshuffle, R5 initial peek (asynchronous, timeout default), R6 first player
and the eye in round 1, R7 a turn, R8 exchange (single, matching with `into`
and collapse, failed exchange of two and of three or more, `end`, empty deck),
R9 orientation of new cards, R10 discard order, R11 call for a vote, R11b empty
village, R12 deck runs out.

Every scenario is dealt from a stacked deck (R3, `scenario.stack`): the
villages, the first discard and the draws are chosen, so each outcome is exact.
"""
from __future__ import annotations

from collections import Counter

import pytest

from app import engine as E
from app.engine import cards
from app.engine.cards import VALUE
from tests.engine.scenario import (BOMBER, ILLUSIONIST, LOW_OBSESSOR, NELLY, Game, discard, draw,
                                   exchange, ids, stack, take)

SIMON, GAMBLER, TANNER, TWISTER = ids(2), ids(4), ids(5), ids(6)
GHOST, SEER, DRACULA, DRUNK = ids(7), ids(8), ids(10), ids(12)
OBSESSORS = ids(9)

PASS = {"type": "pass"}
SKIP = {"type": "skip"}
CALL = {"type": "call"}


def peek(*positions: int) -> dict:
    return {"type": "peek", "positions": list(positions)}


def of_type(events: list[dict], type_: str) -> list[dict]:
    return [e for e in events if e["type"] == type_]


def all_cards(game: Game) -> list[int]:
    """Every card of the round wherever it is (white-box), sorted."""
    st = game.state
    where = [c for v in st.villages for c in v] + st.pile + st.deck + st.removed
    if st.hand is not None:
        where.append(st.hand)
    return sorted(where)


def draw_and_discard(game: Game) -> int:
    """The current seat draws, discards the card and declines its ability (if any)."""
    seat = game.current
    game.act(seat, draw())
    card = game.state.hand
    game.act(seat, discard())
    while game.state.phase == "play" and game.current == seat and game.pending != "turn":
        game.act(seat, SKIP)
    return card


def long_round(villages: list[list[int]], discard_card: int, last: list[int] = (),
               unused: list[int] = ()) -> list[int]:
    """A stacked deck whose whole draw pile is chosen: fillers that can always be
    discarded (no Obsessor, none of `unused`), then `last` at the bottom. The
    cards left over go to the removed villages (R2)."""
    used = {c for v in villages for c in v} | {discard_card} | set(last)
    avoid = set(OBSESSORS) | set(unused)
    fillers = [c for c in range(52) if c not in used and c not in avoid]
    n_fill = 52 - 20 - 1 - len(last)
    assert len(fillers) >= n_fill, "not enough harmless cards for the draw pile"
    return stack(villages, discard_card, top=fillers[:n_fill] + list(last))


# --- R1 Deck -------------------------------------------------------------------

def test_r1_deck_has_52_cards_with_the_documented_values():
    counts = Counter(VALUE)
    assert len(VALUE) == 52
    assert counts == {-1: 4, 0: 2, 13: 2, **{v: 4 for v in range(2, 13)}}
    assert counts[1] == 0                       # there is no 1
    assert [VALUE[c] for c in NELLY] == [-1] * 4
    assert [VALUE[c] for c in ILLUSIONIST] == [0, 0]
    assert [VALUE[c] for c in BOMBER] == [13, 13]
    # the four 9s are four different Obsessors (R13)
    assert sorted(cards.name(c) for c in OBSESSORS) == [
        "Even Obsessor", "High Obsessor", "Low Obsessor", "Odd Obsessor"]
    assert cards.label(26) == "7 Ghost"


def test_r1_a_dealt_round_holds_every_id_once_and_ids_follow_the_card():
    game = Game.start(4, stack([[10, 11, 12, 13, 14]], discard=30, top=[26]), first=0)
    assert all_cards(game) == list(range(52))
    game.peek_all()
    game.act(0, draw())
    assert game.view(0)["hand"] == {"id": 26, "value": 7, "faceup": False}
    game.act(0, exchange(2))
    # the same id is now in the village, and card 12 is on the pile, faceup
    assert game.village(0) == [10, 11, 26, 13, 14]
    assert game.view(None)["discard"][-1] == {"id": 12, "value": 3, "faceup": True}
    assert all_cards(game) == list(range(52))


# --- R2 Players ------------------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 4])
def test_r2_unused_villages_are_removed_and_the_deck_holds_31(seats):
    deck = list(range(52))
    game = Game.start(seats, deck, first=0)
    view = game.view(None)
    assert view["deck_count"] == 31
    assert len(view["villages"]) == seats
    assert all(len(v) == 5 for v in view["villages"])
    assert game.state.removed == deck[5 * seats:20]
    # a removed card is nowhere a player could see it
    shown = [c["id"] for v in view["villages"] for c in v] + [c["id"] for c in view["discard"]]
    assert not set(shown) & set(game.state.removed)


@pytest.mark.parametrize("seats", [0, 1, 5])
def test_r2_only_two_to_four_seats_can_play(seats):
    with pytest.raises(ValueError, match="2 to 4"):
        E.new_game(seats, 1)


# --- R3 Dealing order ------------------------------------------------------------

def test_r3_stacked_deck_is_dealt_in_order():
    deck = list(range(51, -1, -1))          # any order: here the ids reversed
    game = Game.start(4, deck, first=0)
    for seat in range(4):
        assert game.village(seat) == deck[5 * seat:5 * seat + 5]
    assert game.pile() == [deck[20]]
    assert game.faceup(deck[20])
    assert game.deck() == deck[21:]         # top first, deck[51] at the bottom
    assert not any(game.faceup(c) for c in deck[:20] + deck[21:])
    game.peek_all()
    game.act(0, draw())
    assert game.state.hand == deck[21]


def test_r3_unused_seats_slots_are_dealt_then_removed():
    deck = list(range(52))
    game = Game.start(3, deck, first=0)
    assert game.village(2) == deck[10:15]
    assert game.state.removed == deck[15:20]
    assert game.pile() == [deck[20]]
    assert game.deck()[0] == deck[21]


# --- R4 Rounds -------------------------------------------------------------------

def _play_round_one_to_a_bomb(game: Game) -> None:
    """Round 1 of the R4 scenario: seat 0 takes the Mad Bomber, calls, and at
    round end blows up seat 1's leftmost card."""
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))              # two 8s match: the Bomber goes in faceup
    assert game.village(0) == [BOMBER[0], 10, 11, 12]
    draw_and_discard(game)                   # seat 1
    game.act(0, CALL)
    draw_and_discard(game)                   # seat 1's last turn: the round ends
    assert game.view(None)["phase"] == "resolve"
    assert game.view(None)["to_act"] == [0]
    assert game.pending == "bomb"


def test_r4_bombed_cards_come_back_and_the_next_round_is_dealt_in_the_same_step():
    round1 = stack([[30, 31, 10, 11, 12], [38, 39, 40, 41, 14]], discard=BOMBER[0], top=[22, 23])
    round2 = stack([[15, 16, 17, 18, 19], [20, 21, 22, 23, 24]], discard=25)
    game = Game.start(2, round1, round2, first=0)
    _play_round_one_to_a_bomb(game)
    events = game.act(0, {"type": "bomb", "seat": 1, "position": 0})
    assert game.types(events) == ["bomb", "round_scored", "round_start"]
    assert of_type(events, "bomb")[0]["removed"] == [{"id": BOMBER[0], "value": 13},
                                                    {"id": 38, "value": 10}]
    # round 2: all 52 cards again, dealt from the round-2 deck, the Bomber's victims included
    assert game.view(None)["round"] == 2
    assert all_cards(game) == list(range(52))
    assert game.village(0) == round2[0:5] and game.village(1) == round2[5:10]
    assert game.state.removed == round2[10:20]
    assert game.pile() == [round2[20]]
    assert game.view(None)["deck_count"] == 31
    assert game.state.peeks == [0, 1]        # everyone peeks again (R5)


def test_r4_rounds_without_a_stacked_deck_are_reshuffled_from_the_seed():
    round1 = stack([[30, 31, 10, 11, 12], [38, 39, 40, 41, 14]], discard=BOMBER[0], top=[22, 23])
    game = Game.start(2, round1, first=0)
    _play_round_one_to_a_bomb(game)
    game.act(0, SKIP)                        # the Bomber is not used
    st = game.state
    assert st.round == 2
    dealt = [c for v in st.villages for c in v] + st.removed + st.pile + st.deck[::-1]
    assert sorted(dealt) == list(range(52))
    assert dealt != round1                   # a fresh shuffle, not round 1's order
    # deterministic: replaying the same actions deals the same round 2
    actions = [(0, peek(0, 1)), (1, peek(0, 1)), (0, take()), (0, exchange(0, 1)),
               (1, draw()), (1, discard()), (1, SKIP), (0, CALL),
               (1, draw()), (1, discard()), (1, SKIP), (0, SKIP)]
    assert E.replay(2, st.seed, actions, [round1]) == st


def test_r4_the_game_lasts_four_rounds():
    """Everyone draws and discards (declining every choice) until the deck runs out."""
    game = Game.start(2, list(range(52)), first=0)
    rounds_seen = [1]
    while game.view(None)["phase"] != "over":
        seat = game.view(None)["to_act"][0]
        legal = game.legal(seat)
        choice = next((a for a in (draw(), discard(), SKIP) if a in legal), legal[0])
        game.act(seat, choice)
        if game.state.round != rounds_seen[-1]:
            rounds_seen.append(game.state.round)
    assert rounds_seen == [1, 2, 3, 4]
    view = game.view(None)
    assert len(view["round_scores"]) == 4
    assert view["totals"] == [sum(r[s] for r in view["round_scores"]) for s in range(2)]
    assert game.types().count("round_start") == 3 and game.types().count("game_over") == 1


# --- R5 Initial peek ----------------------------------------------------------------

def test_r5_a_peek_shows_two_of_ones_own_cards_to_that_seat_only():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30), first=0)
    assert game.view(0)["to_act"] == [0, 1]
    events = game.act(0, peek(1, 3))
    assert events[0]["type"] == "peek" and events[0]["positions"] == [1, 3]
    assert [c["id"] for c in game.view(0)["villages"][0]] == [None, 11, None, 13, None]
    assert not game.knows(1, 11) and not game.knows(None, 13)
    assert "value" not in events[0] and "cards" not in events[0]   # the log says where, not what
    # a seat may not peek again, nor at a faceup card or someone else's
    assert game.illegal(0, peek(0, 2)) == "You have already looked at your cards this round."
    assert game.illegal(1, peek(0, 5)) == "Position 5 is not one of your facedown cards."
    assert game.illegal(1, peek(2, 2)) == "Choose two different cards."


def test_r5_peeks_are_simultaneous_and_block_only_the_seat_that_owes_one():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30,
                               top=[31, 32]), first=0)
    # seat 1 may peek first although it is seat 0's turn
    game.act(1, peek(3, 4))
    assert game.view(None)["to_act"] == [0]
    # the current seat must peek before its own first action
    assert game.illegal(0, draw()) == "First look at two of your facedown cards (peek)."
    game.act(0, peek(0, 1))
    draw_and_discard(game)
    assert game.current == 1 and game.view(1)["legal_actions"][0] == draw()


def test_r5_a_late_peek_indexes_the_village_as_it_is_then():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 30]], discard=31,
                               top=[GHOST[0]]), first=0)
    game.act(0, peek(0, 1))
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "ghost", "seat": 1, "position": 0})   # seat 1 has not peeked yet
    assert game.village(1) == [23, 24, 25, 30]
    game.act(1, peek(0, 1))
    assert game.knows(1, 23) and game.knows(1, 24)
    assert not game.knows(1, 25) and not game.knows(1, 30)


def test_r5_timeout_peeks_at_the_two_leftmost_facedown_cards():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [26, 27, 28, 38, 30]], discard=31,
                               top=[TWISTER[3]]), first=0)
    game.act(0, peek(0, 1))
    # seat 0's Twister turns seat 1's leftmost card faceup before seat 1 peeks
    game.act(0, draw())
    game.act(0, discard())
    targets = [(1, 0), (0, 0), (0, 1), (0, 2), (0, 3)]          # five cards: seat 0 has five
    for target, pos in targets:
        game.act(0, {"type": "twist", "seat": target, "position": pos})
    assert game.faceup(26) and game.current == 1
    assert E.default_action(game.state, 1) == peek(1, 2)
    events = game.act(1, PASS)               # the timeout settles the peek and passes the turn
    assert [e["type"] for e in events] == ["peek", "pass"]
    assert events[0]["positions"] == [1, 2]
    assert game.knows(1, 27) and game.knows(1, 28) and not game.knows(1, 38)
    assert game.current == 0


def test_r5_a_seat_with_one_facedown_card_left_peeks_at_that_one():
    """R40 (docs/rules.md): with one facedown card left, the peek is of that card."""
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [26, 27, 28, 38, 30]], discard=31,
                               top=[TWISTER[3]]), first=0)
    game.act(0, peek(0, 1))
    game.act(0, draw())
    game.act(0, discard())
    for pos in range(4):                     # seat 0's Twister turns four of seat 1's cards
        game.act(0, {"type": "twist", "seat": 1, "position": pos})
    game.act(0, {"type": "twist", "seat": 0, "position": 0})
    assert game.legal(1) == [peek(4)]
    assert E.default_action(game.state, 1) == peek(4)
    assert game.illegal(1, peek(3, 4)).startswith("Choose 1 of your facedown cards")
    game.act(1, peek(4))
    assert game.knows(1, 30) and game.view(None)["peeks_pending"] == []


# --- R6 First player and the eye ------------------------------------------------------

def test_r6_the_seeded_rng_chooses_the_start_player_who_holds_the_closed_eye():
    starts = set()
    for seed in range(40):
        state = E.new_game(3, seed)
        view = E.view(state, None)
        assert view["current"] == view["start_player"] == view["silver_eye"]["holder"]
        assert view["silver_eye"]["open"] is False
        assert E.new_game(3, seed).current == state.current      # same seed, same start
        starts.add(state.current)
    assert starts == {0, 1, 2}


def test_r6_a_later_round_starts_with_the_eye_holder():
    round1 = stack([[30, 31, 10, 11, 12], [38, 39, 40, 41, 14]], discard=BOMBER[0], top=[22, 23])
    game = Game.start(2, round1, first=0)
    _play_round_one_to_a_bomb(game)
    events = game.act(0, SKIP)
    scored = of_type(events, "round_scored")[0]
    # seat 0 called with 13+3+3+3 = 22 against seat 1's 44: lowest, so the eye opens for it
    assert scored["eye_holder"] == 0 and scored["eye_open"] is True
    assert game.current == game.state.start_player == 0


# --- R7 A turn -------------------------------------------------------------------------

def test_r7_a_turn_is_draw_take_call_or_gamble_and_pass_is_only_a_timeout():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30,
                               top=[31]), first=0)
    game.peek_all()
    assert game.legal(0) == [draw(), take()]            # five cards: no call, no Gambler
    assert game.legal(1) == []                          # not seat 1's turn
    assert E.default_action(game.state, 0) == PASS
    assert PASS not in game.legal(0)
    assert game.illegal(1, draw()) == "It's not your turn: seat 0 is playing."
    before = (game.village(0), game.pile(), game.deck())
    events = game.act(0, PASS)
    assert game.types(events) == ["pass"]
    assert (game.village(0), game.pile(), game.deck()) == before
    assert game.current == 1 and game.pending == "turn"


def test_r7_drawing_leaves_the_turn_open_until_the_card_is_placed():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30,
                               top=[31]), first=0)
    game.peek_all()
    game.act(0, draw())
    assert game.current == 0 and game.pending == "drawn"
    assert game.illegal(0, CALL) == ("You hold the card you drew: discard the card you drew "
                                     "or exchange it for cards of your village.")
    game.act(0, discard())
    game.act(0, SKIP)                                   # the Split Seer's ability, declined
    assert game.current == 1 and game.pending == "turn"


# --- R8 Exchange -------------------------------------------------------------------------

def test_r8_exchange_of_one_card_always_matches():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30,
                               top=[46]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(3))
    assert game.village(0) == [10, 11, 12, 46, 14]
    assert game.pile() == [30, 13]
    assert not game.faceup(46) and game.faceup(13)
    assert events[0]["type"] == "exchange" and events[0]["discarded"] == [{"id": 13, "value": 3}]
    assert game.current == 1


def test_r8_matching_exchange_discards_all_and_the_new_card_takes_the_chosen_spot():
    # three 8s at positions 0, 2, 4; the new card goes into spot 4; the rest collapse
    game = Game.start(2, stack([[30, 10, 31, 11, 32], [22, 23, 24, 25, 26]], discard=46,
                               top=[38]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(0, 2, 4, into=4))
    assert game.village(0) == [10, 11, 38]
    assert game.pile() == [46, 30, 31, 32]
    assert events[0]["into"] == 4
    assert [c["id"] for c in game.view(1)["villages"][0]] == [None, None, None]


def test_r8_matching_exchange_puts_the_new_card_leftmost_by_default():
    game = Game.start(2, stack([[10, 30, 11, 31, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[38]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(1, 3))
    assert game.village(0) == [10, 38, 11, 12]


def test_r8_into_must_be_one_of_the_exchanged_spots():
    game = Game.start(2, stack([[10, 30, 11, 31, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[38]), first=0)
    game.peek_all()
    game.act(0, draw())
    assert game.illegal(0, exchange(1, 3, into=2)) == "'into' must be one of the positions you exchange."
    assert game.illegal(0, exchange(1, 1)) == "Each card can be chosen only once."
    assert game.illegal(0, exchange(5)) == ("You have no card at position 5: your village has 5 "
                                            "cards (0 to 4).")


def test_r8_failed_exchange_of_two_shows_the_cards_and_adds_no_penalty():
    game = Game.start(2, stack([[10, 30, 11, 38, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[39, 40]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(1, 3))                # an 8 and a 10: no match
    assert game.village(0) == [10, 30, 11, 38, 12, 39]   # new card at the right end (default)
    assert not any(game.faceup(c) for c in game.village(0))
    assert game.pile() == [46]
    assert game.view(None)["deck_count"] == 30          # only the drawn card left the deck
    # everyone saw the two revealed values (R30), but not the drawn card
    for seat in (None, 0, 1):
        assert game.knows(seat, 30) and game.knows(seat, 38)
    assert game.knows(0, 39) and not game.knows(1, 39)
    failed = of_type(events, "exchange_failed")[0]
    assert failed["penalty"] is False and failed["reason"] == "mismatch"
    assert failed["revealed"] == [{"id": 30, "value": 8}, {"id": 38, "value": 10}]
    assert game.current == 1


def test_r8_failed_exchange_of_three_adds_penalty_card():
    game = Game.start(2, stack([[10, 30, 31, 38, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[39, 40, 41]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(1, 2, 3))              # 8, 8, 10
    assert game.village(0) == [10, 30, 31, 38, 12, 39, 40]
    assert not game.faceup(40)
    assert game.deck()[0] == 41
    # the penalty card is unseen by anyone, the drawer included
    for seat in (None, 0, 1):
        assert not game.knows(seat, 40)
    assert of_type(events, "exchange_failed")[0]["penalty"] is True


def test_r8_failed_exchange_turns_faceup_cards_facedown_and_honours_end_left():
    """R44 (docs/rules.md): the penalty card goes outside the new card, at the very end."""
    # seat 0 takes the 12 (faceup) first, so its village holds a faceup card
    game = Game.start(2, stack([[10, 30, 11, 38, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[39, 40, 41, 27]), first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0))                             # 46 faceup at 0; 10 on the pile
    assert game.faceup(46)
    draw_and_discard(game)                               # seat 1
    game.act(0, draw())                                  # 40
    game.act(0, exchange(0, 1, 3, end="left"))           # 12, 8, 10: no match
    assert game.village(0) == [41, 40, 46, 30, 11, 38, 12]   # penalty outermost, same end
    assert not game.faceup(46)                            # the faceup 12 went back facedown
    assert not any(game.faceup(c) for c in game.village(0))
    assert game.knows(1, 46)                              # it had been seen by all (R30)
    assert not game.knows(0, 41)


def test_r8_failed_exchange_of_a_taken_card_adds_it_faceup():
    game = Game.start(2, stack([[10, 30, 11, 38, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[39]), first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1, 2))                       # 3, 8, 3: no match: penalty
    assert game.village(0) == [10, 30, 11, 38, 12, 46, 39]
    assert game.faceup(46) and not game.faceup(39)
    assert game.pile() == []


def test_r8_failed_exchange_of_three_on_an_empty_deck_adds_no_penalty():
    deck = long_round([[10, 30, 31, 38, 12], [22, 23, 24, 25, 26]], discard_card=46, last=[39])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for _ in range(30):
        draw_and_discard(game)
    assert game.view(None)["deck_count"] == 1 and game.current == 0
    game.act(0, draw())
    events = game.act(0, exchange(1, 2, 3))
    failed = of_type(events, "exchange_failed")[0]
    assert failed["penalty"] is False
    end = of_type(events, "round_end")[0]                 # R12: the deck is empty
    assert end["reason"] == "deck"
    assert [c["id"] for c in end["villages"][0]] == [10, 30, 31, 38, 12, 39]


def test_r8_the_new_card_is_never_one_of_the_exchanged_cards():
    # the drawn card is in hand, not in the village: its positions can't name it
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30,
                               top=[31]), first=0)
    game.peek_all()
    game.act(0, draw())
    assert game.illegal(0, exchange(0, 5)) == ("You have no card at position 5: your village has "
                                               "5 cards (0 to 4).")
    game.act(0, exchange(0, 1, 2, 3))                     # four 3s: match
    assert game.village(0) == [31, 14] and 31 not in game.pile()


# --- R9 Orientation of new cards ---------------------------------------------------------

def test_r9_a_kept_drawn_card_goes_in_facedown_known_to_its_drawer():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30,
                               top=[46]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(4))
    assert game.village(0)[4] == 46 and not game.faceup(46)
    assert game.view(0)["villages"][0][4] == {"id": 46, "value": 12, "faceup": False}
    assert game.view(1)["villages"][0][4] == {"id": None, "value": None, "faceup": False}
    assert not game.knows(None, 46)


def test_r9_a_taken_card_goes_in_faceup():
    game = Game.start(2, stack([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard=30), first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(2))
    assert game.village(0)[2] == 30 and game.faceup(30)
    assert game.view(1)["villages"][0][2] == {"id": 30, "value": 8, "faceup": True}
    assert game.pile() == [12]


# --- R10 Discard order ---------------------------------------------------------------------

@pytest.mark.parametrize("order", [[0, 2, 4], [4, 0, 2], [2, 4, 0]])
def test_r10_several_discarded_cards_go_on_the_pile_in_the_chosen_order(order):
    village = [SEER[0], 10, SEER[1], 11, SEER[2]]
    game = Game.start(2, stack([village, [22, 23, 24, 25, 26]], discard=46, top=[38]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(*order))
    expected = [46] + [village[p] for p in order]
    assert game.pile() == expected
    assert [c["id"] for c in game.view(1)["discard"]] == expected      # top last
    assert all(c["faceup"] for c in game.view(1)["discard"])


# --- R11 Call for a vote ----------------------------------------------------------------------

def test_r11_call_needs_four_or_fewer_cards():
    game = Game.start(2, stack([[30, 31, 10, 11, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[38, 39]), first=0)
    game.peek_all()
    assert CALL not in game.legal(0)
    assert game.illegal(0, CALL) == "You can call only with four or fewer cards; you have 5."
    game.act(0, draw())
    game.act(0, exchange(0, 1))                          # two 8s: four cards left
    draw_and_discard(game)
    assert CALL in game.legal(0)


def test_r11_call_is_the_whole_turn_and_every_other_seat_gets_exactly_one_more_turn():
    game = Game.start(3, stack([[30, 31, 10, 11, 12], [38, 39, 22, 23, 24], [46, 47, 48, 25, 26]],
                               discard=18, top=[19, 20, 21, 27, 28, 29]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(0, 1))                          # seat 0: four cards
    game.act(1, draw())
    game.act(1, exchange(0, 1))                          # seat 1: four cards too
    draw_and_discard(game)                               # seat 2
    before = (game.village(0), game.pile(), game.deck())
    events = game.act(0, CALL)
    assert game.types(events) == ["call"]
    assert (game.village(0), game.pile(), game.deck()) == before    # no card moved
    assert game.view(None)["caller"] == 0 and game.current == 1
    assert game.legal(0) == []
    # nobody else may call now, even with four cards
    assert CALL not in game.legal(1)
    assert game.illegal(1, CALL) == "Someone has already called for a vote this round."
    draw_and_discard(game)                               # seat 1's last turn
    assert game.view(None)["phase"] == "play" and game.current == 2
    events = game.act(2, PASS)                           # a timeout still counts as the last turn
    end = of_type(events, "round_end")[0]
    assert end["reason"] == "call" and end["caller"] == 0
    assert of_type(events, "round_scored")[0]["caller"] == 0
    assert game.view(None)["round"] == 2                 # the caller had no further turn


def test_r11_the_caller_uses_no_faceup_ability_on_the_calling_turn():
    # seat 0 has a faceup Gambler (taken) and four cards: it may gamble or call, not both
    game = Game.start(2, stack([[30, 31, 10, 11, 12], [22, 23, 24, 25, 26]], discard=GAMBLER[0],
                               top=[38, 39]), first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0, 1))                          # two 8s match: four cards, Gambler faceup
    draw_and_discard(game)
    assert {"type": "gamble", "value": 5} in game.legal(0) and CALL in game.legal(0)
    game.act(0, CALL)
    assert game.current == 1 and game.legal(0) == []


# --- R11b Empty village ------------------------------------------------------------------------

def _empty_seat_one(game: Game) -> None:
    """Seat 1 keeps one card of four matching 8s, then two Ghosts empty its village."""
    game.peek_all()
    game.act(0, draw())                                  # Ghost
    game.act(0, discard())
    game.act(0, {"type": "ghost", "seat": 1, "position": 4})
    game.act(1, draw())                                  # a 10
    game.act(1, exchange(0, 1, 2, 3))                    # four 8s match: one card left
    game.act(0, draw())                                  # another Ghost
    game.act(0, discard())
    game.act(0, {"type": "ghost", "seat": 1, "position": 0})
    assert game.village(1) == []


EMPTY_DECK = stack([[10, 11, 12, 13, 14], [30, 31, 32, 33, 15]], discard=46,
                   top=[GHOST[0], 38, GHOST[1], 22, DRUNK[1], 39, 40])


def test_r11b_an_empty_village_still_takes_turns_without_take():
    game = Game.start(2, EMPTY_DECK, first=0)
    _empty_seat_one(game)
    assert game.current == 1 and game.pending == "turn"
    assert game.legal(1) == [draw(), CALL]
    assert game.illegal(1, take()) == ("You can't take the top discard now: you need a card to "
                                       "exchange it for, and a card on the pile.")
    game.act(1, draw())
    assert game.legal(1) == [discard()]                  # nothing to exchange it with
    game.act(1, discard())                               # a Twister with no card to count: nothing
    assert game.current == 0
    # it can receive cards: seat 0's Drunk gives it the top deck card
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "drunk", "seat": 1, "end": "right"})
    assert game.village(1) == [39] and not game.faceup(39)
    assert not game.knows(1, 39)


def test_r11b_an_empty_village_scores_zero_and_may_call():
    game = Game.start(2, EMPTY_DECK, first=0)
    _empty_seat_one(game)
    game.act(1, CALL)
    events = []
    seat = game.current
    game.act(seat, draw())
    events += game.act(seat, discard())
    events += game.act(seat, SKIP)                       # seat 0 declines its Twister: round ends
    scored = of_type(events, "round_scored")[0]
    assert scored["sums"] == [3 + 3 + 3 + 3 + 4, 0]
    assert scored["scores"][1] == 0 and scored["successful"] is True


def test_r11b_an_empty_village_keeps_a_drawn_card_the_obsessor_refuses():
    """With no card to exchange, a refused drawn card has nowhere to go but the
    village (R14): the empty village receives it at the right end, facedown."""
    deck = stack([[10, 11, 12, 13, 14], [30, 31, 32, 33, 15]], discard=46,
                 top=[GHOST[0], 38, GHOST[1], 22, LOW_OBSESSOR, 47])
    game = Game.start(2, deck, first=0)
    _empty_seat_one(game)
    game.act(1, draw())
    game.act(1, discard())                               # a Twister with no card to count
    game.act(0, draw())
    game.act(0, discard())                               # the Low Obsessor tops the pile
    events = game.act(1, draw())                         # a 12
    assert game.types(events) == ["draw", "kept"]
    assert game.village(1) == [47] and not game.faceup(47)
    assert game.knows(1, 47) and not game.knows(0, 47)
    assert game.current == 0


def test_r11b_take_is_not_offered_when_the_pile_is_empty():
    game = Game.start(2, stack([[10, 30, 11, 38, 12], [22, 23, 24, 25, 26]], discard=46,
                               top=[39]), first=0)
    game.peek_all()
    game.act(0, take())                                  # the only pile card
    game.act(0, exchange(1, 3))                          # no match: the pile stays empty
    assert game.pile() == [] and game.view(None)["discard"] == []
    assert game.legal(1) == [draw()]
    assert game.illegal(1, take()).startswith("You can't take the top discard now")


# --- R12 Deck runs out ---------------------------------------------------------------------------

def test_r12_the_round_ends_only_after_the_last_drawn_card_and_its_ability_resolve():
    deck = long_round([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard_card=46,
                      last=[GHOST[3]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for _ in range(30):
        draw_and_discard(game)
    game.act(0, draw())                                  # the last card: a Ghost
    assert game.view(None)["deck_count"] == 0
    assert game.view(None)["phase"] == "play" and game.pending == "drawn"
    game.act(0, discard())
    assert game.view(None)["phase"] == "play" and game.pending == "ghost"
    events = game.act(0, {"type": "ghost", "seat": 1, "position": 0})
    assert game.types(events)[:3] == ["ghost", "round_end", "round_scored"]
    end = of_type(events, "round_end")[0]
    assert end["reason"] == "deck"
    assert [c["id"] for c in end["villages"][1]] == [23, 24, 25, 26]
    assert of_type(events, "round_scored")[0]["deck_count"] == 0


def test_r12_the_discard_pile_is_never_reshuffled_into_the_deck():
    deck = long_round([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard_card=46,
                      last=[TANNER[0]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for _ in range(30):
        draw_and_discard(game)
    assert len(game.pile()) == 31 and game.view(None)["deck_count"] == 1
    game.act(0, draw())
    events = game.act(0, discard())
    # 32 cards on the pile, none goes back to the deck: the round is over
    assert of_type(events, "round_end")[0]["reason"] == "deck"
    assert of_type(events, "round_scored")[0]["deck_count"] == 0
    assert game.state.round == 2


def test_r12_a_dracula_that_refills_the_deck_keeps_the_round_going():
    deck = long_round([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard_card=46,
                      last=[DRACULA[3]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for _ in range(30):
        draw_and_discard(game)
    under = game.pile()[-5:]
    game.act(0, draw())
    game.act(0, discard())
    events = game.act(0, {"type": "dracula"})
    assert "round_end" not in game.types(events)
    assert game.view(None)["phase"] == "play" and game.view(None)["round"] == 1
    assert game.current == 1 and game.view(None)["deck_count"] == 5
    assert game.deck() == under[::-1]                    # the card under the Dracula is drawn first
    game.act(1, draw())
    assert game.state.hand == under[-1]


def test_r12_a_declined_dracula_on_the_last_card_ends_the_round():
    deck = long_round([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard_card=46,
                      last=[DRACULA[3]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for _ in range(30):
        draw_and_discard(game)
    game.act(0, draw())
    game.act(0, discard())
    events = game.act(0, SKIP)
    assert of_type(events, "round_end")[0]["reason"] == "deck"


def test_r12_pending_final_turns_after_a_call_are_not_played():
    deck = long_round([[30, 31, 10, 11, 12], [22, 23, 24, 25, 26], [38, 39, 40, 41, 46]],
                      discard_card=47, last=[TANNER[0]])
    game = Game.start(3, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(0, 1))                          # seat 0: four cards
    for _ in range(29):
        draw_and_discard(game)
    assert game.current == 0 and game.view(None)["deck_count"] == 1
    game.act(0, CALL)
    game.act(1, draw())                                  # the last card
    events = game.act(1, discard())
    end = of_type(events, "round_end")[0]
    assert end["reason"] == "deck" and end["caller"] == 0
    # seat 2 never had its final turn
    round1 = game.state.prev_log
    call_at = next(i for i, e in enumerate(round1) if e["type"] == "call")
    assert [e["type"] for e in round1[call_at:]] == ["call", "draw", "discard", "round_end", "round_scored"]
    assert all(e["seat"] != 2 for e in round1[call_at:])


def test_r12_a_drunk_drawn_last_finds_no_card_and_does_nothing():
    deck = long_round([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard_card=47,
                      last=[DRUNK[0]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for _ in range(30):
        draw_and_discard(game)
    game.act(0, draw())
    events = game.act(0, discard())                      # no Drunk choice is offered: nothing to give
    assert "drunk" not in game.types(events)
    end = of_type(events, "round_end")[0]
    assert end["reason"] == "deck"
    assert [len(v) for v in end["villages"]] == [5, 5]


def test_r12_simon_reactions_are_made_before_the_round_ends():
    deck = long_round([[10, 11, 12, 13, 14], [22, 23, 24, 25, 26]], discard_card=SIMON[0],
                      last=[SIMON[1]], unused=SIMON[2:])
    game = Game.start(2, deck, first=1)
    game.peek_all()
    game.act(1, take())
    game.act(1, exchange(0))                             # seat 1: a faceup Simon at position 0
    for _ in range(30):
        draw_and_discard(game)
    assert game.current == 0 and game.view(None)["deck_count"] == 1
    game.act(0, draw())                                  # the last card, a 2
    events = game.act(0, discard())
    assert game.types(events)[:3] == ["discard", "simon", "round_end"]
    end = of_type(events, "round_end")[0]
    assert [c["id"] for c in end["villages"][1]] == [23, 24, 25, 26]


def test_r12_a_wrong_gamble_on_the_last_card_adds_nothing_and_ends_the_round():
    """R42 (docs/rules.md): the flipped card went to the pile and the deck is empty."""
    deck = long_round([[10, 11, 12, 13, 30], [22, 23, 24, 25, 26]], discard_card=GAMBLER[0],
                      last=[TANNER[0]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, take())
    game.act(0, exchange(0))                             # seat 0: a faceup Gambler
    game.act(1, PASS)
    for _ in range(30):
        draw_and_discard(game)
    assert game.current == 0 and game.view(None)["deck_count"] == 1
    events = game.act(0, {"type": "gamble", "value": 13})   # the last card is a 5: wrong
    gamble = of_type(events, "gamble")[0]
    assert gamble["right"] is False and gamble["to_pile"] is True
    assert gamble["joined"] is None and gamble["end"] is None
    end = of_type(events, "round_end")[0]
    assert end["reason"] == "deck"
    assert [c["id"] for c in end["villages"][0]] == [GAMBLER[0], 11, 12, 13, 30]
