"""Two web nodes and two clocks on one PostgreSQL (issue 10, "two web nodes").

Everything is a real process: two gunicorn nodes on two ports, two clock
processes, one PostgreSQL schema and one SMTP server. Seat links are taken
from the invitation mails (signed by whichever process composed them) and
every request goes to a node picked at random, so a link signed on one node
is used on the other. A third game is left to the clocks: its deadlines are
made due by hand and both clocks race for them.

What must hold: every game played by links ends; every deadline that came
due fired once (one timeout action per deadline, however many clocks); every
mail in the outbox left once (one delivery per Message-ID, none left behind).
"""
from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.conftest import TEST_DATABASE_URL
from tests.mail.conftest import SmtpServer, free_port

pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                                 reason="needs TEST_DATABASE_URL (PostgreSQL)")]

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
SECRET = "two-nodes-shared-secret"
PLAYED_GAMES = 2
FORCED_DEADLINES = 2      # below the default absent_after (3): no seat goes away
MOVES_LIMIT = 3000
WAIT_SECONDS = 60


class Node:
    """One keep-alive connection to one web node."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (http.client.HTTPException, OSError):  # a worker recycled the connection
            self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


def _wait_until(check, what: str, seconds: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _token(link: str) -> str:
    return link.rstrip("/").split("/play/")[1].split("?")[0].split("/")[0]


def play_by_links(nodes: list[Node], tokens: list[str], seed: int) -> int:
    """Play a game to its end, each request to a random node; returns its moves."""
    rng = random.Random(seed)
    moves = 0
    for _ in range(MOVES_LIMIT):
        status, state = rng.choice(nodes).call("GET", f"/api/play/{tokens[0]}")
        assert status == 200, state
        if state["game"]["status"] != "running":
            return moves
        seat = rng.choice(state["view"]["to_act"])
        status, legal = rng.choice(nodes).call("GET", f"/api/play/{tokens[seat]}/actions")
        assert status == 200, legal
        if not legal["legal_actions"]:
            continue
        status, answer = rng.choice(nodes).call(
            "POST", f"/api/play/{tokens[seat]}/actions",
            {"action": rng.choice(legal["legal_actions"]), "expected_seq": legal["seq"]})
        assert status in (200, 409), answer  # 409: a clock moved first; look again
        moves += status == 200
    raise AssertionError("a game played by links did not end")


@pytest.fixture
def shared_schema(database_url):
    """A PostgreSQL schema of its own (tests/conftest.py), shared by every process here."""
    return database_url


def test_two_nodes_and_two_clocks_play_every_game_fire_every_deadline_once_and_mail_once(
        shared_schema, tmp_path):
    from app import create_app, services
    from app.access import tokens
    from app.db import get_engine, upgrade

    url = shared_schema
    upgrade(url)
    smtp = SmtpServer()
    smtp.start()
    ports = [free_port(), free_port()]
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY=SECRET, MAIL_BACKEND="smtp",
               SMTP_URL=smtp.url, MAIL_FROM="Silver Eye Post <post@two-nodes.test>",
               BASE_URL=f"http://{HOST}:{ports[0]}", TURN_MAIL_DELAY_SECONDS="0",
               CLOCK_TICK_SECONDS="1")
    children: list[subprocess.Popen] = []
    try:
        for index, port in enumerate(ports):
            children.append(subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", f"{HOST}:{port}",
                 "--log-level", "warning", "app:create_app()"],
                cwd=ROOT, env=dict(env, INSTANCE_PATH=str(tmp_path / f"node{index}"))))
        for index in range(2):
            children.append(subprocess.Popen(
                [sys.executable, "-m", "app.processes", "clock", "--tick", "0.5"], cwd=ROOT,
                env=dict(env, INSTANCE_PATH=str(tmp_path / f"clock{index}"))))
        nodes = [Node(port) for port in ports]

        def up() -> bool:
            try:
                return all(node.call("GET", "/api/openapi.json")[0] == 200 for node in nodes)
            except OSError:
                return False
        _wait_until(up, "both web nodes")

        app = create_app({"DATABASE_URL": url, "SECRET_KEY": SECRET,
                          "INSTANCE_PATH": str(tmp_path / "creator"),
                          "BASE_URL": f"http://{HOST}:{ports[1]}"})
        people = [{"name": name, "email": f"{name.lower()}@example.com"}
                  for name in ("Ann", "Bob", "Cid")]
        with app.app_context():
            played = [services.create_game(people, seed=str(100 + g)).game_id
                      for g in range(PLAYED_GAMES)]
            left = services.create_game(people[:2], seed="777").game_id

        # the seat links come from the invitation mails, sent by either clock
        def invited() -> bool:
            return len(smtp.received) >= 3 * PLAYED_GAMES + 2
        _wait_until(invited, "the invitation mails")
        links: dict[tuple[str, int], str] = {}
        with app.app_context():
            for mail in smtp.received:
                ref = tokens.read_seat_token(_token(mail.seat_link()))
                links[(ref.game, ref.seat)] = _token(mail.seat_link())
        tables = [[links[(game_id, seat)] for seat in range(3)] for game_id in played]

        errors: list[BaseException] = []

        def player(index: int) -> None:
            try:
                play_by_links([Node(p) for p in ports], tables[index], seed=index)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=player, args=(i,)) for i in range(PLAYED_GAMES)]
        for thread in threads:
            thread.start()

        # meanwhile the third game's decisions come due, one after another
        engine = get_engine(app)
        forced: list[int] = []
        for _ in range(FORCED_DEADLINES):
            with engine.begin() as conn:
                row = conn.execute(sa.text(
                    "SELECT id FROM deadline WHERE game_id = :g AND kind = 'decision' "
                    "AND done_at IS NULL ORDER BY id LIMIT 1"), {"g": left}).first()
                assert row is not None, "the idle game has no open decision"
                conn.execute(sa.text("UPDATE deadline SET due_at = :t WHERE id = :i"),
                             {"t": datetime.now(timezone.utc) - timedelta(seconds=1),
                              "i": row[0]})
            forced.append(row[0])

            def fired(deadline_id: int = row[0]) -> bool:
                with engine.connect() as conn:
                    return conn.execute(sa.text("SELECT done_at FROM deadline WHERE id = :i"),
                                        {"i": deadline_id}).scalar() is not None
            _wait_until(fired, f"deadline {row[0]} to fire")

        for thread in threads:
            thread.join(timeout=300)
        assert errors == []

        with engine.connect() as conn:
            statuses = dict(conn.execute(sa.text("SELECT id, status FROM game")).all())
            timeouts = conn.execute(sa.text(
                "SELECT count(*) FROM action WHERE game_id = :g AND source = 'timeout'"),
                {"g": left}).scalar()
            fired_rows = conn.execute(sa.text(
                "SELECT count(*) FROM deadline WHERE game_id = :g AND fired_at IS NOT NULL"),
                {"g": left}).scalar()
        assert all(statuses[g] == "over" for g in played)
        # R38: one timeout is one pass; a deadline fired by both clocks would add a second
        assert timeouts == len(forced) == fired_rows

        def drained() -> bool:
            with engine.connect() as conn:
                return not conn.execute(sa.text(
                    "SELECT count(*) FROM outbox WHERE status = 'pending' "
                    "AND next_attempt_at <= :now"), {"now": datetime.now(timezone.utc)}).scalar()
        _wait_until(drained, "the outbox to drain")
        time.sleep(1.0)  # a send in flight lands
        with engine.connect() as conn:
            sent = {row[0] for row in conn.execute(sa.text(
                "SELECT message_id FROM outbox WHERE status = 'sent'"))}
        delivered = Counter(str(mail.message["Message-ID"]) for mail in smtp.received)
        assert delivered and max(delivered.values()) == 1, "a mail went out twice"
        assert set(delivered) == sent, "a mail marked sent never arrived, or the reverse"
        get_engine(app).dispose()
    finally:
        for child in children:
            child.terminate()
        for child in children:
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
        smtp.stop()
