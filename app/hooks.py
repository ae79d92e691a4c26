"""Side-effect hooks called by app.services inside its transaction.

Services call these after every state change, so the outbox rows (mail) and
deadline rows (clock) they write commit or roll back together with the action
that caused them. Nothing here sends mail or waits for anything: the clock
process reads the rows later.

What a hook decides, per appended action, from the public views before and
after it: which seats gained a decision (a deadline, its reminders and a turn
mail), which lost one (their deadlines close), whether a round or the game
ended (score mails to every seat), and the clock bookkeeping of R29 (a run of
timeouts, "away" and "back" log entries, abandoning a game nobody plays).
"""
from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from app import deadlines as dl
from app.mail import notify


def after_create(session: Session, game: Any, state: Any) -> None:
    """A game was created: invitations to every seat, first decisions opened."""
    now = dl.now()
    ctx = notify.Context.load(session, game)
    for seat in ctx.human_seats():
        notify.invitation(session, ctx, seat, now)
    view = notify.public_view(state)
    for seat in view.get("to_act") or []:
        _open(session, ctx, seat, state, int(view.get("step") or 0), now)


def after_action(session: Session, game: Any, seq: int, seat: int | None, action: dict,
                 source: str, before: Any, after: Any, events: list[dict]) -> None:
    """An action row was appended: deadlines, turn/round/result mails, R29 bookkeeping."""
    now = dl.now()
    ctx = notify.Context.load(session, game)
    gid = str(game.id)
    kind = str(action.get("type"))
    old, new = notify.public_view(before), notify.public_view(after)

    if seat is not None:
        mail_row = notify.seat_mail(session, gid, seat)
        mail_row.last_acted_step = seq
        session.add(mail_row)
        clock = dl.seat_clock(session, gid, seat)
        if kind == "back":
            clock.absent, clock.consecutive_timeouts = False, 0
            if clock.vacation_until is not None and dl.as_utc(clock.vacation_until) > now:
                _end_vacation_early(session, gid, seat, clock, now)
        elif kind == "away":
            clock.absent = True
        elif source in ("player", "mail"):  # a person acted (on the page or by reply)
            clock.consecutive_timeouts = 0
        elif source == "timeout" and not clock.absent:
            for row in dl.open_rows(session, gid, seat, dl.DECISION):
                if row.fired_at is None:  # the first default of this window counts
                    row.fired_at = now
                    clock.consecutive_timeouts += 1
                    session.add(row)
        session.add(clock)

    before_to_act = set(old.get("to_act") or [])
    after_to_act = set(new.get("to_act") or [])
    over = new.get("phase") == "over"

    for lost in sorted(before_to_act - after_to_act):
        dl.close_open(session, gid, now, "acted" if lost == seat else "moved", seat=lost)

    if len(new.get("round_scores") or []) > len(old.get("round_scores") or []) and not over:
        round_no = len(new.get("round_scores") or [])
        for each in ctx.human_seats():
            notify.round_end(session, ctx, each, after, round_no, now)

    if over:
        dl.close_open(session, gid, now, "over", kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
        for each in ctx.human_seats():
            notify.game_over(session, ctx, each, after, now)
        return

    if kind == "away" and seat is not None:
        _went_away(session, ctx, game, seat, now)
        if getattr(game, "status", "running") != "running":
            return

    for each in sorted(after_to_act):
        if each not in before_to_act:
            _open(session, ctx, each, after, seq, now)
        elif _fresh_turn(new, each) and not _fresh_turn(old, each):
            # A new turn right after another decision of the same seat (its
            # round-start peek): a decision of its own, with its own deadline.
            dl.close_open(session, gid, now, "acted" if each == seat else "moved", seat=each)
            _open(session, ctx, each, after, seq, now,
                  mail=not (each == seat and source == "player"))


def fresh_link_requested(session: Session, game: Any, seat: int) -> None:
    """Someone asked on a 403 page to have a fresh link mailed to this seat.

    At most one such mail per seat every ``FRESH_LINK_MINUTES`` (default 10);
    further requests inside the window enqueue nothing (see ``notify.fresh_link``).
    """
    ctx = notify.Context.load(session, game)
    notify.fresh_link(session, ctx, seat, dl.now())


def is_absent(session: Session, game: Any, seat: int) -> bool:
    """Whether this seat is absent (R29): services then apply its defaults at once.

    Never true in a game that is no longer running, so an abandoned game is
    not played out by defaults.
    """
    if getattr(game, "status", "running") != "running":
        return False
    row = dl.remembered(session, dl.SeatClock, str(game.id), seat)
    return bool(row and row.absent)


# -- pieces ------------------------------------------------------------------

def _fresh_turn(view: dict, seat: int) -> bool:
    """Whether ``seat`` stands at the start of its own turn (nothing done yet)."""
    return (view.get("phase") == "play" and view.get("current") == seat
            and view.get("pending") == "turn" and seat not in (view.get("peeks_pending") or []))


def _open(session: Session, ctx: "notify.Context", seat: int, state: Any, step: int,
          now: Any, *, mail: bool = True) -> None:
    """A seat gained a decision: a deadline (people only, present only) and its mail.

    No mail when the seat itself just acted and is on its page (``mail=False``).
    """
    if not ctx.is_human(seat) or is_absent(session, ctx.game, seat):
        return
    deadline = dl.open_decision(session, ctx.id, seat, step, now, ctx.settings)
    if mail:
        notify.decision_opened(session, ctx, seat, state, deadline, now)


def _went_away(session: Session, ctx: "notify.Context", game: Any, seat: int,
               now: Any) -> None:
    """An "away" entry was logged: tell everyone; abandon when no person is left."""
    dl.close_open(session, ctx.id, now, "away", seat=seat,
                  kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    humans = ctx.human_seats()
    away = {row.seat for row in session.exec(
        select(dl.SeatClock).where(dl.SeatClock.game_id == ctx.id,
                                   dl.SeatClock.absent == True))}  # noqa: E712
    if humans and all(h in away for h in humans):
        game.status = "abandoned"
        session.add(game)
        dl.close_open(session, ctx.id, now, "abandoned",
                      kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
        for each in humans:
            notify.notice(session, ctx, each, "abandoned", None, now)
        return
    for each in humans:
        notify.notice(session, ctx, each, "you_absent" if each == seat else "absent",
                      seat, now)


def _end_vacation_early(session: Session, gid: str, seat: int, clock: "dl.SeatClock",
                        now: Any) -> None:
    """Back before the vacation ended: deadlines lose the unused days, which are refunded."""
    until = dl.as_utc(clock.vacation_until)
    unused = until - now
    for row in dl.open_rows(session, gid, seat):
        row.due_at = max(dl.as_utc(row.due_at) - unused, now)
        session.add(row)
    clock.vacation_days_used = max(0, clock.vacation_days_used - unused.days)
    clock.vacation_until = None
