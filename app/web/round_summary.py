"""The round summary on a seat's page: its data for ``play.html`` and its dismiss button.

``POST /play/<token>/summary/dismiss`` (with the seat's CSRF token and the
round number shown) hides the summary of that round on this seat's page; the
seat page also drops it once the seat moves in the next round
(``app.services.round_summaries``).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, request, url_for

from app import services
from app.i18n import _
from app.engine import ROUNDS
from app.services import round_summaries
from app.web.seat_request import SeatRequest, seat_required

bp = Blueprint("round_summary", __name__)


def for_page(access: services.SeatAccess, snap: services.Snapshot,
             view: dict[str, Any]) -> dict[str, Any] | None:
    """The words of the summary this seat's page shows now, or None."""
    return round_summaries.for_seat(access.game_id, access.seat, view, snap.game.names)


@bp.post("/play/<token>/summary/dismiss")
@seat_required
def dismiss(seat: SeatRequest) -> Any:
    """Hide the summary shown (POST-redirect-GET back to the seat page)."""
    access = seat.access
    raw = (request.form.get("round") or "").strip()
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= ROUNDS:  # ("²" is a digit)
        raise services.BadRequest(_("The round to hide must be a number from 1 to %(last)s. "
                                    "Reload your page and try again.", last=ROUNDS))
    round_summaries.dismiss(access.game_id, access.seat, int(raw))
    flash(_("The summary of round %(round)s is hidden; the replay keeps it.", round=raw),
          "success")
    return redirect(url_for("play.show", token=seat.token), code=303)
