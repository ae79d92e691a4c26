"""Who held a seat when (issue 32): the one place that writes ``tenure`` rows.

A seat's first holder is written when the game is created (``begin``); a hand-over
(R49, ``app.services.leaving.hand_over``) closes the open tenure at the ``take_over``'s
seq and opens the newcomer's (``hand``). Both run in the caller's unit of work, so a
tenure exists exactly when the seat it describes does. Readers ask ``of_game``: one
statement for a game's whole history, from which ``Holders`` names whoever held a seat
at a step or at a time.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.engine.names import SeatNames
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

    def of(self, seat: int) -> list[Tenure]:
        return [row for row in self.rows if row.seat == seat]

    def names(self, current: Sequence[str],
              clean: Callable[[str], str] = lambda name: name) -> SeatNames:
        """The names now (``current``, the seats' rows) and of every earlier stretch, for
        every reader of the past (pages, JSON, mail: ``SeatNames``); ``clean``: how the
        reader shows a name (the mail's header-safe names)."""
        count = len(current)
        steps = sorted({0, *(row.from_step for row in self.rows)})
        eras = {step: [clean(row.name) if (row := self.at_step(seat, step)) is not None
                       else current[seat] for seat in range(count)] for step in steps}
        since = [max((row.from_step for row in self.of(seat) if row.to_step is None),
                     default=0) for seat in range(count)]
        return SeatNames(current, eras, since)

    def before(self, seat: int) -> Tenure | None:
        """The stretch at ``seat`` that ended when its holder now took it (None: it has
        held it from the start)."""
        held = self.of(seat)
        return held[-2] if len(held) >= 2 and held[-1].to_step is None else None


def handed_over(seats: Sequence[object]) -> bool:
    """Whether any seat may have changed hands: a hand-over (like a rotation) bumps its
    link's version, so a game whose seats are all at version 1 needs no tenure read."""
    return any(int(getattr(seat, "token_version", 1) or 1) > 1 for seat in seats)


def names_of(session: Session, game_id: str, seats: Sequence[object],
             current: Sequence[str], clean: Callable[[str], str] = lambda name: name
             ) -> SeatNames:
    """The names of a game's readers of the past (``Holders.names``): one statement when a
    seat ever changed hands (``handed_over``), none otherwise."""
    if not handed_over(seats):
        return SeatNames(current)
    return of_game(session, game_id).names(current, clean)


def of_game(session: Session, game_id: str) -> Holders:
    """Every tenure of a game, in one statement."""
    return Holders(tuple(session.exec(
        select(Tenure).where(Tenure.game_id == game_id)
        .order_by(col(Tenure.seat), col(Tenure.from_step))).all()))
