"""The one check every form a seat page posts must pass: its CSRF token.

A form carries the CSRF token of the seat link it was made for (bound to the
seat's token version), so another site cannot post for a player, and a form
left open from before a link was replaced is refused. The move form checks
it inside the move's own transaction, the settings forms right after the
link; all three say the same thing.
"""
from __future__ import annotations

from flask import request

from app import services
from app.access import tokens


def check_csrf(access: services.SeatAccess) -> None:
    """Refuse (403) a posted form that was not made for this very link."""
    if not tokens.check_csrf(request.form.get("csrf_token"), access.game_id, access.seat,
                             access.version):
        raise services.Forbidden("This form was not made for your seat (or your link "
                                 "was replaced). Reload your page and try again.",
                                 reason="csrf")


def form_seat(token: str) -> services.SeatAccess:
    """The seat a posted form speaks for: its link opened, then its CSRF token checked
    (every settings form of a seat page enters here; the move form checks inside its
    own transaction)."""
    access = services.open_seat(token)
    check_csrf(access)
    return access
