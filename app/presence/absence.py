"""R29 in one place: timeouts, absence, "I'm back" and vacation.

R29 (RULINGS.md): a seat that lets its deadline pass gets the engine's default
action, logged with source ``timeout``; a run of ``absent_after`` timed-out
decision windows in a row (default 3) logs the seat ``away`` (source
``system``), after which its decisions are played by default at once; "I'm
back" (a logged ``back``) restores normal deadlines from its next decision; a
game where every person is away is abandoned (its log stays). Vacation is the
server's own addition to R29's clock (no ruling: design.md): a seat may pause
its deadlines for a bounded number of days per game.

The hooks call ``record_action`` / ``went_away`` / ``is_absent`` inside the
action's transaction; the clock calls ``auto_pass``; the seat page calls
``come_back`` and ``start_vacation``. Mail is composed by ``app.mail.notify``;
deadline rows are written by ``app.clock.deadlines``.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.clock import deadlines as dl
from app import engine
from app.gamelog import store
from app.mail import notify

log = logging.getLogger(__name__)

#: A timeout applies defaults until the seat's decision is gone; a turn takes
#: a few steps at most, so this only guards against an engine bug.
MAX_DEFAULTS = 20
MAX_RETRIES = 5


# -- inside an action's transaction (called by app.services.reactions) ----------------------------

def is_absent(session: Session, game: Any, seat: int) -> bool:
    """Whether this seat is away (R29): services then apply its defaults at once.

    Never true in a game that is no longer running, so an abandoned game is
    not played out by defaults.
    """
    if getattr(game, "status", "running") != "running":
        return False
    row = dl.peeked(session, dl.SeatClock, str(game.id), seat)
    return bool(row and row.absent)


def record_action(session: Session, game_id: str, seat: int, kind: str, source: str,
                  now: datetime) -> None:
    """R29 bookkeeping of one logged action of ``seat``.

    ``back`` clears absence and the run of timeouts (and ends a vacation
    early, refunding the unused days); ``away`` marks the seat absent; a
    move of the player's own resets the run and ends the away-notice stretch;
    the first default of a decision window counts one timeout.
    """
    seen = dl.peeked(session, dl.SeatClock, game_id, seat)
    if (seen is not None and kind not in ("back", "away") and source in ("player", "mail")
            and not (seen.consecutive_timeouts or seen.away_noticed)):
        return  # a person's move with no run or notice to reset: most moves, nothing to write
    clock = dl.seat_clock(session, game_id, seat)
    if kind == "back":
        clock.absent, clock.consecutive_timeouts = False, 0
        if clock.vacation_until is not None and dl.as_utc(clock.vacation_until) > now:
            _end_vacation_early(session, game_id, seat, clock, now)
    elif kind == "away":
        clock.absent = True
    elif source in ("player", "mail"):  # a person acted, on the page or by reply
        if clock.consecutive_timeouts or clock.away_noticed:  # (else nothing to flush)
            clock.consecutive_timeouts = 0
            clock.away_noticed = False
    elif source == "timeout" and not clock.absent:
        for row in dl.open_rows(session, game_id, seat, dl.DECISION):
            if row.fired_at is None:  # the first default of this window counts
                row.fired_at = now
                clock.consecutive_timeouts += 1
                session.add(row)
    session.add(clock)


def went_away(session: Session, ctx: "notify.Context", game: Any, seat: int,
              now: datetime, state: Any = None) -> bool:
    """An ``away`` entry was logged (R29): tell the others once per stretch;
    abandon the game when no person is left. Returns whether it was abandoned.

    With the game's ``state``, the seat's own notice first says what the clock
    played for it (its timeouts that led here): issue 17 item 2."""
    dl.close_open(session, ctx.id, now, "away", seat=seat,
                  kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    humans = ctx.human_seats()
    away = {row.seat for row in session.exec(
        select(dl.SeatClock).where(dl.SeatClock.game_id == ctx.id,
                                   dl.SeatClock.absent == True))}  # noqa: E712
    if humans and all(h in away for h in humans):
        store.set_status(session, game, "abandoned")
        dl.close_open(session, ctx.id, now, "abandoned",
                      kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
        for each in humans:
            notify.notice(session, ctx, each, "abandoned", None, now, state=state)
        return True
    clock = dl.seat_clock(session, ctx.id, seat)
    if clock.away_noticed:  # already told in this stretch: away/back toggles mail nothing
        return False
    clock.away_noticed = True
    session.add(clock)
    for each in humans:
        notify.notice(session, ctx, each, "you_absent" if each == seat else "absent",
                      seat, now, state=state)
    return False


def _end_vacation_early(session: Session, game_id: str, seat: int, clock: dl.SeatClock,
                        now: datetime) -> None:
    """Back before the vacation ended: deadlines lose the unused days, which are refunded."""
    until = dl.as_utc(clock.vacation_until)
    unused = until - now
    for row in dl.open_rows(session, game_id, seat):
        row.due_at = max(dl.as_utc(row.due_at) - unused, now)
        session.add(row)
    clock.vacation_days_used = max(0, clock.vacation_days_used - unused.days)
    clock.vacation_until = None
