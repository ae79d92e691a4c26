"""Reading bounces (issue 19 item 3): which address failed, hard or soft.

A bounce comes back to the envelope sender of one outbox row,
``bounce+<signed row id>@MAIL_DOMAIN`` (``envelope_sender``; the token is
``tokens.bounce_token``), so the row — hence game, seat and address — is known
from the address alone, whatever the bounce's body says. ``classify`` reads the
body: an RFC 3464 delivery-status report first (Action ``failed`` with a 5.x.x
Status is hard; 4.x.x or ``delayed`` soft), else flufl.bounce's detectors for the
common non-standard formats (qmail, Exim, Postfix text...).
"""
from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass
from email.message import Message

from flufl.bounce import all_failures

from app.access import tokens
from app.access.reply_address import mail_domain

LOCAL_PREFIX = "bounce+"
HARD, SOFT = "hard", "soft"


def envelope_sender(outbox_id: int) -> str:
    """The MAIL FROM of one outbox row's mail: where its bounce comes back to."""
    return f"{LOCAL_PREFIX}{tokens.bounce_token(outbox_id)}@{mail_domain()}"


def outbox_id_of(rcpt: str) -> int | None:
    """The outbox row a ``bounce+...@MAIL_DOMAIN`` recipient names; None if it is not
    one of ours or its signature does not verify (a forged bounce)."""
    address = str(rcpt).strip().strip("<>")
    local, _, domain = address.rpartition("@")
    if domain.lower().rstrip(".") != mail_domain() or not local.lower().startswith(LOCAL_PREFIX):
        return None
    try:
        return tokens.read_bounce_token(local[len(LOCAL_PREFIX):])
    except tokens.BadToken:
        return None


@dataclass(frozen=True)
class Bounce:
    """What a bounce says: hard (stop mailing) or soft (count it), and why, in words."""

    kind: str
    reason: str


def classify(raw: bytes) -> Bounce | None:
    """Hard or soft, from a DSN or a known non-standard bounce; None: not a failure
    (a delivery report of success, an auto-reply that reached the bounce address)."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    found = _delivery_status(message)
    if found is not None:
        return found
    try:
        temporary, permanent = all_failures(message)
    except Exception:  # noqa: BLE001 - a detector choking on odd bytes: not a bounce we read
        return None
    if permanent:
        return Bounce(HARD, "the receiving mail server refused it for good")
    if temporary:
        return Bounce(SOFT, "the receiving mail server could not take it for now")
    return None


def _delivery_status(message: Message) -> Bounce | None:
    """The first failed or delayed recipient of an RFC 3464 multipart/report."""
    if message.get_content_type() != "multipart/report":
        return None
    for part in message.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        payload = part.get_payload()
        blocks = [b for b in payload if isinstance(b, Message)] \
            if isinstance(payload, list) else []
        for block in blocks:
            action = str(block.get("Action", "")).strip().lower()
            status = str(block.get("Status", "")).strip().split(" ")[0]
            diagnostic = " ".join(str(block.get("Diagnostic-Code", "")).split())
            words = f"{status} {diagnostic}".strip()[:300]
            if action == "failed" and status.startswith("5"):
                return Bounce(HARD, words)
            if action in ("failed", "delayed") or status.startswith("4"):
                return Bounce(SOFT, words)
    return None
