"""Self-play with people leaving and arriving (R48, R49, R50): random games where random
seats resign at random moments, some are taken over again, and some start with the
`first` option.

As the server does, a resigned seat's decisions are played by `default_action` as
soon as it has one. Invariants: 52 cards always accounted for; every seat in
`to_act` has a legal action and the bots never see `resign` or `take_over` (nor any
other never-offered type) among them; no exception; every game ends, after four
rounds or when one seat is left that has not resigned; then nobody is to act, no
seat has a legal or default action, and the ranking is a permutation of the seats
with the resigned ones last (the last to resign first among them) and the winner
first; a win by resignation leaves the totals as the last scored round left them;
the replay of the log equals the live state; every event can be said in words.
"""
from __future__ import annotations

import random

import pytest

from app import engine as E
from app.engine import bots
from app.engine.describe import event_sentence
from tests.engine.test_selfplay import all_cards

GAMES = 400
CHUNKS = 4                   # separate tests, so that xdist shares them between cores
NEVER_OFFERED = {"resign", "take_over", "pass", "back", "away"}
NAMES = ["Ann", "Bob", "Cy", "Dee"]


def play_with_people(game_no: int) -> tuple[E.State, str]:
    rng = random.Random(f"people:{game_no}")
    seats = rng.choice([2, 3, 4])
    options: dict = {"memory": rng.random() < 0.2,
                     "simon": [rng.choice(["auto", "auto", "off"]) for _ in range(seats)]}
    if rng.random() < 0.5:
        options["first"] = rng.randrange(seats)                     # R50
    st = E.new_game(seats, game_no, options=options)
    if "first" in options:
        assert st.current == st.eye_holder == options["first"]
    # how often someone leaves: from never to often (a resignation every ~60 steps)
    leave = rng.choice([0.0, 0.002, 0.005, 0.016])
    log: list[tuple[int, dict]] = []
    order: list[int] = []          # the resignations as the test saw them, take-overs removed
    totals_scored = list(st.totals)

    def act(seat: int, action: dict) -> list[dict]:
        nonlocal st
        st, events = E.apply_action(st, seat, action)
        log.append((seat, action))
        for event in events:
            assert event_sentence(event, NAMES[:seats], seat)
        return events

    for _ in range(20_000):
        if st.phase == "over":
            break
        assert sorted(all_cards(st)) == list(range(52))
        playing = [s for s in range(seats) if s not in st.resigned]
        if rng.random() < leave:
            seat = rng.choice(playing)
            events = act(seat, {"type": "resign"})
            order.append(seat)
            if len(playing) == 2:
                assert [e["type"] for e in events] == ["resign", "game_over"]
                assert events[1]["ended"] == "resigned" and st.totals == totals_scored
                break
            assert [e["type"] for e in events] == ["resign"]
            continue
        if order and rng.random() < leave / 2:                    # R49: someone sits down
            seat = rng.choice(order)
            act(seat, {"type": "take_over", "name": f"New {seat}", "was": NAMES[seat]})
            order.remove(seat)
            continue
        assert st.resigned == order
        waiting = E.to_act(st)
        assert waiting, "nobody can act but the game is not over"
        for s in waiting:
            legal = E.legal_actions(st, s)
            assert legal and not NEVER_OFFERED & {a["type"] for a in legal}
        owed = [s for s in waiting if s in st.resigned]
        if owed:                                    # the server plays a resigned seat at once
            seat = owed[0]
            action = E.default_action(st, seat)
            assert action is not None
        else:
            seat = rng.choice(waiting)
            action = bots.random_bot(st, seat, rng)
            assert action in E.legal_actions(st, seat), f"the bot chose {action}: not legal"
        events = act(seat, action)
        if any(e["type"] == "round_scored" for e in events):
            totals_scored = list(st.totals)
    else:
        raise AssertionError("the game did not end")
    assert st.phase == "over" and sorted(all_cards(st)) == list(range(52))
    assert st.resigned == order
    status = E.status(st)
    ranking = status["ranking"]
    assert sorted(ranking) == list(range(seats)), "a permutation of the seats"
    assert ranking[len(ranking) - len(order):] == order[::-1], "resigned last, last to go first"
    assert ranking[0] == st.winner == status["winner"] and st.winner not in st.resigned
    playing = ranking[:seats - len(order)]
    assert [st.totals[s] for s in playing] == sorted(st.totals[s] for s in playing)
    assert st.totals == [sum(r[s] for r in st.round_scores) for s in range(seats)]
    assert status["to_act"] == [] and status["pending"] is None
    for s in range(seats):
        assert E.legal_actions(st, s) == [] and E.default_action(st, s) is None
        for action in ({"type": "resign"}, {"type": "take_over", "name": "X", "was": "Y"}):
            with pytest.raises(E.IllegalAction, match="The game is over."):
                E.apply_action(st, s, action)
    replayed = E.replay(seats, game_no, log, options=options)
    assert replayed == st
    for who in [None, *range(seats)]:
        assert E.view(replayed, who) == E.view(st, who)
        assert E.view(st, who)["ranking"] == ranking
    if len(st.round_scores) == 4:
        return st, "rounds"
    assert len(st.resigned) == seats - 1
    return st, "resigned"


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_with_resignations_and_take_overs_keep_every_invariant(chunk):
    ends: dict[str, int] = {}
    resigned_at_the_end = 0
    for game_no in range(chunk, GAMES, CHUNKS):
        st, how = play_with_people(game_no)
        ends[how] = ends.get(how, 0) + 1
        resigned_at_the_end += how == "rounds" and bool(st.resigned)
    # each chunk sees both ends, and full games with resigned seats in them
    assert ends.get("rounds", 0) and ends.get("resigned", 0) and resigned_at_the_end, ends
