"""The clock process: ``python -m app.runners.clock`` (the ``clock:`` line of the Procfile).

One APScheduler scheduler with one interval job. Each tick finds the
due deadline rows with the partial index on ``due_at``, leases them (one
UPDATE with ``FOR UPDATE SKIP LOCKED`` inside on PostgreSQL; SQLite runs
writers one at a time), hands each to ``app.runners.timeouts``, then sends the due
outbox mail and the daily digests. Mail does not wait for the tick: a
sender thread (``app.runners.waker.Waker``) delivers each row within seconds of it
becoming due. Nothing lives in the scheduler's memory: killing the process
loses nothing, and a second clock started by mistake finds the rows leased
or already done.

Supervised (issue 17 item 1): the main thread watches the sender thread and
the tick (``app.runners.supervision.Supervisor``). Both survive a lost database (they
back off and retry; the LISTEN connection is opened again); a sender thread
that dies anyway is restarted, and when it keeps dying, or the tick stops
making progress, the process exits with ``supervision.EXIT_GAVE_UP`` for the
process manager to start a fresh one. The tick also sends the due mail
whenever the sender's heartbeat is stale.
"""
from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from sqlmodel import col

from app.clock import deadlines as dl
from app.runners import digests
from app.runners import heartbeats
from app.runners import inbound
from app.runners import pruning
from app.runners import reports
from app.runners import sender
from app.runners import sending
from app.runners import supervisor as supervision
from app.runners import timeouts
from app.services import table_seats
from app.runners.waker import Waker
from app.runners.base import Lease, Runner
from app.db import get_engine
from app.mail.backends import MailBackend
from app.mail.models import Outbox
from app.config import setting

log = logging.getLogger("app.runners.clock")

DEFAULT_TICK_SECONDS = 30
#: How long a clock may hold a deadline before another may take it over (it
#: died): long enough for one timeout, short enough not to stall a game.
LEASE = timedelta(minutes=5)
BATCH = 200


@dataclass
class TickReport:
    """What one tick did."""

    fired: dict[str, int] = field(default_factory=dict)
    mail: sending.SendReport = field(default_factory=sending.SendReport)
    #: Whether this tick sent the due mail itself (the sender thread was not alive).
    sent_mail: bool = False

    @property
    def deadlines(self) -> int:
        return sum(self.fired.values())


#: The deadline queue: open rows whose time came, earliest first (ix_deadline_open_due).
DEADLINES = Lease(dl.Deadline,
                  due=lambda now: (col(dl.Deadline.done_at).is_(None),
                                   col(dl.Deadline.due_at) <= now),
                  order=(col(dl.Deadline.due_at), col(dl.Deadline.id)), length=LEASE)


def due_query(now: datetime, limit: int = BATCH) -> Any:
    """Open, due, unleased deadlines, earliest first (served by ix_deadline_open_due)."""
    return DEADLINES.due_rows(now, limit=limit)


def claim_due(engine: Any, now: datetime, owner: str, limit: int = BATCH,
              lease: timedelta = LEASE) -> list[int]:
    """Lease due deadlines to ``owner`` in one statement; return their ids, due order."""
    leased = DEADLINES.claim(engine, now, owner, limit, length=lease,
                             returning=(dl.Deadline.id, dl.Deadline.due_at))
    return [row_id for row_id, _ in sorted(leased, key=lambda row: (dl.as_utc(row[1]), row[0]))]


def release(engine: Any, deadline_id: int, owner: str) -> None:
    """Give a deadline back (still open, e.g. the game was busy) for the next tick."""
    DEADLINES.end(engine, deadline_id, owner)


class DeadlineRunner(Runner[int]):
    """Fires each due deadline (``timeouts.fire``), batch after batch.

    A deadline that fired is given back: done, or still open (the game was
    busy) for the next tick, which ``Runner``'s "seen" rule keeps from looping
    within this one. One that raised keeps its lease and is tried again when
    the lease runs out: one bad game must not stop the clock."""

    lease = DEADLINES

    limit = BATCH

    def __init__(self, engine: Any, now: datetime, owner: str) -> None:
        super().__init__(engine, now, owner)
        self.fired: dict[str, int] = {}

    def claim(self, limit: int) -> list[int]:
        return claim_due(self.engine, self.now, self.owner, limit)

    def handle(self, item: int) -> str:
        return timeouts.fire(item, self.now)

    def finish(self, item: int, result: str) -> None:
        release(self.engine, item, self.owner)
        self._count(result)

    def failed(self, item: int, error: Exception) -> None:
        # (called in the except: its traceback is logged) one bad game must not stop the clock
        log.exception("deadline %s failed; it will be tried again", item)
        self._count("error")

    def _count(self, what: str) -> None:
        self.fired[what] = self.fired.get(what, 0) + 1


mail_backend = sender.mail_backend


def tick(app: Any, now: datetime | None = None, *, owner: str | None = None,
         backend: MailBackend | None = None, send_mail: bool | None = True) -> TickReport:
    """One tick at ``now`` (injected in tests; wall time otherwise).

    ``send_mail=None``: send the due mail only when the sender thread's
    heartbeat is not alive and recent (issue 17 item 1) — a sender that died,
    hangs or runs nowhere must not mean that no mail leaves."""
    owner = owner or f"clock-{uuid.uuid4().hex[:12]}"
    report = TickReport()
    with app.app_context():
        now = dl.as_utc(now or dl.now())
        engine = get_engine(app)
        deadlines = DeadlineRunner(engine, now, owner)
        deadlines.run()
        report.fired = deadlines.fired
        inbound.apply_pending(app, now)  # replies the receiver stored (issue 11)
        digests.send_daily(now)
        table_seats.expire_due(now)  # open tables whose wait is over (issue 48)
        if send_mail is None:
            beat = heartbeats.read(engine).get(heartbeats.SENDER)
            send_mail = beat is None or not beat.fresh
        # the claims of any sender gone quiet go now, this clock's or another's, each
        # found by its own beat (issue 30 item 3; issue 34 item 1: kill -9)
        heartbeats.release_dead_claimers(engine, sending.OUTBOX.release_all)
        report.sent_mail = send_mail
        if send_mail:
            if owner.startswith(heartbeats.CLAIMER_PREFIX):  # (a Ticker's: issue 34 item 1)
                # its claims carry ``owner``: a beat under that name first, so that a clock
                # killed inside this send leaves a beat that goes stale, and another clock
                # gives the mail back then, not when the 10-minute lease ends
                # (and beats again as its mails leave, as a sender thread does)
                claims = heartbeats.Beater(engine, owner, every=TICK_CLAIMS_EVERY)
                claims.beat(force=True, tick=True)

                def beat_again(_row: Outbox) -> None:
                    claims.beat()

                report.mail = send_mail_due(app, now, backend=backend, owner=owner,
                                            on_sent=beat_again)
            else:
                report.mail = send_mail_due(app, now, backend=backend, owner=owner)
    return report


#: How often a ticking clock's claimer beat is expected (its tick writes it as it sends).
TICK_CLAIMS_EVERY = 5.0


def send_mail_due(app: Any, now: datetime, *, backend: MailBackend | None = None,
                  owner: str | None = None,
                  on_sent: Callable[[Outbox], None] | None = None) -> sending.SendReport:
    """Send every due outbox row, batch after batch (see ``app.runners.sender``)."""
    return sender.send_mail_due(app, now, backend=backend, owner=owner, on_sent=on_sent)


def prune(app: Any, now: datetime) -> pruning.PruneReport:
    """The hourly housekeeping: done mail and deadlines past the retention period
    (``MAIL_RETENTION_DAYS``, default 30) go, in small batches."""
    days = float(setting("MAIL_RETENTION_DAYS", pruning.DEFAULT_RETENTION_DAYS))
    with app.app_context():
        return pruning.prune(get_engine(app), dl.as_utc(now), retention_days=days)


class Ticker:
    """The scheduled tick with its heartbeat and a progress mark for the supervisor.

    A tick that fails (the database is gone, restarting) is logged and simply
    tried again at the next interval; only a tick that ran to its end writes
    the ``clock`` heartbeat, so ``/readyz`` sees a clock that cannot work.
    ``progress`` moves whenever a tick begins or ends: a tick that hangs, or a
    scheduler that stopped calling it, is seen by the supervisor (issue 17 item 1).
    """

    def __init__(self, app: Any, seconds: float, *, waker: bool) -> None:
        self.app = app
        self.seconds = seconds
        self.waker = waker
        self.progress = time.monotonic()
        self.failures = 0
        self.beater = heartbeats.Beater(get_engine(app), heartbeats.CLOCK, every=seconds)
        #: the owner its mail claims carry, beaten before each send (``tick``)
        self.claimer = f"{heartbeats.CLAIMER_PREFIX}tick-{uuid.uuid4().hex[:12]}"

    def __call__(self) -> None:
        self.progress = time.monotonic()
        try:
            report = tick(self.app, send_mail=None if self.waker else True, owner=self.claimer)
            self.beater.beat(force=True, last_tick=heartbeats.wall_now(),
                             sends_mail=report.sent_mail,
                             **({"last_send": heartbeats.wall_now()} if report.mail.sent else {}))
        except Exception as exc:  # noqa: BLE001 - the next tick tries again
            self.failures += 1
            if self.failures == 1:
                log.exception("the tick failed; trying again every %s s", self.seconds)
            else:
                log.warning("the tick failed again (%s in a row): %s", self.failures, exc)
        else:
            if self.failures:
                log.info("the tick works again after %s failures", self.failures)
            self.failures = 0
            if report.deadlines or report.mail.claimed:
                log.info("tick: deadlines %s, mail %s", report.fired or "none",
                         reports.words(report.mail),
                         extra=reports.extra(deadlines=report.fired, mail=report.mail))
        finally:
            self.progress = time.monotonic()


def run(app: Any, seconds: float, *, waker: bool = True,
        supervisor: supervision.Supervisor | None = None,
        stop: threading.Event | None = None) -> int:
    """Tick every ``seconds`` (APScheduler 3.x) until ``stop`` (SIGTERM, Ctrl-C);
    mail leaves from the sender thread as soon as it is due (``--no-waker``: with
    the tick), and the tick sends it too whenever the sender's heartbeat is stale.

    The main thread supervises: it restarts a sender thread that died and
    returns ``supervision.EXIT_GAVE_UP`` (the process exits non-zero, and the
    process manager starts a new one) when it keeps dying or the tick stops
    making progress. Returns 0 after a requested stop."""
    from apscheduler.schedulers.background import BackgroundScheduler

    supervisor = supervisor or supervision.Supervisor()
    stop = stop or threading.Event()
    ticker = Ticker(app, seconds, waker=waker)
    if waker:
        supervisor.add(heartbeats.SENDER, Waker(app))
    # a tick stuck this long (a hung connection) or never called again is hopeless
    supervisor.watch_progress(heartbeats.CLOCK, lambda: ticker.progress,
                              max(supervision.STUCK_SECONDS, 10 * seconds))

    def housekeeping() -> None:
        try:
            prune(app, dl.now())
        except Exception:  # noqa: BLE001 - the next hour tries again
            log.exception("pruning failed; it runs again in an hour")

    scheduler = BackgroundScheduler(timezone="UTC")
    scheduler.add_job(ticker, "interval", seconds=seconds, id="tick",
                      max_instances=1, coalesce=True, next_run_time=datetime.now(timezone.utc))
    scheduler.add_job(housekeeping, "interval", hours=1, id="prune",
                      max_instances=1, coalesce=True)
    log.info("clock ticking every %s s", seconds)
    supervisor.start()
    scheduler.start()
    code = 0
    try:
        supervisor.watch(stop)
    except supervision.GaveUp as exc:
        log.error("%s: exiting so that the process manager starts a fresh clock", exc)
        code = supervision.EXIT_GAVE_UP
    except KeyboardInterrupt:
        pass
    finally:
        scheduler.shutdown(wait=False)
        supervisor.shutdown()
    return code
