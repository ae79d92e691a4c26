"""Sending the outbox: due rows are leased, sent once each, and never lost.

Long because: a claimed row's steps are read here in their order, one short method
each (``Sending.handle``: refused? stopped? still true? bouncing? quiet? capped?
composed, fanned out to notice targets, sent, ended), beside the lease they end; what
each step asks lives in its own module (``holds``, ``bounces``, ``invitations``,
``stops``, ``table_talk``, ``notices``).

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
The statement that marks a row delivered also drops its body (issue 46 item 5:
``outbox.delivered``; the threading headers, times and status stay); a row put back
or failed keeps it whole, so a retry sends the very same message.

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
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import case, func
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, select

from app.clock.time import as_utc
from app.db.in_flight import InFlight
from app.mail import bounces, holds, stops, table_talk, trust
from app.mail.backends import MailBackend, PermanentFailure
from app.mail.compose import Mail
from app.mail.headers import build_message
from app.mail.models import FAILED, PENDING, SENT, SUPERSEDED, Outbox
from app.people import calendar as person_calendar
from app.mail.outbox import composed_at_send, delivered, never_sent
from app.runners import notices  # (issue 20 item 3)
from app.runners.base import Lease, Runner

log = logging.getLogger("app.mail.outbox")  # (the log name the operator knows)

#: The kind of a round's end mail, which a turn mail may carry (issue 51 item 1).
ROUND_KIND = "round"
BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
LEASE = timedelta(minutes=10)
BATCH = 100
#: A mail that still cannot be handed over after this many attempts (about a
#: day of hourly retries) is marked ``failed``, and the game's creator is told.
MAX_ATTEMPTS = 30

#: The outbox queue: pending rows whose time came, earliest first (ix_outbox_due). A
#: claim matters on a pending row only (every end of a lease clears it), so a dead
#: sender's claims are looked for among those (``open``: the same partial index).
OUTBOX = Lease(Outbox,
               due=lambda now: (col(Outbox.status) == PENDING,
                                col(Outbox.next_attempt_at) <= now),
               order=(col(Outbox.next_attempt_at), col(Outbox.id)), length=LEASE,
               open=lambda: (col(Outbox.status) == PENDING,))


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, ... capped at an hour: retried until delivered."""
    return min(BACKOFF_BASE * (2 ** max(attempts - 1, 0)), BACKOFF_CAP)


def failing_since(session: Session, now: datetime) -> datetime | None:
    """When the mail that has kept failing longest first failed (None: no pending mail has
    failed an attempt): what ``/readyz`` holds against ``READY_MAIL_FAILING_SECONDS``
    (issue 45 item 6: it said ready through a 60 s SMTP outage).

    A failed attempt puts its row back ``backoff(attempts)`` after it, so a row tried
    ``n`` times whose next try is at ``t`` first failed at ``t - (backoff(1) + ... +
    backoff(n))``, or later if a try came late (a sender that tries late makes this
    later, never earlier: the outage is never said to be longer than it is). A row a cap
    or quiet hours hold is not failing, nor one whose last try did not fail (a notice's
    mail standing in: ``notices``). One statement, a row per count of attempts (at most
    ``MAX_ATTEMPTS``), over the pending rows only."""
    now = as_utc(now)
    found = session.exec(select(Outbox.attempts, func.min(col(Outbox.next_attempt_at))).where(
        col(Outbox.status) == PENDING, col(Outbox.attempts) > 0,
        col(Outbox.last_error).is_not(None),
        col(Outbox.held_until).is_(None) | (col(Outbox.held_until) <= now))
        .group_by(col(Outbox.attempts))).all()
    return min((as_utc(due) - tried_for(int(attempts)) for attempts, due in found
                if due is not None), default=None)


def tried_for(attempts: int) -> timedelta:
    """How long ``attempts`` failed tries take at the least: the backoffs after each."""
    return sum((backoff(n) for n in range(1, attempts + 1)), timedelta(0))


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
    #: What the run's last claim, when it came back short, saw of the mail after it:
    #: when the first pending row it did not take falls due (None: there was none).
    #: Only meaningful with ``looked_ahead`` (a full or an empty last claim looks at
    #: nothing).
    due_next: datetime | None = None
    looked_ahead: bool = False
    #: Whether a batch of the run had rows with notice targets (notices it may have
    #: written, which no wake-up announces).
    targeted: bool = False


def earliest_due(besides: str | None = None) -> Any:
    """When the earliest pending mail may be sent: its due time, or the end of the lease
    another sender holds on it (pending rows only: the partial index ``ix_outbox_due``),
    as a scalar subquery; ``besides``: leaving out the rows that owner holds."""
    later = case((col(Outbox.lease_until) > col(Outbox.next_attempt_at), Outbox.lease_until),
                 else_=Outbox.next_attempt_at)
    query = select(func.min(later)).where(col(Outbox.status) == PENDING)
    if besides is not None:
        query = query.where(col(Outbox.lease_owner).is_distinct_from(besides))
    return query.scalar_subquery()


def claim_due(engine: Engine, now: datetime, *, owner: str, limit: int = BATCH,
              lease: timedelta = LEASE) -> list[Outbox]:
    """Lease up to ``limit`` due rows to ``owner`` in one statement; return them by id.

    RETURNING brings the rows just leased, whole: reading them costs the batch,
    not a walk through every pending row of a backlog, nor a second statement."""
    rows = OUTBOX.claim(engine, now, owner, limit, length=lease, returning=(Outbox,))
    return sorted(rows, key=lambda row: row.id)


def _finish(engine: Engine | Connection | InFlight, row_id: int, owner: str,
            **values: Any) -> None:
    """End ``owner``'s lease on the row and write ``values``: on the batch's connection
    (``Sending.batch``: autocommit, so the UPDATE commits alone; on PostgreSQL through
    ``InFlight``), else in a transaction of its own."""
    if isinstance(engine, (Connection, InFlight)):
        engine.execute(*OUTBOX.ended(row_id, owner, **values))
    else:
        OUTBOX.end(engine, row_id, owner, **values)


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
        self.stops: dict[int, str] = {}
        #: the batch's connection for the rows' ends (``batch``); the engine outside one
        self.ends: Engine | Connection | InFlight = engine

    def claim(self, limit: int) -> list[Outbox]:
        """The batch's rows, and what they need to know, in the claim's own transaction
        (issue 30 item 4: the clock's transactions a move): the untold holds, the
        bounces, the quiet hours, the talk, the notice targets, the refusals, the stops,
        and last the caps, counted under their locks, whose commit ends it."""
        self.broken = None
        self.caps = holds.Caps(self.engine, self.now, self.per_address_hour, self.stranger_day)
        with Session(self.engine) as session:
            # a round's end last: a turn mail of its seat due with it may carry it (issue
            # 51 item 1, ``sender.round_told``), and leaves first
            rows = sorted(OUTBOX.claim(self.engine, self.now, self.owner, limit, length=LEASE,
                                       returning=(Outbox,), session=session),
                          key=lambda row: (row.kind == ROUND_KIND, row.id or 0))
            # a short batch is the run's last: what falls due after it, read here, spares
            # the sender thread a look of its own after the run (issue 30 item 4); a
            # claim that took nothing leaves the look to the sender (it sent nothing)
            self.report.looked_ahead = 0 < len(rows) < limit
            if rows:
                self._read_for(rows, session)
            if self.report.looked_ahead:
                value = session.exec(select(earliest_due(besides=self.owner))).one()
                self.report.due_next = as_utc(value) if value is not None else None
            session.commit()
        self.report.claimed += len(rows)
        self.report.targeted |= any(self._has_targets(row) for row in rows)
        return rows

    def _read_for(self, items: list[Outbox], session: Session) -> None:
        addresses = {row.to for row in items}
        self.untold = holds.untold_addresses(session, addresses)
        self.bouncing = bounces.bouncing_among(session, addresses)
        # issue 21 item 1: the quiet hours of the batch's seats (one query)
        self.calendars = person_calendar.quiet_calendars(
            session, {(row.game_id, int(row.seat)) for row in items
                      if row.game_id is not None and row.seat is not None})
        self.talking = table_talk.talking_games(session, {row.game_id for row in items
                                                          if row.game_id is not None})
        self.targets = notices.targeted(session, items)
        # the refusals (issue 34 item 3) and the stops (issue 45 item 2): one statement
        found = stops.at_send(session, [int(row.id or 0) for row in items])
        self.refusals, self.stops = found.refused, found.stopped
        self.caps.settle(items, session, self.owner)  # (issue 34: counted under a lock)

    def batch(self, items: list[Outbox]) -> AbstractContextManager[Any]:
        stack = ExitStack()  # (the backend is entered once for the run: ``send_due``)
        ends = stack.enter_context(self.engine.connect())
        ends.execution_options(isolation_level="AUTOCOMMIT")
        stack.callback(setattr, self, "ends", self.engine)
        if self.engine.dialect.name == "postgresql":
            self.ends = InFlight(ends)
            stack.callback(self.ends.close)  # (before the connection closes: LIFO)
        else:  # (SQLite's writers queue behind one lock: a second writing thread only waits)
            self.ends = ends
        return stack

    def _settled(self) -> bool:
        """Wait for the last row's end (``InFlight``): before a mail leaves, and before this
        run writes through another connection (a hold's collapse, a notice), which must
        find the rows before it ended. True, so that it can stand in a condition."""
        if isinstance(self.ends, InFlight):
            self.ends.settle()
        return True

    def _has_targets(self, row: Outbox) -> bool:
        seats, addresses = self.targets
        return (row.game_id is not None and row.seat is not None
                and (row.game_id, int(row.seat)) in seats) or row.to.strip().lower() in addresses

    def handle(self, row: Outbox) -> None:
        """A claimed row, step by step (issue 34 item 6): each step that stops it ends
        the row itself and says so; a row no step stops is composed, given to its notice
        targets where it goes there instead, else sent."""
        assert row.id is not None
        for stopped in (self._refused, self._stopped, self._no_longer_true, self._bouncing,
                        self._quiet, self._capped):
            if stopped(row):
                return
        letter = self._composed(row)
        if letter is None or self._fanned_out(row, letter):
            return
        self._sent(row, letter)

    # -- the steps that stop a row before it is composed ------------------------------

    def _refused(self, row: Outbox) -> bool:
        """Its address refused, and never played in its game (issue 34 item 3)."""
        refusal = self.refusals.get(int(row.id or 0))
        if refusal is None:
            return False
        self._end(row, "superseded", status=SUPERSEDED, held_until=None,
                  last_error=refusal[:500], **never_sent())
        seat = (str(row.game_id), int(row.seat or 0))
        if seat not in self.report.refused:
            self.report.refused.append(seat)
        return True

    def _stopped(self, row: Outbox) -> bool:
        """The seat stopped this game's mail, or its person all game mail, since it was
        queued or while it was held (issue 45 item 2: ``stops.at_send``): never
        sent, and no later mail tells of it as held (the person chose it)."""
        stop = self.stops.get(int(row.id or 0))
        if stop is None:
            return False
        self._end(row, "superseded", status=SUPERSEDED, held_until=None, held_untold=False,
                  last_error=stop[:500], **never_sent())
        return True

    def _no_longer_true(self, row: Outbox) -> bool:
        """What it announces is gone (the seat acted, the clock played): never sent.
        (``held_untold`` stays: the next mail of the seat says it was held.)"""
        if row.kind == ROUND_KIND:
            self._settled()  # (the turn mail that may carry it has ended: ``claim``)
        if not row.announces or self.still_holds is None or self.still_holds(row):
            return False
        self._end(row, "superseded", status=SUPERSEDED, held_until=None,
                  last_error="superseded: what it announced no longer held at send time", **never_sent())
        return True

    def _bouncing(self, row: Outbox) -> bool:
        """Its address bounces (issue 19 item 3): never tried, and the creator is told."""
        bounced = self.bouncing.get(row.to)
        if bounced is None or row.kind in bounces.TRIED_ANYWAY:
            return False
        self._end(row, "failed", attempts=row.attempts, status=FAILED,
                  last_error=f"{bounces.NOT_TRIED} ({bounced})"[:500])
        return True

    def _quiet(self, row: Outbox) -> bool:
        """The seat's quiet hours: held (the older held mail of its seat collapsed into
        it), and sent at their end."""
        quiet = holds.quiet_until(row, self.calendars, self.now)
        if quiet is None:
            return False
        self._hold(row, quiet, holds.HELD_QUIET, "held for the seat's quiet hours", tell=False)
        return True

    def _capped(self, row: Outbox) -> bool:
        """A cap (the address's hour, a stranger's day) holds it: before composing, so a
        held mail is composed when it leaves; the first mail that does says so."""
        hold = self.caps.holds(row)
        if hold is None:
            return False
        self._hold(row, *hold)
        self.untold.add(row.to)
        return True

    def _hold(self, row: Outbox, until: datetime, why: str, words: str, *,
              tell: bool = True) -> None:
        self._settled()  # (the collapse may touch the last row of this seat)
        with Session(self.engine) as session:
            values, collapsed = holds.hold(session, row, until, why, words, tell=tell)
            session.execute(*OUTBOX.ended(int(row.id or 0), self.owner, **values))
            session.commit()
        self.report.superseded += collapsed
        self.report.held += 1

    # -- composing, and where it goes -------------------------------------------------

    def _composed(self, row: Outbox) -> "_Letter | None":
        """What leaves: the mail composed now if it waited to be (a turn mail after its
        grace period), with the talk the seat was not told of (issue 20 item 2) and,
        above it, the words for mail held before it (issue 17 item 3). None: nobody
        here can compose it, and it is left to a sender that can."""
        letter = _Letter(attempts=row.attempts + 1)
        if composed_at_send(row):
            mail = self.compose_late(row, self.now) if self.compose_late is not None else None
            if mail is None:
                self._retry(row, letter.attempts, RuntimeError("this sender cannot compose the mail"))
                return None
            letter.written = {"subject": mail.subject, "text": mail.text, "html": mail.html,
                              "headers": {**(row.headers or {}), **(
                                  {"Reply-To": mail.reply_to} if mail.reply_to else {})}}
        if row.game_id in self.talking:
            letter.talk = table_talk.at_the_table(self.engine, row, self.now)
        if letter.talk is not None:
            letter.body(*table_talk.with_talk(*letter.parts(row), letter.talk))
        if row.to in self.untold:
            letter.told = holds.held_of_seat(self.engine, row, self.now)
            if letter.told or row.held_untold:
                count = len(letter.told) + (1 if row.held_untold else 0)
                why = row.held_why or holds.why_of(self.engine, letter.told)
                notice = self.caps.words(why, count, row.game_id is not None)
                letter.body(*holds.with_notice(*letter.parts(row), notice))
        for name, value in letter.written.items():
            setattr(row, name, value)
        return letter

    def _fanned_out(self, row: Outbox, letter: "_Letter") -> bool:
        """Its seat's notice targets get its short form (issue 20 item 3); a seat that
        takes its notices there instead of mail, with a target that took it, gets no
        mail: its own status word, so that the mail caps do not count it."""
        if not (self._has_targets(row) and self._settled()
                and notices.leave_by_targets(self.engine, row, self.now)):
            return False
        self._end(row, "sent", attempts=letter.attempts, status=notices.OUTBOX_NOTIFIED,
                  sent_at=self.now, last_error=None, held_until=None, **letter.kept(row))
        if row.kind == table_talk.TALK_KIND:
            table_talk.mark_told(self.engine, row, letter.talk, self.now)
        if self.on_sent is not None:
            self.on_sent(row)
        return True

    # -- sending, and the row's end ---------------------------------------------------

    def _sent(self, row: Outbox, letter: "_Letter") -> None:
        """Hand it to the mail server, then end the row as what happened: sent; refused
        for good (a refused recipient marks the address bouncing in every game); or put
        back to try again (a server that is gone is not asked again this batch)."""
        if self.broken is not None:  # the server is gone: do not hammer it
            self._retry(row, letter.attempts, self.broken)
            return
        try:
            headers = dict(row.headers or {})
            message = build_message(to=row.to, to_name=str(headers.pop("to_name", "")),
                                    subject=row.subject, text=row.text, html=row.html,
                                    headers=headers, sender=self.sender, date=row.created_at)
            # the last mail's end is stored before this one is delivered: waited for
            # at the last moment, while this one's envelope and text are on their way
            self.backend.send(message, key=f"{row.id:09d}-{row.kind}",
                              envelope_from=bounces.envelope_sender(int(row.id or 0)),
                              before_delivery=self._settled)
        except (PermanentFailure, ValueError) as exc:
            log.warning("outbox %s refused for good: %s", row.id, exc)
            self._end(row, "failed", attempts=letter.attempts, status=FAILED,
                      last_error=str(exc)[:500])
            if isinstance(exc, PermanentFailure) and exc.address:
                with Session(self.engine) as session:  # the address, in every game, from now
                    bounces.mark_bouncing(session, row.to, str(exc), self.now)
                    session.commit()
                self.bouncing[row.to] = str(exc)
        except (smtplib.SMTPException, OSError) as exc:
            log.warning("outbox %s not sent (attempt %s): %s", row.id, letter.attempts, exc)
            self._retry(row, letter.attempts, exc)
            if not isinstance(exc, smtplib.SMTPResponseException):
                self.broken = exc
        else:
            self._end(row, "sent", attempts=letter.attempts, status=SENT, sent_at=self.now,
                      last_error=None, held_until=None, held_untold=False, **letter.kept(row))
            table_talk.mark_told(self.engine, row, letter.talk, self.now)  # (issue 20 item 2)
            if letter.told:
                self.report.superseded += holds.mark_told(self.engine, row, letter.told,
                                                          self.now)
            if self.on_sent is not None:
                self.on_sent(row)

    def _end(self, row: Outbox, counted: str, **values: Any) -> None:
        """End this run's lease on ``row`` with ``values``, counted in the report as
        ``counted`` (sent, failed, superseded)."""
        _finish(self.ends, int(row.id or 0), self.owner, **values)
        setattr(self.report, counted, getattr(self.report, counted) + 1)

    def _retry(self, row: Outbox, attempts: int, error: BaseException) -> None:
        _retry_or_fail(self.ends, int(row.id or 0), self.owner, attempts, self.now, error,
                       self.report)


@dataclass
class _Letter:
    """A row on its way out: its attempt's number, what composing it wrote (its subject
    stored in the row when it is delivered: ``kept``), the talk it carries and the held
    mail it tells of."""

    attempts: int
    written: dict[str, Any] = field(default_factory=dict)
    talk: table_talk.Told | None = None
    told: list[tuple[int, bool]] = field(default_factory=list)

    def parts(self, row: Outbox) -> tuple[str, str | None]:
        """The text and HTML as they stand (composed now, else the row's own)."""
        return self.written.get("text", row.text), self.written.get("html", row.html)

    def body(self, text: str, html: str | None) -> None:
        self.written.update(text=text, html=html)

    def kept(self, row: Outbox) -> dict[str, Any]:
        """What the row keeps once its mail was delivered, written with its end (issue 46
        item 5): the subject composed now, if it was, and no body
        (``outbox.delivered``)."""
        subject = {"subject": self.written["subject"]} if "subject" in self.written else {}
        return {**subject, **delivered(self.written.get("headers", row.headers))}


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


def _retry_or_fail(engine: Engine | Connection | InFlight, row_id: int, owner: str, attempts: int,
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
