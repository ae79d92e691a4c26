"""Configuration: defaults that work on a fresh clone, environment overrides."""
from __future__ import annotations

import os

import pytest

from app.config import load_config


def test_a_fresh_instance_gets_a_sqlite_file_and_a_secret_key_made_once(tmp_path):
    instance = tmp_path / "instance"
    first = load_config(instance, environ={})
    assert first["DATABASE_URL"] == f"sqlite:///{instance.resolve() / 'silver_eye.db'}"
    key_file = instance / "secret_key"
    assert key_file.read_text() == first["SECRET_KEY"] and len(first["SECRET_KEY"]) > 40
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert load_config(instance, environ={})["SECRET_KEY"] == first["SECRET_KEY"]
    assert first["BASE_URL"] == "http://127.0.0.1:5000"


def test_environment_and_caller_override_the_defaults(tmp_path):
    env = {"DATABASE_URL": "postgresql+psycopg://db/x", "SECRET_KEY": "from-env",
           "BASE_URL": "https://eye.example/", "BENCH_ENDPOINTS": "1"}
    config = load_config(tmp_path, environ=env)
    assert config["DATABASE_URL"] == "postgresql+psycopg://db/x"
    assert config["SECRET_KEY"] == "from-env" and not (tmp_path / "secret_key").exists()
    assert config["BASE_URL"] == "https://eye.example" and config["BENCH_ENDPOINTS"] is True
    assert load_config(tmp_path, {"SECRET_KEY": "mine"}, environ=env)["SECRET_KEY"] == "mine"
    assert load_config(tmp_path, environ={"BENCH_ENDPOINTS": "no", "SECRET_KEY": "k"})[
        "BENCH_ENDPOINTS"] is False


def test_importing_the_engine_does_not_load_the_web_stack():
    import subprocess
    import sys

    code = ("import sys, app.engine; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('flask', 'sqlalchemy', 'sqlmodel', 'werkzeug')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=dict(os.environ))
    assert out.stdout.strip() == "[]"


def test_debug_is_off_unless_the_environment_turns_it_on(tmp_path):
    """`make run` sets DEBUG=1 so its file mailbox is readable at /dev/mail; production does not."""
    assert load_config(tmp_path, environ={"SECRET_KEY": "k"})["DEBUG"] is False
    assert load_config(tmp_path, environ={"SECRET_KEY": "k", "DEBUG": "1"})["DEBUG"] is True


def test_mail_lobby_and_clock_settings_come_from_the_environment(tmp_path):
    env = {"SECRET_KEY": "k", "MAIL_BACKEND": "smtp", "SMTP_URL": "smtp://mx:25",
           "LOBBY_GAMES_PER_HOUR": "3", "DIGEST_HOURS": "12.5", "PROXY_FIX": "1"}
    config = load_config(tmp_path, environ=env)
    assert config["MAIL_BACKEND"] == "smtp" and config["SMTP_URL"] == "smtp://mx:25"
    assert config["LOBBY_GAMES_PER_HOUR"] == 3 and config["DIGEST_HOURS"] == 12.5
    with pytest.raises(ValueError, match="LOBBY_GAMES_PER_HOUR must be a number"):
        load_config(tmp_path, environ={"SECRET_KEY": "k", "LOBBY_GAMES_PER_HOUR": "many"})


def test_behind_a_proxy_the_forwarded_address_counts(tmp_path):
    from app import create_app
    app = create_app({"INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "k", "PROXY_FIX": 1,
                      "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"})
    seen = {}

    @app.get("/whoami-test")
    def whoami():
        from flask import request
        seen["addr"] = request.remote_addr
        return "ok"

    app.test_client().get("/whoami-test", headers={"X-Forwarded-For": "203.0.113.9"})
    assert seen["addr"] == "203.0.113.9"


def test_a_shared_database_refuses_to_start_without_an_explicit_secret_key(tmp_path):
    """Two web nodes on one PostgreSQL must sign with one key: no key, no start."""
    from app.config import ConfigError
    with pytest.raises(ConfigError, match="SECRET_KEY must be set"):
        load_config(tmp_path, environ={"DATABASE_URL": "postgresql+psycopg://db/x"})
    assert not (tmp_path / "secret_key").exists()
    # SQLite is one machine: a key is made up once in the instance folder
    assert load_config(tmp_path, environ={})["SECRET_KEY"]


def test_links_signed_with_a_retired_key_still_open_after_a_rotation(tmp_path):
    """SECRET_KEY_FALLBACKS: sign with the new key, accept the old ones."""
    from app import create_app
    from app.access import tokens
    base = {"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"}
    old_app = create_app({**base, "SECRET_KEY": "old-key"})
    with old_app.app_context():
        old_link = tokens.seat_token("g1", 0, 1)
    config = load_config(tmp_path, environ={"SECRET_KEY": "new-key",
                                            "SECRET_KEY_FALLBACKS": "older-key, old-key"})
    assert config["SECRET_KEY_FALLBACKS"] == ["older-key", "old-key"]
    rotated = create_app({**base, "SECRET_KEY": "new-key",
                          "SECRET_KEY_FALLBACKS": ["old-key"]})
    with rotated.app_context():
        assert tokens.read_seat_token(old_link).game == "g1"
        new_link = tokens.seat_token("g1", 0, 1)
        assert new_link != old_link
    with create_app({**base, "SECRET_KEY": "new-key"}).app_context():
        assert tokens.read_seat_token(new_link).seat == 0
        with pytest.raises(tokens.BadToken):  # fallbacks dropped: the old link is dead
            tokens.read_seat_token(old_link)


def test_every_default_is_in_one_place_and_every_reader_sees_it(tmp_path, monkeypatch):
    """config.DEFAULTS: an app's config holds every key, and ``setting`` outside an
    app answers the environment, else the same default (a misspelt key fails)."""
    from app.config import DEFAULTS, setting
    config = load_config(tmp_path, environ={"SECRET_KEY": "k"})
    assert set(DEFAULTS) <= set(config)
    assert config["LOBBY_GAMES_PER_HOUR"] == DEFAULTS["LOBBY_GAMES_PER_HOUR"] == 10
    monkeypatch.delenv("MAIL_FROM", raising=False)
    assert setting("MAIL_FROM") == DEFAULTS["MAIL_FROM"]
    monkeypatch.setenv("MAIL_FROM", "Post <post@example.org>")
    assert setting("MAIL_FROM") == "Post <post@example.org>"
    with pytest.raises(KeyError):
        setting("MAIL_FORM")
