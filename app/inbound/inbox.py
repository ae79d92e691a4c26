"""Storing inbound mail: the one thing both ways in (SMTP and HTTP) do.

``store`` commits the raw message before the transport is told "accepted",
so a crash after that loses nothing; a Message-ID seen before stores
nothing (the unique constraint decides, also between two racing receivers:
the insert says ``ON CONFLICT DO NOTHING`` and returns no id).

Before anything parses a message, ``check`` measures its MIME tree with a
loop over its lines (``mime_shape``), never by recursion: Python's email
parser and ``walk`` recurse once per nesting level, so 3,000 nested multiparts
raised RecursionError, which the receiver answered "451 try again later" (an
MTA retries that for days) and the HTTP route 500 (issue 17 item 5). Too deep
or too many parts is now a ``Refused``: a permanent 5xx over SMTP, 413/422 over
HTTP, and nothing stored.
"""
from __future__ import annotations

import email.message
import email.parser
import email.policy
import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from app.access import tokens
from app.db.unit import Insert, Unit
from app.inbound.models import IGNORED, INBOX, PENDING, STATES, InboxMessage
from app.mail import bounces
from app.inbound.reading import message_of
from app.access.reply_address import token_in

#: Biggest message taken (bytes): a reply is a line; 1 MB leaves room for HTML and quotes.
MAX_BYTES = 1024 * 1024
#: Most MIME parts taken: text, HTML, a signature image or two. More is not a reply.
MAX_PARTS = 12
#: Deepest MIME nesting taken. A phone's reply with a picture is mixed > related >
#: alternative (3), a forwarded mail one or two more; Python's parser recurses per level.
MAX_DEPTH = 8


class Refused(Exception):
    """A message we will not store, with the words for the transport's answer.

    ``smtp`` is the permanent reply code the receiver gives (never 4xx: the same
    bytes would be refused again), ``http`` the status of ``POST /inbound/mail``.
    """

    def __init__(self, words: str, *, smtp: str = "552 5.3.4", http: int = 422) -> None:
        super().__init__(words)
        self.smtp = smtp
        self.http = http


@dataclass(frozen=True)
class Received:
    """A stored message: its row, whether it was stored before (same Message-ID), and
    whether it was finished as it was stored (a bounce: nothing is left to apply)."""
    id: int
    duplicate: bool
    finished: bool = False

    @property
    def to_apply(self) -> bool:
        return not (self.duplicate or self.finished)


def by_status(session: Session) -> dict[str, int]:
    """How many inbox rows are in each state, every state named (``flask status`` and
    ``/metrics`` say the same numbers)."""
    counts = {status: 0 for status in STATES}
    counts.update(session.exec(select(InboxMessage.status, func.count())
                               .group_by(col(InboxMessage.status))).all())
    return counts


def is_reply_address(rcpt: str) -> bool:
    """Whether ``rcpt`` is ``play+<token>@<our domain>`` with a token we signed, or
    ``bounce+<token>@<our domain>``, where the bounces of our mail come back (issue 19
    item 3: ``app.mail.bounces``).

    Both ways in take only these (issue 17 item 5): a made-up local part is
    nobody's, and storing it would let anyone fill the inbox. Only the signature
    is checked (no database: the receiver asks on its event loop); a retired or
    stale token is still a reply to our mail, which the worker answers.
    """
    if bounces.outbox_id_of(rcpt) is not None:
        return True
    token = token_in([str(rcpt).strip().strip("<>")])
    if token is None or len(token) > 200:
        return False
    try:
        tokens.read_reply_token(token)
    except tokens.BadToken:
        return False
    return True


def message_id_of(raw: bytes) -> str:
    """The Message-ID header, or a digest of the bytes for a message without one.

    Only the top headers are parsed, as plain text: a Message-ID that would not
    parse as one must not keep the message from being stored (and finished).
    """
    try:
        top = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
        value = str(top.get("Message-ID", "") or "").strip()
    except Exception:  # noqa: BLE001 - an odd header is the worker's to judge, not ours
        value = ""
    value = " ".join(value.split())[:255]
    return value or f"<sha256.{hashlib.sha256(raw).hexdigest()}@no-message-id>"


@dataclass(frozen=True)
class Shape:
    """How deep a message's MIME tree goes and how many parts it has (the top counts)."""

    depth: int
    parts: int


def _content_type(header_lines: list[bytes]) -> tuple[str, str | None]:
    """The content type and boundary of one header block (its first Content-Type, unfolded)."""
    value: str | None = None
    inside = False  # reading the Content-Type header's continuation lines
    for line in header_lines:
        if line[:1] in (b" ", b"\t"):
            if inside and value is not None:
                value += " " + line.strip().decode("latin-1")
            continue
        inside = value is None and line[:13].lower() == b"content-type:"
        if inside:
            value = line[13:].strip().decode("latin-1")
    if not value:
        return "text/plain", None
    holder = email.message.Message()
    holder["Content-Type"] = value
    return holder.get_content_type(), holder.get_boundary()


def mime_shape(raw: bytes, *, stop_depth: int = MAX_DEPTH, stop_parts: int = MAX_PARTS) -> Shape:
    """Measure the MIME tree in one pass over the lines, with a stack, never recursing.

    It follows what the email parser does: a part's headers run to the first
    empty line; a line ``--<boundary>`` of any open multipart starts its next
    part (closing every part nested inside), ``--<boundary>--`` closes it; a
    ``message/*`` part's body starts with the headers of a message of its own,
    one level deeper. It stops counting as soon as a limit is passed, so a
    hostile message costs one partial pass over at most ``MAX_BYTES``.
    """
    stack: list[bytes | None] = []  # open levels: a multipart's boundary, or None for message/*
    depth = parts = 0
    lines = iter(raw.splitlines())

    def delimiter(line: bytes) -> tuple[int, bool] | None:
        """Which open level a boundary line belongs to (innermost first), and if it closes."""
        if not line.startswith(b"--"):
            return None
        text = line.rstrip(b" \t")
        for level in range(len(stack) - 1, -1, -1):
            boundary = stack[level]
            if boundary is None:
                continue
            if text == b"--" + boundary:
                return level, False
            if text == b"--" + boundary + b"--":
                return level, True
        return None

    pending: bytes | None = None  # a boundary line met while reading headers
    line: bytes | None  # None once the lines run out
    opening = True  # the top-level headers come first
    while True:
        if opening:
            opening = False
            headers: list[bytes] = []
            for line in lines:
                if not line.strip() or (stack and delimiter(line) is not None):
                    pending = line if line.strip() else None
                    break
                headers.append(line)
            parts += 1
            kind, boundary = _content_type(headers)
            if kind.startswith("multipart/") and boundary:
                stack.append(boundary.encode("latin-1", "replace"))
            elif kind in ("message/rfc822", "message/global"):
                stack.append(None)
                opening = pending is None  # the enclosed message's headers follow at once
            depth = max(depth, len(stack))
            if depth > stop_depth or parts > stop_parts:
                return Shape(depth, parts)
            if opening:
                continue
        line = pending if pending is not None else next(lines, None)
        pending = None
        if line is None:
            return Shape(depth, parts)
        found = delimiter(line)
        if found is None:
            continue
        level, closes = found
        del stack[level + 1:]  # every part nested inside ends here
        if closes:
            stack.pop()
        else:
            opening = True


def check(raw: bytes) -> None:
    """Refuse what no reply looks like: too big, too deeply nested, or too many parts.

    The shape is measured before anything parses the message (issue 17 item 5);
    the parse that follows is bounded by it, and a RecursionError it would raise
    anyway (a structure the line scan read differently) is a refusal too, never
    an error the transport sees as "try again".
    """
    if len(raw) > MAX_BYTES:
        raise Refused(f"message too big (at most {MAX_BYTES} bytes)", http=413)
    try:
        shape = mime_shape(raw)
    except Exception:  # noqa: BLE001 - a pure function of the bytes: the same every time
        raise Refused("the MIME structure cannot be read", smtp="554 5.6.0") from None
    if shape.depth > MAX_DEPTH:
        raise Refused(f"MIME parts nested too deep (more than {MAX_DEPTH} levels)",
                      smtp="554 5.6.0")
    if shape.parts > MAX_PARTS:
        raise Refused(f"too many parts (more than {MAX_PARTS})")
    try:
        parts = sum(1 for _ in message_of(raw).walk())
    except RecursionError:
        raise Refused(f"MIME parts nested too deep (more than {MAX_DEPTH} levels)",
                      smtp="554 5.6.0") from None
    except Exception:  # noqa: BLE001 - as above; the worker would only find it unreadable
        raise Refused("the MIME structure cannot be read", smtp="554 5.6.0") from None
    if parts > MAX_PARTS:
        raise Refused(f"too many parts ({parts}; at most {MAX_PARTS})")


def store(engine: Engine, raw: bytes, *, via: str, mail_from: str | None, rcpt: list[str],
          now: datetime) -> Received:
    """Keep one inbound message (once per Message-ID); ``Refused`` if it is not acceptable.

    One write through a unit of work sent at once (``Unit(queued=False)``): ``INSERT ...
    ON CONFLICT (message_id) DO NOTHING RETURNING id``, whose answer says whether the
    message was new. A bounce is recorded first, in the same transaction, and the row
    is inserted finished (``_take_bounce``); a bounce seen before rolls that back, so
    it counts once (and is accepted as a duplicate, never "try again later")."""
    check(raw)
    message_id = message_id_of(raw)
    values = {"message_id": message_id, "received_at": now, "via": via,
              "mail_from": None if mail_from is None else str(mail_from)[:320],
              "rcpt": [str(r)[:320] for r in rcpt][:20], "raw": raw, "status": PENDING,
              "attempts": 0}
    bounced = next((found for found in map(bounces.outbox_id_of, rcpt) if found is not None),
                   None)
    with Session(engine) as session:
        if bounced is not None:  # finished here, in the transaction that counts it
            values.update(_take_bounce(session, bounced, raw, now))
        row_id = Unit(session, queued=False).insert(Insert(
            INBOX, [values], conflict=("message_id",), key="inbox"))
        if row_id is None:  # stored before (or by a racing receiver that committed first)
            session.rollback()  # (a bounce's record with it: it counted the first time)
            existing = session.exec(select(InboxMessage.id)
                                    .where(InboxMessage.message_id == message_id)).first()
            if existing is None:
                raise RuntimeError(f"inbox message {message_id!r} neither stored nor found")
            return Received(int(existing), True)
        session.commit()
        return Received(int(row_id), False, finished=bounced is not None)


def _take_bounce(session: Session, outbox_id: int, raw: bytes, now: datetime) -> dict[str, Any]:
    """A message to ``bounce+<id>@``: what it says about mail ``outbox_id``'s address is
    recorded at once (``bounces.record``), and the message is never answered (an
    answer to a bounce is how mail loops start): the columns of its row, finished as
    ignored. A delivery report that is no failure (a success notice, an auto-reply)
    is kept as ignored."""
    bounce = bounces.classify(raw)
    outcome = ("not a bounce (no failure in it)" if bounce is None
               else bounces.record(session, outbox_id, bounce, now))
    return {"status": IGNORED, "done_at": now, "raw": b"", "outcome": outcome[:300]}
