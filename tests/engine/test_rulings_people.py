"""Games that survive the people in them (issue 21): rulings R48 resigning, R49 taking a
seat over and R50 the first player option, on stacked decks (R3).

A resigned seat keeps its cards and its decisions, which the server then plays by
`default_action` as for an absent seat (R29); here `Table.settle` does the same. It
ranks last; the last seat left wins at once. A take-over changes nothing but the
seat's standing. `first` picks round 1's start player and eye holder.

Card ids (R1): 0-3 Nelly, 4-5 Illusionist, 6-9 Simon, 10-13 Spotter, 14-17 Gambler,
18-21 Tanner, 22-25 Twister, 26-29 Ghost, 30-33 Split Seer, 34-37 Obsessors,
38-41 Dracula, 42-45 Underminer, 46-49 Drunk, 50-51 Mad Bomber.
"""
from __future__ import annotations

import random

import pytest

from app import engine as E
from app.engine import action_schema, bots
from app.engine.describe import RESIGNED, describe, event_sentence, played_parts
from app.engine.summary import last_summary, round_summary
from tests.engine.scenario import Game, draw, exchange, stack

PASS = {"type": "pass"}
CALL = {"type": "call"}
RESIGN = {"type": "resign"}
NAMES = ["Ann", "Bob", "Cy", "Dee"]


def take_over(name: str = "Gus", was: str = "Fay") -> dict:
    return {"type": "take_over", "name": name, "was": was}


class Table(Game):
    """A stacked game that keeps its log, and plays resigned seats by their defaults."""

    log: list[tuple[int, dict]]

    @classmethod
    def deal(cls, seats: int, *decks: list[int], first: int = 0, seed: int = 1) -> "Table":
        table = cls(E.new_game(seats, seed, list(decks), {"first": first}))   # R50
        table.log = []
        return table

    def act(self, seat: int, action: dict) -> list[dict]:
        events = super().act(seat, action)
        self.log.append((seat, action))
        return events

    def settle(self) -> list[dict]:
        """What the server does after each step: every resigned seat with a decision
        gets its default action (R29, R48), until none is left to make."""
        events: list[dict] = []
        while self.state.phase != "over":
            owed = [s for s in E.to_act(self.state) if s in self.state.resigned]
            if not owed:
                return events
            events += self.act(owed[0], E.default_action(self.state, owed[0]))
        return events

    def replayed(self) -> E.State:
        st = self.state
        return E.replay(st.seats, st.seed, self.log, list(st.decks or ()), st.options)


def call_round(table: Table, caller: int) -> list[dict]:
    """A quick round: every seat takes the default peek; the caller draws, exchanges
    its two leftmost cards (a pair: four cards left) and calls on its next turn; every
    other turn is a pass; resigned seats are played by their defaults."""
    rnd = table.state.round
    events = table.settle()
    while table.state.round == rnd and table.state.phase != "over":
        st = table.state
        if st.phase == "resolve":
            seat = E.to_act(st)[0]
            events += table.act(seat, E.default_action(st, seat))
        elif st.peeks:
            seat = st.peeks[0]
            events += table.act(seat, E.default_action(st, seat))
        elif st.current == caller and st.caller is None:
            if len(st.villages[caller]) > 4:
                events += table.act(caller, draw())
                events += table.act(caller, exchange(0, 1))
            else:
                events += table.act(caller, CALL)
        else:
            events += table.act(st.current, PASS)
        events += table.settle()
    return events


def three_seat_game(seat2_sum: int) -> Table:
    """Every round alike: seat 0 draws a Split Seer (8), exchanges its two Draculas and
    calls with 8+2+4+5 = 19, seat 1 holds four Nellys and an Illusionist (-4, all
    facedown: the fewest, so the silver eye, closed), seat 2 holds `seat2_sum`
    (29 or 33). Seat 0's call fails: 29 a round."""
    seat2 = [46, 47, 11, 7, 4] if seat2_sum == 29 else [46, 47, 11, 7, 15]
    deck = stack(villages=[[38, 39, 6, 14, 18], [0, 1, 2, 3, 5], seat2], discard=42, top=[30])
    return Table.deal(3, deck, deck, deck, deck, first=0)


def over(events: list[dict]) -> dict:
    return next(e for e in events if e["type"] == "game_over")


def without(view: dict, *keys: str) -> dict:
    return {k: v for k, v in view.items() if k not in keys}


# --- R48 resigning ---------------------------------------------------------------------

def test_r48_resign_mid_turn_keeps_the_cards_and_the_pending_decision_for_the_default():
    table = three_seat_game(29)
    table.peek_all()
    table.act(0, draw())                              # seat 0 holds the Split Seer
    before = E.view(table.state, None)
    events = table.act(0, RESIGN)
    assert events == [{"type": "resign", "seat": 0, "step": table.state.step, "round": 1}]
    after = E.view(table.state, None)
    assert after["resigned"] == [0] and after["ranking"] is None
    assert without(after, "step", "log", "resigned") == without(before, "step", "log", "resigned")
    assert table.state.hand == 30 and table.state.hand_seat == 0, "no card moves"
    assert after["to_act"] == [0] and after["pending"] == "drawn", "its decision stays its own"
    assert E.default_action(table.state, 0) == PASS
    assert not any(a["type"] in ("resign", "take_over") for a in table.legal(0))
    table.settle()                                    # the server plays the default (R29)
    assert table.pile() == [42, 30], "the drawn card discarded without its ability"
    assert table.current == 1 and table.state.phase == "play"


def test_r48_any_seat_may_resign_off_turn_and_before_its_peek():
    table = three_seat_game(29)
    table.act(2, RESIGN)                              # seat 0 to play, seat 2 still owes its peek
    assert table.state.resigned == [2] and 2 in table.state.peeks
    assert E.default_action(table.state, 2) == {"type": "peek", "positions": [0, 1]}
    table.act(1, RESIGN)                              # seat 0 is the only one left
    assert table.state.phase == "over" and table.state.winner == 0


def test_r48_in_a_two_seat_game_a_resignation_ends_it_at_once_for_the_other_seat():
    won_by_1 = stack(villages=[[38, 39, 6, 14, 18], [0, 1, 2, 3, 5]], discard=42, top=[30])
    table = Table.deal(2, won_by_1, won_by_1, first=0)
    call_round(table, caller=0)                       # round 1: [29, -4]
    assert table.state.totals == [29, -4] and table.state.round == 2
    table.settle()
    table.peek_all()
    table.act(1, draw())                              # seat 1 (the eye holder) mid-turn
    events = table.act(1, RESIGN)
    assert [e["type"] for e in events] == ["resign", "game_over"]
    end = over(events)
    assert end == {"type": "game_over", "seat": 1, "step": table.state.step, "round": 2,
                   "totals": [29, -4], "winner": 0, "ended": "resigned", "resigned": [1]}
    st = table.state
    assert st.phase == "over" and st.winner == 0
    assert st.totals == [29, -4] and len(st.round_scores) == 1, "round 2 is not scored"
    status = E.status(st)
    assert status["ranking"] == [0, 1] and status["resigned"] == [1]
    assert status["to_act"] == [] and status["pending"] is None
    for seat in (0, 1):
        assert E.legal_actions(st, seat) == [] and E.default_action(st, seat) is None
        view = E.view(st, seat)
        assert view["ranking"] == [0, 1] and view["winner"] == 0 and view["legal_actions"] == []
    assert describe(end, ["Ann", "Bob"]) == "Everyone else resigned: Ann wins."
    assert table.illegal(0, draw()) == "The game is over."
    assert E.replay(2, 1, table.log, [won_by_1, won_by_1], {"first": 0}) == st


def test_r48_a_resigned_seat_ranks_last_even_with_the_fewest_points():
    table = three_seat_game(33)
    table.peek_all()
    table.act(0, draw())
    table.act(1, RESIGN)                              # off turn, in round 1
    table.act(0, exchange(0, 1))
    for _ in range(4):
        events = call_round(table, caller=0)
    st = table.state
    assert st.round_scores == [[29, -4, 33]] * 4, "seat 1 still scores: its cards stayed"
    assert st.totals == [116, -16, 132] and st.eye_holder == 1
    end = over(events)
    assert end["winner"] == 0 and end["resigned"] == [1] and "ended" not in end
    assert E.status(st)["ranking"] == [0, 2, 1] and st.winner == 0
    assert describe(end, NAMES) == "The game is over: Ann wins with 116 points."
    summary = round_summary(st.log).words(NAMES[:3])
    assert summary["winner"] == ("Ann wins the game with 116 points, the fewest of the "
                                 "players who did not resign. Bob resigned and ranks "
                                 "last.")
    assert table.replayed() == st


def test_r48_r28_a_tie_among_the_seats_left_goes_clockwise_from_a_resigned_eye_holder():
    table = three_seat_game(29)
    table.act(1, RESIGN)
    for _ in range(4):
        events = call_round(table, caller=0)
    st = table.state
    assert st.totals == [116, -16, 116] and st.eye_holder == 1
    # R28 among seats 0 and 2: the holder (seat 1) is not tied, so the tied seat first
    # clockwise from it: seat 2, then seat 0; seat 1 last
    assert over(events)["winner"] == 2 and E.status(st)["ranking"] == [2, 0, 1]
    words = round_summary(st.log).words(NAMES[:3])["winner"]
    assert words == ("Ann and Cy tie on 116 points; Cy, the first of them clockwise from the "
                     "silver eye holder Bob, wins the game. Bob resigned and ranks last."
                     "")


def test_r48_when_two_of_three_resign_the_last_one_wins_at_once():
    table = three_seat_game(29)
    table.peek_all()
    assert [e["type"] for e in table.act(2, RESIGN)] == ["resign"]
    assert table.state.phase == "play", "two seats are left"
    events = table.act(0, RESIGN)
    assert [e["type"] for e in events] == ["resign", "game_over"]
    assert over(events)["winner"] == 1 and over(events)["resigned"] == [2, 0]
    assert E.status(table.state)["ranking"] == [1, 0, 2], "the last to resign ranks higher"
    assert event_sentence(over(events), NAMES[:3], 1) == "Everyone else resigned: you win."
    assert last_summary(E.view(table.state, None)) is None, "no round was scored"


def test_r48_several_resigned_seats_rank_by_who_stayed_longer():
    deck = stack(villages=[[38, 39, 6, 14, 18], [0, 1, 2, 3, 5]], discard=42, top=[30])
    table = Table.deal(4, deck, first=0)
    for seat in (1, 3, 2):
        table.act(seat, RESIGN)
    assert table.state.phase == "over" and table.state.resigned == [1, 3, 2]
    assert E.status(table.state)["ranking"] == [0, 2, 3, 1]


def test_r48_a_seat_cannot_resign_twice_nor_once_the_game_is_over():
    table = three_seat_game(29)
    table.act(0, RESIGN)
    assert table.illegal(0, RESIGN) == "You have already resigned."
    table.act(0, take_over())                         # R49: someone new may resign again
    table.act(0, RESIGN)
    table.act(1, RESIGN)
    assert table.state.phase == "over"
    for seat, action in ((2, RESIGN), (0, take_over()), (1, take_over())):
        assert table.illegal(seat, action) == "The game is over."


def test_r48_the_resignation_and_the_end_it_brings_in_words():
    table = three_seat_game(29)
    names = ["Fay", "Bob", "Cy"]
    event = table.act(0, RESIGN)[0]
    assert describe(event, names) == ("Fay resigned: the rules' defaults play their seat from "
                                      "now on, and they rank last.")
    assert event_sentence(event, names, 0) == ("You resigned: the rules' defaults play your "
                                               "seat from now on, and you rank last.")
    assert event_sentence(event, names, 1) == describe(event, names)
    table.peek_all()
    played = table.act(0, PASS)
    assert played_parts(played, names, 0, 1, RESIGNED)[0] == "Fay has resigned: their turn was passed."
    assert played_parts(played, names, 0, 0, RESIGNED)[0] == \
        "You have resigned: your turn was passed for you."


def test_r48_a_late_reply_still_means_the_same_after_another_seat_resigned():
    table = three_seat_game(29)
    then = table.state
    table.act(1, RESIGN)
    meaning = E.still_means(then, table.state, 0, {"type": "peek", "positions": [0, 1]})
    assert meaning.applies and meaning.reason == "same"
    table.act(0, take_over("Gus", "Ann"))
    assert E.still_means(then, table.state, 2, {"type": "peek", "positions": [3, 4]}).applies
    table.act(2, RESIGN)                              # the game is over: seat 0 won
    assert E.still_means(then, table.state, 0, {"type": "peek", "positions": [0, 1]}).reason \
        == "over"


# --- R49 taking a seat over ---------------------------------------------------------

def test_r49_a_take_over_of_a_resigned_seat_restores_its_normal_ranking():
    table = three_seat_game(33)
    table.act(1, RESIGN)
    call_round(table, caller=0)
    call_round(table, caller=0)
    events = table.act(1, take_over("Gus", "Bob"))
    assert events == [{"type": "take_over", "seat": 1, "step": table.state.step, "round": 3,
                       "name": "Gus", "was": "Bob"}]
    assert table.state.resigned == [] and E.status(table.state)["resigned"] == []
    for _ in range(2):
        events = call_round(table, caller=0)
    assert table.state.totals == [116, -16, 132]
    assert over(events)["winner"] == 1 and "resigned" not in over(events)
    assert E.status(table.state)["ranking"] == [1, 0, 2]
    assert table.replayed() == table.state


@pytest.mark.parametrize("resigned", [True, False])
def test_r49_the_new_player_sees_exactly_what_the_seat_had_seen(resigned):
    table = Table.deal(3, stack(villages=[[38, 39, 6, 14, 18], [0, 1, 2, 3, 5]], discard=42,
                                top=[30, 31]), first=0, seed=5)
    table.peek_all()
    table.act(0, draw())                              # seat 0 knows its hand and two peeks
    if resigned:
        table.act(0, RESIGN)
    views = {who: E.view(table.state, who) for who in (None, 0, 1, 2)}
    table.act(0, take_over())
    for who, before in views.items():
        after = E.view(table.state, who)
        assert without(after, "step", "log", "resigned") == without(before, "step", "log", "resigned")
        assert after["log"][:-1] == before["log"] and after["log"][-1]["type"] == "take_over"
        assert after["resigned"] == [] and after["step"] == before["step"] + 1
    assert table.state.hand == 30 and E.view(table.state, 0)["hand"]["id"] == 30
    table.act(0, exchange(0, 1))                      # the decision it took over goes on
    assert table.current == 1


def test_r49_take_over_names_are_checked_and_said():
    table = three_seat_game(29)
    for bad in ({"name": "", "was": "Fay"}, {"name": "x" * 61, "was": "Fay"},
                {"name": "Gus"}, {"name": "Gus", "was": 7}, {"name": "Gus\nX", "was": "Fay"}):
        message = table.illegal(0, {"type": "take_over", **bad})
        assert "must be a name of 1 to 60 characters" in message
    event = table.act(1, take_over("Gus", "Fay"))[0]
    # the names may already be the new ones: the sentence uses the event's own
    for names in (["Ann", "Fay", "Cy"], ["Ann", "Gus", "Cy"]):
        assert describe(event, names) == "Gus took over Fay's seat in round 1."
    assert event_sentence(event, ["Ann", "Gus", "Cy"], 1) == \
        "You took over Fay's seat in round 1."
    assert event_sentence(event, ["Ann", "Gus", "Cy"], 0) == \
        "Gus took over Fay's seat in round 1."
    assert describe({**event, "was": "James"}, NAMES) == "Gus took over James' seat in round 1."


def test_r48_r49_the_schema_stores_the_new_actions_and_refuses_bad_names():
    assert action_schema.check(RESIGN) == RESIGN
    assert action_schema.check(take_over("Zoë 🎲", "Fay")) == take_over("Zoë 🎲", "Fay")
    for bad in ({"type": "resign", "seat": 1}, take_over("", "Fay"), take_over("x" * 61, "Fay"),
                take_over("Gus", "Fay\u0007"), take_over("Gus", "a\u2028b"),
                {"type": "take_over", "name": 3, "was": "Fay"}):
        with pytest.raises(action_schema.ActionRefused):
            action_schema.check(bad)
    with pytest.raises(action_schema.ActionRefused, match="a name of 1 to 60 characters"):
        action_schema.check(take_over("Gus", "\t"))


def test_r48_r49_a_log_with_resignations_and_take_overs_replays_to_the_live_state():
    table = three_seat_game(29)
    rng = random.Random(3)
    table.act(2, RESIGN)
    for step in range(2000):
        if table.state.phase == "over":
            break
        if step == 40:
            table.act(2, take_over("Gus", "Cy"))
        if step == 80:
            table.act(0, RESIGN)
        st = table.state
        seat = E.to_act(st)[0]
        if seat in st.resigned:
            table.act(seat, E.default_action(st, seat))
        else:
            table.act(seat, bots.greedy_bot(st, seat, rng))
        if step % 25 == 0:
            assert table.replayed() == table.state
    st = table.state
    assert st.phase == "over" and st.round == 4 and st.resigned == [0]
    assert E.status(st)["ranking"][-1] == 0 and st.winner != 0
    assert table.replayed() == st
    assert E.view(table.replayed(), 1) == E.view(table.state, 1)


# --- R50 the first player -------------------------------------------------------

@pytest.mark.parametrize("seats", [2, 3, 4])
def test_r50_the_first_option_sets_round_1_start_player_and_eye_holder(seats):
    for seed in (1, 2, 3):
        plain = E.new_game(seats, seed)
        assert plain.eye_holder == random.Random(f"{seed}:first").randrange(seats), "R6 as before"
        for first in range(seats):
            st = E.new_game(seats, seed, options={"first": first})
            view = E.view(st, None)
            assert (st.current, st.start_player, view["current"]) == (first, first, first)
            assert view["silver_eye"] == {"holder": first, "open": False}
            assert view["log"][0]["type"] == "round_start" and view["log"][0]["start"] == first
            assert st.villages == plain.villages and st.deck == plain.deck, "the same deal"
            assert E.to_act(st)[0] == first


@pytest.mark.parametrize("first", [-1, 3, True, "0", 1.0, [0]])
def test_r50_a_bad_first_player_is_refused(first):
    with pytest.raises(ValueError, match="option 'first'"):
        E.new_game(3, 1, options={"first": first})
