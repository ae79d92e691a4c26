"""The headers and the message as it leaves: Message-IDs, threading, one-click
unsubscribe, and the ``EmailMessage`` built for an outbox row.

Apart from the wording (``app.mail.compose``) because these are read at a different
moment by a different reader: compose runs when a mail is queued and says what the
mail says; this runs when the outbox writes its headers and when the sender builds the
message to send, and decides what a mail client and a relay see (threads, line
lengths, what may not be injected). Names typed by players are cleaned with
``compose.clean_name`` before they come near a header.
"""
from __future__ import annotations

import hashlib
import re
from datetime import datetime
from email.headerregistry import Address, BaseHeader, HeaderRegistry
from email import policy as email_policy
from email.message import EmailMessage
from email.utils import format_datetime

from app.clock.time import as_utc
from app.mail.compose import clean_name


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


def sender_address(sender: str) -> Address:
    """MAIL_FROM ('Name <addr>' or 'addr') as an Address."""
    match = re.match(r"^\s*(.*?)\s*<([^<>]+)>\s*$", sender or "")
    if match:
        return Address(display_name=clean_name(match.group(1).strip('"')),
                       addr_spec=match.group(2).strip())
    return Address(display_name="Silver Eye Post", addr_spec=(sender or "").strip()
                   or "silver-eye-post@localhost")


class _KeptHeaderClasses(HeaderRegistry):
    """The standard library's header registry, keeping the class it makes for each kind
    of header: ``HeaderRegistry.__getitem__`` makes a new class with ``type()`` for every
    header it parses (about 30 a message), which was a third of composing a mail (issue
    30: 1.08 -> 0.75 ms a message). The classes hold no state of their own."""

    def __init__(self) -> None:
        super().__init__()
        self._kept: dict[str, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        key = name.lower()
        kept = self._kept.get(key)
        if kept is None:
            kept = self._kept.setdefault(key, super().__getitem__(name))
        return kept


_HEADERS = _KeptHeaderClasses()

#: Long header lines are allowed (RFC 5322 says 998), so that a List-Unsubscribe
#: URL is never folded into an encoded word that mail clients cannot read.
MESSAGE_POLICY = email_policy.default.clone(max_line_length=998, header_factory=_HEADERS)
#: Bodies are encoded at 76, RFC 2045 §6.7's limit for a quoted-printable line (and
#: §6.8's for base64); Python's encoder counts the soft break's "=" inside the limit,
#: so 76 here is 76 on the wire (at 78, 5,152 lines of 80 mails ran to 78: issue 34).
#: Python applies ``max_line_length`` to bodies too, so with the header policy alone
#: an HTML line ran to 998 characters: SpamAssassin's MIME_QP_LONG_LINE, and relays
#: that re-wrap such bodies break a signature (issue 19).
BODY_POLICY = email_policy.default.clone(max_line_length=76, header_factory=_HEADERS)

ALLOWED_HEADERS = ("Message-ID", "In-Reply-To", "References", "List-Unsubscribe",
                   "List-Unsubscribe-Post", "List-Id", "Reply-To")


def _recipient(to: str, to_name: str) -> Address:
    """The To address; a non-ASCII mailbox is checked again and passed in parts
    (the header parser refuses what RFC 6531 allows)."""
    if to.isascii():
        return Address(display_name=clean_name(to_name), addr_spec=to)
    from app.mail.addresses import BadAddress, normalise

    try:
        checked = normalise(to)
    except BadAddress as exc:
        raise ValueError(str(exc)) from None
    local, _, domain = checked.rpartition("@")
    return Address(display_name=clean_name(to_name), username=local, domain=domain)


def build_message(*, to: str, to_name: str, subject: str, text: str, html: str | None,
                  headers: dict[str, str], sender: str, date: datetime) -> EmailMessage:
    """The message for an outbox row; raises ValueError if anything could inject."""
    # A non-ASCII mailbox (josé@...) can only be written as UTF-8 (RFC 6531);
    # the SMTP backend then needs a server offering SMTPUTF8.
    message = EmailMessage(policy=MESSAGE_POLICY if to.isascii()
                           else MESSAGE_POLICY.clone(utf8=True))
    message["From"] = sender_address(sender)
    message["To"] = _recipient(to, to_name)
    message["Subject"] = clean_name(subject, limit=200)
    # Outlook groups a conversation by its topic: the subject without "Re:" (issue 19
    # item 4). No Thread-Index: Outlook computes one from the topic when there is none,
    # and a made-up one that disagrees with a client's would split the thread.
    message["Thread-Topic"] = clean_name(subject, limit=200)
    message["Date"] = format_datetime(as_utc(date))
    for name in ALLOWED_HEADERS:
        value = headers.get(name)
        if value:
            if "\r" in value or "\n" in value:
                raise ValueError(f"line break in {name}")
            message[name] = value
    message["Auto-Submitted"] = "auto-generated"
    headers_policy = message.policy
    # the body is encoded as it is set, with the body's line length; the headers are
    # folded when the message is written, with the headers' (``MESSAGE_POLICY``)
    message.policy = BODY_POLICY.clone(utf8=not to.isascii())
    message.set_content(text)
    if html:
        message.add_alternative(html, subtype="html")
    message.policy = headers_policy
    return message
