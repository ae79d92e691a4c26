"""A seat's own page: its private view and its legal moves, behind its signed link.

GET shows; POST ``/act`` submits one of the listed actions with the position
(``expected_seq``) it was chosen on and the seat's CSRF token. A refused move
(422) or a stale page (409) shows the page again with the reason in words.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from app import services, tokens
from app.web import round_summary, view_helpers

bp = Blueprint("play", __name__)
bp.record_once(view_helpers.install)


def render_seat(access: services.SeatAccess, snap: services.Snapshot,
                error: str | None = None, status: int = 200) -> Any:
    """The seat page for this link, optionally with an error above the moves."""
    me = access.seat
    view = snap.view(me)
    names = snap.game.names
    kinds = [s.kind for s in snap.game.seats]
    context = view_helpers.table_context(view, names, kinds, me)
    playable = snap.game.status == "running"
    legal = list(view.get("legal_actions") or []) if playable else []
    # Simon claims (R16, preference "off") are open to a seat whoever's turn it is,
    # and only while that card stays on top: they get a panel of their own, up top.
    claims = [a for a in legal if a.get("type") == "simon"]
    others = [a for a in legal if a.get("type") != "simon"]
    groups = view_helpers.group_actions(others, view, me, names)
    simon = view_helpers.group_actions(claims, view, me, names)[0] if claims else None
    if snap.game.status == "abandoned":
        context["pending"] = "This game was abandoned: no more moves can be made."
    return render_template(
        "play.html", **context, game=snap.game, game_title=snap.game.name,
        groups=groups, my_move=bool(groups), simon=simon,
        simon_value=view_helpers.top_discard_value(view),
        exch=view_helpers.exchange_choices(view, me),
        since=view_helpers.since_last_acted(view, names, me),
        token=access.token, csrf=access.csrf, error=error, no_referrer=True,
        round_summary=round_summary.for_page(access, snap, view),
    ), status


@bp.get("/play/<token>")
def show(token: str) -> Any:
    """The seat's private view and its moves."""
    access, snap = services.seat_snapshot(token)
    return render_seat(access, snap)


def _posted_action(form: Any) -> tuple[dict[str, Any], int]:
    """The chosen action and ``expected_seq`` from the form, with the optional fields.

    The action is one of the dicts the page listed, posted back as JSON; the
    exchange's optional ``into``/``end``/``spotter`` come from form controls
    (design.md) and are added only when present.
    """
    try:
        action = json.loads(form.get("action") or "")
    except ValueError:
        action = None
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise services.BadRequest("That move was not understood. Reload your page and "
                                  "choose one of the buttons.")
    try:
        expected_seq = int(form.get("expected_seq", ""))
    except ValueError:
        raise services.BadRequest("The form is missing the move number it was made on. "
                                  "Reload your page and try again.") from None
    positions = action.get("positions")
    if isinstance(positions, list) and len(positions) > 1 and all(
            isinstance(p, int) for p in positions):
        if form.get("end") in ("left", "right"):
            action["end"] = form["end"]
        if form.get("into_side") == "rightmost":
            action["into"] = max(positions)
    if form.get("spotter") in ("1", "on", "true"):
        action["spotter"] = True
    return action, expected_seq


@bp.post("/play/<token>/act")
def act(token: str) -> Any:
    """Submit one move, then back to the page (POST-redirect-GET)."""
    access = services.open_seat(token)
    if not tokens.check_csrf(request.form.get("csrf_token"), access.game_id, access.seat,
                             access.version):
        raise services.Forbidden("This form was not made for your seat (or your link was "
                                 "replaced). Reload your page and try again.", reason="csrf")
    action, expected_seq = _posted_action(request.form)
    try:
        done = services.submit_action(access.game_id, access.seat, action, expected_seq)
    except (services.Illegal, services.Conflict) as exc:
        return render_seat(access, services.snapshot(access.game_id), exc.message, exc.status)
    names = done.snapshot.game.names
    own = done.applied[0].events if done.applied else []
    said = [view_helpers.describe(e, names) for e in own]
    flash(" ".join(said) if said else "Done.", "success")
    return redirect(url_for("play.show", token=token), code=303)
