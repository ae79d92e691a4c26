"""The inbox: every inbound message, stored raw before anything reads it.

Like the outbox, the inbox is what makes a crash harmless: the receiver
commits the raw bytes and answers 250 only then, and the worker applies rows
later, leasing them so two workers never hold the same row. ``message_id`` is
unique, so a message delivered twice (a relay retrying, a client re-sending)
is stored, and therefore applied, once.
"""
from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel

from app.db.statements import table_of
from app.db.unit import Row

#: Row states. ``pending`` rows wait for the worker; every other state is final, and a
#: row always reaches one (issue 17 item 5): unreadable mail is ignored at once, a
#: transient failure is retried a few times (``INBOUND_MAX_ATTEMPTS``) and then dead.
PENDING = "pending"
APPLIED = "applied"      # the command became an action in the log
ANSWERED = "answered"    # not applied: the sender was told why (or help was sent)
IGNORED = "ignored"      # not applied and not answered (bounce, auto-reply, forged...)
DEAD = "dead"            # a transient failure outlasted its attempts: kept with its error (issue 17)
STATES = (PENDING, APPLIED, ANSWERED, IGNORED, DEAD)


class InboxMessage(SQLModel, table=True):
    """One received message and what became of it."""

    __tablename__ = "inbox"
    __table_args__ = (
        sa.UniqueConstraint("message_id", name="uq_inbox_message_id"),
        sa.Index("ix_inbox_pending", "received_at",
                 sqlite_where=sa.text("status = 'pending'"),
                 postgresql_where=sa.text("status = 'pending'")),
    )

    id: int | None = Field(default=None, primary_key=True)
    #: The Message-ID header as sent (a digest of the raw bytes when missing).
    message_id: str = Field(max_length=255)
    received_at: datetime = Field(sa_type=sa.DateTime(timezone=True))
    #: "smtp" (the receiver) or "http" (POST /inbound/mail).
    via: str = Field(max_length=8)
    #: The envelope sender ("" for a bounce, None when the transport did not say) and
    #: the recipients, as the transport gave them.
    mail_from: str | None = Field(default=None, max_length=320)
    rcpt: list[str] = Field(default_factory=list, sa_type=sa.JSON, nullable=False)
    raw: bytes = Field(sa_type=sa.LargeBinary, nullable=False)
    status: str = Field(default=PENDING, max_length=16)
    #: Why the row ended as it did, in a few words (for operators and tests).
    outcome: str | None = Field(default=None, max_length=300)
    game_id: str | None = Field(default=None, max_length=64)
    seat: int | None = None
    step: int | None = None
    #: The log step the reply became (``applied`` rows only).
    applied_seq: int | None = None
    attempts: int = 0
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    done_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    #: The last transient failure in full (issue 17 item 5): kept on a dead row so an
    #: operator (``flask status``) sees why it was given up; None when nothing failed.
    last_error: str | None = Field(default=None, sa_type=sa.Text, nullable=True)


#: The inbox as a table: what the unit of work's writes name (``app.db.unit``).
INBOX = table_of(InboxMessage)


def row_of(session: Session, row_id: int, *columns: str) -> Row | None:
    """Inbox row ``row_id`` as a unit of work holds it: its id, status and lease owner
    (whether it is still a worker's) and ``columns``; never its raw bytes unless asked."""
    names = ("id", "status", "lease_owner", *columns)
    found = session.connection().execute(
        sa.select(*(INBOX.c[name] for name in names)).where(INBOX.c.id == row_id)
    ).mappings().first()
    return None if found is None else Row(INBOX, found)
