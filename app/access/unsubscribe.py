"""The tokens of unsubscribe links: a seat's (bound to its link's version, so a
rotation retires them with the link) and an address's (the daily digest, across games).
Signed like every token here (``app.access.tokens``)."""
from __future__ import annotations

from app.access import tokens


def unsubscribe_token(game_id: str, seat: int, secret: str | None = None,
                      version: int = 1) -> str:
    """The token of a seat's unsubscribe link, bound to the seat's ``token_version``.

    Pass the seat row's current ``token_version``: a rotation (rotate-link)
    revokes the unsubscribe links of older mails with the seat links.
    """
    return tokens.sign(tokens.UNSUBSCRIBE, [str(game_id), int(seat), int(version)],
                       secret or None)


def unsubscribe_ref(token: str) -> tuple[str, int, int]:
    """``(game_id, seat, version)`` of an unsubscribe token; ``tokens.BadToken`` if not ours.

    Tokens made before versions were added (two fields) count as version 1,
    so they stop working at the seat's first rotation.
    """
    payload = tokens.unsign(tokens.UNSUBSCRIBE, token)
    if isinstance(payload, list) and len(payload) == 2:
        payload = [*payload, 1]
    if (not isinstance(payload, list) or len(payload) != 3 or not isinstance(payload[0], str)
            or not all(isinstance(part, int) and not isinstance(part, bool)
                       for part in payload[1:])):
        raise tokens.BadToken("this link is not valid")
    return payload[0], payload[1], payload[2]


def address_unsubscribe_token(address: str, secret: str | None = None) -> str:
    """The one-click unsubscribe of a mail sent to an address across games (the digest)."""
    return tokens.sign(tokens.UNSUBSCRIBE, ["address", address], secret or None)


def read_address_unsubscribe_token(token: str) -> str:
    """The address inside an address unsubscribe token; ``tokens.BadToken`` if not ours."""
    payload = tokens.unsign(tokens.UNSUBSCRIBE, token)
    if (not isinstance(payload, list) or len(payload) != 2 or payload[0] != "address"
            or not isinstance(payload[1], str)):
        raise tokens.BadToken("this link is not valid")
    return payload[1]


def read_unsubscribe_token(token: str) -> tuple[str, int]:
    """``(game_id, seat)`` of an unsubscribe token; ``tokens.BadToken`` if not ours."""
    game_id, seat, _ = unsubscribe_ref(token)
    return game_id, seat


def left_token(game_id: str, seat: int, address: str, secret: str | None = None) -> str:
    """The one-click unsubscribe of the mail a game sends an address that held one of its
    seats and holds it no more (issue 32 item 3: the goodbye of a seat handed over, the
    answer to a reply from its old mails): this game's mail to that address, nothing
    else (not the seat's, which is its new holder's; not the address's other games)."""
    return tokens.sign(tokens.UNSUBSCRIBE, ["left", str(game_id), int(seat), address],
                       secret or None)


def read_left_token(token: str) -> tuple[str, int, str]:
    """``(game_id, seat, address)`` of a ``left_token``; ``tokens.BadToken`` if not ours."""
    payload = tokens.unsign(tokens.UNSUBSCRIBE, token)
    if (not isinstance(payload, list) or len(payload) != 4 or payload[0] != "left"
            or not isinstance(payload[1], str) or not isinstance(payload[3], str)
            or not isinstance(payload[2], int) or isinstance(payload[2], bool)):
        raise tokens.BadToken("this link is not valid")
    return payload[1], payload[2], payload[3]
