"""On PostgreSQL a move's action row is not sent on its own: the next statement of
the move (the seat's mail row noting the step) carries its insert as a CTE
(``store.carrying_log``). These scenarios check the log stays exactly what was
appended: read back in the same transaction, sent at commit when nothing carried
it, dropped with a rollback, and a clash on ``(game_id, seq)`` still refused."""
from __future__ import annotations

import random

import pytest
from sqlalchemy.exc import IntegrityError

from app import services
from app.gamelog import store
from app.db import get_engine, read_session, write_session
from tests.conftest import random_move, statements_sent


def test_a_move_sends_its_action_row_with_the_mail_row_update(new_game, app, db):
    created = new_game(seats=2)
    snap = created.snapshot
    seat, action = random_move(snap.state, random.Random(1))
    sent = statements_sent(app, lambda: services.submit_action(created.game_id, seat, action,
                                                           snap.seq))
    inserts = [s for s in sent if "INSERT INTO action" in s]
    assert len(inserts) == 1
    if get_engine(app).dialect.name == "postgresql":
        assert "logged AS (INSERT INTO action" in inserts[0] and "UPDATE seat_mail" in inserts[0]
    else:
        assert inserts[0].startswith("INSERT INTO action")
    assert db.actions(created.game_id) == [(1, seat, "player")]


def test_an_appended_row_is_read_back_in_its_own_transaction(new_game, app):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(2))
    with write_session() as session:
        store.append_action(session, created.game_id, 1, seat, action)
        assert store.last_seq(session, created.game_id) == 1
        assert [row.seq for row in store.load_actions(session, created.game_id)] == [1]
    with read_session() as session:
        assert store.last_seq(session, created.game_id) == 1


def test_a_row_nothing_carried_is_sent_at_commit_and_dropped_by_a_rollback(new_game, app):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(3))
    with pytest.raises(RuntimeError):
        with write_session() as session:
            store.append_action(session, created.game_id, 1, seat, action)
            raise RuntimeError("the move was refused after all")
    with read_session() as session:
        assert store.last_seq(session, created.game_id) == 0
    with write_session() as session:
        store.append_action(session, created.game_id, 1, seat, action)
    with read_session() as session:
        assert [row.seq for row in store.load_actions(session, created.game_id)] == [1]


def test_a_second_row_for_the_same_step_is_refused(new_game, app, db):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(4))
    with write_session() as session:
        store.append_action(session, created.game_id, 1, seat, action)
    with pytest.raises(IntegrityError):
        with write_session() as session:
            store.append_action(session, created.game_id, 1, seat, action, source="mail")
    assert db.actions(created.game_id) == [(1, seat, "player")]
