"""R48 and R49 inside a move: a seat resigned, a substitute took a seat over.

A resignation (R48, ``docs/rules.md``) is logged like "away": the engine keeps the
seat in its ``resigned`` list and ranks it last; from then on the services play the
seat's decisions by the rules' defaults at once (``reactions.plays_by_default``), so
it has no deadline, no reminder and no turn mail, and the others are told once. A game
where no person plays any more (each resigned or away) stops as abandoned, as R29 says
of a game where everyone is away.

A take-over (R49) is logged by the substitute use case (``app.services.people``) in
the transaction that gives the seat its new holder (name, address, a new token
version, so the old links, reply addresses and unsubscribe links die): here the seat's
clock forgets its absence and its vacation, its mail row starts afresh for the new
person, its unsent mail to the old address is superseded, its notice targets (the old
person's Discord, Slack...) are removed, its plan and standing orders (issue 35: the old
person's "ALWAYS DISCARD IF 9 OR MORE") are cleared, so nothing the old person decided
plays the newcomer's cards (issue 45 item 3; the welcome says none were carried over),
and the others, the newcomer and the old address are told, once each.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, update

from app import engine
from app.channels.models import NoticeTarget
from app.clock import deadlines as dl
from app.db.statements import table_of
from app.db.unit import Unit
from app.mail import notify
from app.mail import seat_prefs
from app.mail import table_news
from app.mail.models import PENDING, SUPERSEDED, TALK_HOURLY, EVERY, Outbox
from app.plans.models import PLANS
from app.presence import absence

#: Why the server played a resigned seat's decision (``SeatMail.played``, beside
#: ``describe.TIMED_OUT`` and ``AWAY``).
RESIGNED = "resigned"


def has_resigned(state: Any, seat: int) -> bool:
    """Whether ``seat`` resigned in ``state`` (R48) and nobody took it over since."""
    if state is None:
        return False
    return seat in (engine.status(state).get("resigned") or ())


def resigned(unit: Unit, ctx: "notify.Context", game: Any, seat: int, now: datetime, *,
             step: int, state: Any) -> bool:
    """A ``resign`` of ``seat`` was logged at ``step``: its deadlines close (the
    defaults play it from now on), every other person is told once; the game stops as
    abandoned when no person plays any more. Returns whether it stopped."""
    dl.close_open(unit, ctx.id, now, "resigned", seat=seat,
                  kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    if engine.status(state).get("phase") == "over":
        return False  # R48: the last seat standing won; the game-over step told everyone
    if absence.nobody_left(unit, ctx, game, now, step=step, state=state, reason=RESIGNED):
        return True
    for each in ctx.human_seats():
        if each != seat:
            table_news.resigned(unit, ctx, each, seat, now, step)
    return False


def took_over(unit: Unit, ctx: "notify.Context", seat: int, action: dict[str, Any],
              now: datetime, *, step: int, state: Any) -> None:
    """A ``take_over`` of ``seat`` was logged at ``step`` (R49), with the seat's new
    holder already in place (``ctx`` reads the seat as it is now): a fresh start for
    the person, and everyone told."""
    clock = dl.seat_clock(unit, ctx.id, seat)
    unit.update(clock, absent=False, consecutive_timeouts=0, away_noticed=False,
                vacation_until=None)
    dl.close_open(unit, ctx.id, now, "taken_over", seat=seat, kinds=(dl.DIGEST,))
    marks = seat_prefs.mail_row(unit, ctx.id, seat)
    # the newcomer starts with the defaults a new seat has (zone and quiet hours are their
    # person's: issue 32); "since your last move" counts from the hand-over (what happened
    # before is in the seat's view and the replay)
    unit.update(marks, mode=EVERY, talk_mode=TALK_HOURLY, talk_muted=False, by_mail=True,
                played=None,
                last_acted_step=step, unsent_mail_id=None, updated_at=now)
    outbox = table_of(Outbox)
    unit.statement(update(outbox).where(
        outbox.c.game_id == ctx.id, outbox.c.seat == seat, outbox.c.status == PENDING,
        outbox.c.lease_until.is_(None))
        .values(status=SUPERSEDED, last_error="superseded: the seat was handed over"))
    targets = table_of(NoticeTarget)
    unit.statement(delete(targets).where(targets.c.game_id == ctx.id,
                                         targets.c.seat == seat))
    forget_plan(unit, ctx.id, seat, now)
    was = str(action.get("was") or "")
    for each in ctx.human_seats():
        if each != seat:
            table_news.took_over(unit, ctx, each, seat, was, now, step)


def forget_plan(unit: Unit, game_id: str, seat: int, now: datetime) -> None:
    """R49, issue 45 item 3: the seat's plan, standing orders and what they last did are
    the old person's decisions, not the newcomer's: cleared on the hand-over's unit, so
    the automatic moves of this unit and of every later one find none. A plan row this
    unit holds (a move's read brings them along) is changed where it is held, so a later
    step of the same unit sees it cleared; a row it never read is cleared by one queued
    statement, without reading the game's plan rows into a unit that did not play them."""
    held = unit.rows.get((PLANS.name, game_id, seat))
    if held is not None:
        unit.update(held, turn=None, orders=None, told=None, updated_at=now)
        return
    unit.statement(update(PLANS).where(PLANS.c.game_id == game_id, PLANS.c.seat == seat)
                   .values(turn=None, orders=None, told=None, updated_at=now))
