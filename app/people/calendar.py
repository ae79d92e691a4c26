"""A person's clock: their zone and quiet hours, and the calendar a seat of theirs is
counted on (issue 21 item 1; the person's since issue 32; in the person's room since
issue 46).

A seat's deadlines, its time bank and when its mail may leave are all counted on one
``Calendar`` (``app.clock.calendar``, pure): the zone and quiet hours of the person
holding the seat now, and the running days of the game (``ClockSettings.days``).
``person_calendar`` builds it from a person row (the one way); the rest read the
person of a seat, or of a batch of seats, in one statement, for code outside a move (a
move reads the person rows with its seats: ``app.services.move_read``).
"""
from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Table
from sqlalchemy import select as sa_select
from sqlmodel import Session

from app.clock import deadlines as dl
from app.clock.calendar import Calendar
from app.db.statements import table_of
from app.db.unit import Row
from app.gamelog import store
from app.people.models import Person


def quiet_of(row: Any) -> tuple[int, int] | None:
    """A person's quiet hours as their row stores them (minutes after local midnight),
    None when they have none."""
    start, end = getattr(row, "quiet_start", None), getattr(row, "quiet_end", None)
    if start is None or end is None or start == end:
        return None
    return int(start), int(end)


def person_calendar(person: Any, settings: dl.ClockSettings) -> Calendar:
    """The calendar of a seat whose holder's person row is ``person`` (None: UTC, no
    quiet hours) in a game with these clock ``settings``: the one way a seat's clock is
    counted (its deadlines, its bank, when its mail may leave). Zone and quiet hours are
    the person's (issue 32), the running days the game's."""
    if person is None:
        return settings.calendar()
    return settings.calendar(person.time_zone, quiet_of(person))


def zone_of(name: str | None) -> ZoneInfo:
    """A person's time zone (UTC when unset or unknown)."""
    try:
        return ZoneInfo(name or "UTC")
    except (ValueError, KeyError, OSError):
        return ZoneInfo("UTC")


def _holder_settings(seat_where: Any) -> Any:
    """The zone and quiet hours of the person holding each seat ``seat_where`` selects
    (a human seat's address, as stored on it: ``person.address``)."""
    return (sa_select(_SEATS.c.game_id, _SEATS.c.index, _PERSONS.c.time_zone,
                      _PERSONS.c.quiet_start, _PERSONS.c.quiet_end)
            .select_from(_SEATS.join(_PERSONS, _PERSONS.c.address == _SEATS.c.email))
            .where(_SEATS.c.kind == "human", seat_where))


def calendar_of(session: Session, game_id: str, seat: int,
                settings: dl.ClockSettings) -> Calendar:
    """``person_calendar`` for code outside a move (its person's row read now, one
    statement)."""
    row = session.connection().execute(_holder_settings(
        (_SEATS.c.game_id == str(game_id)) & (_SEATS.c.index == int(seat)))).mappings().first()
    return person_calendar(Row(_PERSONS, row) if row is not None else None, settings)


def person_zone(session: Session, game_id: str, seat: int) -> ZoneInfo:
    """The zone of the person holding ``seat`` now, for code outside a move that shows a
    time to that seat (one statement)."""
    row = session.connection().execute(_holder_settings(
        (_SEATS.c.game_id == str(game_id)) & (_SEATS.c.index == int(seat)))).mappings().first()
    return zone_of(row["time_zone"] if row is not None else None)


def quiet_calendars(session: Session,
                    seats: set[tuple[str, int]]) -> dict[tuple[str, int], Calendar]:
    """The calendars of those ``(game, seat)`` whose person has quiet hours, for the
    sender (when mail may leave: only the zone and the hours matter, not the running
    days); one statement a batch."""
    if not seats:
        return {}
    games = sorted({game for game, _ in seats})
    # (whether a person has quiet hours is asked here, not in the WHERE: a condition on
    # the person's columns let PostgreSQL scan every person instead of probing by address)
    found = session.connection().execute(_holder_settings(
        _SEATS.c.game_id.in_(games))).mappings()
    return {(row["game_id"], row["index"]): Calendar.of(row["time_zone"], quiet)
            for row in found if (row["game_id"], row["index"]) in seats
            and (quiet := quiet_of(Row(_PERSONS, row))) is not None}


_PERSONS: Table = table_of(Person)
_SEATS: Table = table_of(store.Seat)
