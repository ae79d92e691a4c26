"""Sending the outbox: due rows are leased, sent once each, and never lost.

Rows are queued by ``app.mail.outbox.enqueue`` in the caller's transaction.
``send_due`` claims due rows under a lease (``OUTBOX``, the one lease query
of ``app.runners.base``: ``FOR UPDATE SKIP LOCKED`` inside it on PostgreSQL,
SQLite serialises writers), so two senders never hold the same row; it sends
each and marks it sent at once, in a statement of its own on one connection the
batch keeps (autocommit: the UPDATE is its transaction, one round trip, so a
crash between a send and its mark doubles at most that one mail, as before). A
failure puts the row
back with an exponential backoff, and after ``MAX_ATTEMPTS`` marks it
``failed`` (the game's creator is told); a sender that dies mid-batch leaves
leases that expire, and the row goes out later with the same Message-ID.

Before a claimed row leaves, the caller's ``still_holds`` check
(``app.runners.sender``) is asked whether what the mail announces is still
true; a row whose decision is gone is marked ``superseded`` (kept, never
sent). The caps that hold a row back, and the notice the first mail after a
hold carries, are ``app.mail.holds`` (issue 17 item 3).
"""
from __future__ import annotations

import logging
import smtplib
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import func, or_
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, select

from app.channels.models import NoticeTarget
from app.clock.time import as_utc
from app.mail import bounces, holds, invitations, notify, table_talk, trust
from app.mail.backends import MailBackend, PermanentFailure
from app.mail.compose import Mail, build_message
from app.mail.models import FAILED, PENDING, SENT, SUPERSEDED, Outbox
from app.mail.outbox import composed_at_send
from app.runners import notices  # (issue 20 item 3)
from app.runners.base import Lease, Runner
from app.talk.models import Talk

log = logging.getLogger("app.mail.outbox")  # (the log name the operator knows)

BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
LEASE = timedelta(minutes=10)
BATCH = 100
#: A mail that still cannot be handed over after this many attempts (about a
#: day of hourly retries) is marked ``failed``, and the game's creator is told.
MAX_ATTEMPTS = 30

#: The outbox queue: pending rows whose time came, earliest first (ix_outbox_due).
OUTBOX = Lease(Outbox,
               due=lambda now: (col(Outbox.status) == PENDING,
                                col(Outbox.next_attempt_at) <= now),
               order=(col(Outbox.next_attempt_at), col(Outbox.id)), length=LEASE)


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, ... capped at an hour: retried until delivered."""
    return min(BACKOFF_BASE * (2 ** max(attempts - 1, 0)), BACKOFF_CAP)


@dataclass
class SendReport:
    """What one ``send_due`` call did (for logs, the benchmark and tests)."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0
    superseded: int = 0
    held: int = 0
    #: The seats (game, seat) whose mail was superseded because their address refused
    #: and never played there (issue 34 item 3): the caller plays them as away.
    refused: list[tuple[str, int]] = field(default_factory=list)


def claim_due(engine: Engine, now: datetime, *, owner: str, limit: int = BATCH,
              lease: timedelta = LEASE) -> list[Outbox]:
    """Lease up to ``limit`` due rows to ``owner`` in one statement; return them by id.

    RETURNING brings the rows just leased, whole: reading them costs the batch,
    not a walk through every pending row of a backlog, nor a second statement."""
    rows = OUTBOX.claim(engine, now, owner, limit, length=lease, returning=(Outbox,))
    return sorted(rows, key=lambda row: row.id)


def release_stale_sender(engine: Engine, heartbeat: dict[str, Any] | None) -> int:
    """Give back the mail a sender thread had claimed when its heartbeat went stale
    (``heartbeat``: that beat's ``detail``, which names the owner its claims carry):
    it died or hangs, and its rows go now instead of sitting out the 10-minute lease
    (issue 30 item 3). A live sender beats while it sends (``Waker._sent``), so a
    sender that is only slow keeps its heartbeat fresh and its claims."""
    owner = (heartbeat or {}).get("owner")
    if not owner:
        return 0
    released = OUTBOX.release_all(engine, str(owner))
    if released:
        log.warning("the mail sender %s went quiet holding %s mails; they are given back "
                    "and sent by another sender now", owner, released)
    return released


class Ends:
    """A PostgreSQL batch's row ends: each UPDATE runs on the batch's connection
    (autocommit) in a thread of its own while the next row is checked and composed, and
    is waited for before the next mail is handed to the server (``settle``), so a crash
    between a send and its end still doubles at most that one mail. Ending a row waited
    for its commit's WAL flush (0.7-3.3 ms here, a fifth of a mail's time): now the
    compose of the next mail runs meanwhile (issue 30 item 5). At most one UPDATE is in
    flight; one that fails raises at the next ``settle``, in the run's thread."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outbox-ends")
        self.pending: Future[Any] | None = None

    def execute(self, statement: Any) -> None:
        self.settle()
        self.pending = self.pool.submit(self.connection.execute, statement)

    def settle(self) -> None:
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        try:
            self.settle()
        finally:
            self.pool.shutdown(wait=True)


def _finish(engine: Engine | Connection | Ends, row_id: int, owner: str,
            **values: Any) -> None:
    """End ``owner``'s lease on the row and write ``values``: on the batch's connection
    (``Sending.batch``: autocommit, so the UPDATE commits alone; on PostgreSQL through
    ``Ends``), else in a transaction of its own."""
    if isinstance(engine, (Connection, Ends)):
        engine.execute(OUTBOX.ended(row_id, owner, **values))
    else:
        OUTBOX.end(engine, row_id, owner, **values)


def talking_games(session: Session, games: set[str]) -> set[str]:
    """Of ``games``, those with talk anybody may still be told of (not hidden): a mail of
    any other game carries none, so ``table_talk.at_the_table`` is not asked of it (one
    query a batch, not one or two a mail)."""
    if not games:
        return set()
    return set(session.exec(select(Talk.game_id).distinct().where(
        col(Talk.game_id).in_(sorted(games)), col(Talk.hidden_at).is_(None))).all())


def targeted(session: Session, rows: list[Outbox]) -> tuple[set[tuple[str, int]], set[str]]:
    """The seats (game, seat) and the addresses (lower case) among ``rows`` that have a
    notice target, paused or not (``targets.of_seat``'s two scopes): a row of neither
    has none, so ``notices.leave_by_targets`` would write nothing and mail it; it is not
    asked (one query a batch, not a transaction a mail)."""
    games = {row.game_id for row in rows if row.game_id is not None}
    addresses = {row.to.strip().lower() for row in rows}
    found = session.exec(select(NoticeTarget.game_id, NoticeTarget.seat,
                                func.lower(col(NoticeTarget.address))).where(or_(
        col(NoticeTarget.game_id).in_(sorted(games)),
        func.lower(col(NoticeTarget.address)).in_(sorted(addresses))))).all()
    return ({(game, int(seat)) for game, seat, _ in found if game is not None and seat is not None},
            {address for _, _, address in found if address})


class Sending(Runner[Outbox]):
    """One ``send_due`` run: claim due rows, send each over one backend connection (the
    run's: ``send_due`` enters the backend around it, so a backlog of many batches opens
    one SMTP connection, not one a batch).

    Per batch: the caps (``holds.Caps``), the addresses with held mail nobody was
    told of (one probe), and whether the mail server broke (then the rest of the
    batch is put back without hammering it)."""

    lease = OUTBOX

    def __init__(self, engine: Engine, backend: MailBackend, now: datetime, *, sender: str,
                 owner: str, limit: int, drain: bool,
                 on_sent: Callable[[Outbox], None] | None,
                 still_holds: Callable[[Outbox], bool] | None,
                 compose_late: Callable[[Outbox, datetime], Mail | None] | None,
                 per_address_hour: int | None, stranger_day: int | None) -> None:
        super().__init__(engine, now, owner)
        self.backend = backend
        self.sender = sender
        self.limit = limit
        self.drain = drain
        self.on_sent = on_sent
        self.still_holds = still_holds
        self.compose_late = compose_late
        self.per_address_hour = per_address_hour
        self.stranger_day = stranger_day
        self.report = SendReport()
        self.caps = holds.Caps(engine, self.now, per_address_hour, stranger_day)
        self.untold: set[str] = set()
        self.bouncing: dict[str, str] = {}
        self.calendars: dict[tuple[str, int], Any] = {}
        self.talking: set[str] = set()
        self.targets: tuple[set[tuple[str, int]], set[str]] = (set(), set())
        self.broken: BaseException | None = None
        self.refusals: dict[int, str] = {}
        #: the batch's connection for the rows' ends (``batch``); the engine outside one
        self.ends: Engine | Connection | Ends = engine

    def claim(self, limit: int) -> list[Outbox]:
        rows = claim_due(self.engine, self.now, owner=self.owner, limit=limit)
        self.report.claimed += len(rows)
        return rows

    def batch(self, items: list[Outbox]) -> AbstractContextManager[Any]:
        self.broken = None
        self.caps = holds.Caps(self.engine, self.now, self.per_address_hour, self.stranger_day)
        # what the batch's rows need to know, in one transaction (issue 30 item 4: the
        # clock's transactions a move): the caps, the untold holds, the bounces, ...
        with Session(self.engine) as session:
            self.caps.settle(items, session, self.owner)  # (issue 34: counted under a lock)
            self.untold = holds.untold_addresses(session, {row.to for row in items})
            self.bouncing = bounces.bouncing_among(session, {row.to for row in items})
            # issue 21 item 1: the quiet hours of the batch's seats (one query)
            self.calendars = notify.quiet_calendars(
                session, {(row.game_id, int(row.seat)) for row in items
                          if row.game_id is not None and row.seat is not None})
            self.talking = talking_games(session, {row.game_id for row in items
                                                   if row.game_id is not None})
            self.targets = targeted(session, items)
            self.refusals = invitations.refused_at_send(session, items)  # (issue 34 item 3)
        stack = ExitStack()  # (the backend is entered once for the run: ``send_due``)
        ends = stack.enter_context(self.engine.connect())
        ends.execution_options(isolation_level="AUTOCOMMIT")
        stack.callback(setattr, self, "ends", self.engine)
        if self.engine.dialect.name == "postgresql":
            self.ends = Ends(ends)
            stack.callback(self.ends.close)  # (before the connection closes: LIFO)
        else:  # (SQLite's writers queue behind one lock: a second writing thread only waits)
            self.ends = ends
        return stack

    def _settled(self) -> bool:
        """Wait for the last row's end (``Ends``): before a mail leaves, and before this
        run writes through another connection (a hold's collapse, a notice), which must
        find the rows before it ended. True, so that it can stand in a condition."""
        if isinstance(self.ends, Ends):
            self.ends.settle()
        return True

    def _has_targets(self, row: Outbox) -> bool:
        seats, addresses = self.targets
        return (row.game_id is not None and row.seat is not None
                and (row.game_id, int(row.seat)) in seats) or row.to.strip().lower() in addresses

    def handle(self, row: Outbox) -> None:
        assert row.id is not None
        engine, owner, now, report = self.engine, self.owner, self.now, self.report
        ends = self.ends
        attempts = row.attempts + 1
        refusal = self.refusals.get(row.id)
        if refusal is not None:  # its address refused and never played here (issue 34)
            _finish(ends, row.id, owner, status=SUPERSEDED, held_until=None,
                    last_error=refusal[:500])
            report.superseded += 1
            if (str(row.game_id), int(row.seat or 0)) not in report.refused:
                report.refused.append((str(row.game_id), int(row.seat or 0)))
            return
        if row.announces and self.still_holds is not None and not self.still_holds(row):
            # (held_untold stays: the next mail of the seat says it was held)
            _finish(ends, row.id, owner, status=SUPERSEDED, held_until=None,
                    last_error="superseded: what it announced no longer held at send time")
            report.superseded += 1
            return
        bounced = self.bouncing.get(row.to)
        if bounced is not None:  # (issue 19 item 3) never tried: the creator is told
            _finish(ends, row.id, owner, attempts=row.attempts, status=FAILED,
                    last_error=f"{bounces.NOT_TRIED} ({bounced})"[:500])
            report.failed += 1
            return
        quiet = holds.quiet_until(row, self.calendars, now)
        if quiet is not None:  # the seat's quiet hours: held, collapsed, sent at their end
            self._settled()  # (the collapse may touch the last row of this seat)
            with Session(engine) as session:
                values, collapsed = holds.hold(session, row, quiet, holds.HELD_QUIET,
                                               "held for the seat's quiet hours", tell=False)
                session.execute(OUTBOX.ended(row.id, owner, **values))
                session.commit()
            report.superseded += collapsed
            report.held += 1
            return
        hold = self.caps.holds(row)
        if hold is not None:  # before composing: a held mail is composed when it leaves
            self._settled()
            with Session(engine) as session:
                values, collapsed = holds.hold(session, row, *hold)
                session.execute(OUTBOX.ended(row.id, owner, **values))
                session.commit()
            report.superseded += collapsed
            self.untold.add(row.to)
            report.held += 1
            return
        written: dict[str, Any] = {}
        if composed_at_send(row):
            mail = self.compose_late(row, now) if self.compose_late is not None else None
            if mail is None:  # nobody here can compose it: leave it to a sender that can
                _retry_or_fail(ends, row.id, owner, attempts, now,
                               RuntimeError("this sender cannot compose the mail"), report)
                return
            written = {"subject": mail.subject, "text": mail.text, "html": mail.html,
                       "headers": {**(row.headers or {}),
                                   **({"Reply-To": mail.reply_to} if mail.reply_to else {})}}
        # issue 20 item 2: the talk the seat was not told of rides in this mail (under
        # the lead; a held-mail notice below goes above it), marked told once it is sent
        talk = (table_talk.at_the_table(engine, row, now) if row.game_id in self.talking
                else None)
        if talk is not None:
            text, html = table_talk.with_talk(written.get("text", row.text),
                                              written.get("html", row.html), talk)
            written.update(text=text, html=html)
        told: list[tuple[int, bool]] = []
        if row.to in self.untold:
            told = holds.held_of_seat(engine, row, now)
            if told or row.held_untold:
                count = len(told) + (1 if row.held_untold else 0)
                why = row.held_why or holds.why_of(engine, told)
                notice = self.caps.words(why, count, row.game_id is not None)
                text, html = holds.with_notice(written.get("text", row.text),
                                               written.get("html", row.html), notice)
                written.update(text=text, html=html)
        for name, value in written.items():
            setattr(row, name, value)
        # issue 20 item 3: the seat's notice targets get this mail's short form; a seat
        # that takes its notices there instead of mail (and has an active target) gets
        # no mail: its own status word, so the mail caps do not count it
        if self._has_targets(row) and self._settled() and notices.leave_by_targets(
                engine, row, now):
            _finish(ends, row.id, owner, attempts=attempts, status=notices.OUTBOX_NOTIFIED,
                    sent_at=now, last_error=None, held_until=None, **written)
            report.sent += 1
            if row.kind == table_talk.TALK_KIND:
                table_talk.mark_told(engine, row, talk, now)
            if self.on_sent is not None:
                self.on_sent(row)
            return
        if self.broken is not None:  # the server is gone: do not hammer it
            _retry_or_fail(ends, row.id, owner, attempts, now, self.broken, report)
            return
        try:
            headers = dict(row.headers or {})
            message = build_message(to=row.to, to_name=str(headers.pop("to_name", "")),
                                    subject=row.subject, text=row.text, html=row.html,
                                    headers=headers, sender=self.sender, date=row.created_at)
            self._settled()  # the last mail's end is written before this one leaves
            self.backend.send(message, key=f"{row.id:09d}-{row.kind}",
                              envelope_from=bounces.envelope_sender(row.id))
        except (PermanentFailure, ValueError) as exc:
            log.warning("outbox %s refused for good: %s", row.id, exc)
            _finish(ends, row.id, owner, attempts=attempts, status=FAILED,
                    last_error=str(exc)[:500])
            report.failed += 1
            if isinstance(exc, PermanentFailure) and exc.address:
                with Session(engine) as session:  # the address, in every game, from now
                    bounces.mark_bouncing(session, row.to, str(exc), now)
                    session.commit()
                self.bouncing[row.to] = str(exc)
        except (smtplib.SMTPException, OSError) as exc:
            log.warning("outbox %s not sent (attempt %s): %s", row.id, attempts, exc)
            _retry_or_fail(ends, row.id, owner, attempts, now, exc, report)
            if not isinstance(exc, smtplib.SMTPResponseException):
                self.broken = exc
        else:
            _finish(ends, row.id, owner, attempts=attempts, status=SENT, sent_at=now,
                    last_error=None, held_until=None, held_untold=False, **written)
            report.sent += 1
            table_talk.mark_told(engine, row, talk, now)  # (issue 20 item 2)
            if told:
                report.superseded += holds.mark_told(engine, row, told, now)
            if self.on_sent is not None:
                self.on_sent(row)


def send_due(engine: Engine, backend: MailBackend, now: datetime, *, sender: str,
             limit: int = BATCH, owner: str | None = None, drain: bool = False,
             on_sent: Callable[[Outbox], None] | None = None,
             still_holds: Callable[[Outbox], bool] | None = None,
             compose_late: Callable[[Outbox, datetime], Mail | None] | None = None,
             per_address_hour: int | None = None,
             stranger_day: int | None = trust.STRANGER_MAILS_PER_DAY) -> SendReport:
    """Send every due outbox row (up to ``limit``; ``drain``: batch after batch until
    a batch comes back short); each row at most once.

    ``still_holds(row)`` False: the row is marked ``superseded`` instead.
    ``compose_late(row, now)``: the mail of a row enqueued without one (a turn mail
    that waited out its grace period, ``composed_at_send``); what it returns
    is stored in the row when it is sent. ``per_address_hour``: at most that
    many mails to one address an hour (conversation mail aside);
    ``stranger_day``: at most that many a day to an address that never acted
    (None: no such limit). A held row stays pending until the cap frees it, a
    held decision mail collapses the older held ones of its seat and is composed
    when it leaves (the position then, not a queue of stale ones), and the first
    mail of that seat that leaves says how many were held and why (issue 17 item 3).
    """
    run = Sending(engine, backend, as_utc(now), sender=sender,
                  owner=owner or f"sender-{uuid.uuid4().hex[:16]}", limit=limit, drain=drain,
                  on_sent=on_sent, still_holds=still_holds, compose_late=compose_late,
                  per_address_hour=per_address_hour, stranger_day=stranger_day)
    with backend:  # one SMTP connection for the run, batch after batch
        run.run()
    return run.report


def _retry_or_fail(engine: Engine | Connection | Ends, row_id: int, owner: str, attempts: int,
                   now: datetime,
                   error: BaseException, report: SendReport) -> None:
    """A transient failure: try again after the backoff, or give up after ``MAX_ATTEMPTS``."""
    if attempts >= MAX_ATTEMPTS:
        _finish(engine, row_id, owner, attempts=attempts, status=FAILED,
                last_error=f"not delivered after {attempts} attempts: {error}"[:500])
        report.failed += 1
    else:
        _finish(engine, row_id, owner, attempts=attempts,
                next_attempt_at=now + backoff(attempts), last_error=str(error)[:500])
        report.retried += 1
