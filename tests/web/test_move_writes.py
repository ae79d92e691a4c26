"""A move's writes are queued on its unit of work and sent together by
``repository.write_move``: on PostgreSQL as one statement (each write a CTE), on
SQLite one statement each. These scenarios check, on both stores, that the log stays
exactly what was appended: written by the move's one write, read back once written,
dropped with a rollback (and nothing queued survives it), a clash on
``(game_id, seq)`` still refused, and a unit that ends with writes still queued
refuses to commit rather than losing them."""
from __future__ import annotations

import random

import pytest
from sqlalchemy.exc import IntegrityError

from app import services
from app.gamelog import store
from app.db import get_engine, read_session
from app.db.unit import unit_of_work
from tests.conftest import random_move, statements_sent


def test_a_move_sends_its_action_row_with_the_mail_row_update(new_game, app, db):
    created = new_game(seats=2)
    snap = created.snapshot
    seat, action = random_move(snap.state, random.Random(1))
    sent = statements_sent(app, lambda: services.submit_action(created.game_id, seat, action,
                                                           snap.seq))
    inserts = [s for s in sent if "INSERT INTO action" in s]
    assert len(inserts) == 1
    if get_engine(app).dialect.name == "postgresql":  # one statement: every write a CTE
        assert inserts[0].startswith("WITH") and "UPDATE seat_mail" in inserts[0]
        assert len(sent) == 2, sent  # the move's read, and its writes
    else:
        assert inserts[0].startswith("INSERT INTO action")
    assert db.actions(created.game_id) == [(1, seat, "player")]


def test_an_appended_row_is_in_the_log_once_its_unit_is_written(new_game, app):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(2))
    with unit_of_work() as unit:
        store.append_action(unit, created.game_id, 1, seat, action)
        assert store.last_seq(unit.session, created.game_id) == 0, "queued, not sent"
        assert unit.write() >= 1
        assert store.last_seq(unit.session, created.game_id) == 1
        assert [row.seq for row in store.load_actions(unit.session, created.game_id)] == [1]
    with read_session() as session:
        assert store.last_seq(session, created.game_id) == 1


def test_a_written_row_is_dropped_by_a_rollback_and_a_forgotten_one_refuses_to_commit(
        new_game, app):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(3))
    with pytest.raises(RuntimeError, match="refused after all"):
        with unit_of_work() as unit:
            store.append_action(unit, created.game_id, 1, seat, action)
            unit.write()
            raise RuntimeError("the move was refused after all")
    with read_session() as session:
        assert store.last_seq(session, created.game_id) == 0
    with pytest.raises(RuntimeError, match="still queued"):
        with unit_of_work() as unit:
            store.append_action(unit, created.game_id, 1, seat, action)  # never written
    with read_session() as session:
        assert store.last_seq(session, created.game_id) == 0
    with unit_of_work() as unit:
        store.append_action(unit, created.game_id, 1, seat, action)
        unit.write()
    with read_session() as session:
        assert [row.seq for row in store.load_actions(session, created.game_id)] == [1]


def test_a_second_row_for_the_same_step_is_refused(new_game, app, db):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(4))
    with unit_of_work() as unit:
        store.append_action(unit, created.game_id, 1, seat, action)
        unit.write()
    with pytest.raises(IntegrityError):
        with unit_of_work() as unit:
            store.append_action(unit, created.game_id, 1, seat, action, source="mail")
            unit.write()
    assert db.actions(created.game_id) == [(1, seat, "player")]
