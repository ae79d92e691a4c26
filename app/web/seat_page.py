"""The seat page's presenter (issue 33 item 2): everything the page shows besides the
cards, read by one function (``read``) in the page's one read session, one statement per
table, into one value (``SeatPage``) that the route passes to ``render_template``.

Statements of one GET (a warm worker; docs/architecture.md walks them): the link and the
game (1), the seats with their persons and mail rows (2), what the mail got wrong
(``trouble.mail_trouble``: the seats' names, the held mail; 3-4), the seats' clocks (5),
the open decisions (6), the talk with its count (7), the notice targets (8), the days
given (9), the votes (10) and their ballots (11), the plan (12). A seat handed over reads
its tenures (one more), the game's creator its failed mail (two more), a game in a series
its score.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app import services
from app.clock import deadlines as dl
from app.mail import trouble
from app.mail import unsent
from app.mail.addresses import checked_or_none
from app.services import absence, notice_targets, plans, reading, seat_settings, table
from app.services import talk as talk_service
from app.talk import store as talk_store
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


def read(session: Session, access: services.SeatAccess, snap: services.Snapshot) -> SeatPage:
    """The seat page of ``access`` on the read session ``seat_required`` opened."""
    game_id, me, info = access.game_id, access.seat, snap.game
    now = dl.now()
    seats, spectators = reading.holders(session, game_id)
    mine = seats[me]
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
        trouble.mail_trouble(session, game_id, me, snap.view(me), marks), clock)
    found, total = talk_store.newest_counted(session, game_id, talk_service.PAGE_LINES)
    humans = tuple(s.index for s in seats if s.kind == "human")
    talk = talk_service.seat_box(
        talk_service.Table(game_id, info.status, humans, spectators), found, total,
        info.names, me, bool(mine.mail is not None and mine.mail.talk_muted), zone)
    address = (mine.email or "").strip().lower() if mine.kind == "human" else ""
    targets = notice_targets.status_of(
        target_store.of_seat(session, game_id, me, address or None), address or None,
        mine.mail is None or bool(mine.mail.by_mail),
        person is None or bool(person.by_mail))
    return SeatPage(
        zone=zone, clocks=table_clock.seat_clocks(session, game_id, decisions),
        played=unsent.played_steps(marks, game_id, len(info.names), 0), mail=mail,
        talk=talk, targets=targets,
        people=table.box(rows, info, me, snap.state, zone, now, session),
        plan=plans.state_in(session, game_id, me))
