"""An open table from the side of its creator and of those already seated (issue 48
items 1, 4 and the leak acceptance): what the creator's pages and JSON show of a joiner
(a name and a record, never an address or a link), the table that waits in vain and says
so once, the early start with bots (not before a day), closing, and a seat given up."""
from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from app.clock import deadlines as dl
from app.db import get_engine
from app.seating.models import OpenTable
from tests.person_keys import link_in, mails

from .conftest import ANN, BEA, CAI, T0, TABLE_LINK, click, hours, link_of, open_table, sit_down

PLAY = re.compile(r"https?://[^\s/]+(/play/[A-Za-z0-9_.\-]+)")


def status_of(table_id: str) -> Any:
    with get_engine().connect() as connection:
        return connection.execute(sa.select(OpenTable.__table__).where(  # type: ignore[attr-defined]
            OpenTable.__table__.c.id == table_id)).mappings().one()  # type: ignore[attr-defined]


def every_surface(client: Any, table_id: str, ann_link: str, game_id: str | None = None,
                  ann_seat: str | None = None) -> list[tuple[str, str]]:
    """Every page and JSON answer Ann (the creator), a spectator or anyone may open about
    the table, before and after its start."""
    paths = ["/tables", "/api/tables", f"/tables?page=1", ann_link, "/help",
             "/api/openapi.json"]
    if game_id:
        paths += [f"/games/{game_id}", f"/api/games/{game_id}", f"/games/{game_id}/replay"]
    if ann_seat:
        paths += [ann_seat, f"/api/play/{ann_seat.rsplit('/', 1)[1]}",
                  f"/api/play/{ann_seat.rsplit('/', 1)[1]}/table"]
    seen = []
    for path in paths:
        answer = client.get(path)
        seen.append((path, answer.get_data(as_text=True)))
    return seen


def test_the_creator_never_sees_a_joiners_address_or_link(app: Any, client: Any) -> None:
    table_id = open_table(client)  # ``client`` is Ann's browser; each stranger has theirs
    ann_link = link_of(ANN)
    click(client, ann_link)
    strangers = app.test_client()
    for name, address, ip in (("Bea", BEA, "198.51.100.1"), ("Cai", CAI, "198.51.100.2")):
        sit_down(strangers, table_id, name, address, ip=ip)
    secrets = {BEA, CAI, "bea@", "cai@", "example.net", "example.com",
               link_of(BEA).rsplit("/", 1)[1], link_of(CAI).rsplit("/", 1)[1]}
    with dl.at(T0):
        before = every_surface(client, table_id, ann_link)
        strangers.post(link_of(BEA))
    with dl.at(T0 + hours(1)):
        strangers.post(link_of(CAI))  # the last seat: the game starts
        game_id = status_of(table_id)["game_id"]
        bea_seat = link_in("invitation", BEA, PLAY)
        cai_seat = link_in("invitation", CAI, PLAY)
        secrets |= {bea_seat.rsplit("/", 1)[1], cai_seat.rsplit("/", 1)[1]}
        ann_seat = link_in("invitation", ANN, PLAY)
        after = every_surface(client, table_id, ann_link, game_id, ann_seat)
    assert game_id
    for path, text in before + after:
        for secret in secrets:
            assert secret not in text, (path, secret)
    assert any("Bea" in text for _, text in after)  # names are what the others see


def test_a_table_nobody_fills_stops_waiting_and_says_so_once(client: Any, tick: Any,
                                                            mailbox: Any) -> None:
    table_id = open_table(client, wait_days="2")
    click(client, link_of(ANN))
    sit_down(client, table_id, "Bea", BEA)
    bea = link_of(BEA)
    click(client, bea)
    tick(T0 + hours(47))
    assert status_of(table_id)["status"] == "open" and not mails("table_ended")
    tick(T0 + hours(48.1))
    tick(T0 + hours(49))  # a second tick tells nobody twice
    assert status_of(table_id)["status"] == "expired"
    told = mails("table_ended")
    assert sorted(m.to for m in told) == [ANN, BEA]
    for address in (ANN, BEA):  # as their mail shows it: once each
        assert [s for s in mailbox.subjects(address) if "stopped waiting" in s] == [
            "Friday table stopped waiting for players"]
    with dl.at(T0 + hours(49)):
        assert client.get("/api/tables").get_json()["tables"] == []
        page = client.get(bea).get_data(as_text=True)
    assert "stopped waiting" in page and "Sit down" not in page


def test_after_a_day_the_creator_may_start_with_bots_and_not_before(client: Any) -> None:
    table_id = open_table(client)
    ann = link_of(ANN)
    click(client, ann)
    sit_down(client, table_id, "Bea", BEA)
    click(client, link_of(BEA))
    with dl.at(T0 + hours(2)):  # too early: no button, and a post is refused in words
        assert "Start now" not in client.get(ann).get_data(as_text=True)
        early = client.post(ann + "/start")
        assert early.status_code == 400
    # Bea's own link opens no creator's door
    with dl.at(T0 + hours(25)):
        assert client.post(link_of(BEA) + "/start").status_code == 400
        assert "Start now" in client.get(ann).get_data(as_text=True)
        started = client.post(ann + "/start")
    assert started.status_code == 303 and "/play/" in started.headers["Location"]
    row = status_of(table_id)
    assert row["status"] == "started"
    with get_engine().connect() as connection:
        kinds = connection.execute(sa.text(
            "SELECT kind FROM seat WHERE game_id = :g ORDER BY \"index\""),
            {"g": row["game_id"]}).scalars().all()
    assert kinds == ["human", "human", "bot"]


def test_the_creator_closes_the_table_and_the_seated_are_told(client: Any) -> None:
    table_id = open_table(client)
    ann = link_of(ANN)
    click(client, ann)
    sit_down(client, table_id, "Bea", BEA)
    click(client, link_of(BEA))
    with dl.at(T0 + hours(3)):
        assert client.post(link_of(BEA) + "/close").status_code == 400  # not Bea's to close
        assert client.post(ann + "/close").status_code == 200
    assert status_of(table_id)["status"] == "closed"
    assert [m.to for m in mails("table_ended")] == [BEA]


def test_a_seated_stranger_gives_the_seat_up_and_it_opens_again(client: Any) -> None:
    table_id = open_table(client, seat2_kind="")
    sit_down(client, table_id, "Bea", BEA)
    bea = link_of(BEA)
    click(client, bea)
    with dl.at(T0):
        assert client.get("/api/tables").get_json()["tables"][0]["seats_left"] == 0
        assert client.post(bea + "/leave").status_code == 200
        table = client.get("/api/tables").get_json()["tables"][0]
    assert table["seats_left"] == 1 and [p["name"] for p in table["seated"]] == ["Ann"]
    with dl.at(T0):
        assert "gave this seat up" in client.get(bea).get_data(as_text=True)
        assert client.post(bea).status_code == 400  # the link does not seat her again
