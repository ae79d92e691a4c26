"""Configuration: defaults (``DEFAULTS``, the one place each is written), then environment
variables, then the caller's dict; ``setting(key)`` is how the code below the app factory reads one.

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

#: Every setting the code reads, with its default: the one place a default is written.
#: ``load_config`` starts from this dict (so an app's config holds every key) and
#: ``setting(key)`` falls back to it outside an app, so no call site says its own
#: default. A ``None`` means "not set": the line says what the code does then.
#: README.md's table lists the ones an operator sets.
DEFAULTS: dict[str, Any] = {
    # -- the server ------------------------------------------------------------------
    # None: a SQLite file under the instance folder (``default_database_url``).
    "DATABASE_URL": None,
    # None: generated once into instance/secret_key (SQLite only, see ``load_config``).
    "SECRET_KEY": None,
    # Retired keys still accepted (the newest signs): rotating the key keeps old links.
    "SECRET_KEY_FALLBACKS": (),
    # Used in links and mail; the development server's address.
    "BASE_URL": "http://127.0.0.1:5000",
    # Reverse proxies in front whose X-Forwarded-* headers are trusted (0: none).
    "PROXY_FIX": 0,
    # DEBUG shows the file mailbox at /dev/mail; `make run` turns it on.
    "DEBUG": False,
    # The benchmark's baseline endpoints (app.web.api) are registered only when on.
    "BENCH_ENDPOINTS": False,
    # A turn can be large (a village of cards), but never this large.
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # A pooled connection unused this long is pinged before a request gets it.
    "DB_IDLE_PING_SECONDS": 10.0,
    # -- games -----------------------------------------------------------------------
    # How many bot/timeout actions one request may play in a row; a game of four
    # bots is far below this, it only guards against a loop.
    "MAX_AUTOMATIC_ACTIONS": 5000,
    "BOT_STRATEGY": "greedy",
    # A seat may say "away" or "back" this many times an hour (each tells every other
    # player): beyond it, 429 and nothing is stored.
    "PRESENCE_PER_HOUR": 4,
    # R51 (issue 45 item 4): a seat only away is not handed to a substitute sooner than
    # this many running hours after the vote's mail to its player left, whatever the yes.
    "SUBSTITUTE_NOTICE_HOURS": 12,
    # Issue 47 item 5: the days a person may be away from all their games in a calendar
    # year (UTC) with their deadlines paused in every game that allows vacation
    # (app.people.away); beyond them the clock runs as usual (R29).
    "AWAY_DAYS_PER_YEAR": 30,
    # -- the lobby -------------------------------------------------------------------
    # Games one address may start per hour.
    "LOBBY_GAMES_PER_HOUR": 10,
    # Seconds a lobby form stays good to post: long enough to gather four friends'
    # addresses, short enough that a harvested token soon expires.
    "LOBBY_FORM_MAX_AGE": 6 * 3600,
    # Seconds the links page lives: long enough to hand out the links, short enough
    # not to be a standing key to every seat.
    "CREATED_PAGE_SECONDS": 3600,
    # -- open tables (issue 48: app.services.open_tables) ---------------------------------
    # Hours a stranger's seat is held for them after they asked to sit down (the mailed
    # link's click seats them), and hours that link still seats them if a seat is free.
    "OPEN_TABLE_HOLD_HOURS": 4,
    "OPEN_TABLE_LINK_HOURS": 12,
    # Asks to sit down per hour from one network address, and for one address.
    "OPEN_TABLE_ASKS_PER_IP_HOUR": 10,
    "OPEN_TABLE_ASKS_PER_ADDRESS_HOUR": 3,
    # The most open-table games (waiting or running) one person may be in at once
    # (3 while new, one more for each game finished: app.seating.rules.cap).
    "OPEN_TABLE_CAP_MAX": 12,
    # -- mail out --------------------------------------------------------------------
    "MAIL_BACKEND": "file",
    # Needed by MAIL_BACKEND=smtp: smtp://user:pass@host:587?starttls=1 or smtps://...
    "SMTP_URL": None,
    # The name the SMTP transport gives in EHLO/HELO (None: this host's name, Python's
    # default); make it the name the sending IP's PTR record gives (docs/deliverability.md).
    "SMTP_HELO": None,
    "MAIL_FROM": "Silver Eye Post <silver-eye-post@localhost>",
    # None: the file backend writes under instance/mail.
    "MAIL_DIR": None,
    # None: the domain of MAIL_FROM (replies go to play+<token>@MAIL_DOMAIN).
    "MAIL_DOMAIN": None,
    # A turn mail waits this long for the seat to act from an open tab.
    "TURN_MAIL_DELAY_SECONDS": 120.0,
    # At most one digest mail per seat in this many hours.
    "DIGEST_HOURS": 24.0,
    # At most one "email me a fresh link" mail per seat in this many minutes.
    "FRESH_LINK_MINUTES": 10.0,
    # At most one "send me the link to my settings" mail per address in this many
    # minutes (issue 45: the link is mailed, never shown; anyone holding a seat link may ask).
    "SETTINGS_LINK_MINUTES": 10.0,
    # Mails to one address per hour across all games (0: no cap).
    "MAIL_PER_ADDRESS_PER_HOUR": 60,
    # Games a day one address may be seated in by people it never played with (issue 34
    # item 2: a person is bounded by people, not by history; 0: no bound).
    "INVITATIONS_FROM_STRANGERS_PER_DAY": 10,
    # Done mail, finished inbound mail and closed deadlines older than this are pruned.
    "MAIL_RETENTION_DAYS": 30,
    # Rows the hourly pruning reads at most in one statement (``app.runners.pruning``).
    "PRUNE_BATCH": 500,
    # -- the clock and readiness (issue 17 item 1, ``app.runners.heartbeats``) --------
    "CLOCK_TICK_SECONDS": 30,
    # A loop's heartbeat older than this many seconds (or three of its own intervals,
    # if longer) is not alive, and the clock then sends the mail itself.
    "HEARTBEAT_STALE_SECONDS": 30,
    # ``/readyz`` fails when a mail has been due and unsent longer than this.
    "READY_MAIL_LATE_SECONDS": 600,
    # ``/readyz`` fails when mail has failed to leave for longer than this: the oldest
    # mail whose attempts keep failing (the mail server refuses it or cannot be reached)
    # first failed this many seconds ago (issue 45 item 6).
    "READY_MAIL_FAILING_SECONDS": 300,
    # -- mail in (issue 17 items 5 and 6) ---------------------------------------------
    # Where the inbound SMTP receiver listens (host:port).
    "INBOUND_SMTP": "127.0.0.1:2525",
    # None: POST /inbound/mail is off (its X-Inbound-Secret header must match this).
    "INBOUND_SECRET": None,
    # Answers to unreadable/refused replies per seat per hour: enough for a confused
    # player, too few for two auto-responders to loop.
    "INBOUND_ANSWERS_PER_HOUR": 5,
    # A transient failure is retried this many times, then the row is dead-lettered.
    "INBOUND_MAX_ATTEMPTS": 5,
    # One client IP holds at most this many SMTP connections (an MTA delivering a
    # queue opens a few; a hundred idle ones are someone holding the door) ...
    "INBOUND_CONNECTIONS_PER_CLIENT": 10,
    # ... each closed after this many idle seconds.
    "INBOUND_IDLE_SECONDS": 60,
    # The authserv-id of the operator's own MTA (its Authentication-Results header is
    # then the only one trusted); None: the reply address is the only proof.
    "INBOUND_AUTHSERV_ID": None,
    # issue 19 metrics, logs and headers: ------------------------------------------
    # "json" or "text"; None: JSON, or text when DEBUG is on (`make run`).
    "LOG_FORMAT": None,
    # Set: /metrics wants "Authorization: Bearer <this>" (401 without it). None: /metrics
    # serves nothing (403, in words), but under DEBUG (issue 45 item 6).
    "METRICS_TOKEN": None,
    # Strict-Transport-Security max-age, sent over https or when BASE_URL is https (0: never).
    "HSTS_MAX_AGE": 31536000,
    # end of issue 19 metrics, logs and headers
    # issue 19 DKIM and bounces: ------------------------------------------------------
    # All three set: every outgoing mail is DKIM-signed (d=, s=, a PEM RSA key file).
    "DKIM_DOMAIN": None,
    "DKIM_SELECTOR": None,
    "DKIM_PRIVATE_KEY_FILE": None,
    # Soft bounces (mailbox full, server busy) of one address, since its last accepted
    # reply, after which it counts as bouncing like a hard bounce.
    "BOUNCE_SOFT_LIMIT": 5,
    # end of issue 19 DKIM and bounces
    # issue 20 table talk and notice targets: -------------------------------------------
    # The longest message said at a table (characters), and how many one seat may say
    # in any hour (the next is refused with words until the oldest is an hour old).
    "TALK_MAX_CHARS": 500,
    "TALK_PER_SEAT_PER_HOUR": 50,
    # A seat on "hourly" talk mail gets at most one talk mail in this many minutes.
    "TALK_MAIL_MINUTES": 60,
    # True: notice targets may point at loopback, private and link-local addresses
    # (tests, a home server on the LAN); off, such a target is refused with words.
    "NOTICE_ALLOW_PRIVATE": False,
    # Targets one seat (or one address) may have.
    "NOTICE_TARGETS_PER_SEAT": 5,
    # A delivery is tried this many times (backoff from 15 s), then failed; a target
    # whose deliveries failed this many times in a row is paused (its page says so).
    "NOTICE_MAX_ATTEMPTS": 6,
    "NOTICE_FAILURES_TO_PAUSE": 3,
    # Seconds one notice may take to be handed over.
    "NOTICE_TIMEOUT_SECONDS": 10,
    # end of issue 20 table talk and notice targets
    # issue 49 Web Push: the server's VAPID key pair (``flask --app app push-keys`` makes
    # one; base64url: the private key's raw 32 bytes, the public key's uncompressed
    # point). Without both, push is off: no button shows, subscribing is refused.
    "VAPID_PRIVATE_KEY": None,
    "VAPID_PUBLIC_KEY": None,
    # Who the push services may contact about our pushes ("mailto:..." or an https URL;
    # None: mailto: MAIL_FROM's address).
    "VAPID_SUBJECT": None,
    # The longest a push service keeps a push that has no deadline (a decision's push
    # expires at its deadline, never later).
    "PUSH_TTL_SECONDS": 86400,
    # Tests only: a push endpoint may be an http(s) URL of this machine (loopback).
    "PUSH_ALLOW_LOOPBACK": False,
    # end of issue 49 Web Push
}

#: Environment variables read as they are (strings).
ENV_KEYS = ("DATABASE_URL", "SECRET_KEY", "BASE_URL", "MAIL_BACKEND", "SMTP_URL", "MAIL_FROM",
            "MAIL_DIR", "MAIL_DOMAIN", "INBOUND_SMTP", "INBOUND_SECRET", "INBOUND_AUTHSERV_ID",
            "LOG_FORMAT", "METRICS_TOKEN", "DKIM_DOMAIN", "DKIM_SELECTOR",
            "DKIM_PRIVATE_KEY_FILE", "SMTP_HELO", "VAPID_PRIVATE_KEY", "VAPID_PUBLIC_KEY",
            "VAPID_SUBJECT")
#: Environment variables read as comma-separated lists.
ENV_LISTS = ("SECRET_KEY_FALLBACKS",)
#: Environment variables read as numbers.
ENV_NUMBERS = ("CLOCK_TICK_SECONDS", "DIGEST_HOURS", "FRESH_LINK_MINUTES",
               "SETTINGS_LINK_MINUTES",
               "LOBBY_GAMES_PER_HOUR", "LOBBY_FORM_MAX_AGE", "PROXY_FIX",
               "OPEN_TABLE_HOLD_HOURS", "OPEN_TABLE_LINK_HOURS", "OPEN_TABLE_ASKS_PER_IP_HOUR",
               "OPEN_TABLE_ASKS_PER_ADDRESS_HOUR", "OPEN_TABLE_CAP_MAX",
               "SUBSTITUTE_NOTICE_HOURS", "AWAY_DAYS_PER_YEAR",
               "INBOUND_ANSWERS_PER_HOUR", "INBOUND_MAX_ATTEMPTS",
               "INBOUND_CONNECTIONS_PER_CLIENT", "INBOUND_IDLE_SECONDS",
               "TURN_MAIL_DELAY_SECONDS", "MAIL_PER_ADDRESS_PER_HOUR", "MAIL_RETENTION_DAYS",
               "PRUNE_BATCH", "INVITATIONS_FROM_STRANGERS_PER_DAY",
               "HEARTBEAT_STALE_SECONDS", "READY_MAIL_LATE_SECONDS",
               "READY_MAIL_FAILING_SECONDS", "HSTS_MAX_AGE",
               "BOUNCE_SOFT_LIMIT", "TALK_MAX_CHARS", "TALK_PER_SEAT_PER_HOUR",
               "TALK_MAIL_MINUTES", "NOTICE_TARGETS_PER_SEAT", "NOTICE_MAX_ATTEMPTS",
               "NOTICE_FAILURES_TO_PAUSE", "NOTICE_TIMEOUT_SECONDS", "PUSH_TTL_SECONDS")
#: Environment variables read as on/off flags ("1", "true", "yes", "on").
ENV_FLAGS = ("BENCH_ENDPOINTS", "DEBUG", "NOTICE_ALLOW_PRIVATE", "PUSH_ALLOW_LOOPBACK")

#: The names ``app.runners.heartbeats`` still imports; they go when it reads ``setting``.
DEFAULT_HEARTBEAT_STALE_SECONDS = DEFAULTS["HEARTBEAT_STALE_SECONDS"]
DEFAULT_READY_MAIL_LATE_SECONDS = DEFAULTS["READY_MAIL_LATE_SECONDS"]


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
    config: dict[str, Any] = dict(DEFAULTS)
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


#: ``setting``'s marker for "no default given": ``None`` is a default some callers mean.
_UNSET: Any = object()


def setting(key: str, default: Any = _UNSET) -> Any:
    """One setting as the running code sees it: the Flask app's config (which
    ``load_config`` filled from ``DEFAULTS``, the environment and the caller's dict),
    else, outside an app (a plain script) or where a test removed the key, the
    environment, else ``DEFAULTS[key]``.

    The one reader of settings below the app factory: every module asks this, so a
    setting means the same wherever it is read. ``default`` is only for the call sites
    that still pass their own (the same value as ``DEFAULTS``); a key missing from
    ``DEFAULTS`` without one is a ``KeyError``, so a misspelt name fails loudly."""
    try:
        from flask import current_app
        value = current_app.config.get(key)
    except RuntimeError:  # outside an app context
        value = None
    if value in (None, ""):
        value = os.environ.get(key)
    if value not in (None, ""):
        return value
    return DEFAULTS[key] if default is _UNSET else default
