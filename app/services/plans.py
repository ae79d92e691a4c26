"""Deciding ahead (issue 35), the use cases: send a plan or standing orders (by reply,
from the seat page, by JSON), cancel them, read them back. Every caller outside the
services (``web.plan_forms``, ``web.seat_page``, ``inbound.plan_replies``) comes here.

A plan whose first step is the seat's decision now is sent *with* that step, as one
move (``moves.submit_action(..., plan=...)``: the plan is stored in the move's
transaction and its next steps are played right after it, ``services.plan_steps``); a
plan whose turn has not come yet, and standing orders, are stored in a transaction of
their own. What a plan will do, and what it did, is said in words (``engine.plans``).

Two modules, not one: a plan's steps are played inside every move (``games`` and
``moves`` call ``plan_steps``), and these use cases start moves (they call ``moves`` and
``games``); in one module each would import the other, a cycle the architecture tests
refuse.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from app import engine
from app.i18n import _
from app.services.status_words import status_word
from app.db import read_session
from app.db.unit import unit_of_work
from app.engine import plans as ep
from app.plans.models import PLANS, told_lines
from app.services import plan_steps
from app.services.errors import BadRequest, Illegal
from app.services.moves import submit_action
from app.services.reading import snapshot
from app.services.games import _finish, _play_automatic
from app.services.repository import _load_game, move_seats
from app.services.results import Submitted


@dataclass(frozen=True)
class Sent:
    """What became of a plan or of orders sent: ``what`` is "played" (its first step was
    the move, and the plan went on as far as it could), "waiting" (stored for its turn),
    "orders" (only orders changed), "already" (the same was sent before); ``words`` say
    it for the answer; ``submitted`` is the move, when there was one."""

    what: str
    words: list[str] = field(default_factory=list)
    submitted: Submitted | None = None


def key_of(step: int, text: str) -> str:
    return f"{step}:{hashlib.sha256(' '.join(text.split()).lower().encode()).hexdigest()[:16]}"


def checked(payload: Any) -> dict[str, Any]:
    """The payload as it will be stored (``BadRequest`` with words when it makes no sense)."""
    if not isinstance(payload, dict):
        raise BadRequest('Send {"plan": {...}} and/or {"orders": [...]}.')
    out: dict[str, Any] = {"plan": None, "orders": [], "clear_orders": bool(payload.get("clear_orders")),
                           "cancel": bool(payload.get("cancel"))}
    try:
        if payload.get("plan") is not None:
            out["plan"] = ep.from_json(payload["plan"], sent=True).to_json()
        out["orders"] = [o.to_json() for o in ep.orders_from_json(payload.get("orders") or [],
                                                                    sent=True)]
    except ep.PlanError as exc:
        raise BadRequest(str(exc)) from None
    return out


def check_cards(game_id: str, seat: int, payload: dict[str, Any]) -> None:
    """Refuse, as it arrives, a plan or order that names a card that is not there
    (``ep.missing_card``: "X 9" for a six-card village), in words and keeping nothing;
    by page, JSON and reply alike (issue 51 item 3)."""
    steps = list(ep.from_json(payload["plan"]).steps) if payload.get("plan") else []
    steps += [order.step for order in ep.orders_from_json(payload.get("orders") or [])]
    if not steps:
        return
    why = ep.missing_card(steps, engine.view(snapshot(game_id).state, seat), seat)
    if why:
        raise BadRequest(_("%(why)s Nothing was kept.", why=why))


def first_move(game_id: str, seat: int, plan_json: dict[str, Any]) -> tuple[ep.Next, int]:
    """What the plan does on the seat's view now, and the step that view is at."""
    snap = snapshot(game_id)
    view = engine.view(snap.state, seat)
    progress = ep.Progress(round=int(view.get("round") or 0), sent_step=snap.seq)
    plan = ep.from_json(plan_json)
    got = ep.decide(plan, progress, view, seat)
    if isinstance(got, ep.Wait) and not plan.steps[0].answers & {"turn", "peek"}:
        # checked for sense on arrival: a plan that waits must begin its turn
        return ep.Stop("a plan that waits for your turn must begin it (DRAW, TAKE, CALL...)",
                       plan.steps[0]), snap.seq
    return got, snap.seq


def send(game_id: str, seat: int, payload: dict[str, Any], expected_seq: int | None,
         source: str = "player", key: str | None = None) -> Sent:
    """Send a plan and/or orders for ``seat`` (the page and JSON; replies go through the
    inbound worker, which judges a late reply first and then calls ``play`` or ``store``)."""
    payload = checked(payload)
    check_cards(game_id, seat, payload)
    if payload["plan"] is None:
        return store(game_id, seat, payload, source, key)
    got, seq = first_move(game_id, seat, payload["plan"])
    if isinstance(got, ep.Stop):
        raise Illegal(_("Your plan cannot start: %(why)s. Nothing was changed.", why=got.reason),
                      reason="plan")
    if isinstance(got, ep.Move):
        return play(game_id, seat, got.action, expected_seq if expected_seq is not None else seq,
                    payload, source, key)
    return store(game_id, seat, payload, source, key)


def play(game_id: str, seat: int, action: dict[str, Any], expected_seq: int,
         payload: dict[str, Any], source: str, key: str | None = None) -> Sent:
    """The plan's first step as the seat's move, the plan stored in its transaction."""
    done = submit_action(game_id, seat, action, expected_seq, source=source,
                         plan={**payload, "at": 1, "first": action, "key": key})
    shown = state_of(game_id, seat)
    return Sent("waiting" if shown["plan"] is not None else "played", _words(shown), done)


def store(game_id: str, seat: int, payload: dict[str, Any], source: str,
          key: str | None = None) -> Sent:
    """Store a plan that waits for its turn, and/or orders, in a transaction of its own
    (the plans read with the game's seats, as a move reads them)."""
    with unit_of_work() as unit:
        seats = move_seats(unit, game_id)
        game, seq, state = _load_game(unit, game_id)
        row = plan_steps.row_of(unit, game.id, seat)
        if key is not None and row is not None and key in (
                (row.turn or {}).get("key"), (row.told or {}).get("key")):
            return Sent("already", words_now(game_id, seat, unit_row=row))
        if game.status != "running":
            raise Illegal(_("The game is %(status)s: no plan can be kept for it.",
                            status=status_word(game.status)),
                          reason="plan")
        plan_steps.attach(unit, game, seat, {**payload, "key": key}, source, state, seq)
        # (an order for the decision the seat faces now plays it at once, like a plan)
        start = seq
        seq, state, more = _play_automatic(unit, game, seq, state, seats)
        _finish(unit, game, start, seq, state, more)
        row = plan_steps.row_of(unit, game.id, seat)
        words = words_now(game_id, seat, unit_row=row)
    what = "orders" if payload["plan"] is None else "waiting" if row is not None and row.turn \
        else "played"
    return Sent(what, words)


def cancel(game_id: str, seat: int, source: str = "player") -> Sent:
    """The seat's waiting plan is dropped (its standing orders stay)."""
    return store(game_id, seat, {"plan": None, "orders": [], "cancel": True}, source)


def clear_orders(game_id: str, seat: int, source: str = "player") -> Sent:
    """The seat's standing orders are dropped (its waiting plan stays)."""
    return store(game_id, seat, {"plan": None, "orders": [], "clear_orders": True}, source)


def state_of(game_id: str, seat: int) -> dict[str, Any]:
    """The seat's plan, standing orders and what they last did, for its page and JSON."""
    with read_session() as session:
        return state_in(session, game_id, seat)


def state_in(session: Any, game_id: str, seat: int) -> dict[str, Any]:
    """``state_of`` on a session the caller holds (the seat page reads it with the rest)."""
    row = session.connection().execute(PLANS.select().where(
        PLANS.c.game_id == game_id, PLANS.c.seat == seat)).mappings().first()
    return _shown(dict(row) if row is not None else None)


class _R:
    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


def _shown(values: dict[str, Any] | None) -> dict[str, Any]:
    if values is None:
        return {"plan": None, "orders": [], "told": []}
    turn = values.get("turn")
    plan = None
    if turn:
        checked_plan = ep.from_json(turn["plan"])
        left = ep.Plan(checked_plan.steps[int(turn.get("at") or 0):], checked_plan.text)
        plan = {"text": checked_plan.text, "words": ep.plan_words(left) if left.steps else "",
                "at": int(turn.get("at") or 0), "plan": turn["plan"], "source": turn.get("source")}
    orders = []
    for order in plan_steps.orders_of(_R(values)):
        orders.append({"on": order.on, "text": order.step.text, "words": ep.order_words(order),
                       "order": order.to_json()})
    told = list(((values.get("told") or {}).get("lines")) or [])
    return {"plan": plan, "orders": orders, "told": told}


def words_now(game_id: str, seat: int, unit_row: Any = None) -> list[str]:
    """What the seat's plan and orders are now, in words (the answer to what it sent)."""
    shown = _shown(dict(unit_row.values) if unit_row is not None else None) \
        if unit_row is not None else state_of(game_id, seat)
    return _words(shown)


def _words(shown: dict[str, Any]) -> list[str]:
    lines = []
    if shown["plan"] is not None:
        lines.append(_("Your plan waits for its turn: %(plan)s", plan=shown['plan']['words']))
    lines += list(shown["told"])
    if shown["orders"]:
        lines.append(_("Your standing orders: %(orders)s",
                       orders=" ".join(o["words"] for o in shown["orders"])))
    return lines


__all__ = ["Sent", "send", "play", "store", "cancel", "state_of", "checked", "first_move",
           "key_of", "told_lines"]
