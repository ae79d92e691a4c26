"""Side-effect hooks called by app.services inside its transaction.

Services call these after every state change with the move's unit of work
(``app.db.unit``): the outbox rows (mail), deadline rows (clock) and seat rows
they change are queued on it, and the repository writes them with the action
rows that caused them (``services.repository.write_move``), so they commit or
roll back together. Nothing here sends mail or waits for anything: the sender
and the clock read the rows later.

``after_action`` is a few named steps, each driven by what the engine says
happened: the actor's R29 bookkeeping (``app.presence.absence``); a *turn ended* for
every seat whose decision is gone (its deadlines close, its unsent turn mail
is superseded); a *round ended* (the engine's ``round_scored`` event: a mail
to every person); *game over* (the ``game_over`` event: everything closes, a
mail to every person); an ``away`` entry (R29); and a *decision opened* for
every seat that started waiting (a deadline, reminders, a turn mail after the
grace period, or the digest row); and a *stopped mid-turn* for an actor that
still faces a decision of the turn right after its own move (one turn mail
after the grace period: issue 17 item 2, no silent turn). Who is waited on is
the engine's ``status(...)["to_act"]``.

Mail to a seat written in the transaction of its own move by reply is
conversation (issue 17 item 3, ``seat_prefs.replied``): it leaves at once and the
hourly flood cap leaves it alone. A timeout is noted on the seat's mail row
(``unsent.seat_acted(..., played=why)``) so its next mail, its page and the
others' news say what was played for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from app import engine
from app.db.unit import Unit

from app.presence import absence, leaving
from app.clock import deadlines as dl
from app.mail import notify
from app.mail import turn_mails
from app.mail import seat_prefs
from app.mail import unsent
from app.engine.describe import AWAY, TIMED_OUT
from app.gamelog import store
from app.presence.leaving import RESIGNED
from app.people import away
from app.mail.models import DIGEST as DIGEST_MODE
from app.standing import settle

#: Action sources of a move a person made: on their page, or by replying to a mail.
OWN_SOURCES = store.OWN_SOURCES
#: Presence toggles (R29) and the seat's people changing (R48 resign, R49 take-over):
#: logged for the seat, but not a move of the game it played.
PRESENCE = ("away", "back", "resign", "take_over")


@dataclass(frozen=True)
class Happened:
    """What one action did, in the terms the hooks act on."""

    seq: int
    seat: int | None
    kind: str
    source: str
    waiting_before: frozenset[int]
    waiting_after: frozenset[int]
    fresh_turns: frozenset[int]
    round_ended: int | None
    game_over: bool
    #: The engine's ``status`` after the action (who is waited on, for what).
    after_status: dict[str, Any]

    @property
    def own(self) -> bool:
        """Whether the seat played this move itself (by link or reply): not the clock
        (a timeout, R29), not a bot, not a presence toggle."""
        return self.source in OWN_SOURCES and self.kind not in PRESENCE

    @property
    def stopped_mid_turn(self) -> bool:
        """The actor played itself and still faces a decision of the same turn (it
        drew, and must now discard or exchange): issue 17 item 2."""
        return (self.own and self.seat is not None and self.seat in self.waiting_before
                and self.seat in self.waiting_after and self.seat not in self.fresh_turns)

    @classmethod
    def of(cls, seq: int, seat: int | None, action: dict, source: str, before: Any,
           after: Any, events: list[dict]) -> "Happened":
        old, new = engine.status(before), engine.status(after)
        types = {str(event.get("type")) for event in events}
        scored = next((int(e.get("round") or 0) for e in events
                       if e.get("type") == "round_scored"), None)
        waiting_before = frozenset(old.get("to_act") or [])
        waiting_after = frozenset(new.get("to_act") or [])
        # A new turn right after another decision of the same seat (its
        # round-start peek) is a decision of its own, with its own deadline.
        fresh = frozenset(s for s in waiting_after & waiting_before
                          if _fresh_turn(new, s) and not _fresh_turn(old, s))
        return cls(seq=seq, seat=seat, kind=str(action.get("type")), source=source,
                   waiting_before=waiting_before, waiting_after=waiting_after,
                   fresh_turns=fresh,
                   round_ended=scored,
                   game_over="game_over" in types or new.get("phase") == "over",
                   after_status=new)


def after_create(unit: Unit, game: Any, state: Any) -> None:
    """A game was created: invitations to every seat, first decisions opened."""
    now = dl.now()
    ctx = notify.Context.load(unit, game)
    for seat in ctx.human_seats():
        notify.invitation(unit, ctx, seat, now)
    view = engine.status(state)
    for seat in view.get("to_act") or []:
        decision_opened(unit, ctx, seat, state, int(view.get("step") or 0), now)


def after_action(unit: Unit, game: Any, seq: int, seat: int | None, action: dict,
                 source: str, before: Any, after: Any, events: list[dict]) -> None:
    """An action row was appended: the named steps below, in this order."""
    now = dl.now()
    ctx = notify.Context.load(unit, game)
    what = Happened.of(seq, seat, action, source, before, after, events)
    aimed = actor_noted(unit, ctx, what, now) if seat is not None else False
    for lost in sorted(what.waiting_before - what.waiting_after):
        turn_ended(unit, ctx, lost, "acted" if lost == seat else "moved", now)
    if what.game_over:
        game_over(unit, ctx, after, now)
        return
    if what.round_ended is not None:
        round_ended(unit, ctx, after, what.round_ended, now)
    if what.kind == "away" and seat is not None:
        if absence.went_away(unit, ctx, game, seat, now, step=seq, state=after):
            return  # abandoned: nobody is waited on any more
    if what.kind == "resign" and seat is not None:
        if leaving.resigned(unit, ctx, game, seat, now, step=seq, state=after):
            return  # abandoned: no person plays any more
    if what.kind == "take_over" and seat is not None:
        leaving.took_over(unit, ctx, seat, action, now, step=seq, state=after)
    for each in sorted(what.waiting_after - what.waiting_before):
        decision_opened(unit, ctx, each, after, seq, now)
    for each in sorted(what.fresh_turns):
        mine = each == seat
        # the seat itself may have just acted (its round-start peek): the mail waits
        # out the grace period like any other, superseded if it goes on from its page
        # (its waiting mail was re-aimed at this turn when it had one: ``aimed``)
        turn_ended(unit, ctx, each, "acted" if mine else "moved", now,
                   mail=not (mine and aimed))
        decision_opened(unit, ctx, each, after, seq, now, mail=not (mine and aimed),
                        delay=_own_step_delay(ctx, what) if mine else None)
    if what.stopped_mid_turn and not aimed:
        stopped_mid_turn(unit, ctx, what, after, now)


# -- the steps -----------------------------------------------------------------------

def actor_noted(unit: Unit, ctx: "notify.Context", what: Happened, now: datetime) -> bool:
    """The actor's marker for "since you last played" and its R29 bookkeeping.

    A seat that acted is no longer waiting for the decision its unsent turn
    mail announced, so that mail is superseded. Only a move of its own moves its
    "since you last played" on: what the clock played for it stays news for it
    (issue 17 item 2). Returns whether the seat's unsent turn mail was re-aimed at
    the decision it still faces (``stopped_mid_turn`` then writes none).
    """
    assert what.seat is not None
    if what.source == "mail":  # what it asked for by replying is conversation (item 3)
        seat_prefs.note_reply(unit, ctx.id, what.seat)
    played = None
    if what.source == "timeout":  # R29: the clock, or the seat is away or resigned (R48)
        played = (RESIGNED if what.seat in (what.after_status.get("resigned") or ())
                  else AWAY if absence.is_absent(unit, ctx.game, what.seat) else TIMED_OUT)
    aimed = unsent.seat_acted(unit, ctx.id, what.seat, what.seq, now, own=what.own,
                              played=played, aim=_mid_turn_aim(unit, ctx, what, now))
    absence.record_action(unit, ctx.id, what.seat, what.kind, what.source, now)
    return aimed


def turn_ended(unit: Unit, ctx: "notify.Context", seat: int, outcome: str,
               now: datetime, *, mail: bool = True) -> None:
    """A seat no longer has the decision: in a time-bank game the time it took past
    the decision's allowance comes off its bank when it acted (or its time ran out;
    not when another seat's move took the decision away), its deadline and reminders
    close, and its unsent mail is superseded (``mail`` False: it was re-aimed at the
    next one)."""
    if outcome == "acted" and ctx.settings.banked and ctx.is_human(seat):
        dl.charge_bank(unit, ctx.id, seat, now, ctx.settings, ctx.calendar(seat))
    dl.close_turn(unit, ctx.id, seat, now, outcome)
    if mail:
        unsent.supersede_unsent(unit, ctx.id, seat, now)


def round_ended(unit: Unit, ctx: "notify.Context", state: Any, round_no: int,
                now: datetime) -> None:
    """A round was scored (not the last): the round mail to every person."""
    for each in ctx.human_seats():
        notify.round_end(unit, ctx, each, state, round_no, now)


def game_over(unit: Unit, ctx: "notify.Context", state: Any, now: datetime) -> None:
    """The game ended: every deadline closes, its people's standing moves (issue 47, in
    this unit: once a game, never on another move), the result mail to every person."""
    dl.close_open(unit, ctx.id, now, "over", kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    changes = settle.settle(unit, ctx.game, ctx.seats, state, now, over=True)
    for each in ctx.human_seats():
        notify.game_over(unit, ctx, each, state, now, rating=changes.get(each))


def decision_opened(unit: Unit, ctx: "notify.Context", seat: int, state: Any,
                    step: int, now: datetime, *, mail: bool = True,
                    delay: timedelta | None = None) -> None:
    """A seat started waiting on a decision: a deadline (people only, present
    only), and its turn mail after the grace period (``delay``: another, the seat's
    own next step's), or the digest row."""
    if not ctx.is_human(seat) or plays_by_default(unit, ctx.game, seat, state):
        return
    deadline = dl.open_decision(unit, ctx.id, seat, step, now, ctx.settings,
                                calendar=ctx.calendar(seat),
                                paused_until=away.pause_of(ctx.person(seat), ctx.settings, now))
    if not mail:
        return
    mode = notify.mode_of(unit, ctx, seat)
    if mode == DIGEST_MODE:
        last = seat_prefs.mail_row(unit, ctx.id, seat).last_digest_at
        dl.schedule_digest(unit, ctx.id, seat, now, last, turn_mails.digest_period())
    else:
        turn_mails.decision_opened(unit, ctx, seat, state, deadline, now, delay=delay)


def _mid_turn_aim(unit: Unit, ctx: "notify.Context", what: Happened,
                  now: datetime) -> tuple[dict[str, Any], datetime] | None:
    """What the actor's waiting turn mail should announce if the actor stops here, on
    its page, still facing a decision (mid-turn, or the turn its round-start peek
    began): ``unsent.seat_acted`` re-aims the mail at it. None when no such mail is
    wanted or it must be written anew (a move by reply is answered at once)."""
    seat = what.seat
    if (seat is None or what.source != "player"
            or not (what.stopped_mid_turn or seat in what.fresh_turns)
            or not ctx.is_human(seat)
            or seat in (what.after_status.get("resigned") or ())
            or absence.is_absent(unit, ctx.game, seat)
            or notify.mode_of(unit, ctx, seat) != notify.EVERY):
        return None
    announces = notify.announced_decision(what.after_status, seat, what.seq)
    announces["compose"] = {"due": None, "reminder": False}
    return announces, dl.as_utc(now) + _own_step_delay(ctx, what)


def stopped_mid_turn(unit: Unit, ctx: "notify.Context", what: Happened, state: Any,
                     now: datetime) -> None:
    """The actor still faces a decision right after its own move: one turn mail for
    it after the grace period (people only, present only, issue 17 item 2). Its
    deadline is the one the turn opened with; nothing here reopens it."""
    seat = what.seat
    assert seat is not None
    if not ctx.is_human(seat) or plays_by_default(unit, ctx.game, seat, state):
        return
    turn_mails.stopped_mid_turn(unit, ctx, seat, state, what.seq, now,  # (digest seats: none)
                                delay=_own_step_delay(ctx, what))


def fresh_link_requested(session: Session, game: Any, seat: int) -> None:
    """Someone asked on a 403 page to have a fresh link mailed to this seat.

    At most one such mail per seat every ``FRESH_LINK_MINUTES`` (default 10);
    further requests inside the window enqueue nothing (see ``notify.fresh_link``).
    """
    ctx = notify.Context.load(session, game)
    notify.fresh_link(session, ctx, seat, dl.now())


def _own_step_delay(ctx: "notify.Context", what: Happened) -> timedelta:
    """How long the mail of the decision a seat faces right after its own move by its
    link waits before it leaves: the game's grace period, and in a game without one
    (0: every decision mailed as it opens) the server's (``TURN_MAIL_DELAY_SECONDS``,
    at least ``OWN_STEP_GRACE``), so that a player who goes on from the page gets no
    mail repeating it, and one who walks away after a step (a peek by the JSON API)
    still hears of the next. Until issue 34 such a seat was taken to be at its page and
    mailed nothing at all."""
    if what.source != "player" or ctx.delay > timedelta(0):
        return ctx.delay
    return max(notify.turn_mail_delay(None), OWN_STEP_GRACE)


#: The least a zero-grace game's seat waits for the mail of its own next step (a server
#: whose ``TURN_MAIL_DELAY_SECONDS`` is 0 too would otherwise mail every step at once).
OWN_STEP_GRACE = timedelta(seconds=60)


def is_absent(unit: Unit, game: Any, seat: int) -> bool:
    """Whether this seat is away (R29, ``app.presence.absence``): services apply its defaults at once."""
    return absence.is_absent(unit, game, seat)


def plays_by_default(unit: Unit, game: Any, seat: int, state: Any) -> bool:
    """Whether the rules' defaults play this seat's decisions at once: it is away (R29)
    or it resigned (R48, ``state``'s ``resigned``)."""
    return leaving.has_resigned(state, seat) or absence.is_absent(unit, game, seat)


def _fresh_turn(view: dict, seat: int) -> bool:
    """Whether ``seat`` stands at the start of its own turn (nothing done yet)."""
    return (view.get("phase") == "play" and view.get("current") == seat
            and view.get("pending") == "turn" and seat not in (view.get("peeks_pending") or []))
