"""The outbox: mails are rows written with the action, sent later, once each.

``enqueue`` is called inside the caller's transaction (a hook, a clock use
case) and adds nothing when a row with the same idempotency key exists.
``send_due`` claims due rows with one atomic UPDATE (``FOR UPDATE SKIP
LOCKED`` inside it on PostgreSQL, SQLite serialises writers), so two senders
never hold the same row; it sends each and marks it sent in its own short
transaction. A failure puts the row back with an exponential backoff; a
sender that dies mid-batch leaves leases that expire, and the row goes out
later with the same Message-ID.

Before a claimed row leaves, the caller's ``still_holds`` check (``app.runners.sender``)
is asked whether what the mail announces is still true; a row whose decision
is gone is marked ``superseded`` (kept, never sent). Two caps hold a row back
(it stays pending, ``held_until`` says until when, and the seat page shows it):
the per-address hourly cap (``per_address_hour``: that many mails in the last
hour, across all games; conversation mail, asked for by replying, is neither
held nor counted by it) and the stranger's day (``stranger_day``: an address
that never acted gets ``trust.STRANGER_MAILS_PER_DAY`` mails in any 24 hours).
Issue 17 item 3: what a cap holds never fails silently and never becomes a
queue of stale mails. A held decision mail is composed when it leaves (the
position then) and collapses the older held ones of its seat; the first mail
of that seat to leave says "We held N mails to you because ...; this is where
the game stands now" (``held_untold`` marks what has not been told yet).
"""
from __future__ import annotations

import functools
import logging
import re
import smtplib
import uuid
from dataclasses import dataclass, field
from html import escape
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import bindparam, exists, func, or_, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.clock.deadlines import as_utc, write_through
from app.db.loaded import note
from app.mail import trust
from app.mail.backends import MailBackend, PermanentFailure
from app.mail.compose import Mail, build_message, thread_headers
from app.mail.models import FAILED, PENDING, SENT, SUPERSEDED, Outbox, SeatMail
from app.gamelog.store import insert_for

log = logging.getLogger(__name__)

BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
LEASE = timedelta(minutes=10)
BATCH = 100
#: A mail that still cannot be handed over after this many attempts (about a
#: day of hourly retries) is marked ``failed``, and the game's creator is told.
MAX_ATTEMPTS = 30


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, ... capped at an hour: retried until delivered."""
    return min(BACKOFF_BASE * (2 ** max(attempts - 1, 0)), BACKOFF_CAP)


def enqueue(session: Session, *, game_id: str | None, seat: int | None, kind: str,
            to: str, to_name: str, mail: Mail, idempotency: str, domain: str,
            now: datetime, unsubscribe: str | None = None, root: bool = False,
            due: datetime | None = None, announces: dict[str, Any] | None = None,
            marker: Any = None, conversation: bool = False) -> int | None:
    """Add one mail to the outbox in the caller's transaction (once per key): the
    new row's id, or None when the key was already there.

    ``due``: when it may leave (default ``now``); ``announces``: what must
    still hold then; ``marker``: the seat's mail row, which then names this
    row as its unsent mail (``unsent_mail_id``); ``conversation``: mail the person
    asked for by replying (issue 17 item 3: the answer to a reply, the turn mail
    after their own move made by reply), which the per-address hourly cap neither
    holds nor counts (their own reply rate bounds it). A sender is woken when the
    caller's transaction commits: on PostgreSQL the insert itself calls
    ``pg_notify`` (delivered at commit, dropped on rollback, folded into one
    per transaction), and sets the marker in the same statement, so a turn
    mail is one statement; SQLite senders poll the due index instead.
    """
    headers: dict[str, Any] = {}
    if game_id is not None and seat is not None:
        headers.update(thread_headers(game_id, seat, idempotency, domain, root=root,
                                      unsubscribe=unsubscribe))
    else:
        from app.mail.compose import message_id_for
        headers["Message-ID"] = message_id_for(idempotency, domain)
        if unsubscribe:  # RFC 8058 one-click, as on every game mail
            headers["List-Unsubscribe"] = f"<{unsubscribe}>"
            headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    headers["to_name"] = to_name
    if mail.reply_to:  # a turn mail's seat-and-step address (play by replying)
        headers["Reply-To"] = mail.reply_to
    values = {"game_id": game_id, "seat": seat, "kind": kind, "to": to,
              "subject": mail.subject, "text": mail.text, "html": mail.html, "headers": headers,
              "status": PENDING, "attempts": 0, "next_attempt_at": as_utc(due or now),
              "lease_owner": None, "lease_until": None, "sent_at": None,
              "message_id": headers["Message-ID"], "idempotency": idempotency,
              "last_error": None, "created_at": as_utc(now), "announces": announces,
              "held_until": None, "conversation": bool(conversation), "held_untold": False,
              "held_why": None}
    # One statement: a key already in the outbox (an earlier call, or a racing
    # transaction) inserts nothing and says so, without a SELECT before it.
    if session.get_bind().dialect.name == "postgresql":
        row_id = session.connection().execute(
            _queue(marked=marker is not None),
            {**{f"q_{key}": value for key, value in values.items()},
             "marker_id": marker.id if marker is not None else None}).scalar()
        if row_id is not None and marker is not None:
            note(marker, unsent_mail_id=row_id)
    else:
        row_id = session.connection().execute(_insert_once(), values).scalar()
        if row_id is not None and marker is not None:
            write_through(session, marker, unsent_mail_id=row_id)
    # the id only: an Outbox object built from the values cost a third of the call
    # (pydantic), and callers only ask whether the row is new
    return row_id


@functools.cache
def _insert_once() -> Any:
    """SQLite: ``INSERT ... ON CONFLICT (idempotency) DO NOTHING RETURNING id``, built once."""
    table = Outbox.__table__  # type: ignore[attr-defined]
    return (insert_for("sqlite", table).on_conflict_do_nothing(index_elements=["idempotency"])
            .returning(table.c.id))


#: The PostgreSQL channel a committing transaction notifies when it wrote mail.
CHANNEL = "silver_eye_outbox"


@functools.cache
def _queue(marked: bool) -> Any:
    """PostgreSQL, built once: the insert, the wake-up and (``marked``) the seat's
    marker, in one statement::

        WITH queued AS (INSERT INTO outbox ... ON CONFLICT (idempotency) DO NOTHING
                        RETURNING id),
             marked AS (UPDATE seat_mail SET unsent_mail_id = (SELECT id FROM queued)
                        WHERE id = :marker_id AND EXISTS (SELECT id FROM queued))
        SELECT id, pg_notify('silver_eye_outbox', '') FROM queued
    """
    table = Outbox.__table__  # type: ignore[attr-defined]
    queued = (insert_for("postgresql", table)
              # named apart, so the UPDATE below takes none of them as its own columns
              .values({c.key: bindparam(f"q_{c.key}", type_=c.type) for c in table.columns
                       if c.key != "id"})
              .on_conflict_do_nothing(index_elements=["idempotency"])
              .returning(table.c.id).cte("queued"))
    statement = select(queued.c.id, func.pg_notify(CHANNEL, ""))
    if marked:
        marks = SeatMail.__table__  # type: ignore[attr-defined]
        statement = statement.add_cte(
            update(marks).where(marks.c.id == bindparam("marker_id"),
                                exists(select(queued.c.id)))
            .values(unsent_mail_id=select(queued.c.id).scalar_subquery()).cte("marked"))
    return statement


@dataclass
class SendReport:
    """What one ``send_due`` call did (for logs, the benchmark and tests)."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0
    superseded: int = 0
    held: int = 0


def claim_due(engine: Engine, now: datetime, *, owner: str, limit: int = BATCH,
              lease: timedelta = LEASE) -> list[Outbox]:
    """Lease up to ``limit`` due rows to ``owner`` in one statement; return them."""
    now = as_utc(now)
    until = now + lease
    due = (select(Outbox.id)
           .where(col(Outbox.status) == PENDING, col(Outbox.next_attempt_at) <= now,
                  (col(Outbox.lease_until).is_(None)) | (col(Outbox.lease_until) < now))
           .order_by(col(Outbox.next_attempt_at), col(Outbox.id))
           .limit(limit)
           .with_for_update(skip_locked=True))
    with Session(engine) as session:
        # RETURNING names the rows just leased, so reading them back costs
        # the batch, not a walk through every pending row of a backlog.
        ids = list(session.exec(update(Outbox)  # type: ignore[call-overload]
                                .where(col(Outbox.id).in_(due.scalar_subquery()))
                                .values(lease_owner=owner, lease_until=until)
                                .returning(col(Outbox.id))
                                .execution_options(synchronize_session=False)).scalars())
        session.commit()
        if not ids:
            return []
        rows = session.exec(select(Outbox).where(col(Outbox.id).in_(ids),
                                                 Outbox.lease_owner == owner,
                                                 Outbox.status == PENDING)
                            .order_by(col(Outbox.id))).all()
        for row in rows:
            session.expunge(row)
        return list(rows)


def _finish(engine: Engine, row_id: int, owner: str, **values: Any) -> None:
    with Session(engine) as session:
        session.exec(update(Outbox)  # type: ignore[call-overload]
                     .where(col(Outbox.id) == row_id, col(Outbox.lease_owner) == owner)
                     .values(lease_owner=None, lease_until=None, **values))
        session.commit()


def sent_in_last_hour(engine: Engine, to: str, now: datetime) -> list[datetime]:
    """When mails to ``to`` that the hourly cap counts went out in the hour before
    ``now`` (oldest first): conversation mail (issue 17 item 3) is not among them."""
    return sent_since(engine, to, as_utc(now) - HOUR, conversation=False)


def sent_since(engine: Engine, to: str, since: datetime, *,
               conversation: bool | None = None) -> list[datetime]:
    """When mails to ``to`` went out after ``since`` (oldest first); ``conversation``
    False/True: only rows that are not / are conversation (None: all)."""
    query = select(Outbox.sent_at).where(col(Outbox.to) == to, col(Outbox.status) == SENT,
                                         col(Outbox.sent_at) > as_utc(since))
    if conversation is not None:
        query = query.where(col(Outbox.conversation) == conversation)
    with Session(engine) as session:
        rows = session.exec(query.order_by(col(Outbox.sent_at))).all()
    return [as_utc(at) for at in rows if at is not None]


HOUR = timedelta(hours=1)
#: Which cap held a row (``Outbox.held_why``).
HELD_HOUR, HELD_STRANGER = "hour", "stranger"


@dataclass
class _Caps:
    """The caps of one ``send_due`` batch, with what it learnt per address.

    ``per_address_hour``: at most that many mails an hour to one address, but
    conversation (issue 11's reply play is bounded by the player's own replies).
    ``stranger_day``: at most that many mails in 24 hours to an address that never
    acted (``app.mail.trust``; issue 17 item 3), conversation included. Both are
    counted from sent rows when first needed for an address, then kept in step
    with what this batch sends; ``has_acted`` is asked once per address a batch
    and only for the rows that may be held by it.
    """

    engine: Engine
    now: datetime
    per_address_hour: int | None
    stranger_day: int | None
    hour: dict[str, list[datetime]] = field(default_factory=dict)
    day: dict[str, list[datetime]] = field(default_factory=dict)
    acted: dict[str, bool] = field(default_factory=dict)

    def holds(self, row: Outbox) -> tuple[datetime, str, str] | None:
        """``(until, why, words)`` when a cap holds ``row`` now; None: it may leave."""
        held: list[tuple[datetime, str, str]] = []
        if self.per_address_hour is not None and not row.conversation:
            times = self.hour.setdefault(row.to, sent_in_last_hour(self.engine, row.to,
                                                                   self.now))
            if len(times) >= self.per_address_hour:
                held.append((times[len(times) - self.per_address_hour] + HOUR, HELD_HOUR,
                             f"held back: {len(times)} mails to this address in the last "
                             f"hour (at most {self.per_address_hour})"))
        if self.stranger_day is not None and not self._acted(row.to):
            times = self.day.setdefault(row.to, sent_since(self.engine, row.to,
                                                           self.now - trust.DAY))
            if len(times) >= self.stranger_day:
                held.append((times[len(times) - self.stranger_day] + trust.DAY, HELD_STRANGER,
                             f"held back: this address never played and got {len(times)} "
                             f"mails in 24 hours (at most {self.stranger_day})"))
        return max(held, key=lambda each: each[0]) if held else None

    def _acted(self, to: str) -> bool:
        if to not in self.acted:
            with Session(self.engine) as session:
                self.acted[to] = trust.has_acted(session, to)
        return self.acted[to]

    def sent(self, row: Outbox) -> None:
        """Count a mail this batch handed over."""
        if row.to in self.hour and not row.conversation:
            self.hour[row.to].append(self.now)
        if row.to in self.day:
            self.day[row.to].append(self.now)

    def words(self, why: str | None, count: int, game: bool) -> str:
        """What the first mail after a hold says (issue 17 item 3)."""
        mails = "1 mail" if count == 1 else f"{count} mails"
        where = "the game stands" if game else "your games stand"
        if why == HELD_STRANGER:
            limit = self.stranger_day or trust.STRANGER_MAILS_PER_DAY
            because = (f"this address has not played a move here yet and had {limit} mails "
                       "from us in the last 24 hours, the most we send to an address that "
                       "has not played")
        else:
            cap = self.per_address_hour
            had = f"{cap} mail{'' if cap == 1 else 's'}" if cap else "the most mails"
            because = (f"your address had {had} from us in the last hour, the most we send "
                       "to one address in an hour")
        return f"We held {mails} to you because {because}; this is where {where} now."


def send_due(engine: Engine, backend: MailBackend, now: datetime, *, sender: str,
             limit: int = BATCH, owner: str | None = None,
             on_sent: Callable[[Outbox], None] | None = None,
             still_holds: Callable[[Outbox], bool] | None = None,
             compose_late: Callable[[Outbox, datetime], Mail | None] | None = None,
             per_address_hour: int | None = None,
             stranger_day: int | None = trust.STRANGER_MAILS_PER_DAY) -> SendReport:
    """Send every due outbox row (up to ``limit``); each row at most once.

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
    now = as_utc(now)
    owner = owner or f"sender-{uuid.uuid4().hex[:16]}"
    rows = claim_due(engine, now, owner=owner, limit=limit)
    report = SendReport(claimed=len(rows))
    if not rows:
        return report
    broken: BaseException | None = None
    caps = _Caps(engine, now, per_address_hour, stranger_day)
    untold = _untold_addresses(engine, {row.to for row in rows})
    with backend:
        for row in rows:
            assert row.id is not None
            attempts = row.attempts + 1
            if row.announces and still_holds is not None and not still_holds(row):
                # (held_untold stays: the next mail of the seat says it was held)
                _finish(engine, row.id, owner, status=SUPERSEDED, held_until=None,
                        last_error="superseded: what it announced no longer held at send time")
                report.superseded += 1
                continue
            hold = caps.holds(row)
            if hold is not None:  # before composing: a held mail is composed when it leaves
                report.superseded += _hold(engine, row, owner, *hold)
                untold.add(row.to)
                report.held += 1
                continue
            written: dict[str, Any] = {}
            if composed_at_send(row):
                mail = compose_late(row, now) if compose_late is not None else None
                if mail is None:  # nobody here can compose it: leave it to a sender that can
                    _retry_or_fail(engine, row.id, owner, attempts, now,
                                   RuntimeError("this sender cannot compose the mail"), report)
                    continue
                written = {"subject": mail.subject, "text": mail.text, "html": mail.html,
                           "headers": {**(row.headers or {}),
                                       **({"Reply-To": mail.reply_to} if mail.reply_to else {})}}
            told: list[tuple[int, bool]] = []
            if row.to in untold:
                told = _held_of_seat(engine, row, now)
                if told or row.held_untold:
                    count = len(told) + (1 if row.held_untold else 0)
                    why = row.held_why or _why_of(engine, told)
                    notice = caps.words(why, count, row.game_id is not None)
                    text, html = _with_notice(written.get("text", row.text),
                                              written.get("html", row.html), notice)
                    written.update(text=text, html=html)
            for name, value in written.items():
                setattr(row, name, value)
            if broken is not None:  # the server is gone: do not hammer it
                _retry_or_fail(engine, row.id, owner, attempts, now, broken, report)
                continue
            try:
                headers = dict(row.headers or {})
                message = build_message(to=row.to, to_name=str(headers.pop("to_name", "")),
                                        subject=row.subject, text=row.text, html=row.html,
                                        headers=headers, sender=sender, date=row.created_at)
                backend.send(message, key=f"{row.id:09d}-{row.kind}")
            except (PermanentFailure, ValueError) as exc:
                log.warning("outbox %s refused for good: %s", row.id, exc)
                _finish(engine, row.id, owner, attempts=attempts, status=FAILED,
                        last_error=str(exc)[:500])
                report.failed += 1
            except (smtplib.SMTPException, OSError) as exc:
                log.warning("outbox %s not sent (attempt %s): %s", row.id, attempts, exc)
                _retry_or_fail(engine, row.id, owner, attempts, now, exc, report)
                if not isinstance(exc, smtplib.SMTPResponseException):
                    broken = exc
            else:
                _finish(engine, row.id, owner, attempts=attempts, status=SENT, sent_at=now,
                        last_error=None, held_until=None, held_untold=False, **written)
                report.sent += 1
                if told:
                    report.superseded += _told(engine, row, told, now)
                caps.sent(row)
                if on_sent is not None:
                    on_sent(row)
    return report


def _is_decision(announces: dict[str, Any] | None) -> bool:
    return (announces or {}).get("what") == "decision"


def _same_seat(row: Outbox) -> list[Any]:
    """The conditions naming the rows to the same address about the same seat."""
    return [col(Outbox.to) == row.to,
            col(Outbox.game_id).is_(None) if row.game_id is None
            else col(Outbox.game_id) == row.game_id,
            col(Outbox.seat).is_(None) if row.seat is None else col(Outbox.seat) == row.seat]


def _hold(engine: Engine, row: Outbox, owner: str, until: datetime, why: str,
          words: str) -> int:
    """Keep ``row`` pending until ``until``; returns how many older held rows it collapsed.

    A held decision mail (turn, reminder) is composed when it leaves, so it shows
    the position then; the older held decision mails of the same seat are
    superseded by it (one mail of the current position, not a queue of stale ones).
    Mails about something that happened (a round's end, the game's end, a notice)
    are kept: each is a fact, not a position.
    """
    assert row.id is not None
    values: dict[str, Any] = {"next_attempt_at": until, "held_until": until,
                              "held_untold": True, "held_why": why, "last_error": words}
    collapsed = 0
    with Session(engine) as session:
        if _is_decision(row.announces):
            if not composed_at_send(row):
                values["announces"] = {**(row.announces or {}), "compose": {
                    "due": None, "reminder": row.kind == "reminder"}}
            older = [held_id for held_id, announces in session.exec(
                select(Outbox.id, Outbox.announces).where(
                    *_same_seat(row), col(Outbox.status) == PENDING,
                    col(Outbox.held_until).is_not(None), col(Outbox.id) < row.id,
                    col(Outbox.lease_until).is_(None))).all() if _is_decision(announces)]
            if older:
                collapsed = session.exec(update(Outbox)  # type: ignore[call-overload]
                                         .where(col(Outbox.id).in_(older),
                                                col(Outbox.status) == PENDING,
                                                col(Outbox.lease_until).is_(None))
                                         .values(status=SUPERSEDED, held_until=None,
                                                 last_error=f"collapsed into the newer mail "
                                                            f"{row.id} while held")).rowcount
        session.exec(update(Outbox)  # type: ignore[call-overload]
                     .where(col(Outbox.id) == row.id, col(Outbox.lease_owner) == owner)
                     .values(lease_owner=None, lease_until=None, **values))
        session.commit()
    return int(collapsed or 0)


def _untold_addresses(engine: Engine, addresses: set[str]) -> set[str]:
    """Which of ``addresses`` have held mail nobody was told of (the partial index
    ``ix_outbox_held_untold``: one probe per batch, nearly always empty)."""
    with Session(engine) as session:
        return set(session.exec(select(Outbox.to).where(
            col(Outbox.held_untold), col(Outbox.to).in_(sorted(addresses)))).all())


def _held_of_seat(engine: Engine, row: Outbox, now: datetime) -> list[tuple[int, bool]]:
    """The other held rows of ``row``'s seat that ``row`` tells of when it leaves:
    ``(id, collapse)``. Those that never left (superseded while held: the seat's
    decision changed, a newer mail replaced them) and, when ``row`` is a decision
    mail, the still-pending held decision mails it makes stale (``collapse``). A
    held mail about something that happened stays, and tells of itself."""
    with Session(engine) as session:
        found = session.exec(select(Outbox.id, Outbox.status, Outbox.announces,
                                    Outbox.lease_until).where(
            *_same_seat(row), col(Outbox.held_untold), col(Outbox.id) != row.id)).all()
    told = []
    for held_id, status, announces, lease in found:
        collapse = (status == PENDING and _is_decision(announces) and _is_decision(row.announces)
                    and (lease is None or as_utc(lease) < now))
        if status != PENDING or collapse:
            told.append((held_id, collapse))
    return told


def _why_of(engine: Engine, told: list[tuple[int, bool]]) -> str | None:
    if not told:
        return None
    with Session(engine) as session:
        return session.exec(select(Outbox.held_why).where(
            col(Outbox.id) == max(held_id for held_id, _ in told))).first()


def _told(engine: Engine, row: Outbox, told: list[tuple[int, bool]], now: datetime) -> int:
    """``row`` left saying that ``told`` were held: they are told, and the stale decision
    mails among them superseded; returns how many were superseded."""
    with Session(engine) as session:
        session.exec(update(Outbox)  # type: ignore[call-overload]
                     .where(col(Outbox.id).in_([held_id for held_id, _ in told]))
                     .values(held_untold=False))
        stale = [held_id for held_id, collapse in told if collapse]
        superseded = 0
        if stale:
            superseded = session.exec(update(Outbox)  # type: ignore[call-overload]
                                      .where(col(Outbox.id).in_(stale),
                                             col(Outbox.status) == PENDING,
                                             or_(col(Outbox.lease_until).is_(None),
                                                 col(Outbox.lease_until) < now))
                                      .values(status=SUPERSEDED, held_until=None,
                                              last_error=f"collapsed into mail {row.id}, "
                                                         "which left first")).rowcount
        session.commit()
    return int(superseded or 0)


#: Where the held-mail notice goes in an HTML mail: after the brand line of the layout.
_BRAND_LINE = re.compile(r'(<p\b[^>]*class="brand"[^>]*>.*?</p>)', re.S)


def _with_notice(text: str, html: str | None, notice: str) -> tuple[str, str | None]:
    """The mail's bodies with ``notice`` on top (text) or under the brand line (HTML)."""
    text = f"{notice}\n\n{text}"
    if html:
        paragraph = f'<p class="note"><strong>{escape(notice)}</strong></p>'
        html, found = _BRAND_LINE.subn(lambda m: m.group(1) + paragraph, html, count=1)
        if not found:
            html = paragraph + html
    return text, html


def composed_at_send(row: Outbox) -> bool:
    """Whether the row waits for its mail to be composed when it leaves."""
    return bool((row.announces or {}).get("compose"))


def _retry_or_fail(engine: Engine, row_id: int, owner: str, attempts: int, now: datetime,
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


def pending_count(engine: Engine) -> int:
    with Session(engine) as session:
        return int(session.exec(select(func.count()).select_from(Outbox)
                                .where(Outbox.status == PENDING)).one())
