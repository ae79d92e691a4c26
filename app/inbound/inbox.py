"""Storing inbound mail: the one thing both ways in (SMTP and HTTP) do.

``store`` commits the raw message before the transport is told "accepted",
so a crash after that loses nothing; a Message-ID seen before stores
nothing (the unique constraint decides, also between two racing receivers).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.inbound.models import InboxMessage
from app.inbound.reading import message_of

#: Biggest message taken (bytes): a reply is a line; 1 MB leaves room for HTML and quotes.
MAX_BYTES = 1024 * 1024
#: Most MIME parts taken: text, HTML, a signature image or two. More is not a reply.
MAX_PARTS = 12


class Refused(Exception):
    """A message we will not store, with the words for the transport's answer."""


@dataclass(frozen=True)
class Stored:
    id: int
    duplicate: bool


def message_id_of(raw: bytes) -> str:
    """The Message-ID header, or a digest of the bytes for a message without one."""
    value = str(message_of(raw).get("Message-ID", "") or "").strip()
    value = " ".join(value.split())[:255]
    return value or f"<sha256.{hashlib.sha256(raw).hexdigest()}@no-message-id>"


def check(raw: bytes) -> None:
    """Refuse what no reply looks like: too big, or too many parts."""
    if len(raw) > MAX_BYTES:
        raise Refused(f"message too big (at most {MAX_BYTES} bytes)")
    parts = sum(1 for _ in message_of(raw).walk())
    if parts > MAX_PARTS:
        raise Refused(f"too many parts ({parts}; at most {MAX_PARTS})")


def store(engine: Engine, raw: bytes, *, via: str, mail_from: str | None, rcpt: list[str],
          now: datetime) -> Stored:
    """Keep one inbound message (once per Message-ID); ``Refused`` if it is not acceptable."""
    check(raw)
    message_id = message_id_of(raw)
    row = InboxMessage(message_id=message_id, received_at=now, via=via,
                       mail_from=None if mail_from is None else str(mail_from)[:320],
                       rcpt=[str(r)[:320] for r in rcpt][:20], raw=raw)
    with Session(engine) as session:
        session.add(row)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            existing = session.exec(select(InboxMessage.id)
                                    .where(InboxMessage.message_id == message_id)).first()
            if existing is None:
                raise
            return Stored(int(existing), True)
        assert row.id is not None
        return Stored(row.id, False)
