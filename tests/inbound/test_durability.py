"""The inbox survives the process that applies it; the receiver can apply at once."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from app import services
from tests.conftest import TEST_SECRET_KEY
from tests.inbound.conftest import DOMAIN, Inbound, Player
from tests.mail.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
ANN = "ann@example.com"


def statuses(db) -> list[str]:
    with db.engine.connect() as conn:
        return [row[0] for row in conn.execute(sa.text("SELECT status FROM inbox ORDER BY id"))]


def _receiver(database_url: str, port: int, tmp_path: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": TEST_SECRET_KEY,
           "BASE_URL": "http://silver-eye.test", "MAIL_DOMAIN": DOMAIN,
           "MAIL_FROM": f"Silver Eye Post <post@{DOMAIN}>"}
    process = subprocess.Popen([sys.executable, "-m", "app.processes", "inbound",
                                "--listen", f"127.0.0.1:{port}", *extra],
                               cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    for line in process.stdout:  # wait for the line it prints once it listens
        if "inbound SMTP listening" in line:
            return process
    raise AssertionError(f"the receiver did not start (exit {process.wait()})")


def _until(check, what: str, attempts: int = 400) -> None:
    """Poll ``check`` (bounded): a subprocess works at its own pace."""
    for _ in range(attempts):
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.mark.slow  # real receiver processes, one killed
def test_a_reply_stored_by_a_killed_receiver_is_applied_once_after_a_restart(
        mail_app, new_game, deliver, smtp, db, database_url, tmp_path):
    created = new_game(seats=2)
    deliver()
    ann = Player("Ann", ANN, smtp)
    port = free_port()
    first = _receiver(database_url, port, tmp_path, "--store-only")
    try:
        fake = Inbound.__new__(Inbound)
        fake.port = port
        ann.answer(fake, ann.waiting(), "peek 1 2")  # 250 only after the row is committed
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert statuses(db) == ["pending"] and db.actions(created.game_id) == []

    second = _receiver(database_url, port, tmp_path)  # applies what it finds, then listens
    try:
        assert statuses(db) == ["applied"]
        assert db.actions(created.game_id) == [(1, 0, "mail")]
    finally:
        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=30) == 0
    deliver()  # the clock finds nothing left to apply
    assert db.actions(created.game_id) == [(1, 0, "mail")] and statuses(db) == ["applied"]


def test_the_receiver_applies_a_reply_right_after_storing_it(mail_app, new_game, deliver,
                                                              smtp, db):
    created = new_game(seats=2)
    deliver()
    server = Inbound(mail_app, apply=True)
    server.controller.start()
    try:
        ann = Player("Ann", ANN, smtp)
        ann.answer(server, ann.waiting(), "peek 1 2")
        _until(lambda: statuses(db) == ["applied"], "the reply to be applied")
    finally:
        server.controller.stop()
        server.controller.handler.close()
    assert db.actions(created.game_id) == [(1, 0, "mail")]
    assert services.game_info(created.game_id).seq == 1
