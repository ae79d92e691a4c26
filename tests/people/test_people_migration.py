"""Migration 0020 (issue 32 item 6): a store at the previous head upgrades without loss.

Deal two games for Ann, one of which has a seat handed over (R49: Cid away, Gus took
over), Ann's zone set in both (Berlin first, New York later); take the store back to
0019 as it was before persons and tenures, upgrade it, and expect: every game replays
to the same state, the handed-over seat has two tenures split at its ``take_over``
(Cid's with Cid's address, recovered from his goodbye mail; Gus's open), the names the
replay shows before the hand-over unchanged, and Ann one person whose zone is the one
she set last.
"""
from __future__ import annotations

import random
from datetime import timedelta

import sqlalchemy as sa
from alembic import command
from sqlmodel import select

from app import services
from app.clock import deadlines as dl
from app.db import alembic_config, get_engine, read_session, upgrade
from app.db.unit import unit_of_work
from app.gamelog import check, store
from app.people.models import Person, Tenure
from app.services import leaving, reading

from .conftest import T0, hours, play_out, some_moves

ANN, CID, GUS = "ann@example.com", "cid@example.com", "gus@example.com"


def set_zone(app, game_id: str, seat: int, zone: str, at) -> None:
    """A seat's zone and quiet hours as a store at 0019 kept them (on the seat's mail row:
    migration 0021 dropped those columns, so they are written as SQL)."""
    with get_engine(app).begin() as conn:
        conn.execute(sa.text(
            "UPDATE seat_mail SET time_zone = :zone, quiet_start = 1320, quiet_end = 480, "
            "updated_at = :at WHERE game_id = :game AND seat = :seat"),
            {"zone": zone, "at": at, "game": game_id, "seat": seat})


def test_a_store_at_0019_with_a_handed_over_seat_upgrades_and_replays_the_same(
        app, new_game):
    rng = random.Random(7)
    with dl.at(T0):
        kept = new_game(seats=3).game_id
        other = new_game(seats=2).game_id
    some_moves(kept, 10, rng)
    services.submit_action(kept, 2, {"type": "away"}, services.game_info(kept).seq,
                           source="system")
    with unit_of_work() as unit:
        leaving.hand_over(unit, kept, 2, "Gus", GUS, T0 + hours(1))
    handed_at = services.game_info(kept).seq
    some_moves(kept, 6, rng)
    play_out(other, rng)
    before = {gid: services.snapshot(gid).state for gid in (kept, other)}
    frames_before = reading.replay_frames(kept, 0)

    url = app.config["DATABASE_URL"]
    get_engine(app).dispose()
    command.downgrade(alembic_config(url), "0019")
    tables = set(sa.inspect(get_engine(app)).get_table_names())
    assert "address_mail" in tables and "tenure" not in tables and "person" not in tables
    set_zone(app, kept, 0, "Europe/Berlin", T0)
    set_zone(app, other, 0, "America/New_York", T0 + timedelta(days=1))
    upgrade(url)
    get_engine(app).dispose()

    assert all(result.ok for result in check.check_games()), "every game replays the same"
    for gid, state in before.items():
        assert services.snapshot(gid).state == state
    with read_session() as session:
        held = [(t.from_step, t.to_step, t.name, t.address)
                for t in session.exec(select(Tenure).where(Tenure.game_id == kept,
                                                           Tenure.seat == 2)
                                      .order_by(Tenure.from_step))]
        ann = session.exec(select(Person.time_zone, Person.quiet_start, Person.quiet_end)
                           .where(Person.address == ANN)).one()
        persons = {p.address for p in session.exec(select(Person))}
        seats = [s.name for s in store.load_seats(session, kept)]
    assert held == [(0, handed_at, "Cid", CID), (handed_at, None, "Gus", GUS)]
    assert tuple(ann) == ("America/New_York", 1320, 480), \
        "where two seats of one address disagree, the most recently set wins"
    assert {ANN, GUS, "bob@example.com"} <= persons
    assert seats == ["Ann", "Bob", "Gus"]
    assert reading.replay_frames(kept, 0) == frames_before, \
        "the replay names Cid for every step before the hand-over, as before"
