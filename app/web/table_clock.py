"""What the table shows about time: each seat's deadline and how long it has been waited for.

These readers take the session ``services.seat_page``/``game_page`` already
opened, so a page reads everything it shows in one database session. They
only read (the clock's rows are written by the clock and the hooks).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.clock import deadlines as dl
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


def mail_box(session: Session, access: services.SeatAccess,
             view: dict[str, Any] | None = None, marks: Any = None) -> dict[str, Any]:
    """The seat's mail-and-clock box (``preferences.status``), on this session."""
    from app.services import seat_settings as preferences
    return preferences.status(access.game_id, access.seat, session, view, marks)


def seat_page_reads(session: Session, access: services.SeatAccess,
                    snap: services.Snapshot) -> dict[str, Any]:
    """Everything a seat page reads besides the game, for ``services.seat_page``: the
    clocks, the mail box, and which steps the server played for which seat (issue 17
    item 2: the page's "since your last move" says "Time ran out for Eve: ...")."""
    from app.mail import notify
    from app.services import talk
    from app.services import notice_targets
    from app.services import table
    from app.services import ahead
    marks = notify.marks_of_game(session, access.game_id)  # (read once for both)
    mail = mail_box(session, access, snap.view(access.seat), marks)
    decisions = dl.open_rows(session, access.game_id, kind=dl.DECISION)  # (clocks, people)
    return {"clocks": seat_clocks(session, access.game_id, decisions),
            "mail": mail,
            "played": notify.played_steps(marks, access.game_id, len(snap.game.names), 0),
            # the table talk, its times in the seat's zone (issue 20 item 1)
            "talk": talk.for_page(session, access.game_id, snap.game.names, access.seat,
                                  mail.get("time_zone")),
            # the seat's notice targets, masked (issue 20 item 3)
            "targets": notice_targets.status(session, access),
            # the table's people and clocks: banks, time given, votes (issue 21)
            "people": table.read(session, snap.game, access.seat, snap.state,
                                   str(mail.get("time_zone") or "UTC"), decisions=decisions),
            # the seat's waiting plan and standing orders (issue 35)
            "plan": ahead.state_in(session, access.game_id, access.seat)}


def span(delta_seconds: float) -> str:
    """'3 h', '2 d', '5 min': how long, for a badge."""
    seconds = max(0, int(delta_seconds))
    if seconds < 3600:
        return f"{max(1, seconds // 60)} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"
