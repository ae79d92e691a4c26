"""The clock's use cases: reminders, timeouts (R29), absence, vacation, "I'm back".

Each is safe to run twice, at once or after a crash:
- a reminder or digest closes its deadline row and enqueues its mail in one
  transaction, with a conditional UPDATE that only one caller can win;
- a timeout submits the engine's default through ``services.submit_action``
  with the step the decision was seen at, so a second clock (or a replay
  after a crash) gets "the game moved on" instead of a second row; the
  deadline row closes in the hook, in the same transaction as the action.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from app import deadlines as dl
from app import engine, services, store
from app.db import read_session, write_session
from app.mail import notify

log = logging.getLogger(__name__)

#: A timeout applies defaults until the seat's decision is gone; a turn takes
#: a few steps at most, so this only guards against an engine bug.
MAX_DEFAULTS = 20
MAX_RETRIES = 5


class VacationRefused(services.BadRequest):
    """Too many days asked, or none."""


def fire(deadline_id: int, now: datetime) -> str:
    """Do what a due deadline row asks; returns what happened (for logs and tests)."""
    with read_session() as session:
        row = session.get(dl.Deadline, deadline_id)
        kind = row.kind if row is not None else None
    if kind == dl.DECISION:
        return auto_pass(deadline_id, now)
    if kind in (dl.REMINDER, dl.DIGEST):
        return remind(deadline_id, now)
    return "gone"


def remind(deadline_id: int, now: datetime) -> str:
    """Send a reminder (or digest) for an open decision, exactly once."""
    now = dl.as_utc(now)
    with read_session() as session:
        row = session.get(dl.Deadline, deadline_id)
        if row is None or row.done_at is not None:
            return "done already"
        game_id, seat, kind = row.game_id, row.seat, row.kind
    state = services.load_state(game_id)
    with dl.at(now), write_session() as session:
        won = session.exec(update(dl.Deadline)  # type: ignore[call-overload]
                           .where(col(dl.Deadline.id) == deadline_id,
                                  col(dl.Deadline.done_at).is_(None))
                           .values(done_at=now, outcome="fired")).rowcount
        if won != 1:
            return "done already"
        row = session.get(dl.Deadline, deadline_id)
        game = session.get(store.Game, game_id)
        if game is None or game.status != "running":
            return "game not running"
        ctx = notify.Context.load(session, game)
        if kind == dl.DIGEST:
            notify.digest(session, ctx, seat, state, row, now)
            return "digest"
        if seat not in (engine.view(state, None).get("to_act") or []):
            return "no decision"
        notify.reminder(session, ctx, seat, state, row, now)
        return "reminded"


def auto_pass(deadline_id: int, now: datetime) -> str:
    """The deadline passed: apply the seat's defaults while it still has this decision.

    Then count the run of timeouts: at the game's threshold the seat is
    logged "away" (R29), which makes the services apply its later decisions
    at once and, when no person is left, abandons the game.
    """
    now = dl.as_utc(now)
    outcome = "nothing to do"
    with dl.at(now):
        for _ in range(MAX_DEFAULTS + MAX_RETRIES):
            with read_session() as session:
                row = session.get(dl.Deadline, deadline_id)
                if row is None or row.done_at is not None:
                    break
                game_id, seat = row.game_id, row.seat
                game = session.get(store.Game, game_id)
                running = game is not None and game.status == "running"
            snap = services.snapshot(game_id) if running else None
            default = engine.default_action(snap.state, seat) if snap else None
            if snap is None or default is None or seat not in (snap.view(None).get("to_act") or []):
                _close(deadline_id, now, "stale")
                break
            try:
                services.submit_action(game_id, seat, default, snap.seq, source="timeout")
                outcome = "passed"
            except services.Conflict:
                continue  # someone moved at the same moment: look again
            except services.ServiceError as exc:
                log.error("timeout of game %s seat %s refused: %s", game_id, seat, exc)
                _close(deadline_id, now, "refused")
                return "refused"
        else:
            log.error("deadline %s: still open after %d defaults", deadline_id, MAX_DEFAULTS)
            return outcome
        if outcome == "passed":
            mark_absent_if_due(game_id, seat)
    return outcome


def _close(deadline_id: int, now: datetime, outcome: str) -> None:
    with write_session() as session:
        session.exec(update(dl.Deadline)  # type: ignore[call-overload]
                     .where(col(dl.Deadline.id) == deadline_id,
                            col(dl.Deadline.done_at).is_(None))
                     .values(done_at=now, outcome=outcome))
        # its reminders go with it
        row = session.get(dl.Deadline, deadline_id)
        if row is not None and row.kind == dl.DECISION:
            session.exec(update(dl.Deadline)  # type: ignore[call-overload]
                         .where(col(dl.Deadline.game_id) == row.game_id,
                                col(dl.Deadline.seat) == row.seat,
                                col(dl.Deadline.kind) == dl.REMINDER,
                                col(dl.Deadline.done_at).is_(None))
                         .values(done_at=now, outcome=outcome))


def mark_absent_if_due(game_id: str, seat: int) -> bool:
    """Log "away" for a seat whose run of timeouts reached the game's threshold."""
    for _ in range(MAX_RETRIES):
        with read_session() as session:
            game = session.get(store.Game, game_id)
            clock = session.exec(select(dl.SeatClock).where(
                dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
            if game is None or game.status != "running" or clock is None or clock.absent:
                return False
            threshold = dl.ClockSettings.from_options(game.options).absent_after
            if clock.consecutive_timeouts < threshold:
                return False
            seq = store.last_seq(session, game_id)
        try:
            services.submit_action(game_id, seat, {"type": "away"}, seq, source="system")
            return True
        except services.Conflict:
            continue
    return False


# -- what a player can do about the clock ----------------------------------------

def come_back(game_id: str, seat: int) -> services.Submitted:
    """ "I'm back": logged as a ``back`` action; normal deadlines from the next decision."""
    last: services.Conflict | None = None
    for _ in range(MAX_RETRIES):
        seq = services.game_info(game_id).seq
        try:
            return services.submit_action(game_id, seat, {"type": "back"}, seq, source="player")
        except services.Conflict as exc:
            if exc.details.get("reason") not in ("moved_on", "busy"):
                raise
            last = exc
    assert last is not None
    raise last


def vacation_left(game_id: str, seat: int) -> int:
    """Vacation days this seat may still take in this game."""
    with read_session() as session:
        game = session.get(store.Game, game_id)
        if game is None:
            raise services.NotFound("There is no game with this id.")
        allowed = dl.ClockSettings.from_options(game.options).vacation_days
        clock = session.exec(select(dl.SeatClock).where(
            dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
        return max(0, allowed - (clock.vacation_days_used if clock else 0))


def start_vacation(game_id: str, seat: int, days: int, now: datetime | None = None) -> datetime:
    """Pause a seat's clock for ``days`` (bounded per game); returns when it ends.

    Open deadlines move back by the vacation, keeping the time they had
    left; decisions that open meanwhile count from the end of the vacation.
    """
    now = dl.as_utc(now or dl.now())
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise VacationRefused("A vacation is a whole number of days, at least one.")
    with write_session() as session:
        game = session.get(store.Game, game_id)
        if game is None:
            raise services.NotFound("There is no game with this id.")
        if game.status != "running":
            raise services.Conflict(f"The game is {game.status}: there is no clock to pause.",
                                    reason=game.status)
        if session.get(store.Seat, (game_id, seat)) is None:
            raise services.NotFound("There is no such seat in this game.")
        allowed = dl.ClockSettings.from_options(game.options).vacation_days
        clock = dl.seat_clock(session, game_id, seat)
        left = allowed - clock.vacation_days_used
        if days > left:
            raise VacationRefused(f"You have {max(left, 0)} vacation days left in this game; "
                                  f"{days} is too many.")
        on_vacation = clock.vacation_until is not None and dl.as_utc(clock.vacation_until) > now
        if on_vacation:  # extending: every open row moves by the extra days
            until = dl.as_utc(clock.vacation_until) + timedelta(days=days)
            for row in dl.open_rows(session, game_id, seat):
                row.due_at = dl.as_utc(row.due_at) + timedelta(days=days)
                session.add(row)
        else:
            until = now + timedelta(days=days)
            dl.shift_open(session, game_id, seat, now, until)
        clock.vacation_until = until
        clock.vacation_days_used += days
        session.add(clock)
    return until


def seat_clock_state(game_id: str, seat: int, now: datetime | None = None) -> dict[str, Any]:
    """What the seat page shows about the clock (read only)."""
    now = dl.as_utc(now or dl.now())
    with read_session() as session:
        clock = session.exec(select(dl.SeatClock).where(
            dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
        decision = dl.open_rows(session, game_id, seat, dl.DECISION)
        until = dl.as_utc(clock.vacation_until) if clock and clock.vacation_until else None
        return {
            "absent": bool(clock and clock.absent),
            "consecutive_timeouts": clock.consecutive_timeouts if clock else 0,
            "vacation_until": until if until and until > now else None,
            "vacation_left": vacation_left(game_id, seat),
            "deadline": dl.as_utc(decision[0].due_at) if decision else None,
        }
