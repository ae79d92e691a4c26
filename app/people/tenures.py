"""Who held a seat when (issue 32): the one place that writes ``tenure`` rows.

A seat's first holder is written when the game is created (``begin``); a hand-over
(R49, ``app.services.people.hand_over``) closes the open tenure at the ``take_over``'s
seq and opens the newcomer's (``hand``). Both run in the caller's unit of work, so a
tenure exists exactly when the seat it describes does. Readers ask ``of_game``: one
statement for a game's whole history, from which ``Holders`` names whoever held a seat
at a step or at a time.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.people.models import Tenure


def begin(session: Session, game_id: str, seat: int, name: str, address: str,
          at: datetime) -> None:
    """The seat's first holder, from step 0 (a bot's address is "")."""
    session.add(Tenure(game_id=game_id, seat=seat, from_step=0, name=name,
                       address=address, started_at=at))


def hand(session: Session, game_id: str, seat: int, step: int, name: str, address: str,
         at: datetime) -> None:
    """The seat changed hands at ``step`` (the ``take_over``'s seq): the open tenure ends
    there and the newcomer's begins."""
    session.execute(update(Tenure).where(col(Tenure.game_id) == game_id,
                                         col(Tenure.seat) == seat,
                                         col(Tenure.to_step).is_(None))
                    .values(to_step=step, ended_at=at))
    session.add(Tenure(game_id=game_id, seat=seat, from_step=step, name=name,
                       address=address, started_at=at))


@dataclass(frozen=True)
class Holders:
    """A game's tenures, seat by seat, oldest first."""

    rows: tuple[Tenure, ...]

    def at_step(self, seat: int, step: int) -> Tenure | None:
        """Who held ``seat`` at ``step`` (a move of seq ``s`` was made at step ``s - 1``)."""
        for row in self.rows:
            if row.seat == seat and row.from_step <= step and (
                    row.to_step is None or step < row.to_step):
                return row
        return None

    def name_at(self, seat: int, step: int, default: str) -> str:
        row = self.at_step(seat, step)
        return row.name if row is not None else default

    def of(self, seat: int) -> list[Tenure]:
        return [row for row in self.rows if row.seat == seat]


def of_game(session: Session, game_id: str) -> Holders:
    """Every tenure of a game, in one statement."""
    return Holders(tuple(session.exec(
        select(Tenure).where(Tenure.game_id == game_id)
        .order_by(col(Tenure.seat), col(Tenure.from_step))).all()))
