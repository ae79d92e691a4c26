"""The clock prunes done bookkeeping; the log, the games and pending mail stay."""
from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from app.runners import clock
from app.runners import pruning
from app.db import get_engine

from .conftest import T0, hours


def _days(n: float) -> timedelta:
    return timedelta(days=n)


def test_a_finished_game_keeps_its_log_and_loses_its_old_mail_and_deadlines(
        app, db, game_at_t0, tick, mailbox):
    game = game_at_t0(deadline_hours=24, reminders=["half"], seed="4242")
    # nobody plays: reminders and timeouts play the game out over the days
    at = T0
    while at < T0 + _days(20) and db.count("game", id=game.game_id, status="running"):
        at += hours(12)
        tick(at)
    actions = db.count("action", game_id=game.game_id)
    mails, deadlines = db.count("outbox"), db.count("deadline")
    assert actions and mails and deadlines

    # within the retention period nothing goes (the clock's hourly job)
    report = clock.prune(app, at + _days(1))
    assert report.total == 0 and db.count("outbox") == mails

    # past it, what is done goes, in batches smaller than the backlog
    report = pruning.prune(get_engine(app), at + _days(31), batch=3)
    assert report.deleted["outbox"] == mails - db.count("outbox", status="pending")
    assert db.count("outbox", status="sent") == 0
    assert report.deleted["deadline"] > 0
    with get_engine(app).connect() as conn:
        closed_left = conn.execute(sa.text(
            "SELECT count(*) FROM deadline WHERE done_at IS NOT NULL")).scalar()
    assert closed_left <= 1  # only the newest row is spared (ids are never reused)
    assert db.count("action", game_id=game.game_id) == actions  # the log is never pruned
    assert db.count("game", id=game.game_id) == 1


def test_pending_mail_and_open_deadlines_are_never_pruned(app, db, game_at_t0):
    game = game_at_t0(deadline_hours=24, seed="4242")
    pending, open_rows = db.count("outbox", status="pending"), db.count("deadline")
    assert pending and open_rows
    report = pruning.prune(get_engine(app), T0 + _days(400))
    assert report.deleted.get("outbox", 0) == 0 and report.deleted.get("deadline", 0) == 0
    assert db.count("outbox", status="pending") == pending
    assert db.count("deadline") == open_rows
    assert db.count("game", id=game.game_id) == 1


def test_old_notices_go_and_pending_ones_and_the_talk_stay(app, db, game_at_t0):
    """Issue 20: a mail that went to the seat's targets only (``notified``) and finished
    deliveries are bookkeeping like sent mail; a pending delivery and the table talk (part
    of the game, shown in its replay) are never pruned."""
    from sqlmodel import Session

    from app.channels.models import NoticeDelivery
    from app.talk import store as talk_store

    game = game_at_t0(deadline_hours=24, seed="4242")
    engine = get_engine(app)
    with Session(engine) as session:
        talk_store.add(session, game_id=game.game_id, seat=0, text="gg", step=0, at=T0,
                       source="page", key=None)
        for status in ("sent", "failed", "superseded", "pending"):
            session.add(NoticeDelivery(outbox_id=None, target_id=1, game_id=game.game_id,
                                       seat=0, kind="turn", title="t", body="b", status=status,
                                       next_attempt_at=T0, created_at=T0,
                                       sent_at=T0 if status == "sent" else None))
        session.commit()
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE outbox SET status = 'notified', sent_at = :t "
                             "WHERE status = 'pending'"), {"t": T0})
    notified = db.count("outbox", status="notified")
    assert notified
    report = pruning.prune(engine, T0 + _days(31))
    assert report.deleted["outbox"] == notified
    # the three finished ones go; the pending one (also the newest row) stays
    assert report.deleted["notice_delivery"] == 3
    assert db.count("notice_delivery", status="pending") == 1
    assert db.count("talk", game_id=game.game_id) == 1
