"""The outbox: mails are rows written with the action, sent later, once each.

``enqueue`` is called inside the caller's transaction (a hook, a clock use
case) and adds nothing when a row with the same idempotency key exists.
``send_due`` claims due rows with one atomic UPDATE (``FOR UPDATE SKIP
LOCKED`` inside it on PostgreSQL, SQLite serialises writers), so two senders
never hold the same row; it sends each and marks it sent in its own short
transaction. A failure puts the row back with an exponential backoff; a
sender that dies mid-batch leaves leases that expire, and the row goes out
later with the same Message-ID.

Before a claimed row leaves, the caller's ``still_holds`` check (``app.sender``)
is asked whether what the mail announces is still true; a row whose decision
is gone is marked ``superseded`` (kept, never sent). A per-address hourly cap
(``per_address_hour``) holds back a row whose recipient already got that many
mails in the last hour, across all games: it stays pending, ``held_until``
says until when, and the game shows it.
"""
from __future__ import annotations

import functools
import logging
import smtplib
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import bindparam, exists, func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deadlines import as_utc, write_through
from app.loaded import note
from app.mail.backends import MailBackend, PermanentFailure
from app.mail.compose import Mail, build_message, thread_headers
from app.mail.models import FAILED, PENDING, SENT, SUPERSEDED, Outbox, SeatMail
from app.store import insert_for

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
            marker: Any = None) -> int | None:
    """Add one mail to the outbox in the caller's transaction (once per key): the
    new row's id, or None when the key was already there.

    ``due``: when it may leave (default ``now``); ``announces``: what must
    still hold then; ``marker``: the seat's mail row, which then names this
    row as its unsent mail (``unsent_mail_id``). A sender is woken when the
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
              "held_until": None}
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
    """When mails to ``to`` went out in the hour before ``now`` (oldest first)."""
    with Session(engine) as session:
        rows = session.exec(select(Outbox.sent_at).where(
            col(Outbox.to) == to, col(Outbox.status) == SENT,
            col(Outbox.sent_at) > as_utc(now) - timedelta(hours=1))
            .order_by(col(Outbox.sent_at))).all()
    return [as_utc(at) for at in rows if at is not None]


def send_due(engine: Engine, backend: MailBackend, now: datetime, *, sender: str,
             limit: int = BATCH, owner: str | None = None,
             on_sent: Callable[[Outbox], None] | None = None,
             still_holds: Callable[[Outbox], bool] | None = None,
             compose_late: Callable[[Outbox, datetime], Mail | None] | None = None,
             per_address_hour: int | None = None) -> SendReport:
    """Send every due outbox row (up to ``limit``); each row at most once.

    ``still_holds(row)`` False: the row is marked ``superseded`` instead.
    ``compose_late(row, now)``: the mail of a row enqueued without one (a turn mail
    that waited out its grace period, ``composed_at_send``); what it returns
    is stored in the row when it is sent. ``per_address_hour``: at most that
    many mails to one address an hour.
    """
    now = as_utc(now)
    owner = owner or f"sender-{uuid.uuid4().hex[:16]}"
    rows = claim_due(engine, now, owner=owner, limit=limit)
    report = SendReport(claimed=len(rows))
    if not rows:
        return report
    broken: BaseException | None = None
    recent: dict[str, list[datetime]] = {}
    with backend:
        for row in rows:
            assert row.id is not None
            attempts = row.attempts + 1
            if row.announces and still_holds is not None and not still_holds(row):
                _finish(engine, row.id, owner, status=SUPERSEDED, held_until=None,
                        last_error="superseded: what it announced no longer held at send time")
                report.superseded += 1
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
                for name, value in written.items():
                    setattr(row, name, value)
            if per_address_hour is not None:
                times = recent.setdefault(row.to, sent_in_last_hour(engine, row.to, now))
                if len(times) >= per_address_hour:
                    free_at = times[len(times) - per_address_hour] + timedelta(hours=1)
                    _finish(engine, row.id, owner, next_attempt_at=free_at, held_until=free_at,
                            last_error=f"held back: {len(times)} mails to this address in the "
                                       f"last hour (at most {per_address_hour})")
                    report.held += 1
                    continue
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
                        last_error=None, held_until=None, **written)
                report.sent += 1
                if per_address_hour is not None:
                    recent.setdefault(row.to, []).append(now)
                if on_sent is not None:
                    on_sent(row)
    return report


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
