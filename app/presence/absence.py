"""R29 inside a move: the bookkeeping of timeouts, absence, "I'm back" and vacation.

R29 (RULINGS.md): a seat that lets its deadline pass gets the engine's default
action, logged with source ``timeout``; a run of ``absent_after`` timed-out
decision windows in a row (default 3) logs the seat ``away`` (source
``system``), after which its decisions are played by default at once; "I'm
back" (a logged ``back``) restores normal deadlines from its next decision; a
game where every person is away is abandoned (its log stays). Vacation is the
server's own addition to R29's clock (no ruling: design.md): a seat may pause
its deadlines for a bounded number of days per game.

The reactions (``app.services.reactions``) call ``record_action`` / ``went_away`` /
``is_absent`` with the move's unit of work: what they change is queued on it and sent
with the move's other writes. The use cases outside a move (a deadline passed, "I'm
back", vacation) are ``app.services.absence``. Mail is composed by
``app.mail.notify``; deadline rows are owned by ``app.clock.deadlines``.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from app import engine
from app.clock import deadlines as dl
from app.gamelog import store
from app.db.unit import Row, Unit
from app.mail import notify
from app.standing import settle

log = logging.getLogger(__name__)

#: A timeout applies defaults until the seat's decision is gone; a turn takes
#: a few steps at most, so this only guards against an engine bug.
MAX_DEFAULTS = 20
MAX_RETRIES = 5


# -- inside an action's transaction (called by app.services.reactions) ----------------------------

def is_absent(unit: Unit, game: Any, seat: int) -> bool:
    """Whether this seat is away (R29): services then apply its defaults at once.

    Never true in a game that is no longer running, so an abandoned game is
    not played out by defaults.
    """
    if getattr(game, "status", "running") != "running":
        return False
    row = dl.clock_row(unit, str(game.id), seat)
    return bool(row and row.absent)


def record_action(unit: Unit, game_id: str, seat: int, kind: str, source: str,
                  now: datetime) -> None:
    """R29 bookkeeping of one logged action of ``seat``, queued on the move's unit.

    ``back`` clears absence and the run of timeouts (and ends a vacation
    early, refunding the unused days); ``away`` marks the seat absent; a
    move of the player's own resets the run and ends the away-notice stretch;
    the first default of a decision window counts one timeout.
    """
    seen = dl.clock_row(unit, game_id, seat)
    if (seen is not None and kind not in ("back", "away") and source in ("player", "mail")
            and not (seen.consecutive_timeouts or seen.away_noticed or seen.absent)):
        return  # a person's move with no run or notice to reset: most moves, nothing to write
    clock = dl.seat_clock(unit, game_id, seat)
    if kind == "back" or (clock.absent and kind not in ("away", "resign")
                          and source in ("player", "mail")):
        returned(unit, game_id, seat, now)
    if kind == "back":
        changes: dict[str, Any] = {"absent": False, "consecutive_timeouts": 0}
        if clock.vacation_until is not None and dl.as_utc(clock.vacation_until) > now:
            changes.update(_end_vacation_early(unit, game_id, seat, clock, now))
        unit.update(clock, **changes)
    elif kind == "away":
        unit.update(clock, absent=True)
    elif source in ("player", "mail"):  # a person acted, on the page or by reply
        if clock.consecutive_timeouts or clock.away_noticed:  # (a row just made has neither)
            unit.update(clock, consecutive_timeouts=0, away_noticed=False)
    elif source == "timeout" and not clock.absent:
        counted = 0
        for row in dl.open_now(unit, game_id, seat, dl.DECISION):
            if row.fired_at is None and row.id is not None:  # the first default of this window counts
                dl.changes(unit).touch(row, fired_at=now)
                counted += 1
        if counted:
            unit.update(clock, consecutive_timeouts=clock.consecutive_timeouts + counted)


def returned(unit: Unit, game_id: str, seat: int, now: datetime) -> None:
    """R51: the seat's person is back ("I'm back", a move of their own, by link or by
    reply): a substitute vote about the seat ends as failed. Its expiry is the seat's
    own ``vote`` deadline row (``services.votes.start``): moved to now, so the clock
    runs ``votes.expire`` at its next tick, which checks the return again and closes
    the vote in words, under the vote lock, with its mails. (Answers meanwhile find the
    return too.)"""
    for row in dl.open_now(unit, game_id, seat, dl.VOTE):
        if dl.as_utc(row.due_at) > now:
            if row.id is not None:
                dl.changes(unit).touch(row, due_at=now)
            else:
                row.values["due_at"] = now
            unit.sent()


def went_away(unit: Unit, ctx: "notify.Context", game: Any, seat: int,
              now: datetime, *, step: int, state: Any = None) -> bool:
    """An ``away`` entry was logged at ``step`` (R29): tell the others once per
    stretch; abandon the game when no person is left. Returns whether it was abandoned.

    With the game's ``state``, the seat's own notice first says what the clock
    played for it (its timeouts that led here): issue 17 item 2."""
    dl.close_open(unit, ctx.id, now, "away", seat=seat,
                  kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    if nobody_left(unit, ctx, game, now, step=step, state=state, reason="away"):
        return True
    clock = dl.seat_clock(unit, ctx.id, seat)
    if clock.away_noticed:  # already told in this stretch: away/back toggles mail nothing
        return False
    unit.update(clock, away_noticed=True)
    for each in ctx.human_seats():
        notify.notice(unit, ctx, each, "you_absent" if each == seat else "absent",
                      seat, now, step=step, state=state)
    return False


def nobody_left(unit: Unit, ctx: "notify.Context", game: Any, now: datetime, *, step: int,
                state: Any, reason: str) -> bool:
    """Stop the game as abandoned when no person plays it any more: every person is
    away (R29) or resigned (R48), and at least one is away or ``reason`` says why
    (``away``, ``resigned``). Every person is told once. Returns whether it stopped."""
    humans = ctx.human_seats()
    gone = set((engine.status(state).get("resigned") or ()) if state is not None else ())
    away = {each for each in humans
            if (row := dl.clock_row(unit, ctx.id, each)) is not None and row.absent}
    if not humans or not all(h in away or h in gone for h in humans):
        return False
    store.set_status(unit, game, "abandoned",
                     reason="resigned" if all(h in gone for h in humans) else reason)
    dl.close_open(unit, ctx.id, now, "abandoned", kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    settle.settle(unit, game, ctx.seats, state, now, over=False)  # who left (issue 47)
    for each in humans:
        notify.notice(unit, ctx, each, "abandoned", None, now, step=step, state=state)
    return True


def _end_vacation_early(unit: Unit, game_id: str, seat: int, clock: Row,
                        now: datetime) -> dict[str, Any]:
    """Back before the vacation ended: deadlines lose the unused days, which are
    refunded. Returns the clock row's changes."""
    until = dl.as_utc(clock.vacation_until)
    unused = until - now
    for row in dl.open_now(unit, game_id, seat):
        moved = max(dl.as_utc(row.due_at) - unused, now)
        if row.id is not None:
            dl.changes(unit).touch(row, due_at=moved)
        else:
            row.values["due_at"] = moved
    return {"vacation_days_used": max(0, clock.vacation_days_used - unused.days),
            "vacation_until": None}
