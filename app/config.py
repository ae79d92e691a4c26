"""Configuration: defaults, then environment variables, then the caller's dict.

Kept free of Flask so the CLI, the clock and the benchmark can read the same
settings. The secret key is generated once into the instance folder (never
committed) so that seat links keep working across restarts without anyone
having to invent a key by hand.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

#: Environment variables read as they are (strings).
ENV_KEYS = ("DATABASE_URL", "SECRET_KEY", "BASE_URL", "MAIL_BACKEND", "SMTP_URL", "MAIL_FROM",
            "MAIL_DIR", "MAIL_DOMAIN", "INBOUND_SMTP", "INBOUND_SECRET", "INBOUND_AUTHSERV_ID")
#: Environment variables read as comma-separated lists.
ENV_LISTS = ("SECRET_KEY_FALLBACKS",)
#: Environment variables read as numbers.
ENV_NUMBERS = ("CLOCK_TICK_SECONDS", "DIGEST_HOURS", "FRESH_LINK_MINUTES",
               "LOBBY_GAMES_PER_HOUR", "LOBBY_FORM_MAX_AGE", "PROXY_FIX",
               "INBOUND_ANSWERS_PER_HOUR", "INBOUND_MAX_ATTEMPTS",
               "INBOUND_CONNECTIONS_PER_CLIENT", "INBOUND_IDLE_SECONDS",
               "TURN_MAIL_DELAY_SECONDS", "MAIL_PER_ADDRESS_PER_HOUR", "MAIL_RETENTION_DAYS",
               "HEARTBEAT_STALE_SECONDS", "READY_MAIL_LATE_SECONDS")
#: Environment variables read as on/off flags ("1", "true", "yes", "on").
ENV_FLAGS = ("BENCH_ENDPOINTS", "DEBUG")

DEFAULT_BASE_URL = "http://127.0.0.1:5000"
#: Readiness bounds (issue 17 item 1, ``app.runners.heartbeats``): a loop's heartbeat older
#: than this many seconds (or three of its own intervals, if longer) is not alive, and
#: the clock then sends the mail itself; ``/readyz`` fails when a mail has been due
#: and unsent longer than the second.
DEFAULT_HEARTBEAT_STALE_SECONDS = 30
DEFAULT_READY_MAIL_LATE_SECONDS = 600


def default_database_url(instance_path: str | os.PathLike[str]) -> str:
    """The SQLite file under the instance folder, used when nothing else is said."""
    return f"sqlite:///{Path(instance_path).resolve() / 'silver_eye.db'}"


def instance_secret_key(instance_path: str | os.PathLike[str]) -> str:
    """Read the instance's secret key, creating it atomically on first use.

    Several processes (two gunicorn workers, the clock) may start at once: the
    file is created with O_EXCL so exactly one key ever wins and all read it.
    """
    folder = Path(instance_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "secret_key"
    if not path.exists():
        key = secrets.token_urlsafe(48)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(key)
            return key
    key = path.read_text().strip()
    if not key:
        raise RuntimeError(f"{path} is empty: delete it to have a new key generated")
    return key


class ConfigError(RuntimeError):
    """A setting that would make the server misbehave: refuse to start, say why."""


def _flag(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


def load_config(instance_path: str | os.PathLike[str],
                overrides: dict[str, Any] | None = None,
                environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Build the settings dict: defaults < environment < ``overrides``."""
    env = os.environ if environ is None else environ
    config: dict[str, Any] = {
        "BASE_URL": DEFAULT_BASE_URL,
        "BENCH_ENDPOINTS": False,
        # DEBUG shows the file mailbox at /dev/mail; `make run` turns it on.
        "DEBUG": False,
        # A turn can be large (a village of cards), but never this large.
        "MAX_CONTENT_LENGTH": 64 * 1024,
        # How many bot/timeout actions one request may play in a row; a game
        # of four bots is far below this, it only guards against a loop.
        "MAX_AUTOMATIC_ACTIONS": 5000,
        "BOT_STRATEGY": "greedy",
        "HEARTBEAT_STALE_SECONDS": DEFAULT_HEARTBEAT_STALE_SECONDS,
        "READY_MAIL_LATE_SECONDS": DEFAULT_READY_MAIL_LATE_SECONDS,
        # Inbound mail (issue 17 items 5 and 6): a transient failure is retried this
        # many times, then the row is dead-lettered with its error; one client IP holds
        # at most this many SMTP connections, each closed after this many idle seconds;
        # the authserv-id of the operator's own MTA (its Authentication-Results header
        # is then the only one trusted; unset: the reply address is the only proof).
        "INBOUND_MAX_ATTEMPTS": 5,
        "INBOUND_CONNECTIONS_PER_CLIENT": 10,
        "INBOUND_IDLE_SECONDS": 60,
        "INBOUND_AUTHSERV_ID": None,
    }
    for key in ENV_KEYS:
        if env.get(key):
            config[key] = env[key]
    for key in ENV_LISTS:
        if env.get(key):
            config[key] = [part.strip() for part in env[key].split(",") if part.strip()]
    for key in ENV_FLAGS:
        if key in env:
            config[key] = _flag(env[key])
    for key in ENV_NUMBERS:
        if env.get(key):
            try:
                config[key] = float(env[key]) if "." in env[key] else int(env[key])
            except ValueError:
                raise ValueError(f"{key} must be a number, not {env[key]!r}") from None
    config.update(overrides or {})
    if not config.get("DATABASE_URL"):
        Path(instance_path).mkdir(parents=True, exist_ok=True)
        config["DATABASE_URL"] = default_database_url(instance_path)
    if not config.get("SECRET_KEY"):
        if not str(config["DATABASE_URL"]).startswith("sqlite"):
            # A shared database means several nodes or processes; a key made up
            # per instance folder would sign links that the other nodes refuse.
            raise ConfigError(
                "SECRET_KEY must be set when DATABASE_URL is not SQLite: every web node and "
                "clock of one database must sign links with the same key (see docs/deploy.md)")
        config["SECRET_KEY"] = instance_secret_key(instance_path)
    fallbacks = config.get("SECRET_KEY_FALLBACKS") or []
    if isinstance(fallbacks, str):
        fallbacks = [part.strip() for part in fallbacks.split(",") if part.strip()]
    config["SECRET_KEY_FALLBACKS"] = list(fallbacks)
    config["BASE_URL"] = str(config["BASE_URL"]).rstrip("/")
    return config


def setting(key: str, default: Any = None) -> Any:
    """One setting as the running code sees it: the Flask app's config (which
    ``load_config`` filled from the defaults above, the environment and the caller's
    dict), else, outside an app (a plain script), the environment, else ``default``.

    The one reader of settings below the app factory: every module asks this, so a
    setting means the same wherever it is read."""
    try:
        from flask import current_app
        value = current_app.config.get(key)
    except RuntimeError:  # outside an app context
        value = None
    if value in (None, ""):
        value = os.environ.get(key)
    return default if value in (None, "") else value
