"""Applying stored replies: one inbox row becomes one action, or one answer, or nothing.

``apply_pending`` leases pending rows (like the outbox: one UPDATE, ``FOR
UPDATE SKIP LOCKED`` inside on PostgreSQL) and decides each:

- mail from a machine (bounce, auto-reply, list) or without a genuine reply
  address of ours: ignored, never answered;
- a retired token (the seat's link was rotated) or a sender that is not the
  seat's address: refused, and the seat is told at its own address;
- "help" or a line we cannot read: answered with the menu;
- a command: ``services.submit_action(..., expected_seq=step, source="mail")``.
  A stale step gets the service's "the game moved on" (409) words and the
  current position; an illegal move gets the engine's words and the menu.

The move commits in the service's transaction; the row's final state and its
answer (or the seat's next mail) commit together afterwards. A worker that
dies in between leaves the row leased; the next one submits the same action
at the same step, the service answers "already applied", and the row is
finished without a second action or a second answer.
"""
from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

import sqlalchemy as sa
from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app import engine as rules
from app import services, store, tokens
from app.db import read_session
from app.deadlines import as_utc
from app.inbound import reading
from app.mail.commands import Parsed
from app.mail.menu import build as build_menu
from app.inbound.models import ANSWERED, APPLIED, IGNORED, PENDING, InboxMessage
from app.mail import compose, notify
from app.mail.notify import setting
from app.mail.models import Outbox
from app.mail.outbox import enqueue

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)
BATCH = 50
#: Answers one seat may get in an hour (config ``INBOUND_ANSWERS_PER_HOUR``):
#: enough for a confused player, too few for two auto-responders to loop.
DEFAULT_ANSWERS_PER_HOUR = 5
ANSWER_KIND = "answer"
#: Mails of the seat's next decision (sent by the hooks, or by us after a reply).
TURN_KINDS = ("turn", "reminder", "digest")


@dataclass
class ApplyReport:
    """What one ``apply_pending`` call did, by final state."""

    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, status: str) -> None:
        self.outcomes[status] = self.outcomes.get(status, 0) + 1

    @property
    def handled(self) -> int:
        return sum(self.outcomes.values())


@dataclass(frozen=True)
class Verdict:
    """How a row ends: its state, why, and the answer to enqueue with it (if any)."""

    status: str
    outcome: str
    answer: tuple[str, str, str | None] | None = None  # (why, quoted line, what to show)
    applied_seq: int | None = None
    follow_up: bool = False


# -- leasing -------------------------------------------------------------------------

def claim(engine: Engine, now: datetime, owner: str, limit: int = BATCH,
          only: int | None = None) -> list[int]:
    """Lease pending rows (oldest first) to ``owner``; return their ids."""
    now = as_utc(now)
    due = (select(InboxMessage.id)
           .where(col(InboxMessage.status) == PENDING,
                  col(InboxMessage.lease_until).is_(None) | (col(InboxMessage.lease_until) < now))
           .order_by(col(InboxMessage.received_at), col(InboxMessage.id))
           .limit(limit).with_for_update(skip_locked=True))
    if only is not None:
        due = due.where(col(InboxMessage.id) == only)
    with Session(engine) as session:
        ids = list(session.exec(update(InboxMessage)  # type: ignore[call-overload]
                                .where(col(InboxMessage.id).in_(due.scalar_subquery()))
                                .values(lease_owner=owner, lease_until=now + LEASE,
                                        attempts=InboxMessage.attempts + 1)
                                .returning(col(InboxMessage.id))
                                .execution_options(synchronize_session=False)).scalars())
        session.commit()
    return sorted(ids)


def apply_pending(app: Any, now: datetime | None = None, *, only: int | None = None,
                  limit: int = BATCH) -> ApplyReport:
    """Apply the pending inbox rows (or just row ``only``); safe to run in many processes."""
    from app import deadlines as dl
    from app.db import get_engine

    report = ApplyReport()
    owner = f"inbound-{uuid.uuid4().hex[:12]}"
    with app.app_context():
        engine = get_engine(app)
        now = as_utc(now or dl.now())
        for row_id in claim(engine, now, owner, limit=limit, only=only):
            try:
                report.add(apply_row(engine, row_id, owner, now))
            except Exception:  # noqa: BLE001 - one bad message must not stop the others
                log.exception("inbox row %s failed; it is retried when its lease ends", row_id)
                report.add("error")
    return report


# -- one row -------------------------------------------------------------------------

def apply_row(engine: Engine, row_id: int, owner: str, now: datetime) -> str:
    """Decide one leased row, then finish it and enqueue its answer in one transaction."""
    with Session(engine) as session:
        row = session.get(InboxMessage, row_id)
        if row is None or row.status != PENDING or row.lease_owner != owner:
            return "skipped"
        raw, rcpt, mail_from = bytes(row.raw), list(row.rcpt or []), row.mail_from
    message = reading.message_of(raw)
    ref, verdict = judge(message, rcpt, mail_from)
    with Session(engine) as session:
        row = session.get(InboxMessage, row_id)
        assert row is not None
        if row.status != PENDING or row.lease_owner != owner:
            return "skipped"  # our lease ran out and another worker finished it
        if ref is not None:
            row.game_id, row.seat, row.step = ref.game, ref.seat, ref.step
        row.status, row.outcome = verdict.status, verdict.outcome[:300]
        row.applied_seq, row.done_at = verdict.applied_seq, now
        row.lease_owner = row.lease_until = None
        session.add(row)
        if ref is not None and (verdict.answer or verdict.follow_up):
            _answer(session, row, ref, verdict, now)
        session.commit()
    return verdict.status


def judge(message: EmailMessage, rcpt: list[str],
          mail_from: str) -> tuple[tokens.ReplyRef | None, Verdict]:
    """What to do with one message; applies the move when it is one."""
    machine = reading.machine_reason(message, mail_from)
    if machine:
        return None, Verdict(IGNORED, machine)
    token = _token(message, rcpt)
    if token is None:
        return None, Verdict(IGNORED, "no reply address of ours")
    try:
        ref = tokens.read_reply_token(token)
    except tokens.BadToken:
        return None, Verdict(IGNORED, "forged or foreign reply address")
    with read_session() as session:
        seat = session.get(store.Seat, (ref.game, ref.seat))
        if seat is None or seat.kind != "human":
            return None, Verdict(IGNORED, "reply address of no seat")
        seat_address, version = seat.email, seat.token_version
    if version != ref.version:
        return ref, Verdict(ANSWERED, "retired reply address", answer=(
            "This reply came to an address that no longer plays your seat (your seat's link "
            "was replaced). Nothing was changed. Reply to the newest mail, or use the "
            "commands below.", "", "menu"))
    sent_by = reading.sender(message)
    if not sent_by or sent_by != reading.normalise_address(seat_address):
        return ref, Verdict(ANSWERED, "sender is not the seat's address", answer=(
            "A reply for your seat came from an address that is not yours "
            f"({_shown(sent_by) or 'no address'}). Nothing was changed. Only replies "
            "from the address this mail was sent to can play your seat.", "", "menu"))
    parsed = reading.command_of(message)
    if parsed.help:
        return ref, Verdict(ANSWERED, "help", answer=("Here are your commands again.",
                                                      parsed.line, "menu"))
    if parsed.action is None:
        return ref, Verdict(ANSWERED, "unreadable", answer=(
            f"We could not read a command in your reply: {parsed.problem}",
            parsed.line, "menu"))
    return ref, _submit(ref, parsed)


def _submit(ref: tokens.ReplyRef, parsed: Parsed) -> Verdict:
    assert parsed.action is not None
    step = ref.step
    try:
        try:
            done = services.submit_action(ref.game, ref.seat, parsed.action, step,
                                          source="mail")
        except services.Conflict as exc:
            unchanged = _unchanged_for(ref, parsed.action, exc)
            if unchanged is None:
                raise
            if unchanged[0] == "applied":
                return Verdict(APPLIED, "already applied", applied_seq=unchanged[1],
                               follow_up=True)
            step = unchanged[1]
            done = services.submit_action(ref.game, ref.seat, parsed.action, step,
                                          source="mail")
    except services.Conflict as exc:
        if exc.details.get("reason") == "already_applied":
            # this very move is in the log (a worker died after applying it): finish quietly
            return Verdict(APPLIED, "already applied", applied_seq=step + 1,
                           follow_up=True)
        return Verdict(ANSWERED, f"conflict: {exc.details.get('reason')}", answer=(
            exc.message, parsed.line, "view"))
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"refused: {exc.code}", answer=(
            exc.message, parsed.line, "menu"))
    return Verdict(APPLIED, "applied", applied_seq=done.applied[0].seq, follow_up=True)


def _unchanged_for(ref: tokens.ReplyRef, action: dict[str, Any],
                   conflict: services.Conflict) -> tuple[str, int] | None:
    """Whether a "moved on" reply may still be applied, or already was.

    All that happened since the reply's step may leave the seat's position as
    its mail showed it: only other seats' round-start peeks (R5: every seat
    peeks at once, and a peek moves no card and shows nothing to anyone else).
    Then ``("rebase", current step)``. If this very move of this seat follows
    such peeks, it was applied before (a worker died after applying it):
    ``("applied", its step)``. Otherwise None: the reply is stale.
    """
    if conflict.details.get("reason") != "moved_on":
        return None
    with read_session() as session:
        since = [(row.seq, row.seat, dict(row.action or {}))
                 for row in store.load_actions(session, ref.game, after_seq=ref.step)]
    mine = json.dumps(action, sort_keys=True)
    for seq, seat, done in since:
        if seat == ref.seat and json.dumps(done, sort_keys=True) == mine:
            return "applied", seq
        if seat == ref.seat or done.get("type") != "peek":
            return None
    return ("rebase", since[-1][0]) if since else None


def _token(message: EmailMessage, rcpt: list[str]) -> str | None:
    from app.mail.reply_address import token_in
    return token_in(reading.addressed_to(message, rcpt))


def _shown(address: str) -> str:
    return compose.clean_name(address, limit=80)


# -- answers -------------------------------------------------------------------------

def answers_per_hour() -> int:
    return int(setting("INBOUND_ANSWERS_PER_HOUR", DEFAULT_ANSWERS_PER_HOUR))


def _answers_since(session: Session, game_id: str, seat: int, since: datetime) -> int:
    return int(session.exec(select(sa.func.count()).select_from(Outbox).where(
        Outbox.game_id == game_id, Outbox.seat == seat, Outbox.kind == ANSWER_KIND,
        col(Outbox.created_at) >= since)).one())


def _answer(session: Session, row: InboxMessage, ref: tokens.ReplyRef, verdict: Verdict,
            now: datetime) -> None:
    """Enqueue the answer (or the seat's next decision) in the row's transaction.

    The seat row is locked first, so the hourly count of answers is exact even
    with several workers.
    """
    seat_row = session.exec(select(store.Seat).where(store.Seat.game_id == ref.game,
                                                     store.Seat.index == ref.seat)
                            .with_for_update()).first()
    game = session.get(store.Game, ref.game)
    if seat_row is None or game is None:
        return
    snapshot = services.snapshot(ref.game)
    if verdict.answer is None and not _needs_follow_up(session, row, ref, snapshot.state):
        return
    if verdict.answer is not None and _answers_since(
            session, ref.game, ref.seat, now - timedelta(hours=1)) >= answers_per_hour():
        row.outcome = f"{row.outcome} (no answer: hourly limit)"[:300]
        session.add(row)
        return
    ctx = notify.Context.load(session, game)
    to = ctx.address(ref.seat)
    if to is None:
        return
    view = rules.view(snapshot.state, ref.seat)
    link = ctx.link(ref.seat)
    if verdict.answer is None:
        # the move was applied and the seat decides again at once (draw, then
        # what to do with the card): its next mail, with a fresh reply address
        mail = compose.turn_mail(ctx.info, ref.seat, view, since_step=ref.step, due=None,
                                 now=now, link=link, unsubscribe=ctx.unsubscribe(ref.seat),
                                 reply_address=ctx.reply_address(ref.seat, view))
    else:
        mail = answer_mail(ctx.info, ref.seat, view, link=link,
                           reply_address=ctx.reply_address(ref.seat, view),
                           unsubscribe=ctx.unsubscribe(ref.seat), why=verdict.answer[0],
                           quoted=verdict.answer[1], show=verdict.answer[2])
    enqueue(session, game_id=ref.game, seat=ref.seat,
            kind=ANSWER_KIND if verdict.answer else "turn", to=to,
            to_name=ctx.info.names[ref.seat], mail=mail, idempotency=f"inbox:{row.id}",
            domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(ref.seat))


def _needs_follow_up(session: Session, row: InboxMessage, ref: tokens.ReplyRef,
                     state: Any) -> bool:
    """After an applied reply: does the seat decide again, with no mail about it yet?

    The hooks mail a decision that opens; a decision that follows the seat's
    own move in the same turn (draw, then discard or exchange) is not a new
    one for them, and a player who plays by mail would wait for ever.
    """
    if ref.seat not in (rules.status(state).get("to_act") or []):
        return False
    newer = session.exec(select(sa.func.count()).select_from(Outbox).where(
        Outbox.game_id == ref.game, Outbox.seat == ref.seat,
        col(Outbox.kind).in_(TURN_KINDS), col(Outbox.created_at) >= row.received_at)).one()
    return int(newer) == 0


def answer_mail(game: compose.GameInfo, seat: int, view: dict[str, Any], *, link: str,
                reply_address: str | None, unsubscribe: str, why: str, quoted: str,
                show: str | None) -> compose.Mail:
    """The answer to a reply that did not become a move: what we read, why, what now."""
    names = game.names
    menu = build_menu(view, seat, reply_address, names,
                      f"Re: {compose.subject_for(game, 'your reply')}")
    hand = view.get("hand") if view.get("hand_seat") == seat else None
    discard = view.get("discard") or []
    mail = compose.render(
        "inbound_answer", compose.subject_for(game, "about your reply"),
        game=game, seat=seat, name=names[seat], why=why, quoted=compose.clean_name(quoted, 200),
        show=show, menu=menu, round=view.get("round"),
        decision=compose.decision_words(compose.decision_of(view, seat)),
        has_decision=seat in (view.get("to_act") or []),
        village=compose.village_info(view, seat),
        hand=compose.card_info(hand) if hand else None,
        discard_top=compose.card_info(discard[-1]) if discard else None,
        link=link, unsubscribe=unsubscribe)
    return compose.Mail(mail.subject, mail.text, mail.html, reply_to=menu.address or None)
