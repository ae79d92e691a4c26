"""Masking every token (and the local part of every address) out of what is logged.

Why here: this layer makes every token (``tokens``, ``reply_address``,
``unsubscribe``), so it is the one that knows their shapes, and the web, clock and
inbound processes all sit above it. A seat link's token *is* the key to the seat,
as is a reply address: a log line that holds one is a key anybody who reads the
logs can use. So the one formatter of every process (``install``, JSON or text:
``LOG_FORMAT``) runs ``mask`` over each formatted line, exception tracebacks
included, whatever logger wrote it and however the token got there.

What is masked (``mask``):

- itsdangerous tokens: seat links, CSRF, unsubscribe and invitation tokens, the
  lobby form, the my-games and creator links: base64url segments joined by dots
  that end in a 27-character HMAC-SHA1 signature;
- reply tokens: ``<game>.<seat>.<version>.<step>.<26 base32 characters>``;
- the path segment after every prefix that carries a token (``/play/``,
  ``/unsubscribe/``, ...), whatever it looks like: a link cut short or mangled by
  a mail client is still most of a key;
- mail addresses: ``play+…@`` and ``bounce+…@`` keep their prefix (``play+<token>@d``),
  every other address keeps only its domain (``***@example.com``): the logs say
  which provider refused, never who.
"""
from __future__ import annotations

import logging
import logging.config
import re
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from app.config import setting

TOKEN = "<token>"
HIDDEN_LOCAL = "***"

#: Paths whose next segment is a token (app.web's routes; ``/api`` in front is allowed).
TOKEN_PREFIXES = ("play", "unsubscribe", "invitations", "my-games", "created", "settings")

_B64 = r"[A-Za-z0-9_-]"
#: itsdangerous: payload[.timestamp].signature, the signature 27 characters (SHA-1).
_SIGNED = re.compile(rf"(?<!{_B64}){_B64}+(?:\.{_B64}+){{0,3}}\.{_B64}{{27}}(?!{_B64})")
#: ``tokens.reply_token``: game.seat.version.step.signature (lowercase base32, 26).
_REPLY = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_-]{1,64}\.\d+\.\d+\.\d+\.[A-Za-z2-7]{26}"
                    r"(?![A-Za-z0-9_-])")
_PATH = re.compile(r"(/(?:api/)?(?:" + "|".join(map(re.escape, TOKEN_PREFIXES))
                   + r")/)(?!<token>)[^/?#\s\"']+")
#: An address: a local part (with our ``play+``/``bounce+`` prefixes kept apart), @, a domain.
_ADDRESS = re.compile(r"(?<![A-Za-z0-9._%+*-])(?:(play|bounce)\+)?(?:<token>|[A-Za-z0-9._%+*-])+"
                      r"@(?=[A-Za-z0-9-])")


#: What each pattern cannot match without (``mask`` asks these first: a line with no
#: token, the most of them, costs a few microseconds instead of tens; the full
#: patterns' look-behinds are tried at every position).
_MAY_SIGNED = re.compile(rf"\.{_B64}{{27}}")
_MAY_REPLY = re.compile(r"\.\d+\.\d+\.\d+\.")
_MAY_PATH = tuple(f"/{prefix}/" for prefix in TOKEN_PREFIXES)


def _address(match: re.Match[str]) -> str:
    prefix = match.group(1)
    return f"{prefix}+{TOKEN}@" if prefix else f"{HIDDEN_LOCAL}@"


def shown_address(address: str) -> str:
    """An address as a page shows it to whoever holds one seat link or a game's links page
    (issue 45): its first letter and its domain (``v•••@example.org``), enough for its
    owner to know it, too little for anyone else to learn it."""
    local, _, domain = str(address or "").strip().partition("@")
    return f"{local[:1]}•••@{domain}" if domain and local else "•••"


def mask(text: str) -> str:
    """``text`` with every token and address local part replaced (see the module doc)."""
    if not text:
        return text
    if any(prefix in text for prefix in _MAY_PATH):
        text = _PATH.sub(lambda m: m.group(1) + TOKEN, text)
    if _MAY_REPLY.search(text):
        text = _REPLY.sub(TOKEN, text)
    if _MAY_SIGNED.search(text):
        text = _SIGNED.sub(TOKEN, text)
    return _ADDRESS.sub(_address, text) if "@" in text else text


def mask_path(path: str) -> str:
    """A request path as it may be logged: tokens masked, the query string left out."""
    return mask(path.split("?", 1)[0])


class TextFormatter(logging.Formatter):
    """Plain lines for a terminal (``make run``), masked."""

    def format(self, record: logging.LogRecord) -> str:
        return mask(super().format(record))


class JsonLineFormatter(JsonFormatter):
    """One JSON object per line (python-json-logger), masked as a whole: the message,
    the extra fields and the traceback alike."""

    def format(self, record: logging.LogRecord) -> str:
        return mask(super().format(record))


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s"
JSON_RENAME = {"asctime": "time", "levelname": "level", "name": "logger", "process": "pid"}


def log_format() -> str:
    """``LOG_FORMAT``: ``json`` or ``text``; unset, JSON unless DEBUG (``make run``) is on."""
    chosen = str(setting("LOG_FORMAT") or "").strip().lower()
    if not chosen:
        debug = setting("DEBUG")
        on = debug if isinstance(debug, bool) else str(debug).strip().lower() in {
            "1", "true", "yes", "on"}
        chosen = "text" if on else "json"
    if chosen not in ("json", "text"):
        raise ValueError(f"LOG_FORMAT must be json or text, not {chosen!r}")
    return chosen


def formatter(kind: str | None = None) -> logging.Formatter:
    """The one formatter of every process, JSON or text."""
    if (kind or log_format()) == "text":
        return TextFormatter(TEXT_FORMAT)
    return JsonLineFormatter(JSON_FIELDS, rename_fields=JSON_RENAME)


def logging_dict(kind: str | None = None) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the root logger on stderr with ``formatter``:
    what ``install`` applies, and gunicorn's ``logconfig_dict`` (gunicorn.conf.py), so
    gunicorn's own lines go through the same formatter."""
    kind = kind or log_format()
    factory = TextFormatter if kind == "text" else JsonLineFormatter
    spec: dict[str, Any] = {"()": f"{__name__}.{factory.__name__}"}
    if kind == "text":
        spec["fmt"] = TEXT_FORMAT
    else:
        spec.update(fmt=JSON_FIELDS, rename_fields=JSON_RENAME)
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"masked": spec},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "masked",
                                "stream": "ext://sys.stderr"}},
        "root": {"level": "INFO", "handlers": ["stderr"]},
        "loggers": {
            # gunicorn's loggers write through the root handler (one format); its own
            # access log stays off (app.web.access_log writes the safe one, with the route)
            # (gunicorn.error's level is gunicorn's --log-level, left as it set it)
            "gunicorn.error": {"handlers": [], "propagate": True},
            # gunicorn logs access lines whenever a logconfig_dict is given: silenced here
            "gunicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False},
            "apscheduler": {"level": "WARNING"},  # one line per job run is noise
            "mail.log": {"level": "WARNING"},     # aiosmtpd: a line per connection
        },
    }


def install(kind: str | None = None) -> None:
    """Send every process's log to stderr through the masked formatter (the clock and
    inbound processes call this first; gunicorn gets ``logging_dict`` from its config)."""
    logging.config.dictConfig(logging_dict(kind))
    logging.captureWarnings(True)
