"""One check for an email address, used by the lobby, the API, the CLI and the mailer,
and one answer to "is this the same person's address" (``same_person``).

``normalise`` returns the address as it will be stored and mailed, or raises
``BadAddress`` with a sentence a player understands. It is built on
``email-validator`` (syntax only: ``check_deliverability=False``, so no DNS
lookups): one mailbox, no display name, no line breaks; an internationalised
domain is kept in its ASCII (IDNA) form, which every mail server takes; a
non-ASCII local part (``josé@example.fr``) is kept as typed and needs a server
that offers SMTPUTF8 — where it does not, the mail fails for good and the
game's creator is told (never a silent drop).
"""
from __future__ import annotations

import functools
import unicodedata
from typing import Any

from email_validator import EmailNotValidError, validate_email

MAX_LENGTH = 254


class BadAddress(ValueError):
    """An address that cannot be mailed; ``str()`` is the sentence to show."""


def normalise(value: Any) -> str:
    """The address to store and send to, or ``BadAddress`` saying what is wrong."""
    return _normalised(str(value if value is not None else "").strip())


@functools.lru_cache(maxsize=4096)
def _normalised(text: str) -> str:
    """``normalise`` of a stripped string, remembered: every mail a move writes asks
    again for the seat's stored address (a refusal raises, and is not remembered)."""
    if not text:
        raise BadAddress("It is empty.")
    if any(unicodedata.category(ch).startswith("C") for ch in text):
        raise BadAddress("An email address is one line of text, without line breaks or "
                         "control characters.")
    if len(text) > MAX_LENGTH:
        raise BadAddress(f"It is longer than {MAX_LENGTH} characters.")
    try:
        checked = validate_email(text, check_deliverability=False, allow_display_name=False,
                                 allow_smtputf8=True, allow_quoted_local=False,
                                 allow_domain_literal=False)
    except EmailNotValidError as exc:
        raise BadAddress(str(exc)) from None
    address = f"{checked.local_part}@{checked.ascii_domain}"
    if len(address) > MAX_LENGTH:
        raise BadAddress(f"It is longer than {MAX_LENGTH} characters.")
    return address


def checked_or_none(value: Any) -> str | None:
    """``normalise`` for code that only needs to know whether it can mail (None: not)."""
    try:
        return normalise(value)
    except BadAddress:
        return None


def needs_smtputf8(address: str) -> bool:
    """Whether sending to ``address`` needs a server offering SMTPUTF8 (non-ASCII local part)."""
    return not address.isascii()


def person_key(address: str) -> str:
    """What makes two addresses one person's (issue 45 item 4: one person, one seat): the
    address without its sub-address tag (``ann+2@example.org`` is ``ann@example.org``'s
    mailbox, by RFC 5233's convention that every large provider follows) and without
    regard to case (``ANN@Example.org`` reaches the same inbox). The one place this
    comparison is made: the lobby's seats (``services.games``) and a substitute
    (``services.votes``) ask it. Other providers' quirks (Gmail's ignored dots) are not
    guessed at: a person with two real mailboxes has two."""
    local, _, domain = str(address).strip().rpartition("@")
    base = local.split("+", 1)[0] or local
    return f"{base}@{domain}".casefold()


def same_person(first: str, second: str) -> bool:
    """Whether ``first`` and ``second`` are one person's address (``person_key``)."""
    return person_key(first) == person_key(second)
