"""Signed tokens: seat links, CSRF tokens, and other purposes of the mail issue.

Every purpose has its own salt, so a token made for one purpose (say an
unsubscribe link) is worthless as another (a seat link). A seat link carries
``(game, seat, version)``; bumping the seat's ``token_version`` revokes every
older link of that seat. Seat links do not expire: a game by mail may run for
weeks. The CSRF token of a seat's forms is bound to the same triple, not to a
timer, so a page left open for days still posts. The lobby form, which
nobody logs in to, carries a signed and timestamped token instead (its own
salt): a form older than a few hours is refused and shown again.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from itsdangerous import (BadSignature, SignatureExpired, Signer, TimestampSigner,
                          URLSafeSerializer, want_bytes)

from app.config import setting

SEAT_LINK = "seat-link"
CSRF = "csrf"
UNSUBSCRIBE = "unsubscribe"
LOBBY_FORM = "lobby-form"
REPLY_ADDRESS = "reply-address"  # play+<token>@MAIL_DOMAIN (app.access.reply_address)
BOUNCE = "bounce-address"  # bounce+<token>@MAIL_DOMAIN, the envelope sender (issue 19 item 3)
PERSON_KEY = "person-key"  # /settings/<token>: a settings link mailed to an address (issue 45)
SETTINGS_UNDO = "settings-undo"  # /settings/undo/<token>: undo one person-wide change (issue 45)
MOVE_CONFIRM = "move-confirm"  # /move/<token>: mailed to a new address, confirms a move (47.5)
MOVE_CANCEL = "move-cancel"  # /move/cancel/<token>: mailed to the old address, cancels it
TABLE_SEAT = "table-seat"  # /tables/seat/<token>: a hold at an open table, mailed (issue 48)
PURPOSES = (SEAT_LINK, CSRF, UNSUBSCRIBE, LOBBY_FORM, REPLY_ADDRESS, BOUNCE, PERSON_KEY,
            SETTINGS_UNDO, MOVE_CONFIRM, MOVE_CANCEL, TABLE_SEAT)


class BadToken(Exception):
    """The token was not made by this server for this purpose."""


class ExpiredToken(BadToken):
    """The token is genuine but older than its purpose allows."""


@dataclass(frozen=True)
class SeatRef:
    """What a seat link says: one seat of one game, at one token version."""

    game: str
    seat: int
    version: int


def _secret_key(secret_key: str | None) -> str | list[str]:
    """The keys to use: the caller's, else the app's key after its fallbacks.

    itsdangerous signs with the last key of a list and accepts any of them,
    so links signed before a rotation (``SECRET_KEY_FALLBACKS``) keep working.
    """
    if secret_key:
        return secret_key
    from flask import current_app
    fallbacks = list(current_app.config["SECRET_KEY_FALLBACKS"])
    key = current_app.config["SECRET_KEY"]
    return [*fallbacks, key] if fallbacks else key


def _keys(secret_key: str | None) -> tuple[str, ...]:
    keys = _secret_key(secret_key)
    return (keys,) if isinstance(keys, str) else tuple(keys)


def _serializer(purpose: str, secret_key: str | None) -> URLSafeSerializer:
    return _serializer_for(purpose, _keys(secret_key))


@functools.lru_cache(maxsize=64)
def _serializer_for(purpose: str, keys: tuple[str, ...]) -> URLSafeSerializer:
    """One serializer per purpose and key set: every request checks a link and
    most moves sign a few (mail links), and building one each time showed."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown token purpose {purpose!r}")
    return URLSafeSerializer(list(keys) if len(keys) > 1 else keys[0],
                             salt=f"silver-eye:{purpose}")


#: Tokens kept per process (signed, and seat links checked): a game's few
#: seats are signed into every mail and checked on every request.
CACHED_TOKENS = 4096


def sign(purpose: str, payload: Any, secret_key: str | None = None) -> str:
    """A URL-safe signed token for a JSON-safe ``payload``.

    These tokens carry no timestamp, so the same payload under the same keys is
    always the same token: it is made once per process and then remembered."""
    return _signed(purpose, json.dumps(payload), _keys(secret_key))


@functools.lru_cache(maxsize=CACHED_TOKENS)
def _signed(purpose: str, payload: str, keys: tuple[str, ...]) -> str:
    return _serializer_for(purpose, keys).dumps(json.loads(payload))


def unsign(purpose: str, token: str, secret_key: str | None = None) -> Any:
    """The payload of a token of this purpose; ``BadToken`` if forged or foreign."""
    try:
        return _serializer(purpose, secret_key).loads(token)
    except BadSignature as exc:
        raise BadToken("this link is not valid") from exc


def seat_token(game: str, seat: int, version: int, secret_key: str | None = None) -> str:
    """The token of a seat link."""
    return sign(SEAT_LINK, [str(game), int(seat), int(version)], secret_key)


def read_seat_token(token: str, secret_key: str | None = None) -> SeatRef:
    """Decode a seat link's token; the version still has to be checked in the store.

    A link that passed is remembered with the keys it passed under (every
    request of a seat brings the same link back); a refused one is not, so
    the cache holds only links this server made."""
    return _seat_ref(token, _keys(secret_key))


@functools.lru_cache(maxsize=CACHED_TOKENS)
def _seat_ref(token: str, keys: tuple[str, ...]) -> SeatRef:
    try:
        payload = _serializer_for(SEAT_LINK, keys).loads(token)
    except BadSignature as exc:
        raise BadToken("this link is not valid") from exc
    if (not isinstance(payload, list) or len(payload) != 3 or not isinstance(payload[0], str)
            or not all(isinstance(part, int) and not isinstance(part, bool)
                       for part in payload[1:])):
        raise BadToken("this link is not valid")
    return SeatRef(*payload)


#: What a game id read from an unverified token may look like before it pre-fills a field.
_GAME_HINT = re.compile(r"[A-Za-z0-9_-]{1,64}")


def seat_token_game_hint(token: str | None, secret_key: str | None = None) -> str | None:
    """The game a refused seat link names, read *without* trusting its signature.

    Only for pre-filling the game field of the fresh-link form on the 403 page:
    the person already holds the token, so this tells them nothing they did not
    send, and nothing is looked up (the form's answer stays the same for any
    game and address, docs/security.md). A link cut short inside its payload, or
    anything that does not look like a game id, gives None.
    """
    if not token or len(token) > 4096:
        return None
    try:
        _, payload = _serializer(SEAT_LINK, secret_key).loads_unsafe(token)
    except Exception:  # noqa: BLE001 - "never fails" per itsdangerous, but this is untrusted input
        return None
    if isinstance(payload, list) and payload and isinstance(payload[0], str) \
            and _GAME_HINT.fullmatch(payload[0]):
        return payload[0]
    return None


def csrf_token(game: str, seat: int, version: int, secret_key: str | None = None) -> str:
    """The CSRF token for forms of this seat (same for the life of the link)."""
    return sign(CSRF, [str(game), int(seat), int(version)], secret_key)


def check_csrf(token: str | None, game: str, seat: int, version: int,
               secret_key: str | None = None) -> bool:
    """Whether ``token`` is this seat's current CSRF token."""
    if not token:
        return False
    expected = csrf_token(game, seat, version, secret_key)
    return hmac.compare_digest(expected.encode(), str(token).encode())


def _lobby_signer(secret_key: str | None) -> TimestampSigner:
    return TimestampSigner(_secret_key(secret_key), salt=f"silver-eye:{LOBBY_FORM}")


def lobby_form_token(secret_key: str | None = None) -> str:
    """A fresh token for one lobby form: a random nonce, signed with the time it was made."""
    return _lobby_signer(secret_key).sign(secrets.token_urlsafe(9)).decode()


def check_lobby_form_token(token: str | None, max_age: int | None = None,
                           secret_key: str | None = None) -> str:
    """Accept a lobby form token made here within ``max_age`` seconds (the setting
    ``LOBBY_FORM_MAX_AGE`` unless said); returns its id.

    The id (a hash of the token's random nonce) is what makes the token
    single-use: the game's transaction stores it (``store.use_form_token``).
    Raises ``ExpiredToken`` for a genuine but old one, ``BadToken`` for a
    missing, forged or foreign one (a seat link's token, say).
    """
    if not token:
        raise BadToken("the form has no token")
    try:
        nonce = _lobby_signer(secret_key).unsign(
            str(token), max_age=int(setting("LOBBY_FORM_MAX_AGE")) if max_age is None else max_age)
    except SignatureExpired as exc:
        raise ExpiredToken("the form is too old") from exc
    except BadSignature as exc:
        raise BadToken("the form's token is not valid") from exc
    return hashlib.sha256(b"lobby-form:" + nonce).hexdigest()


def seat_url(token: str, base_url: str | None = None) -> str:
    """The absolute URL of a seat's page (``BASE_URL`` + ``/play/<token>``)."""
    if base_url is None:
        from flask import current_app
        base_url = current_app.config["BASE_URL"]
    return f"{base_url.rstrip('/')}/play/{token}"


# -- reply addresses (issue 11: play by replying) ------------------------------

@dataclass(frozen=True)
class ReplyRef:
    """What a reply address says: this seat, at this token version, on this step."""

    game: str
    seat: int
    version: int
    step: int


class _LowerSigner(Signer):
    """A signer whose signature survives a mail system that lowercases addresses.

    The token is the local part of an address (``play+<token>@domain``), which
    must stay under 64 characters and which some relays fold to lower case, so
    the signature is a 128-bit HMAC-SHA256 written in lowercase base32.
    """

    def get_signature(self, value: str | bytes) -> bytes:
        return self._encode(self.algorithm.get_signature(self.derive_key(), want_bytes(value)))

    def verify_signature(self, value: str | bytes, sig: str | bytes) -> bool:
        value, sig = want_bytes(value), want_bytes(sig)
        return any(hmac.compare_digest(sig, self._encode(
                       self.algorithm.get_signature(self.derive_key(key), value)))
                   for key in reversed(self.secret_keys))

    @staticmethod
    def _encode(digest: bytes) -> bytes:
        return base64.b32encode(digest[:16]).rstrip(b"=").lower()


def _reply_signer(secret_key: str | None) -> Signer:
    return _LowerSigner(_secret_key(secret_key), salt=f"silver-eye:{REPLY_ADDRESS}",
                        sep=".", digest_method=hashlib.sha256)


def reply_token(game: str, seat: int, version: int, step: int,
                secret_key: str | None = None) -> str:
    """``<game>.<seat>.<version>.<step>.<signature>``: lowercase, about 50 characters."""
    value = f"{str(game).lower()}.{int(seat)}.{int(version)}.{int(step)}"
    return _reply_signer(secret_key).sign(value).decode()


def read_reply_token(token: str, secret_key: str | None = None) -> ReplyRef:
    """Decode a reply address token; the version and step still have to be checked."""
    try:
        value = _reply_signer(secret_key).unsign(str(token).strip().lower()).decode()
    except (BadSignature, UnicodeDecodeError) as exc:
        raise BadToken("this reply address is not valid") from exc
    parts = value.split(".")
    if len(parts) != 4 or not all(part.isdigit() for part in parts[1:]):
        raise BadToken("this reply address is not valid")
    return ReplyRef(parts[0], int(parts[1]), int(parts[2]), int(parts[3]))


# -- bounce addresses (issue 19 item 3: VERP) -----------------------------------

def _bounce_signer(secret_key: str | None) -> Signer:
    return _LowerSigner(_secret_key(secret_key), salt=f"silver-eye:{BOUNCE}", sep=".",
                        digest_method=hashlib.sha256)


def bounce_token(outbox_id: int, secret_key: str | None = None) -> str:
    """``<outbox row id>.<signature>``: the local part after ``bounce+``, lowercase."""
    return _bounce_signer(secret_key).sign(str(int(outbox_id))).decode()


def read_bounce_token(token: str, secret_key: str | None = None) -> int:
    """The outbox row a bounce address names; ``BadToken`` if forged."""
    try:
        value = _bounce_signer(secret_key).unsign(str(token).strip().lower()).decode()
    except (BadSignature, UnicodeDecodeError) as exc:
        raise BadToken("this bounce address is not valid") from exc
    if not value.isdigit():
        raise BadToken("this bounce address is not valid")
    return int(value)
