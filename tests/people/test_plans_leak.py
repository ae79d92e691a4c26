"""Issue 35: the leak scan (tests/web/test_leak_http.py) over a game Ann plays by plans and
standing orders through the JSON API, Bob and Cid on their pages: no page, JSON answer,
replay frame or mail shows any seat a card it has not seen. Ann's private sight is what
her own plan's steps and orders showed her (two cards a peek, one a draw...), counted
from the public log's events of hers, and nothing else."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from app import services
from tests.clock.conftest import Recorder
from tests.web.test_leak_http import PRIVATE_SIGHT, Table, ids_in_json, mail_problems, sit_down

ADDRESSES = ("ann@example.com", "bob@example.com", "cid@example.com")
ORDERS = "ALWAYS PEEK 1 2; ALWAYS SKIP SPLIT SEER; ALWAYS DISCARD IF 9 OR MORE"
TURN = "DRAW, KEEP AT 1 IF 3 OR LESS, ELSE DISCARD, SKIP"


class Ann:
    """What Ann's own plans and orders showed her: counted from her events in the log."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.seen_step = 0
        self.last: set[int] = set()
        self.plans = 0

    def sight(self) -> None:
        """Ann's view now (read unscanned): new cards in it must be what her own moves
        since the last look could show her, at most."""
        view = self.table.client.get(f"/api/play/{self.table.tokens[0]}").get_json()["view"]
        self.table.look_public()
        events = [e for e in [*view["previous_log"], *view["log"]]
                  if e.get("seat") == 0 and int(e.get("step") or 0) > self.seen_step]
        limit: int | None = 0
        for event in events:
            more = PRIVATE_SIGHT.get(str(event.get("type")), 0)
            limit = None if more is None or limit is None else limit + more
        new = ids_in_json(view) - self.last - self.table.allowed(0)
        if limit is not None and len(new) > limit:
            self.table.received[0].problems.append(
                f"{[e['type'] for e in events]} showed {len(new)} new cards (at most {limit})")
        self.table.own[0] |= new
        self.last = ids_in_json(view)
        self.seen_step = int(view["step"])

    def act(self) -> None:
        view = self.table.seat_view(0)
        if view["pending"] == "turn" and 0 == view["current"] and 0 not in view["peeks_pending"]:
            sent = self.table.client.post(f"/api/play/{self.table.tokens[0]}/plan",
                                          json={"words": TURN})
            assert sent.status_code == 200, sent.get_data(as_text=True)
            self.plans += 1
        else:
            self.sight()
            self.table.act(0)   # (a plan stopped: she decides on her page)
        self.sight()


@pytest.mark.slow  # a whole game over HTTP with every page and mail scanned
def test_r35_a_game_played_by_plans_shows_no_seat_a_card_it_has_not_seen(app, client,
                                                                          monkeypatch):
    from app.runners import sender

    monkeypatch.setattr(services.secrets, "randbits", lambda bits: 3_535_353_5353)
    table = sit_down(client, 35)
    ann = Ann(table)
    mailbox = Recorder()
    found: list[str] = []
    named = 0
    assert client.post(f"/api/play/{table.tokens[0]}/plan",
                       json={"words": ORDERS}).status_code == 200
    ann.sight()
    for move in range(3000):
        view = table.look_public()
        table.step = view["step"]
        if view["phase"] == "over":
            break
        actor = table.rng.choice(view["to_act"])
        for seat in range(3):
            if seat != actor:
                table.seat_page(seat) if table.step % 2 else table.seat_view(seat)
        if table.step % 15 == 7:
            for seat in range(3):
                table.replay_frames(seat)
        if actor == 0:
            ann.act()
        else:
            table.act(actor)
            ann.sight()
        if move % 10 == 9:
            sender.send_mail_due(app, datetime.now(timezone.utc) + timedelta(hours=1),
                                 backend=mailbox)
            for seat, address in enumerate(ADDRESSES):
                got = mailbox.to(address)
                found += mail_problems(got, table.allowed(seat), address)
                named += len(mail_problems(got, set(), address))
            mailbox.clear()
    assert table.over, "the game did not end"
    problems = [f"{name}: {p}" for name, got in zip("Ann Bob Cid".split(), table.received)
                for p in got.problems]
    assert problems + found == []
    assert ann.plans > 10 and named > 0
    assert all(len(got.texts) > 50 for got in table.received)
