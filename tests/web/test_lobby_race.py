"""Issue 9, item 4: the lobby's games-per-hour limit holds under concurrency, and a
form token creates one game only.

The attack posted 60 lobby forms at once from one address and got 11 games (2
workers) or 12-17 (8 workers) against a limit of 10. Here two processes (two
workers, each with its own engine and pool) post 30 forms each at once, every
form with its own fresh token: exactly the limit is created, every other post
is told to wait (429). Runs on SQLite and, with ``TEST_DATABASE_URL``, on
PostgreSQL.
"""
from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import pytest

from app.access import tokens
from app.config import DEFAULTS
from tests.conftest import TEST_SECRET_KEY
from tests.web.test_pages import lobby_form

PROCESSES, PER_PROCESS = 2, 30
ADDRESS = "198.51.100.23"
PLAYERS = [("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human")]


def worker(database_url: str, instance: str, barrier: Any, results: Any) -> None:
    """One "worker process": its own app; its threads post at the same moment."""
    from app import create_app

    app = create_app({"TESTING": True, "DATABASE_URL": database_url,
                      "SECRET_KEY": TEST_SECRET_KEY, "BASE_URL": "http://silver-eye.test",
                      "INSTANCE_PATH": instance})
    with app.app_context():
        forms = [{**lobby_form(PLAYERS), "form_token": tokens.lobby_form_token()}
                 for _ in range(PER_PROCESS)]
    statuses: list[int] = []
    ready = threading.Barrier(PER_PROCESS + 1)

    def post(form: dict[str, str]) -> None:
        client = app.test_client()
        ready.wait()
        answer = client.post("/", data=form, environ_base={"REMOTE_ADDR": ADDRESS})
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=post, args=(form,)) for form in forms]
    for thread in threads:
        thread.start()
    barrier.wait()      # both processes ready
    ready.wait()        # release this process's threads
    for thread in threads:
        thread.join(timeout=120)
    results.put(statuses)


@pytest.mark.slow  # real processes (spawned), racing
def test_sixty_creations_at_once_from_one_address_make_exactly_the_limit(app, db,
                                                                        database_url, tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(PROCESSES), context.Queue()
    processes = [context.Process(target=worker, args=(database_url, str(tmp_path / f"w{i}"),
                                                      barrier, results))
                 for i in range(PROCESSES)]
    for process in processes:
        process.start()
    statuses = [status for _ in processes for status in results.get(timeout=180)]
    for process in processes:
        process.join(timeout=60)
    assert len(statuses) == PROCESSES * PER_PROCESS
    assert statuses.count(303) == DEFAULTS["LOBBY_GAMES_PER_HOUR"], sorted(statuses)
    assert statuses.count(429) == PROCESSES * PER_PROCESS - DEFAULTS["LOBBY_GAMES_PER_HOUR"]
    assert db.count("game") == DEFAULTS["LOBBY_GAMES_PER_HOUR"]


def test_a_form_token_creates_one_game_only(client, db):
    form = lobby_form(PLAYERS, client)
    assert client.post("/", data=form).status_code == 303
    again = client.post("/", data=form)
    assert again.status_code == 400
    assert "already created a game" in again.get_data(as_text=True)
    assert db.count("game") == 1


def test_one_form_token_posted_many_times_at_once_creates_one_game(app, client, db):
    form = lobby_form(PLAYERS, client)
    statuses: list[int] = []
    ready = threading.Barrier(12)

    def post() -> None:
        other = app.test_client()
        ready.wait()
        statuses.append(other.post("/", data=form).status_code)

    threads = [threading.Thread(target=post) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses) == [303] + [400] * 11
    assert db.count("game") == 1
