"""All my games: every game an address is seated in, behind a magic link mailed to it.

The link is signed (itsdangerous), expires after ``LINK_DAYS`` and carries the
version stored for its address; "forget my links" bumps the version, so every
older link stops working at once. The address itself is never stored for
this: rows are keyed by a keyed hash of it. Opening the link (GET) only reads.
Asking for a link answers the same whether or not the address plays, so
nobody can probe for addresses.
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timezone

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import func
from sqlmodel import Field, Session, SQLModel, select

from app import engine, services
from app import i18n
from app.mail import notify
from app.gamelog import store
from app.access import tokens
from app.db import read_session, write_session
from app.people import moves

LINK_DAYS = 7
SALT = "silver-eye:my-games"


class AddressLink(SQLModel, table=True):
    """The current version of an address's "all my games" links."""

    __tablename__ = "address_link"

    address_hash: str = Field(primary_key=True, max_length=64)
    version: int = 0


@dataclass(frozen=True)
class MySeat:
    """One seat of the address, as the page lists it."""

    game_id: str
    game_name: str
    status: str
    seat: int
    name: str
    token: str
    my_move: bool
    step: int
    created: datetime


def normal(address: str) -> str:
    return " ".join(str(address or "").split()).casefold()


def address_hash(address: str, secret: str) -> str:
    return hmac.new(secret.encode(), normal(address).encode(), hashlib.sha256).hexdigest()


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=SALT)


def _version(session: Session, key: str) -> int:
    row = session.get(AddressLink, key)
    return row.version if row is not None else 0


def make_link_token(session: Session, address: str, secret: str) -> str:
    return _serializer(secret).dumps({"a": normal(address),
                                      "v": _version(session, address_hash(address, secret))})


def read_link(token: str, secret: str) -> str:
    """The address a current link was made for; ``Forbidden`` with words otherwise."""
    try:
        payload, made = _serializer(secret).loads(token, max_age=LINK_DAYS * 86400,
                                                   return_timestamp=True)
    except SignatureExpired:
        raise services.Forbidden(i18n._("This link is more than %(days)s days old. Ask for a "
                                        "new one below: it is mailed to your address.",
                                        days=LINK_DAYS), reason="expired")
    except BadSignature:
        raise services.Forbidden(i18n._("This link is not valid: it may have been cut short. Ask for "
                                 "a new one below."), reason="invalid")
    address = str(payload.get("a") or "")
    with read_session() as session:
        if payload.get("v") != _version(session, address_hash(address, secret)):
            moved = moves.moved_away(session, address, made)
            if moved is not None:  # its person moved to another address (issue 47 item 5)
                raise services.Forbidden(moves.MOVED_WORDS.format(at=moved), reason="moved")
            raise services.Forbidden(i18n._("This link was revoked. Ask for a new one below."),
                                     reason="revoked")
    return address


def games_of(address: str) -> list[MySeat]:
    """Every seat of this address, "your move" first, then the newest games (read only)."""
    found = []
    with read_session() as session:
        seats = session.exec(select(store.Seat).where(
            func.lower(store.Seat.email) == normal(address))).all()
        for seat in seats:
            game = session.get(store.Game, seat.game_id)
            if game is None:
                continue
            step, state = services._load_state(session, game)
            status = engine.status(state)
            found.append(MySeat(
                game.id, game.name, game.status, seat.index, seat.name,
                tokens.seat_token(game.id, seat.index, seat.token_version),
                game.status == "running" and seat.index in (status.get("to_act") or []),
                step, game.created))
    return sorted(found, key=lambda s: (not s.my_move, s.status != "running",
                                        -s.created.replace(tzinfo=timezone.utc).timestamp()))


def mail_link(address: str, secret: str, base_url: str, sender: str) -> None:
    """Mail a fresh link to the address, if it is seated anywhere (else nothing, silently).

    The mail goes through the outbox in this transaction, once per address and
    link version per hour (the idempotency key), so asking again does not flood.
    """
    from app.mail import compose, outbox
    from app.mail.headers import mail_domain

    from app.mail.addresses import BadAddress, normalise
    try:  # the one address check of lobby, CLI and mailer
        wanted = normal(normalise(address))
    except BadAddress as exc:
        raise services.BadRequest(i18n._("That does not look like an email address: %(why)s",
                                          why=exc)) from None
    now = datetime.now(timezone.utc)
    with write_session() as session:
        seat = session.exec(select(store.Seat).where(
            func.lower(store.Seat.email) == wanted)).first()
        if seat is None:
            return
        token = make_link_token(session, wanted, secret)
        link = f"{base_url.rstrip('/')}/my-games/{token}"
        with notify.writing_to(session, wanted):  # its person's language (issue 50)
            mail = compose.render("my_games", i18n._("Silver Eye · all your games"),
                                  link=link, name=seat.name, days=LINK_DAYS)
        key = f"my-games:{address_hash(wanted, secret)}:{_version(session, address_hash(wanted, secret))}:{now:%Y%m%d%H}"
        outbox.enqueue(session, game_id=None, seat=None, kind="my_games", to=seat.email,
                       to_name=seat.name, mail=mail, idempotency=key,
                       domain=mail_domain(sender), now=now)


def revoke(address: str, secret: str) -> None:
    """Every link made so far for this address stops working."""
    key = address_hash(address, secret)
    with write_session() as session:
        row = session.get(AddressLink, key) or AddressLink(address_hash=key, version=0)
        row.version += 1
        # not a unit write: one row of the address's links, outside any game; made on
        # first use
        session.add(row)
