"""The seat page's presenter (issue 33 item 2): everything the page shows besides the
cards, read by one function (``read``) in the page's one read session, one statement per
table, into one value (``SeatPage``) that the route passes to ``render_template``.

Statements of one GET (a warm worker; docs/architecture.md walks them): the link and the
game (1); the table's two boxes (``read_table``, which every table JSON answer reads
too): the seats with their persons and mail rows (2), the open decisions (3), the seats'
clocks (4), the votes (5) and their ballots (6), the days given (7), what the server did
without the seat (``services.seat_lines``: the held mail, and the creator's failed and
refused mail, in one statement; none for a seat that stopped its mail; 8); then the talk
with its count (9), the notice targets (10), the plan (11). A seat handed over reads its
tenures (one more: 12), a game in a series its score.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app import services
from app.clock import deadlines as dl
from app.mail import unsent
from app.mail.addresses import checked_or_none
from app.people.calendar import zone_of
from app.services import (absence, notice_targets, plans, reading, seat_lines, seat_settings,
                          standing, table)
from app.services import talk as talk_service
from app.talk import store as talk_store
from app.web import language
from app.web import table_clock
from app.channels import targets as target_store


@dataclass
class SeatPage:
    """What a seat page shows besides its game's view, read once."""

    zone: str  # the viewer's zone: every time on the page is in it
    clocks: dict[int, dict[str, datetime]]  # seat -> when its decision is due, since when
    played: Any  # the steps the server played for a seat (``unsent.played_steps``)
    mail: dict[str, Any]  # the mail-and-clock box (``seat_settings.status_of``)
    talk: dict[str, Any]  # the talk box (``talk.seat_box``)
    targets: dict[str, Any]  # the notice targets, masked (``notice_targets.status_of``)
    people: dict[str, Any]  # the table's people box (``table.box``)
    plan: dict[str, Any]  # the waiting plan and standing orders (``plans.state_in``)
    talk_draft: tuple[str, str | None] = ("", None)  # a refused message, as typed


@dataclass(frozen=True)
class TableBoxes:
    """The table's people and the seat's mail-and-clock box, read once: what the page and
    ``GET /api/play/<token>/table`` (and every table JSON answer) share."""

    seats: list[reading.Holder]
    spectators: bool
    decisions: list[dl.Deadline]
    zone: str
    mail: dict[str, Any]
    people: dict[str, Any]


def read_table(session: Session, access: services.SeatAccess, snap: services.Snapshot,
               now: datetime | None = None) -> TableBoxes:
    """The seats with their persons and mail rows (1), what the server did without the
    seat (``services.seat_lines``: 1), the open decisions (1), the clocks, votes, ballots
    and days given (``table.read_rows``: 4): the statements of both boxes, whatever the
    seats."""
    game_id, me, info = access.game_id, access.seat, snap.game
    now = now or dl.now()
    seats, spectators = reading.holders(session, game_id)
    mine = seats[me]
    # the seat's page in its person's language (issue 50), before any line is worded
    language.for_person(mine.person.language if mine.person is not None else None)
    marks = {s.index: s.mail for s in seats if s.mail is not None}
    persons = {s.index: s.person for s in seats if s.person is not None}
    decisions = dl.open_rows(session, game_id, kind=dl.DECISION)
    rows = table.read_rows(session, game_id, decisions, persons)
    person = mine.person
    zone = (person.time_zone if person is not None else None) or "UTC"
    clock = absence.clock_state_of(rows.clocks.get(me), [d for d in decisions if d.seat == me],
                                   info.options, now)
    mail = seat_settings.status_of(
        info.status, info.options, mine.mail, mine.lobby_mail,
        checked_or_none(mine.email) if mine.email else None, person,
        seat_lines.lines(session, game_id, me, info.names, [s.kind for s in seats],
                         snap.view(me), marks, zone_of(zone)), clock)
    return TableBoxes(seats, spectators, decisions, zone, mail,
                      table.box(rows, info, me, snap.state, zone, now, session, _lines(
                          session, info, seats)))


def _lines(session: Session, info: Any, seats: list[reading.Holder]) -> dict[int, Any]:
    """Each seated person's standing line (issue 47), read with the seats; once the game
    is over, with what it did to their ratings (one statement more, only then)."""
    lines = {s.index: standing.line(s.standing, bool(
        s.person is not None and s.person.standing_hidden)) for s in seats if s.kind == "human"}
    if info.status == "over":
        for seat, change in standing.changes_of(session, info.id).items():
            if seat in lines:
                lines[seat] = standing.with_change(lines[seat], change)
    return lines


def read(session: Session, access: services.SeatAccess, snap: services.Snapshot) -> SeatPage:
    """The seat page of ``access`` on the read session ``seat_required`` opened."""
    game_id, me, info = access.game_id, access.seat, snap.game
    now = dl.now()
    boxes = read_table(session, access, snap, now)
    seats, zone, mail = boxes.seats, boxes.zone, boxes.mail
    mine = seats[me]
    person = mine.person
    marks = {s.index: s.mail for s in seats if s.mail is not None}
    found, total = talk_store.newest_counted(session, game_id, talk_service.PAGE_LINES)
    humans = tuple(s.index for s in seats if s.kind == "human")
    talk = talk_service.seat_box(
        talk_service.Table(game_id, info.status, humans, boxes.spectators), found, total,
        info.names, me, bool(mine.mail is not None and mine.mail.talk_muted), zone)
    address = (mine.email or "").strip().lower() if mine.kind == "human" else ""
    targets = notice_targets.status_of(
        target_store.of_seat(session, game_id, me, address or None), address or None,
        mine.mail is None or bool(mine.mail.by_mail),
        person is None or bool(person.by_mail))
    return SeatPage(
        zone=zone, clocks=table_clock.seat_clocks(session, game_id, boxes.decisions),
        played=unsent.played_steps(marks, game_id, len(info.names), 0), mail=mail,
        talk=talk, targets=targets,
        people=boxes.people,
        plan=plans.state_in(session, game_id, me))
