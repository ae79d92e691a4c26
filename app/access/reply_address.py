"""Reply addresses: ``play+<signed token>@<MAIL_DOMAIN>`` names a seat and a step.

The token (``tokens.reply_token``) carries the game, the seat, the seat's
token version and the step the mail was written on, signed with the same
keys (and fallbacks) as seat links: rotating a seat's link retires its reply
addresses too, and a reply to an older mail is recognised as stale.
"""
from __future__ import annotations

from app.access import tokens
from app.config import setting  # the app's config, else the environment

LOCAL_PREFIX = "play+"


def mail_domain() -> str:
    """``MAIL_DOMAIN``, else the domain of ``MAIL_FROM`` (where replies come back to)."""
    domain = setting("MAIL_DOMAIN")
    if not domain:
        sender = str(setting("MAIL_FROM"))
        domain = sender.rsplit("@", 1)[-1].strip(" >") if "@" in sender else "localhost"
    return str(domain).strip().lower().rstrip(".")


def reply_address(game_id: str, seat: int, version: int, step: int) -> str:
    """The address a reply to the mail of this seat at this step goes to."""
    token = tokens.reply_token(game_id, seat, version, step)
    return f"{LOCAL_PREFIX}{token}@{mail_domain()}"


def ours(address: str) -> bool:
    """Whether an address is in our mail domain (the receiver takes only these)."""
    return address.rsplit("@", 1)[-1].lower().rstrip(".") == mail_domain() if "@" in address \
        else False


def token_in(addresses: list[str]) -> str | None:
    """The token of the first ``play+...@MAIL_DOMAIN`` address among ``addresses``."""
    for address in addresses:
        local = address.rsplit("@", 1)[0].lower()
        if ours(address) and local.startswith(LOCAL_PREFIX):
            return local[len(LOCAL_PREFIX):]
    return None
