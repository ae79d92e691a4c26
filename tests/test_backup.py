"""``flask --app app backup DEST`` restores to a working server (issue 19 item 5).

Scenario: a server on SQLite whose secret key was generated into its instance folder; a
game with moves, open while the backup runs (another connection even holds a write it has
not committed). The backup folder's two files are copied into a new, empty instance
folder and a new app is made on it: the game goes on (a move posts) and a link made
before the backup still opens its seat. On PostgreSQL the command says what to do
instead and fails.
"""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from app import create_app, services
from app.db import get_engine, upgrade
from tests.conftest import PEOPLE, TEST_DATABASE_URL

sqlite_only = pytest.mark.skipif(bool(TEST_DATABASE_URL), reason="the SQLite backup")


def a_move(client, token: str) -> int:
    """Post the first legal action of the seat behind ``token``; the new step."""
    legal = client.get(f"/api/play/{token}/actions").get_json()
    answer = client.post(f"/api/play/{token}/actions",
                         json={"action": legal["legal_actions"][0], "expected_seq": legal["seq"]})
    assert answer.status_code == 200, answer.get_json()
    return int(answer.get_json()["seq"])


def to_act(client, tokens: list[str]) -> str:
    """The link of a seat that has something to do now."""
    for token in tokens:
        if client.get(f"/api/play/{token}/actions").get_json()["legal_actions"]:
            return token
    raise AssertionError("nobody is to act")


def server(instance: Path) -> object:
    """An app on the store of ``instance`` alone (its file, its generated key)."""
    app = create_app({"TESTING": True, "INSTANCE_PATH": str(instance),
                      "BASE_URL": "http://silver-eye.test"})
    upgrade(app.config["DATABASE_URL"])
    return app


@sqlite_only
def test_a_backup_restores_to_a_server_where_the_game_goes_on_and_old_links_open(
        tmp_path, monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    live = server(tmp_path / "live")
    assert (tmp_path / "live" / "secret_key").exists(), "the key was generated into a file"
    with live.app_context():
        players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
        created = services.create_game(players, {}, name="Backed up", seed="99")
    client = live.test_client()
    step = a_move(client, to_act(client, created.tokens))
    step = a_move(client, to_act(client, created.tokens))
    old_links = list(created.tokens)
    database = Path(sa.engine.make_url(live.config["DATABASE_URL"]).database or "")
    writer = sqlite3.connect(database)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE game SET name = 'not committed' WHERE id = ?", (created.game_id,))

    result = live.test_cli_runner().invoke(args=["backup", str(tmp_path / "backup")])

    writer.rollback()
    writer.close()
    assert result.exit_code == 0, result.output
    assert f"database copied to {tmp_path / 'backup' / 'silver_eye.db'}" in result.output
    assert "secret key copied to" in result.output
    assert (tmp_path / "backup" / "secret_key").stat().st_mode & 0o077 == 0, "the key stays private"
    assert (tmp_path / "backup" / "silver_eye.db").stat().st_mode & 0o077 == 0, \
        "the copy holds every address and seed: its owner's only (issue 34)"
    after_backup = a_move(client, to_act(client, created.tokens))
    get_engine(live).dispose()

    restored_folder = tmp_path / "restored"
    restored_folder.mkdir()
    for name in ("silver_eye.db", "secret_key"):
        shutil.copy(tmp_path / "backup" / name, restored_folder / name)
    restored = server(restored_folder)
    other = restored.test_client()

    for token in old_links:
        assert other.get(f"/play/{token}").status_code == 200, "a link made before still opens"
    with restored.app_context():
        snap = services.snapshot(created.game_id)
    assert snap.game.name == "Backed up", "the uncommitted write is not in the backup"
    assert snap.seq == step, "the backup holds the game as it was, not the move after it"
    assert a_move(other, to_act(other, old_links)) == step + 1 == after_backup
    get_engine(restored).dispose()


@sqlite_only
def test_a_key_from_the_environment_is_named_loudly_and_a_backup_is_never_overwritten(
        app, runner, tmp_path):
    first = runner.invoke(args=["backup", str(tmp_path / "b")])

    assert first.exit_code == 0, first.output
    assert "WARNING: The secret key is not in a file" in first.stderr
    assert "SECRET_KEY" in first.stderr and "every link in every mail" in first.stderr
    assert not (tmp_path / "b" / "secret_key").exists()
    second = runner.invoke(args=["backup", str(tmp_path / "b")])
    assert second.exit_code == 1 and "exists already: back up into a new folder" in second.output


@pytest.mark.skipif(not TEST_DATABASE_URL, reason="PostgreSQL's answer")
def test_on_postgresql_the_backup_says_to_use_pg_dump_and_fails(app, runner, tmp_path):
    result = runner.invoke(args=["backup", str(tmp_path / "b")])

    assert result.exit_code == 1
    assert "pg_dump" in result.output and "SECRET_KEY" in result.output
    assert not (tmp_path / "b" / "silver_eye.db").exists()
