"""Who is refused a seat, in words and before any mail (issue 48 item 3), told from the
side of the person refused, of the table that keeps its gate, and of the address a
stranger typed: a gate the person does not meet, an address that asked for no
invitations, an address at the table already (in any +tag or capitals), a person at
their cap of open-table games, and too many asks in an hour from one network or for one
address. Nothing refused ever sends a mail."""
from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from sqlmodel import Session

from app.clock import deadlines as dl
from app.db import get_engine
from app.people.models import Person
from app.standing.models import Standing
from tests.person_keys import mails

from .conftest import ANN, BEA, CAI, T0, click, hours, link_of, lobby_form, open_table, sit_down

DAN = "dan@example.org"


def with_record(address: str, ended: int, left: int = 0, **person: Any) -> None:
    """``address``'s person with a record of ``ended`` games, ``left`` of them left
    (of the last ten)."""
    with Session(get_engine()) as session:
        row = Person(address=address, **person)
        session.add(row)
        session.flush()
        assert row.id is not None
        session.add(Standing(person_id=row.id, public_id=f"p{row.id}", name=address[:3],
                             ended=ended, recent=min(ended, 10), recent_left=left,
                             recent_moves=40, recent_clock=0))
        session.commit()


def refused(answer: Any, status: int, *words: str) -> str:
    text = answer.get_data(as_text=True)
    assert answer.status_code == status, text[:2000]
    for said in words:
        assert said in text, (said, text[:3000])
    return text


def test_a_new_person_is_refused_at_a_table_for_reliable_players(client: Any) -> None:
    with_record(ANN, ended=6)  # Ann is reliable, so she may ask for reliable players only
    table_id = open_table(client, gate="reliable")
    answer = sit_down(client, table_id, "Bea", BEA)
    refused(answer, 400, "This table is for reliable players: you have finished 0 games "
                         "here so far")
    with_record(CAI, ended=1)
    refused(sit_down(client, table_id, "Cai", CAI, ip="203.0.113.9"), 400,
            "you have finished 1 game here so far")
    assert not mails("table_seat", BEA) and not mails("table_seat", CAI)
    with_record(DAN, ended=8)  # a reliable person sits down
    assert sit_down(client, table_id, "Dan", DAN, ip="203.0.113.10").status_code == 303


def test_someone_who_left_games_is_refused_where_only_finishers_sit(client: Any) -> None:
    table_id = open_table(client, gate="new_reliable")
    with_record(DAN, ended=10, left=3)
    refused(sit_down(client, table_id, "Dan", DAN), 400, "players who finish their games",
            "3 of its last 10")
    assert not mails("table_seat", DAN)
    assert sit_down(client, table_id, "Bea", BEA).status_code == 303  # new is welcome here


def test_a_creator_cannot_gate_above_their_own_tier(client: Any) -> None:
    with dl.at(T0):  # Ann is new: reliable-only is above her
        answer = client.post("/", data=lobby_form(client, seat1_kind="open", gate="reliable"))
    refused(answer, 400, "needs a creator who is reliable")
    assert not mails("table_seat", ANN)
    with_record(BEA, ended=10, left=2)  # Bea left 2 of 10: her tables are open to all
    with dl.at(T0):
        answer = client.post("/", data=lobby_form(client, seat0_name="Bea", seat0_email=BEA,
                                                   seat1_kind="open", gate="new_reliable"))
    refused(answer, 400, "can only be open to everyone")


def test_an_address_that_asked_for_no_invitations_gets_no_mail(client: Any) -> None:
    table_id = open_table(client)
    with Session(get_engine()) as session:
        session.add(Person(address=BEA, no_invitations_at=T0))
        session.commit()
    refused(sit_down(client, table_id, "Bea", BEA), 400, "asked for no invitations")
    assert not mails("table_seat", BEA)


@pytest.mark.parametrize("typed", ["ann@example.org", "ANN@Example.org",
                                   "ann+tables@example.org", "Ann+Friday@EXAMPLE.ORG"])
def test_an_address_at_the_table_already_is_refused_in_any_spelling(client: Any,
                                                                    typed: str) -> None:
    table_id = open_table(client)
    answer = sit_down(client, table_id, "Another Ann", typed)
    refused(answer, 400, "at this table already", "+tag or capitals")
    assert len(mails("table_seat")) == 1  # Ann's own, from the opening; nothing more


def test_a_stranger_holding_a_seat_cannot_be_seated_twice(client: Any) -> None:
    table_id = open_table(client)
    assert sit_down(client, table_id, "Bea", BEA).status_code == 303
    refused(sit_down(client, table_id, "Bea again", "BEA+2@example.net", ip="203.0.113.4"),
            400, "at this table already")
    assert len(mails("table_seat", BEA)) == 1 and not mails("table_seat", "BEA+2@example.net")


def test_a_new_person_plays_at_most_three_open_tables_at_once(client: Any) -> None:
    tables = [open_table(client, name=f"Table {n}", seat0_email=f"host{n}@example.org",
                         seat0_name=f"Host {n}") for n in range(4)]
    for n, table_id in enumerate(tables[:3]):  # one an hour and a half: no hourly bound
        at = T0 + hours(1.5 * n)
        assert sit_down(client, table_id, "Bea", BEA, at=at).status_code == 303
        click(client, link_of(BEA), at=at)
    answer = sit_down(client, tables[3], "Bea", BEA, at=T0 + hours(5))
    refused(answer, 400, "already in 3 open-table games", "at most 3 at once")
    assert len(mails("table_seat", BEA)) == 3


def test_asks_for_one_address_are_bounded_each_hour(client: Any) -> None:
    with_record(BEA, ended=20)  # a reliable player: her cap is far
    tables = [open_table(client, name=f"Table {n}", seat0_email=f"host{n}@example.org",
                         seat0_name=f"Host {n}") for n in range(5)]
    for n, table_id in enumerate(tables[:3]):
        assert sit_down(client, table_id, "Bea", BEA, ip=f"198.51.100.{n}").status_code == 303
    refused(sit_down(client, tables[3], "Bea", BEA, ip="198.51.100.50"), 429,
            "asked to sit down 3 times in the last hour")
    assert len(mails("table_seat", BEA)) == 3
    assert sit_down(client, tables[3], "Bea", BEA, at=T0 + hours(1.1)).status_code == 303


def test_asks_from_one_network_are_bounded_each_hour(client: Any) -> None:
    tables = [open_table(client, name=f"Table {n}", seat0_email=f"host{n}@example.org",
                         seat0_name=f"Host {n}", seat2_kind="open", seat3_kind="open")
              for n in range(4)]
    asked = 0
    for n in range(10):
        answer = sit_down(client, tables[n // 3], f"Player {n}", f"p{n}@example.com",
                          ip="198.51.100.99")
        assert answer.status_code == 303, answer.get_data(as_text=True)[:500]
        asked += 1
    refused(sit_down(client, tables[3], "One more", "more@example.com", ip="198.51.100.99"),
            429, "from your network in the last hour")
    assert not mails("table_seat", "more@example.com")
    assert asked == 10


def test_a_closed_or_unknown_table_is_said_so(client: Any) -> None:
    refused(sit_down(client, "no-such-table", "Bea", BEA), 404, "no such table")
    table_id = open_table(client)
    later: datetime = T0 + hours(24 * 3 + 1)  # its three days are over
    refused(sit_down(client, table_id, "Bea", BEA, at=later), 400, "not open any more")
    with dl.at(T0):
        bad = client.post(f"/api/tables/{table_id}/join", json={"name": "", "email": "x"})
    assert bad.status_code == 400 and bad.get_json()["message"]
    assert not mails("table_seat", BEA)
