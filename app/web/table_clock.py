"""What the table shows about time: each seat's deadline and how long it has been waited for.

These readers take the session a page already opened (``app.web.seat_page``,
``services.game_page``), so a page reads everything it shows in one database
session. They only read (the clock's rows are written by the clock and the hooks).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.clock import deadlines as dl
from app.i18n import _
from app import services


def seat_clocks(session: Session, game_id: str,
                rows: list[dl.Deadline] | None = None) -> dict[int, dict[str, datetime]]:
    """Per seat with an open decision: when it is due and since when it is waited for
    (``rows``: the game's open decision rows, when the page read them already)."""
    clocks: dict[int, dict[str, datetime]] = {}
    for row in rows if rows is not None else dl.open_rows(session, game_id, kind=dl.DECISION):
        clocks.setdefault(row.seat, {"due": dl.as_utc(row.due_at),
                                     "since": dl.as_utc(row.opened_at)})
    return clocks


def span(delta_seconds: float) -> str:
    """'3 h', '2 d', '5 min': how long, for a badge."""
    seconds = max(0, int(delta_seconds))
    if seconds < 3600:
        return _("%(num)s min", num=max(1, seconds // 60))
    if seconds < 2 * 86400:
        return _("%(num)s h", num=seconds // 3600)
    return _("%(num)s d", num=seconds // 86400)
