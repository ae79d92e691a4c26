"""Which round summary a seat's page shows, and dismissing it.

After a round is scored the seat page explains it (``app.engine.summary``,
built from the public events of the seat's own view) until the seat either
dismisses it or acts in the next round: its own move (``source`` "player",
not a timeout or a bot) logged after the step that scored the round. The game
over page keeps the last round until it is dismissed.
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import col, select

from app.gamelog import store
from app.db import read_session, write_session
from app.engine.summary import last_summary

#: Log-only entries (R29) that are not a move in the round.
NOT_A_MOVE = ("back", "away")


def for_seat(game_id: str, seat: int, view: dict[str, Any], names: list[str]) -> dict[str, Any] | None:
    """The words of the last scored round for this seat's page, or None if it is done with it."""
    summary = last_summary(view)
    if summary is None:
        return None
    with read_session() as session:
        row = session.get(store.Seat, (str(game_id), int(seat)))
        if row is None or row.summary_dismissed >= summary.round:
            return None
        moves = session.exec(select(store.Action.action).where(
            store.Action.game_id == str(game_id), store.Action.seat == int(seat),
            store.Action.source == "player", store.Action.seq > summary.step)).all()
    if any(move.get("type") not in NOT_A_MOVE for move in moves):
        return None
    return summary.words(names)


def dismiss(game_id: str, seat: int, round_no: int) -> None:
    """The seat has read round ``round_no``'s summary: hide it (and any earlier one)."""
    with write_session() as session:
        session.execute(
            sa.update(store.Seat)
            .where(col(store.Seat.game_id) == str(game_id), col(store.Seat.index) == int(seat),
                   col(store.Seat.summary_dismissed) < int(round_no))
            .values(summary_dismissed=int(round_no)))
