"""Bad input gets a clear refusal and changes nothing.

Legal actions from real positions are bent in every way a careless client or a
forged request could bend them (wrong types, out-of-range numbers, missing or
extra fields, another seat); the engine must either accept the action or raise
IllegalAction with a sentence — never another exception, never a changed state.
"""
from __future__ import annotations

import copy
import random

import pytest

from app import engine as E
from app.engine import bots

WEIRD = [None, True, -1, 99, 2.5, "0", "left", [], [0, 0], [0, 99], {"a": 1}, [None]]


def bent(action: dict, rng: random.Random) -> dict:
    bad = copy.deepcopy(action)
    choice = rng.randrange(5)
    if choice == 0 and bad:
        key = rng.choice(sorted(bad))
        if key != "type":
            del bad[key]
    elif choice == 1:
        key = rng.choice(sorted(bad) + ["positions", "position", "seat", "end", "into", "pile",
                                        "value", "spotter"])
        bad[key] = rng.choice(WEIRD)
    elif choice == 2:
        bad["type"] = rng.choice(["draw", "take", "exchange", "peek", "twist", "ghost", "see",
                                  "undermine", "nelly", "bomb", "simon", "pick", "gamble",
                                  "tanner", "drunk", "look", "spot", "skip", "done", "Draw", ""])
    elif choice == 3:
        bad["extra"] = rng.choice(WEIRD)
    else:
        bad = rng.choice([None, [], "draw", 7, {"type": 5}, {"positions": [0]}])
    return bad


@pytest.mark.slow  # self-play fuzz: forty games, three bent actions a step
def test_bent_actions_are_accepted_or_refused_in_words_and_never_change_the_state():
    rng = random.Random(2024)
    refused = 0
    for game in range(40):
        seats = 2 + game % 3
        st = E.new_game(seats, game)
        for _ in range(400):
            if st.phase == "over":
                break
            waiting = E.to_act(st)
            seat = rng.choice(waiting)
            before = E.view(st, None), [E.view(st, s) for s in range(seats)]
            for _ in range(3):
                action = bent(bots.random_bot(st, seat, rng), rng)
                who = rng.choice([seat, rng.randrange(seats), seats, -1, "0", None])
                try:
                    E.apply_action(st, who, action)
                except E.IllegalAction as e:
                    refused += 1
                    assert str(e).strip() and not str(e).startswith("Traceback")
            assert (E.view(st, None), [E.view(st, s) for s in range(seats)]) == before
            st, _ = E.apply_action(st, seat, bots.random_bot(st, seat, rng))
    assert refused > 1000
