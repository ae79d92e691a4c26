"""The bots play legal moves from their own view; the greedy bot is a real opponent."""
from __future__ import annotations

import random

import pytest

from app import engine as E
from app.engine import bots
from app.engine.rules import apply_in_place


def play(seats: int, seed: int, kinds: list[str]) -> E.State:
    st = E.new_game(seats, seed)
    rng = random.Random(seed)
    while st.phase != "over":
        seat = E.to_act(st)[0]
        action = bots.choose(kinds[seat], st, seat, rng)
        assert action in E.legal_actions(st, seat)
        apply_in_place(st, seat, action)
    return st


@pytest.mark.slow
def test_greedy_bot_beats_random_bot_in_at_least_70_percent_of_500_two_seat_games():
    wins = 0
    for game in range(500):
        greedy = game % 2                       # both seats, in turn
        kinds = ["random", "random"]
        kinds[greedy] = "greedy"
        wins += play(2, game, kinds).winner == greedy
    assert wins / 500 >= 0.70, f"greedy won only {wins} of 500"


def test_greedy_bots_finish_three_and_four_seat_games():
    for seats in (3, 4):
        st = play(seats, 11, ["greedy"] * seats)
        assert st.phase == "over" and len(st.round_scores) == 4


def test_greedy_bot_decides_from_its_own_view_only():
    """Two states that look the same to seat 0 get the same choice, whatever is hidden."""
    deck = list(range(52))
    other = deck[:]
    other[5:10], other[30:35] = deck[30:35], deck[5:10]    # seat 1's cards and deep deck differ
    seed = next(s for s in range(100) if E.new_game(2, s).current == 0)
    a, b = E.new_game(2, seed, [deck]), E.new_game(2, seed, [other])
    for st in (a, b):
        apply_in_place(st, 0, {"type": "peek", "positions": [0, 1]})
        apply_in_place(st, 0, {"type": "draw"})
    assert E.view(a, 0) == E.view(b, 0)
    assert bots.greedy_bot(a, 0, random.Random(1)) == bots.greedy_bot(b, 0, random.Random(1))


def test_action_menu_is_legal_actions_with_exchanges_as_position_sets():
    from app.engine.rules import action_menu
    rng = random.Random(5)
    checked = 0
    for seed in range(30):
        st = E.new_game(2 + seed % 3, seed)
        while st.phase != "over":
            for seat in range(st.seats):
                others, sets = action_menu(st, seat)
                menu = others + [{"type": "exchange", "positions": list(c)} for c in sets]
                legal = E.legal_actions(st, seat)
                assert sorted(map(repr, menu)) == sorted(map(repr, legal))
                checked += bool(sets)
            seat = E.to_act(st)[0]
            apply_in_place(st, seat, bots.random_bot(st, seat, rng))
    assert checked > 500
