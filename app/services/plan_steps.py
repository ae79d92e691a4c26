"""A seat's plan and standing orders inside a move (issue 35): which step to play next,
what it did, when it stops.

The move's one read (``move_read``) brings every seat's ``plan`` row along (an outer
join: a seat that never sent a plan costs nothing more), and ``games._play_automatic``
asks ``step_for`` for each seat it waits on, after bots and absent seats: a plan's
next step (or a standing order's) is then applied by the same ``_append`` as every
move, as the seat's own action (source ``mail`` or ``player``, as it was sent), in the
move's unit of work. ``applied`` and ``refused`` note what it did; ``settle`` closes
plans whose turn is over. A plan that stops leaves its words for the seat's next mail
(``app.plans.models.told_lines``) and asks the seat at once, with a turn mail for the
decision it now faces. Everything is decided on ``engine.view`` for the seat only.

The use cases that start or change a plan (a reply, the page, JSON) are in
``app.services.plans``, which imports ``moves`` and ``games`` (this module is imported by
them, so it cannot be one with it); they store a plan on the move's unit with ``attach``.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from app import engine
from app.clock import deadlines as dl
from app.mail import commands
from app.db.unit import Row, Unit
from app.engine import plans as ep
from app.mail import notify
from app.mail import turn_mails
from app.mail import seat_prefs
from app.mail import unsent
from app.mail.models import EVERY
from app.plans.models import PLANS, told_lines
from app.services.errors import BadRequest

#: ``Unit.facts`` keys (each followed by the game id and seat).
ACTING = "plan acting"          # what is being applied: ("turn", step) or ("order", order)
FAILED = "plan order failed"     # an order the engine refused at this step: not again
STARTED = "plan told base"       # the seat's told lines as they stood when this unit began
PLAYED = "plan played told"      # what the server played for the seat is among them
#: Lines of ``told`` kept for the next mail.
TOLD_KEPT = 8


def row_of(unit: Unit, game_id: str, seat: int) -> Row | None:
    """The seat's plan row as this move read it (never a query: a unit that did not read
    the plan rows has none, and a game being created has no plan)."""
    return unit.rows.get((PLANS.name, game_id, seat))


def _progress(turn: dict[str, Any]) -> tuple[ep.Plan, ep.Progress]:
    return ep.from_json(turn["plan"]), ep.Progress(
        at=int(turn.get("at") or 0), round=int(turn.get("round") or 0),
        began=bool(turn.get("began")), did=list(turn.get("did") or []),
        sent_step=int(turn.get("sent_step") or 0))


def orders_of(row: Any) -> tuple[ep.Order, ...]:
    try:
        return ep.orders_from_json([{k: v for k, v in o.items() if k != "source"}
                                    for o in (row.orders or [])])
    except ep.PlanError:
        return ()


def step_for(unit: Unit, game: Any, seat: int, state: Any, seq: int) -> tuple[dict[str, Any], str] | None:
    """The action the seat's plan or standing orders play now, with its source, or None."""
    row = row_of(unit, game.id, seat)
    if row is None or not (row.turn or row.orders):
        return None
    view = engine.view(state, seat)
    if (STARTED, game.id, seat) not in unit.facts:
        unit.facts[(STARTED, game.id, seat)] = _untold(unit, game.id, seat, row)
    if row.turn:
        plan, progress = _progress(row.turn)
        got = ep.decide(plan, progress, view, seat)
        if isinstance(got, ep.Move):
            unit.facts[(ACTING, game.id, seat)] = ("turn", got.step)
            _keep_played(unit, game, seat, state)
            return got.action, str(row.turn.get("source") or "player")
        if isinstance(got, (ep.Done, ep.Stop)):
            _finish(unit, game, seat, row, plan, progress, got, state, seq)
    if (FAILED, game.id, seat, seq) in unit.facts:
        return None
    found = ep.order_move(orders_of(row), view, seat)
    if found is None:
        return None
    order, action = found
    unit.facts[(ACTING, game.id, seat)] = ("order", order)
    _keep_played(unit, game, seat, state)
    source = next((str(o.get("source") or "player") for o in row.orders or []
                   if o.get("on") == order.on), "player")
    return action, source


def _keep_played(unit: Unit, game: Any, seat: int, state: Any) -> None:
    """Before the seat's first plan step of this move: what the server played for it since
    it last played (a timed-out peek, R29) joins the words its next mail says, since the
    plan's steps are its own moves and "since you last played" starts after them."""
    if (PLAYED, game.id, seat) in unit.facts:
        return
    unit.facts[(PLAYED, game.id, seat)] = True
    lines = notify.played_for_seat(unit, notify.Context.load(unit, game), seat, state)
    if lines:
        unit.facts[(STARTED, game.id, seat)].extend(lines)


def applied(unit: Unit, game: Any, seat: int, action: dict[str, Any], before: Any,
            after: Any, seq: int) -> None:
    """A step of the seat's plan (or an order) was applied at ``seq``: note it."""
    what = unit.facts.pop((ACTING, game.id, seat), None)
    row = row_of(unit, game.id, seat)
    if what is None or row is None:
        return
    did = ep.did_words(action, engine.view(before, seat), engine.view(after, seat), seat)
    if what[0] == "order":
        _tell(unit, game.id, seat, row, seq, [f"Your standing order “{what[1].step.text}”: "
                                               f"you {did}."])
        return
    plan, progress = _progress(row.turn)
    progress.at += 1
    progress.began = progress.began or ep.began_with(action)
    progress.did.append(did)
    turn = {**row.turn, "at": progress.at, "began": progress.began, "did": progress.did}
    unit.update(row, turn=turn, updated_at=dl.now())
    got = ep.decide(plan, progress, engine.view(after, seat), seat)
    if isinstance(got, ep.Done):
        _finish(unit, game, seat, row, plan, progress, got, after, seq)


def refused(unit: Unit, game: Any, seat: int, action: dict[str, Any], why: str,
            state: Any, seq: int) -> None:
    """The engine refused the step the seat's plan (or order) chose: the plan stops there,
    or the order is left for this decision; the seat is asked with its words."""
    what = unit.facts.pop((ACTING, game.id, seat), None)
    row = row_of(unit, game.id, seat)
    if what is None or row is None:
        return
    if what[0] == "order":
        unit.facts[(FAILED, game.id, seat, seq)] = True
        _tell(unit, game.id, seat, row, seq, [
            f"Your standing order “{what[1].step.text}” could not play: {why}"])
        _ask(unit, game, seat, state, seq)
        return
    plan, progress = _progress(row.turn)
    _finish(unit, game, seat, row, plan, progress, ep.Stop(why, what[1]), state, seq)


def settle(unit: Unit, game: Any, seats: int, state: Any, seq: int) -> None:
    """After the automatic moves: a plan whose turn is over (or that can no longer be
    played) is closed with its words. Waiting plans stay."""
    for seat in range(seats):
        row = row_of(unit, game.id, seat)
        if row is None or not row.turn:
            continue
        plan, progress = _progress(row.turn)
        got = ep.decide(plan, progress, engine.view(state, seat), seat)
        if isinstance(got, (ep.Done, ep.Stop)):
            _finish(unit, game, seat, row, plan, progress, got, state, seq)


def _finish(unit: Unit, game: Any, seat: int, row: Row, plan: ep.Plan, progress: ep.Progress,
            got: ep.Done | ep.Stop, state: Any, seq: int) -> None:
    did = ", ".join(progress.did)
    text = plan.text or ", ".join(s.text for s in plan.steps)
    if isinstance(got, ep.Done):
        line = f"Your plan “{text}”: you {did}." if did else f"Your plan “{text}” was done."
        if got.unused:
            line += f" ({got.unused} was not needed.)"
    else:
        at = f" at “{got.step.text}”" if got.step is not None else ""
        # the reason in the numbers a player counts with (from 1: an engine refusal counts
        # from 0), and no promise about the rest: the clock may still play the decision
        # at its deadline, and the same mail then says so (issue 51 item 3)
        reason = commands.mail_words(got.reason).rstrip(".")
        line = (f"Your plan “{text}” stopped{at}: {reason}."
                + (f" Before that, you {did}." if did else "")
                + " The rest of the plan was not played.")
    key = (row.turn or {}).get("key")
    unit.update(row, turn=None, updated_at=dl.now())
    _tell(unit, game.id, seat, row, seq, [line])
    unit.update(row, told={**(row.told or {}), "key": key})
    if isinstance(got, ep.Stop) and seat in (engine.status(state).get("to_act") or []):
        _ask(unit, game, seat, state, seq)


def _tell(unit: Unit, game_id: str, seat: int, row: Row, seq: int, lines: list[str]) -> None:
    """Add ``lines`` to what the seat's next mail says its plan or orders did: after the
    lines still untold when this move began (the seat has not played by itself since)."""
    told = unit.facts.get((STARTED, game_id, seat))
    if told is None:
        told = unit.facts[(STARTED, game_id, seat)] = _untold(unit, game_id, seat, row)
    told.extend(lines)
    unit.update(row, told={"step": seq, "lines": told[-TOLD_KEPT:]}, updated_at=dl.now())


def _untold(unit: Unit, game_id: str, seat: int, row: Row) -> list[str]:
    return list(told_lines(row, int(seat_prefs.mail_row(unit, game_id, seat).last_acted_step or 0)))


def _ask(unit: Unit, game: Any, seat: int, state: Any, seq: int) -> None:
    """The seat decides by itself again: its turn mail now, saying why (the words are in
    its plan row already), instead of any mail the plan's steps queued on the way."""
    ctx = notify.Context.load(unit, game)
    if not ctx.is_human(seat) or notify.mode_of(unit, ctx, seat) != EVERY:
        return
    now = dl.now()
    unsent.supersede_unsent(unit, ctx.id, seat, now)
    talk = seat_prefs.replied(unit, ctx.id, seat)
    turn_mails.turn(unit, ctx, seat, state, None, now, key=f"plan:{ctx.id}:{seat}:{seq}",
                    step=seq, delay=timedelta(0) if talk else ctx.delay, conversation=talk,
                    due_later=True)


def attach(unit: Unit, game: Any, seat: int, payload: dict[str, Any], source: str,
           state: Any, seq: int, now: datetime | None = None) -> Row:
    """Store what a reply, the page or JSON sent (``payload``: a plan with the step it is
    at, standing orders, a clear or a cancel) on the move's unit of work, where the
    automatic moves that follow find it."""
    row = row_of(unit, game.id, seat)
    if row is None:
        row = unit.create_seat_row(PLANS, {"game_id": game.id, "seat": seat})
    changes: dict[str, Any] = {"updated_at": now or dl.now()}
    orders = list(row.orders or [])
    if payload.get("clear_orders"):
        orders = []
    for order in payload.get("orders") or []:
        checked = ep.order_from_json(order)
        orders = [o for o in orders if o.get("on") != checked.on]
        orders.append({**checked.to_json(), "source": source})
    if len(orders) > ep.MAX_ORDERS:
        # (kept, they would all be dropped when read back: refused whole, in the words
        # the API and the reply grammar use for one list too many, issue 45 item 5)
        raise BadRequest(ep.over_limit("orders", len(orders)))
    if orders != list(row.orders or []) or payload.get("clear_orders"):
        changes["orders"] = orders or None
    if payload.get("cancel"):
        changes["turn"] = None
    if payload.get("plan") is not None:
        view = engine.status(state)
        at = int(payload.get("at") or 0)
        first = ep.from_json(payload["plan"]).steps[0]
        did = ([ep.did_words(payload["first"], engine.view(state, seat),
                             engine.view(state, seat), seat)] if payload.get("first") else [])
        # begun: its first step was played and was not the round-start peek (a plan sent
        # mid-turn, "KEEP AT 2, SKIP", is over with that turn), or the turn is under way
        began = at > 0 and not first.answers <= {"peek"} or (
            view.get("current") == seat and view.get("pending") not in ("turn", None)
            and seat not in (view.get("peeks_pending") or []))
        changes["turn"] = {"plan": payload["plan"], "at": at, "round": view.get("round"),
                           "began": began, "did": did,
                           "sent_step": int(payload.get("sent_step", seq)),
                           "source": source, "key": payload.get("key")}
        changes["told"] = None
        unit.facts[(STARTED, game.id, seat)] = []
    unit.update(row, **changes)
    return row
