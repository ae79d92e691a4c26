"""Strangers find a table and sit down by address (issue 48 items 1, 2, 4 and 5), told
from the side of each person: Ann who opens it, Bea and Cai who find it at /tables, and
whoever holds none of their links."""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from app.clock import deadlines as dl
from app.db import get_engine, read_session
from app.gamelog import store
from app.seating.models import OpenTable
from tests.person_keys import mails

from .conftest import ANN, BEA, CAI, T0, click, hours, link_of, open_table, sit_down


def table_row(table_id: str) -> Any:
    with get_engine().connect() as connection:
        return connection.execute(sa.select(OpenTable.__table__).where(  # type: ignore[attr-defined]
            OpenTable.__table__.c.id == table_id)).mappings().one()  # type: ignore[attr-defined]


def listed(client: Any, at: Any = T0) -> list[dict[str, Any]]:
    with dl.at(at):
        answer = client.get("/api/tables")
    assert answer.status_code == 200
    return answer.get_json()["tables"]


def test_two_strangers_sit_down_and_the_last_click_starts_the_game(client: Any) -> None:
    # Ann opens a three-seat table with two open seats: listed, one seat hers (to confirm)
    table_id = open_table(client)
    [table] = listed(client)
    assert table["id"] == table_id and table["seats"] == 3 and table["seats_left"] == 2
    assert [p["name"] for p in table["seated"]] == ["Ann"]
    assert table["seated"][0]["confirmed"] is False
    assert table["seated"][0]["standing"]["tier"] == "new"
    click(client, link_of(ANN))  # Ann confirms her own seat from her mail

    # Bea asks to sit down: a seat is held, one mail with one link, nothing seated yet
    asked = sit_down(client, table_id, "Bea", BEA)
    assert asked.status_code == 303
    assert len(mails("table_seat", BEA)) == 1
    [table] = listed(client)
    assert table["held"] == 1 and table["seats_left"] == 1
    assert "Bea" not in [p["name"] for p in table["seated"]]
    bea = link_of(BEA)
    page = client.get(bea).get_data(as_text=True)
    assert "Sit down" in page and "Friday table" in page and "Held for you" in page
    assert "Held for you" not in client.get("/tables").get_data(as_text=True)
    assert [p["name"] for p in listed(client)[0]["seated"]] == ["Ann"]  # (a GET seats nobody)
    assert client.post(bea).status_code == 200
    [table] = listed(client)
    assert [p["name"] for p in table["seated"]] == ["Ann", "Bea"]
    assert table["seats_left"] == 1 and table["held"] == 0

    # Cai asks by the JSON door: answered 202 with words, never a link
    with dl.at(T0):
        answer = client.post(f"/api/tables/{table_id}/join", json={"name": "Cai", "email": CAI},
                             environ_base={"REMOTE_ADDR": "203.0.113.9"})
    assert answer.status_code == 202, answer.get_json()
    assert "/tables/seat/" not in answer.get_data(as_text=True)
    assert "c•••@example.com" in answer.get_json()["message"]
    # the last click starts the game and takes Cai to his own seat
    with dl.at(T0 + hours(1)):
        started = client.post(link_of(CAI))
    assert started.status_code == 303 and "/play/" in started.headers["Location"]
    row = table_row(table_id)
    assert row["status"] == "started" and row["game_id"]
    with read_session() as session:
        seats = store.load_seats(session, row["game_id"])
        game = session.get(store.Game, row["game_id"])
        assert [(s.name, s.email) for s in seats] == [("Ann", ANN), ("Bea", BEA), ("Cai", CAI)]
        assert game is not None and len(game.commitment) == 64  # SHA-256, dealt at the start
    assert listed(client, T0 + hours(1)) == []  # it left the list
    for address in (ANN, BEA, CAI):  # each seat's own link goes to its own address
        assert mails("invitation", address), address
    assert mails("turn", ANN) or mails("turn", BEA) or mails("turn", CAI)
    # the table's link only says so now: it is no seat key
    later = client.get(link_of(BEA)).get_data(as_text=True)
    assert "has started" in later and "/play/" not in later


def test_an_unclicked_hold_lapses_and_the_seat_reopens(client: Any) -> None:
    table_id = open_table(client, seat2_kind="")  # one open seat
    assert sit_down(client, table_id, "Bea", BEA).status_code == 303
    [table] = listed(client)
    assert table["seats_left"] == 0 and table["held"] == 1
    refused = sit_down(client, table_id, "Cai", CAI, ip="203.0.113.9")
    assert refused.status_code == 400 and "held" in refused.get_data(as_text=True)
    assert not mails("table_seat", CAI)
    # four hours on, Bea has not clicked: the seat is open again, and Cai takes it
    later = T0 + hours(4.5)
    [table] = listed(client, later)
    assert table["seats_left"] == 1 and table["held"] == 0
    assert sit_down(client, table_id, "Cai", CAI, ip="203.0.113.9", at=later).status_code == 303
    click(client, link_of(CAI), at=later)
    # Bea's link still lives, but the table is full now: she is told so, and seated nowhere
    with dl.at(later):
        page = client.get(link_of(BEA)).get_data(as_text=True)
        assert "full" in page
        assert client.post(link_of(BEA)).status_code == 400
    [table] = listed(client, later)
    assert [p["name"] for p in table["seated"]] == ["Ann", "Cai"]
