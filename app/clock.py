"""The clock process: ``python -m app.clock`` (the ``clock:`` line of the Procfile).

One APScheduler BlockingScheduler with one interval job. Each tick finds the
due deadline rows with the partial index on ``due_at``, leases them (one
UPDATE with ``FOR UPDATE SKIP LOCKED`` inside on PostgreSQL; SQLite runs
writers one at a time), hands each to ``app.timeouts``, then sends the due
outbox mail and the daily digests. Mail does not wait for the tick: a
sender thread (``app.sender.Waker``) delivers each row within seconds of it
becoming due. Nothing lives in the scheduler's memory: killing the process
loses nothing, and a second clock started by mistake finds the rows leased
or already done.
"""
from __future__ import annotations

import argparse
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from app import deadlines as dl
from app import digests, pruning, sender, timeouts
from app.db import get_engine
from app.inbound import worker as inbound_worker
from app.mail import outbox
from app.mail.backends import MailBackend
from app.mail.notify import setting

log = logging.getLogger("app.clock")

DEFAULT_TICK_SECONDS = 30
#: How long a clock may hold a deadline before another may take it over (it
#: died): long enough for one timeout, short enough not to stall a game.
LEASE = timedelta(minutes=5)
BATCH = 200


@dataclass
class TickReport:
    """What one tick did."""

    fired: dict[str, int] = field(default_factory=dict)
    mail: outbox.SendReport = field(default_factory=outbox.SendReport)

    @property
    def deadlines(self) -> int:
        return sum(self.fired.values())


def due_query(now: datetime, limit: int = BATCH) -> Any:
    """Open, due, unleased deadlines, earliest first (served by ix_deadline_open_due)."""
    return (select(dl.Deadline.id)
            .where(col(dl.Deadline.done_at).is_(None), col(dl.Deadline.due_at) <= now,
                   col(dl.Deadline.lease_until).is_(None) | (col(dl.Deadline.lease_until) < now))
            .order_by(col(dl.Deadline.due_at), col(dl.Deadline.id))
            .limit(limit))


def claim_due(engine: Any, now: datetime, owner: str, limit: int = BATCH,
              lease: timedelta = LEASE) -> list[int]:
    """Lease due deadlines to ``owner`` in one statement; return their ids, due order."""
    now = dl.as_utc(now)
    with Session(engine) as session:
        # RETURNING reads back exactly the rows leased now: no scan of the open backlog
        leased = session.execute(update(dl.Deadline)
                                 .where(col(dl.Deadline.id).in_(
                                     due_query(now, limit).with_for_update(skip_locked=True)
                                     .scalar_subquery()))
                                 .values(lease_owner=owner, lease_until=now + lease)
                                 .returning(dl.Deadline.id, dl.Deadline.due_at)
                                 .execution_options(synchronize_session=False)).all()
        session.commit()
    return [row_id for row_id, _ in sorted(leased, key=lambda row: (dl.as_utc(row[1]), row[0]))]


def release(engine: Any, deadline_id: int, owner: str) -> None:
    """Give a deadline back (still open, e.g. the game was busy) for the next tick."""
    with Session(engine) as session:
        session.exec(update(dl.Deadline)  # type: ignore[call-overload]
                     .where(col(dl.Deadline.id) == deadline_id,
                            col(dl.Deadline.lease_owner) == owner)
                     .values(lease_owner=None, lease_until=None))
        session.commit()


mail_backend = sender.mail_backend


def tick(app: Any, now: datetime | None = None, *, owner: str | None = None,
         backend: MailBackend | None = None, send_mail: bool = True) -> TickReport:
    """One tick at ``now`` (injected in tests; wall time otherwise)."""
    owner = owner or f"clock-{uuid.uuid4().hex[:12]}"
    report = TickReport()
    with app.app_context():
        now = dl.as_utc(now or dl.now())
        engine = get_engine(app)
        seen: set[int] = set()
        while True:
            ids = [i for i in claim_due(engine, now, owner) if i not in seen]
            if not ids:  # nothing new: a row that stayed open waits for the next tick
                break
            seen.update(ids)
            for deadline_id in ids:
                try:
                    what = timeouts.fire(deadline_id, now)
                except Exception:  # noqa: BLE001 - one bad game must not stop the clock
                    log.exception("deadline %s failed; it will be tried again", deadline_id)
                    what = "error"  # keeps its lease: retried when the lease runs out
                else:
                    release(engine, deadline_id, owner)
                report.fired[what] = report.fired.get(what, 0) + 1
            if len(ids) < BATCH:
                break
        inbound_worker.apply_pending(app, now)  # replies the receiver stored (issue 11)
        digests.send_daily(now)
        if send_mail:
            report.mail = send_mail_due(app, now, backend=backend)
    return report


def send_mail_due(app: Any, now: datetime, *, backend: MailBackend | None = None) -> outbox.SendReport:
    """Send every due outbox row, batch after batch (see ``app.sender``)."""
    return sender.send_mail_due(app, now, backend=backend)


def prune(app: Any, now: datetime) -> pruning.PruneReport:
    """The hourly housekeeping: done mail and deadlines past the retention period
    (``MAIL_RETENTION_DAYS``, default 30) go, in small batches."""
    days = float(setting("MAIL_RETENTION_DAYS", pruning.DEFAULT_RETENTION_DAYS))
    with app.app_context():
        return pruning.prune(get_engine(app), dl.as_utc(now), retention_days=days)


def run(app: Any, seconds: float, *, waker: bool = True) -> None:
    """Block forever, ticking every ``seconds`` (APScheduler 3.x); mail leaves
    from the waker thread as soon as it is due (``--no-waker``: with the tick)."""
    from apscheduler.schedulers.blocking import BlockingScheduler

    mail_waker = sender.Waker(app) if waker else None
    if mail_waker is not None:
        mail_waker.start()

    def job() -> None:
        report = tick(app, send_mail=mail_waker is None)
        if report.deadlines or report.mail.claimed:
            log.info("tick: deadlines %s, mail %s", report.fired, report.mail)

    def housekeeping() -> None:
        prune(app, dl.now())

    scheduler = BlockingScheduler(timezone="UTC")
    scheduler.add_job(job, "interval", seconds=seconds, id="tick",
                      max_instances=1, coalesce=True, next_run_time=datetime.now(timezone.utc))
    scheduler.add_job(housekeeping, "interval", hours=1, id="prune",
                      max_instances=1, coalesce=True)
    log.info("clock ticking every %s s", seconds)
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        if mail_waker is not None:
            mail_waker.stop.set()


def main(argv: list[str] | None = None) -> None:
    from app import create_app

    parser = argparse.ArgumentParser(prog="python -m app.clock", description=__doc__)
    parser.add_argument("--once", action="store_true", help="run one tick and exit")
    parser.add_argument("--tick", type=float, default=None,
                        help="seconds between ticks (CLOCK_TICK_SECONDS, default 30)")
    parser.add_argument("--no-waker", action="store_true",
                        help="send mail only on ticks (no sender thread woken by commits)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # one line per run is noise
    app = create_app()
    seconds = args.tick or float(app.config.get("CLOCK_TICK_SECONDS")
                                 or setting("CLOCK_TICK_SECONDS", DEFAULT_TICK_SECONDS))
    if args.once:
        report = tick(app)
        log.info("tick: deadlines %s, mail %s", report.fired, report.mail)
        return
    run(app, seconds, waker=not args.no_waker)


if __name__ == "__main__":
    main()
