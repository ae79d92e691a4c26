"""A move's deadline changes are netted (``deadlines.Changes``) and sent with its
other writes: on PostgreSQL in the move's one statement, whose parts all see the rows
as the move found them. These scenarios check, on both stores, that every deadline
ends up as if each change had been sent on its own: a turn passing on, a seat's open
deadlines as the move leaves them (read before anything is sent), a rollback that
drops them, a seat whose turn closes and opens again in one move, a decision opened
and closed in the same move, and a game's end after a seat's own close.
"""
from __future__ import annotations

import random

import pytest

from app.clock import deadlines as dl
from app import engine, services
from app.db import get_engine, read_session
from app.db.unit import unit_of_work
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
        together = [s for s in sent if s.startswith("WITH") and "UPDATE deadline" in s]
        assert len(together) == 1 and "INSERT INTO deadline" in together[0]
        assert not any(s.startswith("UPDATE deadline") for s in sent), "not sent on its own"
    if seat not in after.view(None)["to_act"]:
        assert open_kinds(game.game_id, seat) == []
        assert closed(game.game_id, seat) == [("decision", "acted"), ("reminder", "acted")]
    for other in waiting:
        assert [kind for kind, _ in open_kinds(game.game_id, other)].count("decision") == 1


def test_a_seats_open_deadlines_are_read_as_the_move_leaves_them(app, game_at_t0):
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    assert ("decision", 0) in open_kinds(game.game_id, seat)
    with unit_of_work() as unit:
        dl.close_turn(unit, game.game_id, seat, T0 + hours(1), "moved")
        assert dl.open_now(unit, game.game_id, seat) == [], "read after the close"
        assert ("decision", 0) in open_kinds(game.game_id, seat), "nothing sent yet"
        unit.write()
    assert open_kinds(game.game_id, seat) == []
    with unit_of_work() as unit:
        dl.open_decision(unit, game.game_id, seat, 5, T0 + hours(2), SETTINGS)
        assert [row.opened_step for row in dl.open_now(unit, game.game_id, seat,
                                                          dl.DECISION)] == [5]
        unit.write()
    with unit_of_work() as unit:
        dl.close_turn(unit, game.game_id, seat, T0 + hours(3), "acted")
        unit.write()
    assert open_kinds(game.game_id, seat) == []
    assert ("decision", "acted") in closed(game.game_id, seat)


def test_a_close_is_dropped_with_its_rollback(app, game_at_t0):
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    before = open_kinds(game.game_id, seat)
    with pytest.raises(RuntimeError):
        with unit_of_work() as unit:
            dl.close_turn(unit, game.game_id, seat, T0 + hours(1), "acted")
            unit.write()
            raise RuntimeError("the move was refused after all")
    assert open_kinds(game.game_id, seat) == before
    with unit_of_work() as unit:  # and the next transaction does not send it either
        dl.open_decision(unit, game.game_id, 1 - seat, 9, T0 + hours(1), SETTINGS)
        unit.write()
    assert open_kinds(game.game_id, seat) == before


def test_a_seat_whose_turn_closes_and_opens_again_keeps_only_the_new_decision(app,
                                                                              game_at_t0):
    """Its close and its new decision go in one statement: the close must not
    reach the rows that statement inserts."""
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    with unit_of_work() as unit:
        dl.close_turn(unit, game.game_id, seat, T0 + hours(1), "acted")
        dl.open_decision(unit, game.game_id, seat, 7, T0 + hours(1), SETTINGS)
        unit.write()
    assert sorted(open_kinds(game.game_id, seat)) == [("decision", 7), ("reminder", 7)]
    assert closed(game.game_id, seat) == [("decision", "acted"), ("reminder", "acted")]


def test_a_decision_opened_and_closed_in_one_move_is_written_closed(app, game_at_t0):
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    other = 1 - seat
    with unit_of_work() as unit:
        dl.open_decision(unit, game.game_id, other, 3, T0 + hours(1), SETTINGS)
        dl.close_turn(unit, game.game_id, other, T0 + hours(1), "moved")
        unit.write()
    assert open_kinds(game.game_id, other) == []
    with read_session() as session:
        written = session.exec(dl.select(dl.Deadline).where(
            dl.Deadline.game_id == game.game_id, dl.Deadline.opened_step == 3)).all()
        written = [(row.kind, row.outcome) for row in written]
    assert sorted(written) == [("decision", "moved"),
                                                                   ("reminder", "moved")]


def test_a_games_end_after_a_seats_own_close_keeps_the_seats_outcome(app, game_at_t0):
    """Both closes reach the seat's rows; each row closes once, with the first."""
    game = game_at_t0(deadline_hours=24, reminders=["half"])
    seat = game.snapshot.view(None)["to_act"][0]
    with unit_of_work() as unit:
        dl.close_turn(unit, game.game_id, seat, T0 + hours(1), "acted")
        dl.close_open(unit, game.game_id, T0 + hours(1), "over",
                      kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
        unit.write()
    assert closed(game.game_id, seat) == [("decision", "acted"), ("reminder", "acted")]
    with read_session() as session:
        assert dl.open_rows(session, game.game_id) == []


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
