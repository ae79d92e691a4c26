"""A seat's turn mail: queued when a decision opens, composed now or as it leaves.

A turn mail waits a grace period (``TURN_MAIL_DELAY_SECONDS``, default 120, or the
game's ``turn_mail_delay_seconds``) and carries what it announces (seat, step, round,
decision): the sender re-checks that at send time (``app.runners.sender.still_holds``),
marks the row ``superseded`` when the decision is gone, and composes what still holds
then (``late_turn_mail``); a newer mail for the same seat, or the seat acting,
supersedes an unsent one at once. Issue 17: a seat that stops mid-turn gets one mail
for the decision it faces (``stopped_mid_turn``). The same mail is a deadline's
reminder, a seat's digest, and, across an address's games, the daily digest.

Who wants which mail and the game as mail sees it (``Context``) are ``app.mail.notify``'s.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from app import engine
from app.access.unsubscribe import address_unsubscribe_token
from app.clock import deadlines as dl
from app.config import setting
from app.db.unit import Unit
from app.mail import compose
from app.mail.headers import mail_domain
from app.mail.models import DIGEST, EVERY, NONE, PENDING
from app.mail.notify import (Context, announced_decision, chosen_mode, in_reader_language,
                              mode_of, turn_mail_delay, writing_to)
from app.mail.outbox import enqueue
from app.mail.seat_prefs import mail_row, replied
from app.people.calendar import quiet_of
from app.mail.unsent import played_steps, queue, supersede_unsent
from app.plans import models as plan_models


def decision_opened(unit: Unit, ctx: Context, seat: int, state: Any,
                    deadline: dl.Opened, now: datetime, *,
                    delay: timedelta | None = None) -> None:
    """A seat started waiting on a decision: one turn mail after the grace period.

    Only for seats on ``every`` (digest seats are gathered by the caller's
    digest row). Any unsent decision mail of the seat is superseded first.
    """
    if mode_of(unit, ctx, seat) != EVERY:
        return
    supersede_unsent(unit, ctx.id, seat, now)
    talk = replied(unit, ctx.id, seat)
    delay = ctx.delay if delay is None else delay  # (the seat's own next step's: reactions)
    if newcomer(unit, ctx, seat):  # (issue 32) time to choose a zone and quiet hours first
        delay = max(delay, turn_mail_delay(None))
    turn(unit, ctx, seat, state, deadline.due_at, now,
         key=f"turn:{ctx.id}:{seat}:{deadline.opened_step}",
         step=deadline.opened_step, delay=timedelta(0) if talk else delay,
         conversation=talk)


def newcomer(unit: Unit, ctx: Context, seat: int) -> bool:
    """Whether the seat's person never chose a zone or quiet hours (issue 32: their
    invitation says how) and has not acted in this game yet: their first turn mail waits
    the server's grace period (``TURN_MAIL_DELAY_SECONDS``) even where the game's own is
    shorter, and is composed as it leaves, in whatever they chose meanwhile."""
    person = ctx.person(seat)
    if person is not None and (person.time_zone is not None or person.settings_at is not None
                               or quiet_of(person) is not None):
        return False
    return int(mail_row(unit, ctx.id, seat).last_acted_step or 0) == 0


def stopped_mid_turn(unit: Unit, ctx: Context, seat: int, state: Any, step: int,
                     now: datetime, *, delay: timedelta | None = None) -> None:
    """The seat acted at ``step`` and still faces a decision of the same turn (it drew,
    and must now discard or exchange): one turn mail after the grace period for the
    decision it faces now (issue 17 item 2: "one mail per waiting stretch" counts
    from the seat's last action). A seat that goes on from its open page supersedes
    it before it leaves, as it does every unsent mail; one that closed the tab hears
    of the card in its hand instead of nothing until the halfway reminder. A move
    made by reply gets it at once, as conversation (the player waits for it).

    Its deadline is the decision's, read when the mail is composed (``late_turn_mail``),
    so the move itself reads nothing more."""
    if mode_of(unit, ctx, seat) != EVERY:
        return
    talk = replied(unit, ctx.id, seat)
    turn(unit, ctx, seat, state, None, now, key=f"turn:{ctx.id}:{seat}:{step}", step=step,
         delay=timedelta(0) if talk else (ctx.delay if delay is None else delay),
         conversation=talk, due_later=not talk)


def turn(unit: Unit, ctx: Context, seat: int, state: Any, due: datetime | None,
         now: datetime, *, key: str, step: int, reminder: bool = False, digest: bool = False,
         delay: timedelta = timedelta(0), conversation: bool = False,
         due_later: bool = False) -> bool:
    """Queue a seat's turn mail (or reminder, or digest) under ``key``.

    A mail that waits out a grace period (``delay``) is composed when it
    leaves (``late_turn_mail``, called by the sender): most never leave,
    because the seat acts from its open page first, and composing them on the
    move's path cost more than the rest of the move's mail work together.
    ``conversation``: the mail follows the seat's own move by reply (issue 17
    item 3). ``due_later``: ``due`` is not known here (a decision that opened
    earlier in the turn): the mail reads its deadline when it is composed.
    """
    to = ctx.address(seat)
    if to is None:
        return False
    kind = "reminder" if reminder else "digest" if digest else "turn"
    announces = None if digest else announced_decision(engine.status(state), seat, step)
    round_over = (carry_round(unit, ctx, seat, state, dl.as_utc(now) + delay)
                  if announces is not None else None)
    if announces is not None and round_over is not None:
        announces["round_over"] = round_over
    settings = mail_row(unit, ctx.id, seat)
    if announces is not None and delay > timedelta(0):
        announces["compose"] = {"due": dl.as_utc(due).isoformat() if due else None,
                                "reminder": reminder}
        mail = compose.Mail(subject=COMPOSED_AT_SEND, text="", html="")
    else:
        if due is None and due_later:
            due = decision_due(unit, ctx.id, seat)
        mail = _turn_mail(ctx, seat, state, settings, due, now, reminder=reminder,
                          digest=digest, unit=unit, round_over=round_over)
    return queue(unit, marker=settings if announces is not None else None,
                 game_id=ctx.id, seat=seat, kind=kind, to=to,
                 to_name=ctx.info.names[seat], mail=mail, idempotency=key, domain=ctx.domain,
                 now=now, unsubscribe=ctx.unsubscribe(seat), due=dl.as_utc(now) + delay,
                 announces=announces, conversation=conversation)


def carry_round(unit: Unit, ctx: Context, seat: int, state: Any,
                due: datetime) -> int | None:
    """Issue 51 item 1: the round whose end-of-round mail this transaction queued for the
    seat (the round ended on the way to the decision this turn mail announces), which the
    turn mail then tells too: the round's mail is held until the turn mail may leave, and
    the sender drops it once a turn mail of the seat that carried it was sent
    (``app.runners.sender.still_holds``). A turn mail superseded before it leaves (the
    seat went on from its page) leaves the round's mail to go alone. None: no such mail.
    """
    round_now = int(engine.status(state).get("round") or 0)
    for round_no in (round_now - 1, round_now):
        values = unit.inserted(f"round:{ctx.id}:{seat}:{round_no}")
        if values is not None and values.get("status") == PENDING:
            values["next_attempt_at"] = max(dl.as_utc(values["next_attempt_at"]),
                                            dl.as_utc(due))
            return round_no
    return None


def decision_due(unit: Unit, game_id: str, seat: int) -> datetime | None:
    """When the seat's open decision falls due (None: it has no open decision row)."""
    rows = dl.open_now(unit, game_id, seat, dl.DECISION)
    return dl.as_utc(rows[0].due_at) if rows else None


#: The subject an outbox row holds until its turn mail is composed at send time.
COMPOSED_AT_SEND = "(composed when it is sent)"


@in_reader_language
def _turn_mail(ctx: Context, seat: int, state: Any, settings: Any, due: datetime | None,
               now: datetime, *, reminder: bool = False, digest: bool = False,
               unit: Unit | None = None, round_over: int | None = None,
               answered: list[str] | None = None) -> compose.Mail:
    """The turn mail from the seat's view; with a ``unit``, it also says what the
    server played for the seat and the others since the seat last played, and its
    standing orders (issue 51 item 1)."""
    view = engine.view(state, seat)
    since = int(settings.last_acted_step or 0)
    played = (played_steps(unit, ctx.id, len(ctx.seats), since)
              if unit is not None else None)
    plan_row = unit.seat_row(plan_models.PLANS, ctx.id, seat) if unit is not None else None
    told = [*(answered or []), *plan_models.told_lines(plan_row, since)]
    orders, offer = plan_models.standing_lines(plan_row, view, seat)
    return compose.turn_mail(ctx.info, seat, view, since_step=since,
                             due=due, now=now, link=ctx.link(seat),
                             unsubscribe=ctx.unsubscribe(seat), reminder=reminder,
                             digest=digest, zone=ctx.zone(seat),
                             reply_address=ctx.reply_address(seat, view), played=played,
                             plan=told, round_over=round_over, orders=orders, offer=offer)


def late_turn_mail(session: Session | Unit, game: Any, seat: int, state: Any,
                   announces: dict[str, Any], now: datetime) -> compose.Mail:
    """A waiting turn mail, composed as it leaves, from the game as it stands then.

    The sender calls this only after ``still_holds``: the seat has not acted
    and faces the decision the row announces, so the mail says what it would
    have said when it was enqueued, plus whatever the others did meanwhile.
    """
    ctx = Context.load(session, game)
    said = announces.get("compose") or {}
    due = (datetime.fromisoformat(said["due"]) if said.get("due")
           else decision_due(ctx.unit, ctx.id, seat))  # a mid-turn or held mail reads it now
    return _turn_mail(ctx, seat, state, mail_row(ctx.unit, ctx.id, seat), due, now,
                      reminder=bool(said.get("reminder")), unit=ctx.unit,
                      round_over=announces.get("round_over"),
                      answered=announces.get("answered"))  # (issue 51: a reply's answer)


def reminder(session: Session, ctx: Context, seat: int, state: Any, row: dl.Deadline,
             due: datetime | None, step: int, now: datetime) -> None:
    """A reminder deadline came: remind the seat if it wants turn mail at all."""
    unit = ctx.unit
    if chosen_mode(unit, ctx, seat) == NONE:
        return
    supersede_unsent(unit, ctx.id, seat, now)  # the reminder says it all
    turn(unit, ctx, seat, state, due, now, key=f"reminder:{row.id}", step=step,
         reminder=True)


def digest(session: Session, ctx: Context, seat: int, state: Any, row: dl.Deadline,
           due: datetime | None, now: datetime) -> bool:
    """A digest deadline came: one mail with everything since the seat last played.

    Returns whether a mail was enqueued (the caller notes when)."""
    unit = ctx.unit
    settings = mail_row(unit, ctx.id, seat)
    if settings.mode != DIGEST:
        return False
    if turn(unit, ctx, seat, state, due, now, key=f"digest:{row.id}", step=0, digest=True):
        unit.update(settings, last_digest_at=now)
        return True
    return False


def digest_period() -> timedelta:
    return timedelta(hours=float(setting("DIGEST_HOURS")))


def daily_digest(session: Session, address: str, entries: list[dict[str, Any]],
                 now: datetime) -> bool:
    """One mail for an address on "one digest a day across all my games".

    ``entries``: one per seat this address is waited on, each with the game's
    title, the seat's name and link, the decision in words and the deadline
    (in that seat's zone). Returns whether a mail was enqueued (once a day).
    """
    if not entries:
        return False
    sender = str(setting("MAIL_FROM"))
    day = dl.as_utc(now).strftime("%Y-%m-%d")
    base = str(setting("BASE_URL")).rstrip("/")
    token = address_unsubscribe_token(address, str(setting("SECRET_KEY") or ""))
    unsubscribe = f"{base}/unsubscribe/{token}"
    with writing_to(session, address):
        mail = compose.daily_digest_mail(entries, base_url=base, unsubscribe=unsubscribe)
    row = enqueue(session, game_id=None, seat=None, kind="daily", to=address,
                  to_name=entries[0]["name"], mail=mail, idempotency=f"daily:{address}:{day}",
                  domain=mail_domain(sender), now=now, unsubscribe=unsubscribe)
    return row is not None
