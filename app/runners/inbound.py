"""The inbox runner and the inbound process's apply loop (``python -m app.processes
inbound``, the ``inbound:`` line of the Procfile: the SMTP receiver and this loop).

The runner (``Applying``, on ``app.runners.base``): ``claim`` leases pending
replies under ``INBOX`` and counts an attempt (a row out of attempts is
dead-lettered first, ``_give_up``); each goes to ``worker.apply_row``; one that
raised is written down by ``worker.failed`` (retried after a doubling wait, or
dead-lettered). ``apply_pending`` runs one batch; the receiver and the HTTP
route apply a row at receipt with ``apply_one``, the clock's tick and the loop
below catch up on what is left.

The process listens on ``INBOUND_SMTP`` (host:port, default 127.0.0.1:2525),
applies whatever the inbox still holds from before a restart, then stores and
applies replies as they come, until SIGTERM or Ctrl-C.

Supervised (issue 17 item 1): an apply loop on a thread of its own applies,
every ``APPLY_SECONDS``, what the inbox still holds (a reply stored while
the database was failing, one whose apply at receipt failed), and writes the
``inbound`` heartbeat; a lost database is retried with a backoff. The main
thread watches it and the SMTP server's thread: a loop that keeps dying, or
an SMTP server that stopped, makes the process exit non-zero
(``supervisor.EXIT_GAVE_UP``) for the process manager to start a fresh one,
never a receiver that listens to nothing.
"""
from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app import i18n
from app.clock import deadlines as dl
from app.clock.time import as_utc
from app.db import get_engine
from app.inbound import worker
from app.inbound.models import PENDING, InboxMessage
from app.people.models import Person
from app.runners import heartbeats
from app.runners.base import Lease, Runner
from app.runners.waker import retry_delay

log = logging.getLogger("app.inbound")  # (the process's log name, as before)

#: How often the apply loop looks for rows left pending (seconds). Replies are
#: applied at receipt; this only catches up on what failed then.
APPLY_SECONDS = 5.0
LEASE = timedelta(minutes=2)
BATCH = 50

#: The inbox queue: pending replies, oldest first. A row is due when it has no
#: lease, or its lease (or its retry wait, issue 17 item 5: ``worker.failed``
#: writes the wait as the lease's end) ran out.
INBOX = Lease(InboxMessage, due=lambda now: (col(InboxMessage.status) == PENDING,),
              order=(col(InboxMessage.received_at), col(InboxMessage.id)), length=LEASE)


@dataclass
class ApplyReport:
    """What one ``apply_pending`` call did, by final state."""

    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, status: str) -> None:
        self.outcomes[status] = self.outcomes.get(status, 0) + 1

    @property
    def handled(self) -> int:
        return sum(self.outcomes.values())


def claim(engine: Engine, now: datetime, owner: str, limit: int = BATCH,
          only: int | None = None) -> list[int]:
    """Lease pending rows (oldest first) to ``owner``, counting an attempt; their ids.

    Only rows with attempts left are claimed; one out of attempts is
    dead-lettered first (``_give_up``), so a message that kills its worker every
    time cannot be claimed for ever either.
    """
    now = as_utc(now)
    _give_up(engine, now, only=only)
    where = [col(InboxMessage.attempts) < worker.max_attempts()]
    if only is not None:
        where.append(col(InboxMessage.id) == only)
    return sorted(INBOX.claim(engine, now, owner, limit, where=where,
                              values={"attempts": InboxMessage.attempts + 1}))


def _give_up(engine: Engine, now: datetime, *, only: int | None = None) -> int:
    """Dead-letter the due rows that used every attempt (``worker.give_up_on``)."""
    where = [col(InboxMessage.attempts) >= worker.max_attempts()]
    if only is not None:
        where.append(col(InboxMessage.id) == only)
    with Session(engine) as session:
        rows = list(session.exec(INBOX.due_rows(now, InboxMessage, where=where, limit=BATCH,
                                                locked=True)))
        for row in rows:
            worker.give_up_on(session, row, now)
        session.commit()
    return len(rows)


class Applying(Runner[int]):
    """One batch of the inbox: each leased row to ``worker.apply_row``; one that raised
    is written down by ``worker.failed`` (retried after a wait, or dead-lettered)."""

    lease = INBOX

    drain = False

    def __init__(self, engine: Engine, now: datetime, owner: str, *, limit: int,
                 only: int | None) -> None:
        super().__init__(engine, now, owner)
        self.limit = limit
        self.only = only
        self.report = ApplyReport()

    def claim(self, limit: int) -> list[int]:
        return claim(self.engine, self.now, self.owner, limit=limit, only=self.only)

    def handle(self, item: int) -> str:
        # (issue 50) the answer to a reply, and the turn mail its move asks for at once,
        # are the replier's: written in their language (a mail to another seat is
        # written in that seat's own, ``notify.in_reader_language``)
        with i18n.in_language(replier_language(self.engine, item)):
            return worker.apply_row(self.engine, item, self.owner, self.now)

    def finish(self, item: int, result: str) -> None:
        self.report.add(result)

    def failed(self, item: int, error: Exception) -> None:
        # one bad message must not stop the others
        log.exception("inbox row %s failed; it is retried after a wait", item)
        self.report.add(worker.failed(self.engine, item, self.owner, self.now, error))


def replier_language(engine: Engine, row_id: int) -> str | None:
    """The language of the person whose address sent inbox row ``row_id`` (its envelope
    sender), one statement; None: English (a stranger, a bounce, never chosen)."""
    with Session(engine) as session:
        return session.exec(select(Person.language).join(
            InboxMessage, col(InboxMessage.mail_from) == col(Person.address))
            .where(col(InboxMessage.id) == row_id)).first()


def apply_pending(app: Any, now: datetime | None = None, *, only: int | None = None,
                  limit: int = BATCH) -> ApplyReport:
    """Apply the pending inbox rows (or just row ``only``); safe to run in many processes."""
    with app.app_context():
        run = Applying(get_engine(app), as_utc(now or dl.now()),
                       f"inbound-{uuid.uuid4().hex[:12]}", limit=limit, only=only)
        run.run()
    return run.report


def apply_one(app: Any, row_id: int) -> ApplyReport:
    """Apply the row just stored (the SMTP receiver and the HTTP inbound route, at receipt)."""
    return apply_pending(app, only=row_id)


class ApplyLoop:
    """Applies what the inbox still holds and beats the ``inbound`` heartbeat."""

    def __init__(self, app: Any, *, apply: bool = True, every: float = APPLY_SECONDS) -> None:
        self.app = app
        self.apply = apply
        self.every = every
        self.stop = threading.Event()
        self.progress = time.monotonic()
        self.failures = 0
        self.beater = heartbeats.Beater(get_engine(app), heartbeats.INBOUND, every=every)

    def step(self) -> None:
        detail: dict[str, Any] = {"applies": self.apply}
        if self.apply:
            report = apply_pending(self.app)
            detail["last_apply"] = heartbeats.wall_now()
            if report.handled:
                detail["last_handled"] = heartbeats.wall_now()
                log.info("applied what was left: %s", report.outcomes)
        self.beater.beat(force=True, **detail)

    def died(self, error: str) -> None:
        """The thread ended on ``error``: say so in the heartbeat at once."""
        self.beater.died(error)

    def run(self) -> None:
        while not self.stop.is_set():
            self.progress = time.monotonic()
            try:
                self.step()
            except Exception as exc:  # noqa: BLE001 - the database is gone: retry
                self.failures += 1
                if self.failures == 1:
                    log.exception("applying the inbox failed; trying again")
                else:
                    log.warning("applying the inbox failed again (%s in a row): %s",
                                self.failures, exc)
                self.stop.wait(retry_delay(self.failures))
                continue
            if self.failures:
                log.info("applying the inbox works again after %s failures", self.failures)
                self.failures = 0
            self.stop.wait(self.every)
