"""While the database is unreachable, a person is told so in words: a 503 with
Retry-After, never a 500 (issue 17 item 1), and afterwards the game goes on.

Measured before: during a PostgreSQL restart the fault bench saw web answers 500.
"""
from __future__ import annotations

import html
import socket
import time

import pytest

from app import create_app, engine, services
from app.db import get_engine
from tests.conftest import TEST_DATABASE_URL, TEST_SECRET_KEY
from tests.web.test_health import GIVE_UP_SECONDS, app_through_proxy


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_with_the_database_gone_pages_and_moves_say_so_in_words(tmp_path, new_game):
    created = new_game()
    token = created.tokens[0]
    gone = create_app({"TESTING": True, "SECRET_KEY": TEST_SECRET_KEY,
                       "DATABASE_URL": f"postgresql+psycopg://nobody@127.0.0.1:{unused_port()}/x",
                       "INSTANCE_PATH": str(tmp_path / "gone")})
    client = gone.test_client()

    page = client.get(f"/play/{token}")
    assert page.status_code == 503
    assert page.headers["Retry-After"] == "30"
    words = " ".join(html.unescape(page.get_data(as_text=True)).split())
    assert "lost its database for a moment" in words and "nothing of it was saved" in words

    api = client.post(f"/api/play/{token}/actions",
                      json={"action": {"type": "draw"}, "expected_seq": 0})
    assert api.status_code == 503
    assert api.get_json()["error"] == "database_unavailable"
    assert "Reload in a minute" in api.get_json()["message"]


@pytest.mark.postgres
@pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs TEST_DATABASE_URL pointing at PostgreSQL")
def test_a_seat_page_during_a_database_outage_is_a_503_and_opens_again_after(
        app, database_url, tmp_path, new_game):
    created = new_game()
    path = f"/play/{created.tokens[0]}"
    proxy, web = app_through_proxy(database_url, tmp_path)
    client = web.test_client()
    try:
        assert client.get(path).status_code == 200
        proxy.close()  # the pooled connection dies under the next request
        for _ in range(3):
            assert client.get(path).status_code == 503
        proxy.open()
        end = time.monotonic() + GIVE_UP_SECONDS
        while (status := client.get(path).status_code) != 200:
            assert status == 503 and time.monotonic() < end, status
            time.sleep(0.2)
        # and a move made afterwards is kept, once
        snap = services.snapshot(created.game_id)
        move = engine.legal_actions(snap.state, 0)[0]
        answer = client.post(f"/api/play/{created.tokens[0]}/actions",
                             json={"action": move, "expected_seq": snap.seq})
        assert answer.status_code == 200, answer.get_json()
        assert services.snapshot(created.game_id).seq == snap.seq + 1
    finally:
        get_engine(web).dispose()
        proxy.close()
