"""Deciding ahead on the web (issue 35): on the seat page, send a plan or standing orders
in words, cancel a waiting plan, clear the orders (the page's box,
``templates/partials/plan.html``, is read with the seat page); and the same as JSON, ``/api/play/<token>/plan``
(GET, POST, DELETE; described in ``openapi_parts.PLAN_PATHS``, which
``api.openapi_document`` merges). Here rather than in ``app.web.api``, which is long."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, request, url_for

from app import services
from app.i18n import _
from app.mail import commands
from app.services import plans
from app.web.seat_request import SeatRequest, seat_required
from app.web.table import _body as _json_body  # (one JSON body check: 415, 400)

bp = Blueprint("plan_forms", __name__)


def _back(token: str) -> Any:
    return redirect(url_for("play.show", token=token, plan=1) + "#plan", code=303)



@bp.post("/play/<token>/plan")
@seat_required
def send(seat: SeatRequest) -> Any:
    """A plan or orders in words, as a reply would carry them."""
    access, token = seat.access, seat.token
    try:
        sent = plans.send(access.game_id, access.seat,
                          plan_payload({"words": request.form.get("words", "")}), None,
                          source="player")
    except services.ServiceError as exc:
        flash(exc.message, "error")
        return _back(token)
    flash(" ".join(sent.words) or "Done.", "success")
    return _back(token)


@bp.post("/play/<token>/plan/cancel")
@seat_required
def cancel(seat: SeatRequest) -> Any:
    access, token = seat.access, seat.token
    plans.cancel(access.game_id, access.seat)
    flash(_("Your plan is cancelled: you decide your turn yourself."), "success")
    return _back(token)


@bp.post("/play/<token>/plan/orders/clear")
@seat_required
def clear(seat: SeatRequest) -> Any:
    access, token = seat.access, seat.token
    plans.clear_orders(access.game_id, access.seat)
    flash(_("Your standing orders are cleared."), "success")
    return _back(token)


# -- the JSON routes (described in ``openapi_parts.PLAN_PATHS``) ----------------------

def plan_payload(body: dict[str, Any]) -> dict[str, Any]:
    """A plan body as ``services.plans`` takes it: ``words`` read as a reply's, or the JSON."""
    if "words" not in body:
        return {key: body[key] for key in ("plan", "orders", "clear_orders", "cancel") if key in body}
    parsed = commands.read_plan(str(body["words"])) or commands.parse(str(body["words"]))
    if parsed.limit:   # over a limit: refused whole, as a reply is (issue 45 item 5)
        raise services.BadRequest(parsed.problem)
    if parsed.plan is None:
        if parsed.action is None:
            raise services.BadRequest(parsed.problem or _("There is no plan in these words."))
        return {"plan": {"steps": [{"choices": [{"action": parsed.action}]}],
                         "text": parsed.line.upper()}}
    return parsed.plan


@bp.get("/api/play/<token>/plan")
@seat_required
def plan_state(seat: SeatRequest) -> Any:
    """The seat's waiting plan, standing orders and what they last did (``PlanState``)."""
    access = seat.access
    return jsonify(plans.state_of(access.game_id, access.seat))


@bp.post("/api/play/<token>/plan")
@seat_required
def plan_send(seat: SeatRequest) -> Any:
    """Decide ahead (``PlanBody``): played at once as far as it goes, or kept for its turn."""
    access = seat.access
    body = _json_body()
    sent = plans.send(access.game_id, access.seat, plan_payload(body), body.get("expected_seq"),
                      source="player")
    return jsonify({"what": sent.what, "words": sent.words,
                    "seq": sent.submitted.seq if sent.submitted is not None else None,
                    "state": plans.state_of(access.game_id, access.seat)})


@bp.delete("/api/play/<token>/plan")
@seat_required
def plan_cancel(seat: SeatRequest) -> Any:
    """Cancel the seat's waiting plan; its standing orders stay."""
    access = seat.access
    plans.cancel(access.game_id, access.seat)
    return jsonify(plans.state_of(access.game_id, access.seat))

