"""On PostgreSQL the close of a seat's deadlines when its turn ends is not sent on
its own: the next decision the move opens carries it (``deadlines.close_turn``), so
a turn passing from one seat to the next is one statement. These scenarios check
that every deadline still ends up as it would with two statements: carried, sent
before anything else reads deadlines, sent at commit, dropped by a rollback, and a
seat whose turn closes and opens again keeps exactly its new decision.
"""
from __future__ import annotations

import random

import pytest

from app.clock import deadlines as dl
from app import engine, services
from app.db import get_engine, read_session, write_session
from tests.clock.conftest import T0, hours
from tests.conftest import statements_sent

SETTINGS = dl.ClockSettings.from_options({"deadline_hours": 24, "reminders": ["half"]})


def open_kinds(game_id: str, seat: int) -> list[tuple[str, int]]:
    with read_session() as session:
        return [(row.kind, row.opened_step) for row in dl.open_rows(session, game_id, seat)]


def closed(game_id: str, seat: int) -> list[tuple[str, str | None]]:
    with read_session() as session:
        rows = session.exec(dl.select(dl.Deadline).where(dl.Deadline.game_id == game_id,
                                                         dl.Deadline.seat == seat,
                                                         dl.Deadline.done_at.is_not(None)))
        return sorted((row.kind, row.outcome) for row in rows)


def test_a_turn_passing_on_closes_the_old_decision_and_opens_the_new(app, game_at_t0):
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    snap = game.snapshot
    seat = snap.view(None)["to_act"][0]
    move = engine.legal_actions(snap.state, seat)[0]
    with dl.at(T0 + hours(1)):
        sent = statements_sent(app, lambda: services.submit_action(game.game_id, seat, move, 0))
    after = services.snapshot(game.game_id)
    waiting = [s for s in after.view(None)["to_act"] if s != seat]
    if get_engine(app).dialect.name == "postgresql" and waiting:
        carried = [s for s in sent if s.startswith("WITH closed AS (UPDATE deadline")]
        assert len(carried) == 1 and "INSERT INTO deadline" in carried[0]
        assert not any(s.startswith("UPDATE deadline") for s in sent), "not sent on its own"
    if seat not in after.view(None)["to_act"]:
        assert open_kinds(game.game_id, seat) == []
        assert closed(game.game_id, seat) == [("decision", "acted"), ("reminder", "acted")]
    for other in waiting:
        assert [kind for kind, _ in open_kinds(game.game_id, other)].count("decision") == 1


def test_a_close_is_sent_before_deadlines_are_read_and_at_commit(app, game_at_t0):
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    assert ("decision", 0) in open_kinds(game.game_id, seat)
    with write_session() as session:
        dl.close_turn(session, game.game_id, seat, T0 + hours(1), "moved")
        assert dl.open_rows(session, game.game_id, seat) == [], "read after the close"
    assert open_kinds(game.game_id, seat) == []
    with write_session() as session:  # nothing read, nothing carried: sent at commit
        dl.open_decision(session, game.game_id, seat, 5, T0 + hours(2), SETTINGS)
    with write_session() as session:
        dl.close_turn(session, game.game_id, seat, T0 + hours(3), "acted")
    assert open_kinds(game.game_id, seat) == []
    assert ("decision", "acted") in closed(game.game_id, seat)


def test_a_close_is_dropped_with_its_rollback(app, game_at_t0):
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    before = open_kinds(game.game_id, seat)
    with pytest.raises(RuntimeError):
        with write_session() as session:
            dl.close_turn(session, game.game_id, seat, T0 + hours(1), "acted")
            raise RuntimeError("the move was refused after all")
    assert open_kinds(game.game_id, seat) == before
    with write_session() as session:  # and the next transaction does not send it either
        dl.open_decision(session, game.game_id, 1 - seat, 9, T0 + hours(1), SETTINGS)
    assert open_kinds(game.game_id, seat) == before


def test_a_seat_whose_turn_closes_and_opens_again_keeps_only_the_new_decision(app,
                                                                              game_at_t0):
    """Its close and its new decision may go in one statement: the close must not
    reach the rows that statement inserts."""
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    with write_session() as session:
        dl.close_turn(session, game.game_id, seat, T0 + hours(1), "acted")
        dl.open_decision(session, game.game_id, seat, 7, T0 + hours(1), SETTINGS)
    assert sorted(open_kinds(game.game_id, seat)) == [("decision", 7), ("reminder", 7)]
    assert closed(game.game_id, seat) == [("decision", "acted"), ("reminder", "acted")]


def test_whole_games_leave_one_open_decision_for_each_seat_that_must_act(app, new_game):
    """Random complete games: at every step, exactly the seats the engine waits on
    have one open decision each, and every other deadline is closed."""
    game, rng = new_game(seats=3), random.Random(11)
    snap = game.snapshot
    while snap.game.status == "running":
        waiting = set(snap.view(None)["to_act"])
        with read_session() as session:
            decisions = [row.seat for row in dl.open_rows(session, game.game_id, kind=dl.DECISION)]
        assert sorted(decisions) == sorted(waiting), snap.seq
        seat = rng.choice(sorted(waiting))
        snap = services.submit_action(game.game_id, seat,
                                      rng.choice(engine.legal_actions(snap.state, seat)),
                                      snap.seq).snapshot
    with read_session() as session:
        assert dl.open_rows(session, game.game_id) == []
