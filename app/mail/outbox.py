"""The outbox: mails are rows written with the action, sent later, once each.

``enqueue`` is called inside the caller's transaction (a hook, a clock use
case) and adds nothing when a row with the same idempotency key exists. On
PostgreSQL the insert also wakes a sender (``CHANNEL``) when the transaction
commits. Sending the rows (a lease, retries with backoff, ``failed`` after
the last attempt) is ``app.runners.sending``; what holds a row back (the
per-address and stranger caps, issue 17 item 3) is ``app.mail.holds``.
"""
from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.clock.time import as_utc
from app.db.wake import wake_payload
from app.mail.compose import Mail
from app.mail.headers import thread_headers
from app.mail.models import PENDING, Outbox
from app.gamelog.store import insert_for


def enqueue(session: Session, **mail: Any) -> int | None:
    """Add one mail to the outbox now, in the caller's transaction (once per key: the
    new row's id, or None when the key was already there): for mail that is not part
    of a move (answers to replies, my-games, the daily digest). A move queues its mail
    on its unit of work instead (``unsent.queue``), sent with its other writes.

    One statement: a key already in the outbox (an earlier call, or a racing
    transaction) inserts nothing and says so, without a SELECT before it. On
    PostgreSQL the same statement calls ``pg_notify`` (delivered at commit, dropped on
    rollback, folded into one per transaction), which wakes a sender; SQLite senders
    poll the due index instead.
    """
    values = row_values(**mail)
    dialect = session.get_bind().dialect.name
    return session.connection().execute(_insert_once(dialect), values).scalar()


@functools.cache
def _insert_once(dialect: str) -> Any:
    """``INSERT ... ON CONFLICT (idempotency) DO NOTHING RETURNING id`` (and, on
    PostgreSQL, the wake-up), built once per dialect."""
    table = Outbox.__table__  # type: ignore[attr-defined]
    statement = (insert_for(dialect, table).on_conflict_do_nothing(index_elements=["idempotency"])
                 .returning(table.c.id))
    if dialect != "postgresql":
        return statement
    # inside a CTE the columns must be named (a bare INSERT takes them from the row)
    queued = (insert_for(dialect, table)
              .values({c.key: bindparam(c.key, type_=c.type) for c in table.columns
                       if c.key != "id"})
              .on_conflict_do_nothing(index_elements=["idempotency"])
              .returning(table.c.id, table.c.next_attempt_at).cte("queued"))
    # the wake-up says when the row is due: a sender with nothing due before sleeps on
    return select(queued.c.id, func.pg_notify(CHANNEL, wake_payload(queued.c.next_attempt_at))
                  ).select_from(queued)


#: The PostgreSQL channel a committing transaction notifies when it wrote mail.
CHANNEL = "silver_eye_outbox"


#: What a delivered row keeps of its headers (issue 46 item 5): its own Message-ID, the
#: thread it answers, its reply address (a late reply is told which mail it answered by
#: it: ``inbound.late.mail_of``) and the name it was addressed to. The rest (the one-click
#: unsubscribe link, the list id) and the whole body go as it is marked delivered: 4.5 KB
#: a mail, kept for ``MAIL_RETENTION_DAYS``, were 3 TB for a million games at a mail a
#: game-hour (docs/benchmarks.md, "Issue 46: storage").
KEPT_HEADERS = ("Message-ID", "In-Reply-To", "References", "Reply-To", "to_name")


def delivered(headers: dict[str, Any] | None) -> dict[str, Any]:
    """The columns a row's end writes once its mail was delivered (sent, or given to the
    seat's notice targets), in the same statement that marks it so: no body, and of the
    headers only ``KEPT_HEADERS``. A row that is retried or failed keeps all of it, so a
    retry sends the very same message and an operator can send a failed one again."""
    return {"text": "", "html": None,
            "headers": {name: value for name, value in (headers or {}).items()
                        if name in KEPT_HEADERS}}


def never_sent() -> dict[str, Any]:
    """The columns a row's end writes when its mail will never leave (superseded: what
    it announced changed, its address refused, its seat stopped its mail): no body, as
    for a delivered one (``delivered``). Nobody reads it again: a superseded mail is
    never re-sent (``services.resend``), and the page and the operator read its status
    and its reason (``last_error``), which stay; its headers stay too."""
    return {"text": "", "html": None}


def body_dropped(row: Outbox) -> bool:
    """Whether the row's mail was delivered and kept no body (``delivered``); a bounce
    that came after may have marked it failed since."""
    return row.sent_at is not None and not row.text


def composed_at_send(row: Outbox) -> bool:
    """Whether the row waits for its mail to be composed when it leaves."""
    return bool((row.announces or {}).get("compose"))


def pending_count(engine: Engine) -> int:
    with Session(engine) as session:
        return int(session.exec(select(func.count()).select_from(Outbox)
                                .where(Outbox.status == PENDING)).one())


def row_values(*, game_id: str | None, seat: int | None, kind: str, to: str, to_name: str,
               mail: Mail, idempotency: str, domain: str, now: datetime,
               unsubscribe: str | None = None, root: bool = False,
               due: datetime | None = None, announces: dict[str, Any] | None = None,
               conversation: bool = False) -> dict[str, Any]:
    """Every column of a new outbox row for one mail (its headers fixed now, so a
    retry re-sends the very same message).

    ``due``: when it may leave (default ``now``); ``announces``: what must still hold
    then; ``conversation``: mail the person asked for by replying (issue 17 item 3:
    the answer to a reply, the turn mail after their own move made by reply), which
    the per-address hourly cap neither holds nor counts (their own reply rate bounds
    it)."""
    headers: dict[str, Any] = {}
    if game_id is not None and seat is not None:
        headers.update(thread_headers(game_id, seat, idempotency, domain, root=root,
                                      unsubscribe=unsubscribe))
    else:
        from app.mail.headers import message_id_for
        headers["Message-ID"] = message_id_for(idempotency, domain)
        if unsubscribe:  # RFC 8058 one-click, as on every game mail
            headers["List-Unsubscribe"] = f"<{unsubscribe}>"
            headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    headers["to_name"] = to_name
    if mail.reply_to:  # a turn mail's seat-and-step address (play by replying)
        headers["Reply-To"] = mail.reply_to
    return {"game_id": game_id, "seat": seat, "kind": kind, "to": to,
            "subject": mail.subject, "text": mail.text, "html": mail.html, "headers": headers,
            "status": PENDING, "attempts": 0, "next_attempt_at": as_utc(due or now),
            "lease_owner": None, "lease_until": None, "sent_at": None,
            "message_id": headers["Message-ID"], "idempotency": idempotency,
            "last_error": None, "created_at": as_utc(now), "announces": announces,
            "held_until": None, "conversation": bool(conversation), "held_untold": False,
            "held_why": None, "counted_at": None}
