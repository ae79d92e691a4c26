"""Set-up that never surprises (issue 51 item 5), as someone starting the server for the
first time meets it: the first migration says it created the database, two servers
started side by side with their own ``PORT`` each receive replies on a port of their
own, a Ctrl-C of ``make run`` stops everything cleanly (exit 0), and the lobby offers
the wait before a turn is mailed."""
from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from app.run_all import inbound_port

ROOT = Path(__file__).resolve().parents[2]
FORM_TOKEN = re.compile(r'name="form_token" value="([^"]+)"')


def test_the_first_migration_says_it_created_the_database(app: Any, tmp_path: Path) -> None:
    runner = app.test_cli_runner()
    app.config["DATABASE_URL"] = f"sqlite:///{tmp_path / 'fresh.db'}"
    first = runner.invoke(args=["db-upgrade"])
    assert first.exit_code == 0 and "created the database" in first.output, first.output
    again = runner.invoke(args=["db-upgrade"])
    assert "is up to date" in again.output and "created" not in again.output


def test_each_web_port_has_its_own_inbound_port() -> None:
    assert inbound_port(5000) == 2525  # the documented default stays
    assert inbound_port(5500) == 3025 and inbound_port(5600) == 3125
    ports = {inbound_port(p) for p in range(5000, 5100)}
    assert len(ports) == 100  # never two web ports on one inbound port
    assert all(inbound_port(p) != p for p in (5000, 8000, 2525 + 5000, 60000))


def _free_port() -> int:
    """A web port whose inbound port is free too, both below the kernel's ephemeral range
    (32768 and up), where another test's client sockets cannot take the inbound one (it
    did once in CI: a free web port 50037 whose inbound port 47562 a client held)."""
    rng = random.Random()
    while True:
        port = rng.randrange(20000, 30000)
        try:
            for candidate in (port, inbound_port(port)):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.slow
def test_two_servers_side_by_side_and_a_clean_ctrl_c(tmp_path: Path) -> None:
    """Two ``python -m app.run_all`` with their own PORT (and store): both start, each
    with its own inbound port; a Ctrl-C to each one's process group exits 0."""
    started = []
    for n in range(2):
        port = _free_port()
        env = {**os.environ, "PORT": str(port),
               "DATABASE_URL": f"sqlite:///{tmp_path / f'db{n}.sqlite'}",
               "CLOCK_TICK_SECONDS": "1"}
        env.pop("INBOUND_SMTP", None)
        child = subprocess.Popen([sys.executable, "-m", "app.run_all"], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 start_new_session=True, text=True)
        started.append((child, port, inbound_port(port)))
        _wait_for(started[-1:])  # one at a time: the first makes instance/ and its key
    try:
        _wait_for(started)
        for child, web, mail in started:
            assert child.poll() is None, child.stdout.read() if child.stdout else ""
            assert _listening(web) and _listening(mail), (web, mail)
    finally:
        for child, _, _ in started:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGINT)
        codes = [child.wait(timeout=30) for child, _, _ in started]
    assert codes == [0, 0]


def _wait_for(started: list[Any]) -> None:
    """Until each of ``started`` listens on both its ports (or has exited)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(
            _listening(web) and _listening(mail) or child.poll() is not None
            for child, web, mail in started):
        time.sleep(0.5)


def test_the_lobby_offers_the_wait_before_a_turn_is_mailed(client: Any, db: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "Wait before mailing a turn" in page
    form = {"form_token": FORM_TOKEN.search(page).group(1), "name": "Quick one",
            "seat0_name": "Ann", "seat0_email": "ann@example.org",
            "seat1_name": "Bob", "seat1_email": "bob@example.org", "deadline": "1",
            "deadline_unit": "days", "reminders": "", "absent_after": "3",
            "more_time": "1", "turn_mail_minutes": "10"}
    assert client.post("/", data=form).status_code == 303
    from app.db import read_session
    from app.gamelog import store
    with read_session() as session:
        [game] = session.exec(select(store.Game)).all()
        assert game.options["turn_mail_delay_seconds"] == 600
    form["turn_mail_minutes"] = "600"
    form["form_token"] = FORM_TOKEN.search(client.get("/").get_data(as_text=True)).group(1)
    refused = client.post("/", data=form)
    assert refused.status_code == 400
    assert "Wait before mailing a turn: 0 to 60 minutes" in refused.get_data(as_text=True)
