"""R29's use cases outside a move: a deadline passed (the clock), "I'm back" and
vacation (the seat page), and what the page shows of a seat's clock.

Each logs what it decides through the services' ``submit_action`` (so a timeout
is a move like any other, with its reactions); the bookkeeping inside a move is
``app.presence.absence``.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.clock import deadlines as dl
from app.i18n import _
from app.services.status_words import status_word
from app import engine
from app.gamelog import store
from app.db import read_session, write_session
from app.presence.absence import MAX_DEFAULTS, MAX_RETRIES
from app.services.results import Submitted
from app.people.calendar import calendar_of

log = logging.getLogger(__name__)


def _services() -> Any:
    """The services package (its public names), imported when first used: this module
    is one of them."""
    from app import services
    return services


# -- the clock: a deadline passed ------------------------------------------------------

def auto_pass(deadline_id: int, now: datetime) -> str:
    """R29: the deadline passed: apply the seat's defaults while it still has this decision.

    Then count the run of timeouts: at the game's threshold the seat is
    logged "away", which makes the services apply its later decisions at
    once and, when no person is left, abandons the game.
    """
    services = _services()
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
                close_window(deadline_id, now, "stale")
                break
            try:
                services.submit_action(game_id, seat, default, snap.seq, source="timeout")
                outcome = "passed"
            except services.Conflict:
                continue  # someone moved at the same moment: look again
            except services.ServiceError as exc:
                log.error("timeout of game %s seat %s refused: %s", game_id, seat, exc)
                close_window(deadline_id, now, "refused")
                return "refused"
        else:
            log.error("deadline %s: still open after %d defaults", deadline_id, MAX_DEFAULTS)
            return outcome
        if outcome == "passed":
            mark_absent_if_due(game_id, seat)
    return outcome


def close_window(deadline_id: int, now: datetime, outcome: str) -> None:
    """Close a decision deadline that no timeout can act on, with its reminders."""
    with write_session() as session:
        session.exec(update(dl.Deadline)
                     .where(col(dl.Deadline.id) == deadline_id,
                            col(dl.Deadline.done_at).is_(None))
                     .values(done_at=now, outcome=outcome))
        row = session.get(dl.Deadline, deadline_id)
        if row is not None and row.kind == dl.DECISION:
            session.exec(update(dl.Deadline)
                         .where(col(dl.Deadline.game_id) == row.game_id,
                                col(dl.Deadline.seat) == row.seat,
                                col(dl.Deadline.kind) == dl.REMINDER,
                                col(dl.Deadline.done_at).is_(None))
                         .values(done_at=now, outcome=outcome))


def mark_absent_if_due(game_id: str, seat: int) -> bool:
    """R29: log "away" for a seat whose run of timeouts reached the game's threshold."""
    services = _services()
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


# -- what a player can do about the clock ------------------------------------------------

def come_back(game_id: str, seat: int, source: str = "player") -> "Submitted":
    """R29 "I'm back" (the page's button, or a ``BACK`` reply: ``source`` "mail"): logged
    as a ``back`` action; normal deadlines from the next decision. It also ends a
    substitute vote about the seat (R51)."""
    return _services().submit_now(game_id, seat, {"type": "back"}, source=source)


def vacation_left(game_id: str, seat: int) -> int:
    """Vacation days this seat may still take in this game (beside R29)."""
    services = _services()
    with read_session() as session:
        game = session.get(store.Game, game_id)
        if game is None:
            raise services.NotFound(_("There is no game with this id."))
        allowed = dl.ClockSettings.from_options(game.options).vacation_days
        clock = session.exec(select(dl.SeatClock).where(
            dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
        return max(0, allowed - (clock.vacation_days_used if clock else 0))


def start_vacation(game_id: str, seat: int, days: int, now: datetime | None = None) -> datetime:
    """Vacation (beside R29): pause a seat's clock for ``days`` (bounded per game); returns when it ends.

    Open deadlines move back by the vacation, keeping the time they had
    left; decisions that open meanwhile count from the end of the vacation.
    """
    services = _services()
    now = dl.as_utc(now or dl.now())
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise services.BadRequest(_("A vacation is a whole number of days, at least one."))
    with write_session() as session:
        game = session.get(store.Game, game_id)
        if game is None:
            raise services.NotFound(_("There is no game with this id."))
        if game.status != "running":
            raise services.Conflict(_("The game is %(status)s: there is no clock to pause.",
                                      status=status_word(game.status)),
                                    reason=game.status)
        if session.get(store.Seat, (game_id, seat)) is None:
            raise services.NotFound(_("There is no such seat in this game."))
        settings = dl.ClockSettings.from_options(game.options)
        allowed = settings.vacation_days
        clock = _clock_object(session, game_id, seat)
        left = allowed - clock.vacation_days_used
        if days > left:
            raise services.BadRequest(_("You have %(left)s vacation days left in this game; "
                                        "%(days)s is too many.", left=max(left, 0), days=days))
        away_until = clock.vacation_until
        if away_until is not None and dl.as_utc(away_until) > now:
            # extending: every open row moves by the extra days
            until = dl.as_utc(away_until) + timedelta(days=days)
            for row in dl.open_rows(session, game_id, seat):
                row.due_at = dl.as_utc(row.due_at) + timedelta(days=days)
                if row.budget_seconds is not None:  # (a time bank: the pause is not paid)
                    row.budget_seconds += days * 86400
        else:
            until = now + timedelta(days=days)
            dl.shift_open(session, game_id, seat, now, until,
                          calendar_of(session, game_id, seat, settings))
        clock.vacation_until = until
        clock.vacation_days_used += days
    return until


def seat_clock_state(game_id: str, seat: int, now: datetime | None = None,
                     session: Session | None = None) -> dict[str, Any]:
    """What the seat page shows about the clock (read only; on the page's session if given)."""
    now = dl.as_utc(now or dl.now())
    if session is None:
        with read_session() as own:
            return seat_clock_state(game_id, seat, now, own)
    game = session.get(store.Game, game_id)
    clock = session.exec(select(dl.SeatClock).where(
        dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
    decision = dl.open_rows(session, game_id, seat, dl.DECISION)
    return clock_state_of(clock, decision, game.options if game else {}, now)


def clock_state_of(clock: dl.SeatClock | None, decision: list[dl.Deadline],
                   options: dict[str, Any], now: datetime) -> dict[str, Any]:
    """``seat_clock_state`` from rows read already: the seat's clock row and its open
    decision rows (the seat page's presenter reads the game's once: issue 33)."""
    until = dl.as_utc(clock.vacation_until) if clock and clock.vacation_until else None
    allowed = dl.ClockSettings.from_options(options).vacation_days
    return {
        "absent": bool(clock and clock.absent),
        "consecutive_timeouts": clock.consecutive_timeouts if clock else 0,
        "vacation_until": until if until and until > now else None,
        "vacation_left": max(0, allowed - (clock.vacation_days_used if clock else 0)),
        "deadline": dl.as_utc(decision[0].due_at) if decision else None,
    }


def _clock_object(session: Session, game_id: str, seat: int) -> dl.SeatClock:
    """The seat's clock row as the ORM object, created on first use: a vacation
    changes it through its session (no move, so no unit of work holds it)."""
    row = session.exec(select(dl.SeatClock).where(
        dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
    if row is None:
        row = dl.SeatClock(game_id=game_id, seat=seat)
        # not a unit write: a vacation changes the seat's clock outside any move (no
        # unit holds it); the first one makes its row here
        session.add(row)
        session.flush()
    return row
