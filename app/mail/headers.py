"""The headers and the message as it leaves: Message-IDs, threading, one-click
unsubscribe, and the message built for an outbox row (written by ``app.mail.wire``).

Apart from the wording (``app.mail.compose``) because these are read at a different
moment by a different reader: compose runs when a mail is queued and says what the
mail says; this runs when the outbox writes its headers and when the sender builds the
message to send, and decides what a mail client and a relay see (threads, line
lengths, what may not be injected). Names typed by players are cleaned with
``compose.clean_name`` before they come near a header.
"""
from __future__ import annotations

import functools
import hashlib
import re
from datetime import datetime
from email.utils import format_datetime

from app.clock.time import as_utc
from app.mail import wire
from app.mail.compose import clean_name
from app.mail.wire import WireMessage


def mail_domain(sender: str) -> str:
    """The domain of MAIL_FROM, for Message-IDs."""
    match = re.search(r"@([A-Za-z0-9.-]+)", sender or "")
    return match.group(1) if match else "silver-eye-post.invalid"


def thread_root(game_id: str, seat: int, domain: str) -> str:
    """The Message-ID of a seat's invitation: every later mail of the game refers to it."""
    return f"<game.{_token(game_id)}.seat{int(seat)}@{domain}>"


def message_id_for(idempotency: str, domain: str) -> str:
    digest = hashlib.sha256(idempotency.encode()).hexdigest()[:32]
    return f"<{digest}@{domain}>"


def thread_headers(game_id: str, seat: int, idempotency: str, domain: str, *,
                   root: bool, unsubscribe: str | None) -> dict[str, str]:
    """Message-ID, threading and RFC 8058 one-click unsubscribe headers."""
    root_id = thread_root(game_id, seat, domain)
    headers = {"Message-ID": root_id if root else message_id_for(idempotency, domain)}
    if not root:
        headers["In-Reply-To"] = root_id
        headers["References"] = root_id
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    headers["List-Id"] = f"Silver Eye game {_token(game_id)} <game-{_token(game_id)}.{domain}>"
    return headers


def _token(value: str) -> str:
    """A game id as it may appear inside a header (letters, digits, dash only)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", str(value))[:64]


@functools.lru_cache(maxsize=64)
def sender_parts(sender: str) -> tuple[str, str]:
    """MAIL_FROM ('Name <addr>' or 'addr') as its display name and address (read once
    per setting: it is the same on every mail)."""
    match = re.match(r"^\s*(.*?)\s*<([^<>]+)>\s*$", sender or "")
    if match:
        return clean_name(match.group(1).strip('"')), match.group(2).strip()
    return "Silver Eye Post", (sender or "").strip() or "silver-eye-post@localhost"


ALLOWED_HEADERS = ("Message-ID", "In-Reply-To", "References", "List-Unsubscribe",
                   "List-Unsubscribe-Post", "List-Id", "Reply-To")


#: The language a composed mail says it is in: its HTML's ``<html lang>``.
_HTML_LANG = re.compile(r'\s*<!doctype html>\s*<html lang="([a-z]{2,3})"', re.IGNORECASE)


def build_message(*, to: str, to_name: str, subject: str, text: str, html: str | None,
                  headers: dict[str, str], sender: str, date: datetime) -> WireMessage:
    """The message for an outbox row, as it goes on the wire (``app.mail.wire``); raises
    ValueError if anything could inject (a line break in a header of ours, an address
    that is not one)."""
    from_name, from_address = sender_parts(sender)
    topic = clean_name(subject, limit=200)
    lines = [wire.mailbox("From", from_name, from_address),
             wire.mailbox("To", clean_name(to_name), to),
             wire.unstructured("Subject", topic),
             # Outlook groups a conversation by its topic: the subject without "Re:"
             # (issue 19 item 4). No Thread-Index: Outlook computes one from the topic
             # when there is none, and a made-up one that disagrees with a client's
             # would split the thread.
             wire.unstructured("Thread-Topic", topic),
             wire.plain("Date", format_datetime(as_utc(date)))]
    lines += [wire.plain(name, headers[name]) for name in ALLOWED_HEADERS if headers.get(name)]
    language = _HTML_LANG.match(html[:200]) if html else None
    if language:  # (issue 50) the reader's, as the mail was composed (RFC 3282)
        lines.append(wire.plain("Content-Language", language.group(1)))
    lines.append("Auto-Submitted: auto-generated")
    # A non-ASCII mailbox (josé@...) can only be written as UTF-8 (RFC 6531); the SMTP
    # backend then needs a server offering SMTPUTF8.
    utf8 = not (to.isascii() and from_address.isascii())
    head = ("\r\n".join(lines) + "\r\n").encode("utf-8" if utf8 else "ascii")
    return wire.WireMessage(raw=head + wire.body(text, html), mail_from=from_address,
                            to=to, utf8=utf8)
