"""Bounces that count (issue 19 item 3): reading them, and what they do to an address.

A bounce comes back to the envelope sender of one outbox row,
``bounce+<signed row id>@MAIL_DOMAIN`` (``envelope_sender``; the token is
``tokens.bounce_token``), so the row — hence game, seat and address — is known
from the address alone, whatever the bounce's body says. ``classify`` reads the
body: an RFC 3464 delivery-status report first (Action ``failed`` with a 5.x.x
Status is hard; 4.x.x or ``delayed`` soft), else flufl.bounce's detectors for the
common non-standard formats (qmail, Exim, Postfix text...).

What it does is recorded as the message is stored (``app.inbound.inbox``), in the
transaction that keeps it, and nothing ever answers a bounce. The state lives on the
address's row of address-wide settings (``Person``), so it holds in every game:
a hard bounce, a refusal of the address at send time, or ``BOUNCE_SOFT_LIMIT`` soft
ones mark the address bouncing; the sender then tries no mail to it (each row fails
at once, with words, so the creator's page says so, as of any refusal); its seat
pages say it; and a move the address makes by replying clears it.
"""
from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass
from datetime import datetime
from email.message import Message

from flufl.bounce import all_failures
from sqlalchemy import func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.access import tokens
from app.access.reply_address import mail_domain
from app.config import setting
from app.mail.models import FAILED, Outbox
from app.people.models import Person

LOCAL_PREFIX = "bounce+"
HARD, SOFT = "hard", "soft"
#: The failure of a mail the sender did not try, its address bouncing (the creator's
#: page reads "Bob's mail bounces: <this> (<why>)").
NOT_TRIED = "no mail is tried to this address any more, since an earlier one bounced"
#: Mail tried even to a bouncing address: the link that confirms a move to it (issue 47
#: item 5), the one way for its owner to show it reads its mail again.
TRIED_ANYWAY = ("move_confirm",)


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


# -- what a bounce does to the address (across every game) -----------------------

def _address_row(session: Session, address: str) -> Person:
    """The address's row of address-wide mail state, made on first use (by its
    stored form, as on seats; a racing insert is read back)."""
    found = session.exec(select(Person).where(
        func.lower(col(Person.address)) == address.lower())).first()
    if found is not None:
        return found
    try:
        with session.begin_nested():
            row = Person(address=address)
            # not a unit write: a bounce comes to the inbound worker outside any move; a
            # savepoint, so a racing insert of the same address is read back
            session.add(row)
        return row
    except IntegrityError:
        found = session.exec(select(Person).where(Person.address == address)).first()
        assert found is not None
        return found


def mark_bouncing(session: Session, address: str, reason: str, now: datetime) -> None:
    """``address`` bounces for good: no mail is tried to it until it replies
    (in ``session``'s transaction; the first reason is kept)."""
    row = _address_row(session, address)
    if row.bouncing_since is None:
        row.bouncing_since, row.bounce_reason = now, reason[:300]


def record(session: Session, outbox_id: int, bounce: Bounce, now: datetime) -> str:
    """What a bounce of outbox row ``outbox_id`` does, in ``session``'s transaction; the
    words say it for the inbox row. A hard bounce fails the row (so the game's creator
    is told, as of a refusal at send time: ``services.seat_lines``) and marks its
    address bouncing; a soft one is counted, and ``BOUNCE_SOFT_LIMIT`` in a row
    count as hard."""
    row = session.get(Outbox, outbox_id)
    if row is None:  # pruned (older than MAIL_RETENTION_DAYS): nothing left to mark
        return f"bounce of mail {outbox_id}, which is no longer kept"
    if bounce.kind == SOFT:
        state = _address_row(session, row.to)
        state.soft_bounces = int(state.soft_bounces or 0) + 1
        if state.soft_bounces < int(setting("BOUNCE_SOFT_LIMIT")):
            return f"soft bounce {state.soft_bounces} of {row.to}: {bounce.reason}"
        bounce = Bounce(HARD, f"{state.soft_bounces} mails in a row could not be delivered "
                              f"for now ({bounce.reason})")
    words = ("the receiving mail server sent it back"
             + (f" ({bounce.reason})" if bounce.reason else ""))
    session.execute(update(Outbox).where(col(Outbox.id) == outbox_id)
                    .values(status=FAILED, last_error=words[:500]))
    mark_bouncing(session, row.to, words, now)
    return f"hard bounce of mail {outbox_id} to {row.to}: {bounce.reason}"


def bouncing_among(session: Session, addresses: set[str]) -> dict[str, str]:
    """Which of ``addresses`` bounce, with the words why (one query per batch)."""
    if not addresses:
        return {}
    lowered = {address.lower(): address for address in addresses}
    rows = session.exec(select(Person.address, Person.bounce_reason).where(
        func.lower(col(Person.address)).in_(sorted(lowered)),
        col(Person.bouncing_since).is_not(None))).all()
    return {lowered[address.lower()]: reason or "it bounced" for address, reason in rows
            if address.lower() in lowered}


def page_words(address: str, reason: str | None) -> str:
    """What the top of a seat page says while the seat's address bounces."""
    return (f"Our mail to {address} bounces ({reason or 'it was sent back'}), so we have "
            "stopped mailing it, in every game. This page still plays your seat. A move "
            "you make by replying to one of our earlier mails starts the mail again; or ask "
            "the game's creator to change your address.")


def clear(session: Session, address: str) -> bool:
    """A reply from ``address`` was accepted: it reads its mail, so mail goes to it
    again and its soft bounces start from 0. True when it had been bouncing."""
    result = session.execute(update(Person).where(
        func.lower(col(Person.address)) == address.lower(),
        or_(col(Person.bouncing_since).is_not(None), col(Person.soft_bounces) > 0))
        .values(bouncing_since=None, bounce_reason=None, soft_bounces=0))
    return bool(getattr(result, "rowcount", 0))
