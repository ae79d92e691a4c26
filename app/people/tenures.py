"""Who held a seat when (issue 32): the one place that writes ``tenure`` rows.

A seat's first holder is written when the game is created (``begin``); a hand-over
(R49, ``app.services.leaving.hand_over``) closes the open tenure at the ``take_over``'s
seq and opens the newcomer's (``hand``); a person moving to a new address takes their
open tenures with them (``follow``, issue 47 item 5). All run in the caller's unit of work, so a
tenure exists exactly when the seat it describes does. Readers ask ``of_game``: one
statement for a game's whole history, from which ``Holders`` names whoever held a seat
at a step or at a time.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence

import sqlalchemy as sa
from sqlalchemy import update
from sqlmodel import Session, col, select

from app.db.statements import Insert, table_of
from app.db.unit import Unit
from app.engine.names import SeatNames
from app.gamelog import store
from app.people.models import Person, Tenure


def begin(unit: Unit, game_id: str, holders: Sequence[tuple[str, str]], at: datetime) -> None:
    """Each seat's first holder, from step 0: ``holders`` are the seats' ``(name,
    address)`` in order (a bot's address is ""). One insert queued on the game's unit."""
    unit.insert(Insert(_TENURES, [
        {"game_id": game_id, "seat": seat, "from_step": 0, "to_step": None, "name": name,
         "address": address, "started_at": at, "ended_at": None}
        for seat, (name, address) in enumerate(holders)]))


def hand(unit: Unit, game_id: str, seat: int, step: int, name: str, address: str,
         at: datetime) -> None:
    """The seat changed hands at ``step`` (the ``take_over``'s seq): the open tenure ends
    there and the newcomer's begins. Sent now, not queued: the mails the hand-over's unit
    composes after it name each stretch by these rows (``names_of``)."""
    unit.facts.pop((HELD, game_id), None)  # (``held_in``: read again after this)
    connection = unit.session.connection()
    connection.execute(sa.update(_TENURES).where(
        _TENURES.c.game_id == game_id, _TENURES.c.seat == seat, _TENURES.c.to_step.is_(None))
        .values(to_step=step, ended_at=at))
    connection.execute(sa.insert(_TENURES).values(
        game_id=game_id, seat=seat, from_step=step, name=name, address=address,
        started_at=at))


@dataclass(frozen=True)
class Named:
    """What a person is called at each table of theirs that still runs: ``names``, the
    name of their seat in each game (by game id), and ``taken``, a game where another
    seat already goes by ``wanted`` (its name; None: no clash)."""

    names: dict[str, str]
    taken: str | None


def named(session: Session, address: str, wanted: str | None) -> Named:
    """The names of ``address``'s seats in its running games and whether ``wanted`` is
    another seat's name in one of them (one statement: the seats of those games)."""
    mine = sa.select(_SEATS.c.game_id).select_from(_SEATS.join(
        _GAMES, _GAMES.c.id == _SEATS.c.game_id)).where(
        sa.func.lower(_SEATS.c.email) == address.strip().lower(),
        _SEATS.c.kind == "human", _GAMES.c.status == "running")
    found = session.connection().execute(
        sa.select(_SEATS.c.game_id, _SEATS.c.email, _SEATS.c.name, _GAMES.c.name)
        .select_from(_SEATS.join(_GAMES, _GAMES.c.id == _SEATS.c.game_id))
        .where(_SEATS.c.game_id.in_(mine))).all()
    names: dict[str, str] = {}
    taken = None
    for game_id, email, name, game_name in found:
        if (email or "").strip().lower() == address.strip().lower():
            names[str(game_id)] = str(name)
        elif wanted is not None and str(name).casefold() == wanted.casefold():
            taken = str(game_name)
    return Named(names, taken)


def rename(unit: Unit, address: str, names: dict[str, str]) -> None:
    """The person's seats in those running games (and their open tenures: the stretch
    they hold now) take the name given for each game, on the caller's unit: two
    statements whatever the number of games (closed tenures keep the names of their
    time, R53)."""
    if not names:
        return
    by_game = sa.case(names, value=_SEATS.c.game_id)
    unit.statement(sa.update(_SEATS).where(
        _SEATS.c.game_id.in_(sorted(names)), _SEATS.c.kind == "human",
        sa.func.lower(_SEATS.c.email) == address.strip().lower()).values(name=by_game))
    unit.statement(sa.update(_TENURES).where(
        _TENURES.c.game_id.in_(sorted(names)), _TENURES.c.to_step.is_(None),
        sa.func.lower(_TENURES.c.address) == address.strip().lower())
        .values(name=sa.case(names, value=_TENURES.c.game_id)))


def follow(unit: Unit, old: str, new: str, game_ids: Sequence[str]) -> None:
    """The person moved from address ``old`` to ``new`` (issue 47 item 5): the stretches
    they hold now in those games (open tenures) take the new address, on the caller's
    unit, one statement; closed tenures keep the address of their time."""
    if not game_ids:
        return
    unit.statement(sa.update(_TENURES).where(
        _TENURES.c.game_id.in_(sorted(game_ids)), _TENURES.c.to_step.is_(None),
        sa.func.lower(_TENURES.c.address) == old.strip().lower()).values(address=new))


def has_history(session: Session, address: str) -> bool:
    """Whether ``address`` ever held a seat (a tenure of any game, open or closed)."""
    return session.connection().execute(sa.select(_TENURES.c.id).where(
        sa.func.lower(_TENURES.c.address) == address.strip().lower()).limit(1)).first() \
        is not None


def as_chosen(session: Session, players: list[dict[str, object]]) -> None:
    """A new game's people take the names they chose (``Person.name``, issue 46) in place
    of the ones its creator typed, where no other seat of the game goes by it (one
    statement for all their addresses)."""
    wanted = {str(p["email"]).lower(): p for p in players if p.get("kind") == "human"
              and p.get("email")}
    if not wanted:
        return
    persons = table_of(Person)
    chosen = dict(session.connection().execute(
        sa.select(sa.func.lower(persons.c.address), persons.c.name).where(
            sa.func.lower(persons.c.address).in_(sorted(wanted)),
            persons.c.name.is_not(None))).all())
    for address, name in chosen.items():
        others = {str(p["name"]).casefold() for p in players if p is not wanted[address]}
        if str(name).casefold() not in others:
            wanted[address]["name"] = str(name)


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


#: ``Unit.facts`` key of a game's tenures as a unit of work read them (``held_in``).
HELD = "tenures read by the unit"


def held_in(unit: Unit, game_id: str, seats: Sequence[object], current: Sequence[str],
            clean: Callable[[str], str] = lambda name: name) -> SeatNames:
    """``names_of`` on a unit of work: the tenures read once a unit (every action of a
    move builds a mail context, and a hand-over's reactions and its welcome two), read
    again after ``hand`` changed them."""
    if not handed_over(seats):
        return SeatNames(current)
    held = unit.facts.get((HELD, game_id))
    if held is None:
        held = unit.facts[(HELD, game_id)] = of_game(unit.session, game_id)
    return held.names(current, clean)


def of_game(session: Session, game_id: str) -> Holders:
    """Every tenure of a game, in one statement."""
    return Holders(tuple(session.exec(
        select(Tenure).where(Tenure.game_id == game_id)
        .order_by(col(Tenure.seat), col(Tenure.from_step))).all()))


_SEATS = table_of(store.Seat)
_GAMES = table_of(store.Game)
_TENURES = table_of(Tenure)
