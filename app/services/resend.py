"""Re-sending a mail by hand (``flask --app app resend-mail ID``, issue 19 item 5): a copy
of a failed or sent mail, queued as a new outbox row, never twice.

A delivered mail keeps only its headers, not its body (issue 46 item 5: the sender drops
it in the statement that marks the row delivered, ``outbox.delivered``). Such a mail is
not copied: a turn mail or a reminder is composed again from the game's log, for the
decision its seat faces now, by the sender's own path for mail composed as it leaves;
any other is refused, saying which kinds can be. A mail not delivered (failed, or
delivered before issue 46) is copied as it was.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app import engine
from app.clock.time import as_utc
from app.config import setting
from app.db import write_session
from app.gamelog import store
from app.mail import bounces, compose, notify, turn_mails
from app.mail.headers import mail_domain
from app.mail.models import FAILED, PENDING, SENT, SUPERSEDED, Outbox
from app.mail.outbox import body_dropped, enqueue
from app.services.errors import Conflict, NotFound
from app.services.reading import game_and_state

#: The kinds of mail that are composed again from the game when their body was not kept:
#: a seat's turn mail and its reminder say the position, which the log holds.
RECOMPOSED_KINDS = ("turn", "reminder")


@dataclass(frozen=True)
class Resent:
    """A mail queued again: the new row's id, and, for a delivered mail whose body was
    not kept (issue 46 item 5), what was composed in its place, in words."""

    id: int
    recomposed: str | None = None


def resend_mail(mail_id: int, now: datetime) -> Resent:
    """Queue a failed (or sent) mail again, as a new outbox row.

    A copy rather than the old row reset: the old row stays as the record of what
    happened, and the copy gets a Message-ID of its own (a mail client that already
    holds the old Message-ID, when it was sent, would drop a second one as a
    duplicate). Never twice: a mail still pending, or whose earlier copy is still
    pending, is refused, and two operators re-sending at once race on the copy's
    idempotency key (``resend:<id>:<n>``), so one of them adds nothing and is told.
    A decision mail keeps what it announces: the sender still drops it if that
    decision is gone when it leaves (no stale turn mail).

    A delivered mail keeps only its headers (``outbox.delivered``): a turn mail or a
    reminder is composed again, from the game as it stands, for the decision the seat
    faces now (``_recomposed``); any other is refused, saying so."""
    now = as_utc(now)
    with write_session() as session:
        row = session.get(Outbox, mail_id)
        if row is None:
            raise NotFound(f"There is no mail {mail_id}.")
        if row.status == PENDING:
            when = as_utc(row.held_until or row.next_attempt_at)
            raise Conflict(f"Mail {mail_id} is still pending: it goes by itself at "
                           f"{when:%Y-%m-%d %H:%M} UTC or soon after; re-sending it now would "
                           "send it twice.")
        if row.status == SUPERSEDED:
            why = row.last_error or "what it said had changed"
            raise Conflict(f"Mail {mail_id} was superseded ({why}): it is not re-sent. To give "
                           "the seat its link, use rotate-link or change-address.")
        if row.status not in (FAILED, SENT):
            raise Conflict(f"Mail {mail_id} is {row.status}: only failed or sent mail is re-sent.")
        bouncing = bounces.bouncing_among(session, {row.to})
        if bouncing:
            raise Conflict(f"Mail {mail_id} goes to {row.to}, which bounces "
                           f"({next(iter(bouncing.values()))}): it would fail again. Once its "
                           f"owner says it reads mail again, run `flask mail-works {row.to}`, "
                           "then re-send. Nothing was queued.")
        if row.game_id is not None and row.seat is not None:
            seat = session.get(store.Seat, (row.game_id, row.seat))
            if seat is not None and seat.email.casefold() != row.to.casefold():
                raise Conflict(f"Mail {mail_id} went to {row.to}, but the seat's address is now "
                               f"{seat.email}: its links are dead. Nothing was queued.")
        copies = session.exec(select(Outbox.id, Outbox.status).where(
            col(Outbox.idempotency).like(f"resend:{mail_id}:%"))).all()
        waiting = [copy_id for copy_id, status in copies if status == PENDING]
        if waiting:
            raise Conflict(f"Mail {mail_id} was already queued again as mail {waiting[0]}, "
                           "which is still pending.")
        headers = dict(row.headers or {})
        unsubscribe = str(headers.get("List-Unsubscribe") or "").strip("<>") or None
        mail = compose.Mail(row.subject, row.text, row.html or "",
                            reply_to=headers.get("Reply-To"))
        announces, recomposed = row.announces, None
        if body_dropped(row):
            mail, announces, unsubscribe, recomposed = _recomposed(session, row)
        new_id = enqueue(session, game_id=row.game_id, seat=row.seat, kind=row.kind, to=row.to,
                         to_name=str(headers.get("to_name", "")), mail=mail,
                         idempotency=f"resend:{mail_id}:{len(copies) + 1}",
                         domain=mail_domain(str(setting("MAIL_FROM"))), now=now,
                         unsubscribe=unsubscribe, announces=announces,
                         conversation=row.conversation)
        if new_id is None:
            raise Conflict(f"Mail {mail_id} was queued again by someone else just now.")
        return Resent(int(new_id), recomposed)


def _recomposed(session: Session, row: Outbox) -> tuple[compose.Mail, dict[str, Any], str, str]:
    """A delivered turn mail or reminder whose body was not kept, queued to be composed as
    it leaves (the sender's ``compose`` path, as a turn mail after its grace period) for
    the decision its seat faces now: the mail, what it announces, its unsubscribe link
    and the words that say what was composed. Refused, in words, for any other mail, and
    for a seat that faces no decision now."""
    delivered = f"delivered {as_utc(row.sent_at):%Y-%m-%d %H:%M} UTC" if row.sent_at else "sent"
    if row.kind not in RECOMPOSED_KINDS or row.game_id is None or row.seat is None:
        raise Conflict(
            f"Mail {row.id} ({row.kind}, {delivered}) kept only its headers once it was "
            "delivered, not its text, and only a turn mail or a reminder can be composed "
            "again from the game's log. Nothing was queued."
            + (" To give the seat its link again, use rotate-link." if row.game_id else ""))
    game, step, state = game_and_state(session, row.game_id)
    status = engine.status(state)
    announces = notify.announced_decision(status, int(row.seat), step)
    if game.status != "running" or announces["decision"] is None:
        raise Conflict(
            f"Mail {row.id} ({row.kind}, {delivered}) kept only its headers once it was "
            f"delivered, and seat {row.seat} faces no decision now (the game is "
            f"{game.status}{'' if game.status != 'running' else ', waiting on others'}): "
            "there is no turn mail to compose. Nothing was queued.")
    announces["compose"] = {"due": None, "reminder": row.kind == "reminder"}
    unsubscribe = notify.Context.load(session, game).unsubscribe(int(row.seat))
    words = (f"mail {row.id} ({row.kind}, {delivered}) kept only its headers: composed again "
             f"from the game as it stands, for seat {row.seat}'s decision now "
             f"({compose.decision_words(announces['decision'])}, round {announces['round']}, "
             f"step {step}), as it leaves")
    return (compose.Mail(turn_mails.COMPOSED_AT_SEND, "", ""), announces, unsubscribe, words)
