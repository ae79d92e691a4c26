"""The clock prunes done bookkeeping; the log, the games and pending mail stay."""
from __future__ import annotations

import uuid
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


# -- bounded batches (issue 46 item 5) ------------------------------------------------------

def _mails(app, *born: timedelta, status: str = "sent") -> list[int]:
    """Outbox rows written (and left) at T0 + each of ``born``, in that order: their ids."""
    from sqlmodel import Session

    from app.mail.models import Outbox

    rows = [Outbox(kind="turn", to="ann@example.com", subject="s", text="", headers={},
                   status=status, next_attempt_at=T0 + at, created_at=T0 + at,
                   sent_at=T0 + at if status != "pending" else None,
                   message_id=f"<{key}@t>", idempotency=key)
            for at, key in zip(born, (uuid.uuid4().hex for _ in born))]
    with Session(get_engine(app)) as session:
        session.add_all(rows)
        session.commit()
        return [int(row.id or 0) for row in rows]


def _outbox_statements(app, work) -> list[str]:
    """The statements on the outbox that ``work()`` ran; on SQLite, each also planned:
    none may scan the table (PostgreSQL's rows read: tests/store_lived)."""
    seen: list[str] = []
    plans: list[tuple[str, str]] = []

    def note(conn, _cursor, statement, parameters, *_rest) -> None:
        if "outbox" in statement and not statement.startswith("EXPLAIN"):
            seen.append(statement)
            if conn.dialect.name == "sqlite":
                found = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
                plans.extend((statement, str(row[-1])) for row in found)

    engine = get_engine(app)
    sa.event.listen(engine, "before_cursor_execute", note)
    try:
        work()
    finally:
        sa.event.remove(engine, "before_cursor_execute", note)
    scans = [(statement, step) for statement, step in plans if step.startswith("SCAN outbox")]
    assert scans == [], f"a prune statement walks the outbox: {scans}"
    return seen


def test_a_pass_costs_the_old_rows_not_the_store(app, db):
    """Seven old mails, then the young ones: a pass with windows of three ids deletes the
    seven in three windows, whether 20 or 600 young mails follow, and each statement reads
    by the primary key from where the last left off (it used to ask for "any old rows"
    until none came back: each ask a scan of the table from its start, and the last one,
    which found none, a walk of the whole table)."""
    costs = []
    for young in (20, 600):
        old = _mails(app, *[_days(0)] * 7)
        _mails(app, *[_days(40)] * young)
        statements = _outbox_statements(
            app, lambda: pruning.prune(get_engine(app), T0 + _days(31), batch=3))
        assert db.count("outbox") == young and not any(db.count("outbox", id=i) for i in old)
        costs.append(len(statements))
        with get_engine(app).begin() as conn:
            conn.execute(sa.text("DELETE FROM outbox"))
    assert costs[0] == costs[1] == 3 * 2, "a window's ids read, then its old rows deleted"


def test_the_batch_is_a_setting_and_a_pass_reads_no_more_than_a_batch_a_statement(app, db):
    _mails(app, *[_days(0)] * 7)
    app.config["PRUNE_BATCH"] = 2
    statements = _outbox_statements(app, lambda: clock.prune(app, T0 + _days(31)))
    assert db.count("outbox") == 0
    assert len(statements) == 4 * 2, "windows of 2, 2, 2 and 1 ids"
    assert all("LIMIT" in s or "id <= " in s for s in statements), statements
    app.config["PRUNE_BATCH"] = 0
    try:
        clock.prune(app, T0 + _days(31))
    except ValueError as refused:
        assert "PRUNE_BATCH must be at least 1" in str(refused)
    else:
        raise AssertionError("a batch of 0 rows would never end")


def test_a_mail_written_out_of_order_is_pruned_by_a_later_pass_never_early(app, db):
    """Ids follow the order rows are written: a pass stops at the first window holding a
    row younger than the cutoff. A row older than the rows before it (its transaction
    committed late) waits for a later pass; nothing young ever goes, nor anything pending."""
    old, young, late, pending = (_mails(app, _days(0)), _mails(app, _days(10)),
                                 _mails(app, _days(0)), _mails(app, _days(0), status="pending"))

    first = pruning.prune(get_engine(app), T0 + _days(31), batch=1)
    assert first.deleted["outbox"] == 1 and not db.count("outbox", id=old[0])
    assert db.count("outbox", id=young[0]) and db.count("outbox", id=late[0])

    later = pruning.prune(get_engine(app), T0 + _days(41), batch=1)
    assert later.deleted["outbox"] == 2
    assert not db.count("outbox", id=young[0]) and not db.count("outbox", id=late[0])
    assert db.count("outbox", id=pending[0]) == 1, "pending mail is never pruned"
