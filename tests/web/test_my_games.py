"""All my games: a magic link mailed to an address lists every seat it has, moves first."""
from __future__ import annotations

import html
import re

from sqlmodel import select

from app import services
from app.services import my_games
from app.db import read_session
from app.mail.models import Outbox

LINK = re.compile(r"http://silver-eye\.test(/my-games/[A-Za-z0-9_.\-]+)")


def mailed_links(kind: str = "my_games") -> list[str]:
    with read_session() as session:
        rows = session.exec(select(Outbox).where(Outbox.kind == kind)).all()
        return [LINK.search(row.text).group(1) for row in rows]


def test_an_address_gets_one_page_with_all_its_games_your_move_first(client, new_game, db):
    first, second = new_game(), new_game(seed="777")
    services.submit_action(second.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
    answer = client.post("/my-games", data={"email": "Bob@Example.com "})
    assert answer.status_code == 303
    (link,) = mailed_links()
    before = db.dump()
    page = html.unescape(client.get(link).get_data(as_text=True))
    assert db.dump() == before                       # opening the list changes nothing
    assert page.count("Open Bob's seat") == 2
    assert "2 waiting for your move" in page         # Bob still has to peek in both
    for created in (first, second):
        assert f"/play/{created.tokens[1]}" in page
        assert f"/play/{created.tokens[0]}" not in page   # never another seat's link


def test_your_move_comes_first(client, new_game):
    done, waiting = new_game(), new_game(seed="99")
    services.submit_action(done.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
    client.post("/my-games", data={"email": "ann@example.com"})
    page = client.get(mailed_links()[0]).get_data(as_text=True)
    assert page.index(waiting.tokens[0]) < page.index(done.tokens[0])


def test_asking_for_an_unknown_address_answers_the_same_and_mails_nothing(client, new_game):
    new_game()
    known = client.post("/my-games", data={"email": "ann@example.com"}, follow_redirects=True)
    unknown = client.post("/my-games", data={"email": "nobody@example.com"},
                          follow_redirects=True)
    assert known.get_data(as_text=True) == unknown.get_data(as_text=True)
    assert len(mailed_links()) == 1
    assert client.post("/my-games", data={"email": "not an address"}).status_code == 400


def test_a_link_expires_is_revocable_and_cannot_be_forged(client, new_game, monkeypatch):
    new_game()
    client.post("/my-games", data={"email": "ann@example.com"})
    (link,) = mailed_links()
    assert client.get(link).status_code == 200
    assert client.get(link + "x").status_code == 403
    monkeypatch.setattr(my_games, "LINK_DAYS", -1)
    expired = client.get(link)
    assert expired.status_code == 403 and "days old" in expired.get_data(as_text=True)
    monkeypatch.undo()
    assert client.post(f"{link}/revoke").status_code == 303
    revoked = client.get(link)
    assert revoked.status_code == 403 and "revoked" in revoked.get_data(as_text=True)
