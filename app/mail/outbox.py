"""The outbox: mails are rows written with the action, sent later, once each.

``enqueue`` is called inside the caller's transaction (a hook, a clock use
case) and adds nothing when a row with the same idempotency key exists.
``send_due`` claims due rows with one atomic UPDATE (``FOR UPDATE SKIP
LOCKED`` inside it on PostgreSQL, SQLite serialises writers), so two senders
never hold the same row; it sends each and marks it sent in its own short
transaction. A failure puts the row back with an exponential backoff; a
sender that dies mid-batch leaves leases that expire, and the row goes out
later with the same Message-ID.
"""
from __future__ import annotations

import logging
import smtplib
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.deadlines import as_utc
from app.mail.backends import MailBackend, PermanentFailure
from app.mail.compose import Mail, build_message, thread_headers
from app.mail.models import FAILED, PENDING, SENT, Outbox

log = logging.getLogger(__name__)

BACKOFF_BASE = timedelta(seconds=30)
BACKOFF_CAP = timedelta(hours=1)
LEASE = timedelta(minutes=10)
BATCH = 100


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, ... capped at an hour: retried until delivered."""
    return min(BACKOFF_BASE * (2 ** max(attempts - 1, 0)), BACKOFF_CAP)


def enqueue(session: Session, *, game_id: str | None, seat: int | None, kind: str,
            to: str, to_name: str, mail: Mail, idempotency: str, domain: str,
            now: datetime, unsubscribe: str | None = None, root: bool = False,
            ) -> Outbox | None:
    """Add one mail to the outbox in the caller's transaction (once per key)."""
    existing = session.exec(select(Outbox).where(Outbox.idempotency == idempotency)).first()
    if existing is not None:
        return None
    headers: dict[str, Any] = {}
    if game_id is not None and seat is not None:
        headers.update(thread_headers(game_id, seat, idempotency, domain, root=root,
                                      unsubscribe=unsubscribe))
    else:
        from app.mail.compose import message_id_for
        headers["Message-ID"] = message_id_for(idempotency, domain)
    headers["to_name"] = to_name
    if mail.reply_to:  # a turn mail's seat-and-step address (play by replying)
        headers["Reply-To"] = mail.reply_to
    row = Outbox(game_id=game_id, seat=seat, kind=kind, to=to, subject=mail.subject,
                 text=mail.text, html=mail.html, headers=headers,
                 next_attempt_at=as_utc(now), created_at=as_utc(now),
                 message_id=headers["Message-ID"], idempotency=idempotency)
    session.add(row)
    session.flush()
    return row


@dataclass
class SendReport:
    """What one ``send_due`` call did (for logs, the benchmark and tests)."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0


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


def send_due(engine: Engine, backend: MailBackend, now: datetime, *, sender: str,
             limit: int = BATCH, owner: str | None = None,
             on_sent: Callable[[Outbox], None] | None = None) -> SendReport:
    """Send every due outbox row (up to ``limit``); each row at most once."""
    now = as_utc(now)
    owner = owner or f"sender-{uuid.uuid4().hex[:16]}"
    rows = claim_due(engine, now, owner=owner, limit=limit)
    report = SendReport(claimed=len(rows))
    if not rows:
        return report
    broken: BaseException | None = None
    with backend:
        for row in rows:
            assert row.id is not None
            attempts = row.attempts + 1
            if broken is not None:  # the server is gone: do not hammer it
                _finish(engine, row.id, owner, attempts=attempts,
                        next_attempt_at=now + backoff(attempts), last_error=str(broken)[:500])
                report.retried += 1
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
                _finish(engine, row.id, owner, attempts=attempts,
                        next_attempt_at=now + backoff(attempts), last_error=str(exc)[:500])
                report.retried += 1
                if not isinstance(exc, smtplib.SMTPResponseException):
                    broken = exc
            else:
                _finish(engine, row.id, owner, attempts=attempts, status=SENT, sent_at=now,
                        last_error=None)
                report.sent += 1
                if on_sent is not None:
                    on_sent(row)
    return report


def pending_count(engine: Engine) -> int:
    with Session(engine) as session:
        return int(session.exec(select(func.count()).select_from(Outbox)
                                .where(Outbox.status == PENDING)).one())
