"""Deciding ahead on the web (issue 35): on the seat page, send a plan or standing orders
in words, cancel a waiting plan, clear the orders (``seat_plan`` gives the page's box,
``templates/partials/plan.html``); and the same as JSON, ``/api/play/<token>/plan``
(GET, POST, DELETE; described in ``openapi_parts.PLAN_PATHS``, which
``api.openapi_document`` merges). Here rather than in ``app.web.api``, which is long."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, g, jsonify, redirect, request, url_for

from app import services
from app.mail import commands
from app.services import ahead
from app.web import seat_forms
from app.web.people import _body as _json_body  # (one JSON body check: 415, 400)

bp = Blueprint("plan_forms", __name__)


@bp.app_template_global("seat_plan")
def seat_plan(token: str) -> dict[str, Any] | None:
    """The seat's plan box: its waiting plan, orders and what they last did, as the page
    read them with the rest of it (``table_clock.seat_page_reads``), else read now."""
    seat = g.get("seat")
    reads = getattr(seat, "reads", None) or {}
    access = getattr(seat, "access", None)
    if access is not None and access.token == token and "plan" in reads:
        return reads["plan"]
    try:
        access = services.open_seat(token)
    except services.ServiceError:
        return None
    return ahead.state_of(access.game_id, access.seat)


def _back(token: str) -> Any:
    return redirect(url_for("play.show", token=token, plan=1) + "#plan", code=303)



@bp.post("/play/<token>/plan")
def send(token: str) -> Any:
    """A plan or orders in words, as a reply would carry them."""
    access = seat_forms.form_seat(token)
    try:
        sent = ahead.send(access.game_id, access.seat,
                          plan_payload({"words": request.form.get("words", "")[:200]}), None,
                          source="player")
    except services.ServiceError as exc:
        flash(exc.message, "error")
        return _back(token)
    flash(" ".join(sent.words) or "Done.", "success")
    return _back(token)


@bp.post("/play/<token>/plan/cancel")
def cancel(token: str) -> Any:
    access = seat_forms.form_seat(token)
    ahead.cancel(access.game_id, access.seat)
    flash("Your plan is cancelled: you decide your turn yourself.", "success")
    return _back(token)


@bp.post("/play/<token>/plan/orders/clear")
def clear(token: str) -> Any:
    access = seat_forms.form_seat(token)
    ahead.clear_orders(access.game_id, access.seat)
    flash("Your standing orders are cleared.", "success")
    return _back(token)


# -- the JSON routes (described in ``openapi_parts.PLAN_PATHS``) ----------------------

def plan_payload(body: dict[str, Any]) -> dict[str, Any]:
    """A plan body as ``services.ahead`` takes it: ``words`` read as a reply's, or the JSON."""
    if "words" not in body:
        return {key: body[key] for key in ("plan", "orders", "clear_orders", "cancel") if key in body}
    parsed = commands.read_plan(str(body["words"])) or commands.parse(str(body["words"]))
    if parsed.plan is None:
        if parsed.action is None:
            raise services.BadRequest(parsed.problem or "There is no plan in these words.")
        return {"plan": {"steps": [{"choices": [{"action": parsed.action}]}],
                         "text": parsed.line.upper()}}
    return parsed.plan


@bp.get("/api/play/<token>/plan")
def plan_state(token: str) -> Any:
    """The seat's waiting plan, standing orders and what they last did (``PlanState``)."""
    access = services.open_seat(token)
    return jsonify(ahead.state_of(access.game_id, access.seat))


@bp.post("/api/play/<token>/plan")
def plan_send(token: str) -> Any:
    """Decide ahead (``PlanBody``): played at once as far as it goes, or kept for its turn."""
    access = services.open_seat(token)
    body = _json_body()
    sent = ahead.send(access.game_id, access.seat, plan_payload(body), body.get("expected_seq"),
                      source="player")
    return jsonify({"what": sent.what, "words": sent.words,
                    "seq": sent.submitted.seq if sent.submitted is not None else None,
                    "state": ahead.state_of(access.game_id, access.seat)})


@bp.delete("/api/play/<token>/plan")
def plan_cancel(token: str) -> Any:
    """Cancel the seat's waiting plan; its standing orders stay."""
    access = services.open_seat(token)
    ahead.cancel(access.game_id, access.seat)
    return jsonify(ahead.state_of(access.game_id, access.seat))

