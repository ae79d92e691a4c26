"""Two clicks for the last seat (issue 48, acceptance "Concurrency"): both people hold a
link that may still seat them, both see a free seat, both press "Sit down" at the same
moment. Exactly one is seated and the game is dealt once; the other is told in words
that the table filled up, never a 500 and never a second seat.

How it happens without anyone cheating: Ann's table has one open seat. Bea asks and
her seat is held (``OPEN_TABLE_HOLD_HOURS``); she does not click, her hold lapses and
the seat reopens, though her link lives on (``OPEN_TABLE_LINK_HOURS``). Cai asks, and
his hold lapses the same way. Now both links still seat their person "if a seat is
free", and one is: both buttons are live.
"""
from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from app.clock import deadlines as dl
from app.config import setting
from app.db import get_engine
from app.gamelog.store import Game, Seat
from app.seating.models import OpenTable, TableHold, TableSeat
from tests.conftest import TEST_DATABASE_URL

from .conftest import ANN, T0, click, hours, link_of, open_table, sit_down

#: What the one who lost the race is told: the table filled up.
TOLD_FULL = re.compile(r"table is full|every seat was taken")
ROUNDS = 5


def rows(model: Any, **where: Any) -> list[dict[str, Any]]:
    table = model.__table__
    with get_engine().connect() as connection:
        return [dict(r) for r in connection.execute(sa.select(table).where(
            *[table.c[k] == v for k, v in where.items()])).mappings()]


def two_live_links(client: Any, day: int) -> tuple[str, str, str, str, str, datetime]:
    """Ann's two-seat table with one open seat (her own confirmed), and Bea's and Cai's
    links both live after both holds lapsed: (table, Bea's address, her link, Cai's,
    his link, the moment both may click)."""
    start = T0 + timedelta(days=day)
    hold = float(setting("OPEN_TABLE_HOLD_HOURS"))
    link = float(setting("OPEN_TABLE_LINK_HOURS"))
    assert 2 * (hold + 1) < link  # the settings make the story: both links outlive both holds
    bea, cai = f"bea{day}@example.net", f"cai{day}@example.com"
    table_id = open_table(client, at=start, seat2_kind="")
    click(client, link_of(ANN), at=start)  # Ann confirms her own seat
    assert sit_down(client, table_id, "Bea", bea, ip="198.51.100.7", at=start).status_code == 303
    later = start + hours(hold + 1)  # Bea's hold lapsed: the seat is open again
    assert sit_down(client, table_id, "Cai", cai, ip="203.0.113.9", at=later).status_code == 303
    both = later + hours(hold + 1)  # Cai's lapsed too; both links live on
    for link_path in (link_of(bea), link_of(cai)):
        with dl.at(both):
            page = client.get(link_path).get_data(as_text=True)
        assert "a seat is still free" in page, page  # each sees a free seat, and its button
    return table_id, bea, link_of(bea), cai, link_of(cai), both


def assert_one_seated(table_id: str, answers: dict[str, Any], games_before: int) -> None:
    """One of the two sits in the open seat and the game was dealt once, with them in it;
    the other got a 400 saying the table filled up."""
    statuses = sorted(status for status, _ in answers.values())
    assert statuses == [303, 400], answers
    [winner] = [who for who, (status, _) in answers.items() if status == 303]
    [loser] = [who for who in answers if who != winner]
    assert "/play/" in answers[winner][1]
    assert TOLD_FULL.search(answers[loser][1]), answers[loser][1]
    [table] = rows(OpenTable, id=table_id)
    assert table["status"] == "started"
    open_seat = rows(TableSeat, table_id=table_id, index=1)[0]
    assert open_seat["email"] == winner and open_seat["confirmed_at"] is not None
    seated = [h["email"] for h in rows(TableHold, table_id=table_id)
              if h["seated_at"] is not None and h["seat"] is None]
    assert seated == [winner]
    assert len(rows(Game)) == games_before + 1  # dealt once
    assert [s["email"] for s in rows(Seat, game_id=table["game_id"])] == [ANN, winner]


def press(client: Any, link: str, at: datetime) -> tuple[int, str]:
    """Press "Sit down" (the link page's POST): the status, and where it leads or its words."""
    with dl.at(at):
        answer = client.post(link)
    if answer.status_code == 303:
        return 303, answer.headers["Location"]
    return answer.status_code, answer.get_data(as_text=True)


@pytest.mark.postgres
@pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs TEST_DATABASE_URL pointing at PostgreSQL")
def test_two_clicks_for_the_last_seat_at_once_seat_one(app: Any, client: Any) -> None:
    """Bea and Cai press "Sit down" at the same moment from two browsers (two threads
    lined up by a barrier), five tables over: each time one is seated and the game dealt
    once, and the other is told the table filled up (a 400 in words)."""
    for day in range(ROUNDS):
        table_id, bea, bea_link, cai, cai_link, moment = two_live_links(client, day)
        games_before = len(rows(Game))
        barrier = threading.Barrier(2)
        answers: dict[str, Any] = {}

        def click_at_once(who: str, link: str) -> None:
            own = app.test_client()  # each person their own browser
            barrier.wait()
            answers[who] = press(own, link, moment)

        threads = [threading.Thread(target=click_at_once, args=(who, link))
                   for who, link in ((bea, bea_link), (cai, cai_link))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads)
        assert_one_seated(table_id, answers, games_before)


@pytest.mark.parametrize("first", ["Bea", "Cai"])
def test_the_second_click_for_the_last_seat_is_told_it_is_full(client: Any,
                                                                first: str) -> None:
    """The same two live links, pressed one after the other (any store): the first is
    seated and deals the game, the second is told the table filled up and seated nowhere."""
    table_id, bea, bea_link, cai, cai_link, moment = two_live_links(client, 0)
    order = [(bea, bea_link), (cai, cai_link)]
    if first == "Cai":
        order.reverse()
    answers = {who: press(client, link, moment) for who, link in order}
    assert answers[order[0][0]][0] == 303
    assert_one_seated(table_id, answers, 0)
    # the loser's link now only says so: no button, nothing to press
    with dl.at(moment):
        page = client.get(order[1][1]).get_data(as_text=True)
    assert TOLD_FULL.search(page) and "still free" not in page
