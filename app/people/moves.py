"""A person moving to a new address, by themselves (issue 47 item 5): the record of each
move asked for, and of each seat link it replaced.

Both addresses prove themselves. The old one by the key that opened the settings page
(a settings link or the games page's link, both mailed to it): with it the person asks
to move, which makes an ``address_move`` row and mails two links, each a random id
signed for its own purpose (``app.access.tokens``):

- the **move link** (``MOVE_CONFIRM``) to the *new* address: its GET shows what would
  move, its POST does it, once, within ``MOVE_HOURS`` of the asking;
- the **move cancel link** (``MOVE_CANCEL``) to the *old* address: until the move is
  confirmed, it ends the move; after, it only says that it was done.

A move confirmed keeps the person's row (its id, so everything keyed by it follows) and
records, for each seat it moved, the link version it replaced (``moved_seat``): a seat
link of that version or older is then answered "this seat moved to another address",
without naming it. ``moved_away`` tells the keys mailed to the old address (settings,
undo, games page) the same. The use case is ``app.services.address_move``.
"""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any, Iterable

import sqlalchemy as sa
from sqlalchemy import Column, DateTime, Index, func
from sqlmodel import Field, Session, SQLModel, col, select

from app.access import tokens
from app.clock.time import as_utc
from app.db.statements import Insert, table_of
from app.db.unit import Unit
from app.i18n import _, forms

#: How long a move waits for the new address to confirm it.
MOVE_HOURS = 24
#: Moves a person may ask for in a day (each mails a stranger's address once).
ASKS_PER_DAY = 3
#: Why a move ended without being made (``AddressMove.ended``).
CANCELLED, REPLACED = "cancelled", "replaced"


def _random_id() -> str:
    return secrets.token_urlsafe(16)


class AddressMove(SQLModel, table=True):
    """One move asked for: from the person's address then to a new one."""

    __tablename__ = "address_move"
    __table_args__ = (Index("ix_address_move_old", func.lower(Column("old_address"))),
                      Index("ix_address_move_person", "person_id"))

    id: str = Field(default_factory=_random_id, primary_key=True, max_length=32)
    #: The person who asked (their row keeps this id after the move).
    person_id: int
    old_address: str = Field(max_length=320)
    new_address: str = Field(max_length=320)
    #: Which key asked (``settings`` or ``games``).
    via: str = Field(max_length=16)
    asked_at: datetime = Field(sa_type=DateTime(timezone=True))
    expires_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: When the new address confirmed it (None: not yet).
    done_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: When and why it ended without being made (``CANCELLED`` by the old address,
    #: ``REPLACED`` by a newer move asked for).
    ended_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    ended: str | None = Field(default=None, max_length=16)


class MovedSeat(SQLModel, table=True):
    """A seat a move gave a new address: links of ``version`` or older were the old
    address's."""

    __tablename__ = "moved_seat"

    game_id: str = Field(primary_key=True, max_length=64)
    seat: int = Field(primary_key=True)
    #: The seat's link version before the move (the move made ``version + 1``).
    version: int = Field(primary_key=True)
    move_id: str = Field(max_length=32)


class MoveRefused(Exception):
    """A move or cancel link that opens nothing now, with words for the person."""

    def __init__(self, words: str, reason: str) -> None:
        super().__init__(words)
        self.words = words
        self.reason = reason


_MOVES = table_of(AddressMove)
_SEATS = table_of(MovedSeat)


def asked_today(session: Session, person_id: int, now: datetime) -> int:
    """Moves the person asked for in the 24 hours before ``now``."""
    return int(session.exec(select(func.count()).select_from(AddressMove).where(
        col(AddressMove.person_id) == person_id,
        col(AddressMove.asked_at) > as_utc(now) - timedelta(days=1))).one())


def ask(unit: Unit, person_id: int, old: str, new: str, via: str, now: datetime) -> str:
    """A new move (its id) on the caller's unit; the person's moves still waiting end
    (``REPLACED``): one move waits at a time."""
    now = as_utc(now)
    unit.statement(sa.update(_MOVES).where(
        _MOVES.c.person_id == person_id, _MOVES.c.done_at.is_(None),
        _MOVES.c.ended_at.is_(None)).values(ended_at=now, ended=REPLACED))
    move_id = _random_id()
    unit.insert(Insert(_MOVES, [{"id": move_id, "person_id": person_id, "old_address": old,
                                 "new_address": new, "via": via, "asked_at": now,
                                 "expires_at": now + timedelta(hours=MOVE_HOURS),
                                 "done_at": None, "ended_at": None, "ended": None}]))
    return move_id


def confirm_token(move_id: str) -> str:
    return tokens.sign(tokens.MOVE_CONFIRM, [move_id])


def cancel_token(move_id: str) -> str:
    return tokens.sign(tokens.MOVE_CANCEL, [move_id])


def named(session: Session, purpose: str, token: str) -> AddressMove:
    """The move a link of ``purpose`` names, whatever its state; ``MoveRefused`` for a
    link that is not ours or names none."""
    try:
        payload = tokens.unsign(purpose, token)
    except tokens.BadToken:
        payload = None
    move = (session.get(AddressMove, payload[0]) if isinstance(payload, list)
            and len(payload) == 1 and isinstance(payload[0], str) else None)
    if move is None:
        raise MoveRefused(_("This link is not valid: it may have been cut short. Nothing was "
                            "changed."), "invalid")
    return move


def waiting(move: AddressMove, now: datetime) -> None:
    """``MoveRefused`` with words unless ``move`` still waits for its confirmation."""
    if move.done_at is not None:
        at = as_utc(move.done_at)
        raise MoveRefused(_("This move was made already, on %(when)s: the games and settings "
                            "are at the new address now. A link is used once.",
                            when=forms.long_when(at)), "done")
    if move.ended == CANCELLED:
        raise MoveRefused(_("This move was cancelled from the old address, so nothing moved. "
                            "Ask again from your settings page if you still want it."),
                          "cancelled")
    if move.ended == REPLACED:
        raise MoveRefused(_("A newer move was asked for since this one, so this link opens "
                            "nothing. Use the newest mail."), "replaced")
    if as_utc(now) >= as_utc(move.expires_at):
        raise MoveRefused(_("This link is more than %(hours)s hours old, so nothing moved. "
                            "Ask again from your settings page.", hours=MOVE_HOURS), "expired")


def claim(unit: Unit, move_id: str, now: datetime, *, done: bool) -> bool:
    """Mark the move made (``done``) or cancelled, if it still waits: one conditional
    UPDATE sent now, so two clicks at once make it (or cancel it) once. Whether this
    call did it."""
    now = as_utc(now)
    values: dict[str, Any] = {"done_at": now} if done else {"ended_at": now,
                                                          "ended": CANCELLED}
    result = unit.session.connection().execute(sa.update(_MOVES).where(
        _MOVES.c.id == move_id, _MOVES.c.done_at.is_(None), _MOVES.c.ended_at.is_(None),
        _MOVES.c.expires_at > now).values(**values))
    return int(getattr(result, "rowcount", 0) or 0) == 1


def seats_moved(unit: Unit, move_id: str, seats: Iterable[tuple[str, int, int]]) -> None:
    """The seats the move gave the new address, with the link version each replaced."""
    rows = [{"game_id": game, "seat": seat, "version": version, "move_id": move_id}
            for game, seat, version in seats]
    if rows:
        unit.insert(Insert(_SEATS, rows))


def seat_moved(session: Session, game_id: str, seat: int, version: int) -> bool:
    """Whether a seat link of ``version`` is an old address's, replaced by a move."""
    return session.exec(select(MovedSeat.move_id).where(
        col(MovedSeat.game_id) == game_id, col(MovedSeat.seat) == seat,
        col(MovedSeat.version) >= version)).first() is not None


def moved_away(session: Session, address: str, since: datetime) -> datetime | None:
    """When ``address``'s person moved to another address after ``since`` (None: never)."""
    at = session.exec(select(func.min(AddressMove.done_at)).where(
        func.lower(col(AddressMove.old_address)) == address.strip().lower(),
        col(AddressMove.done_at).is_not(None),
        col(AddressMove.done_at) >= as_utc(since))).one()
    return as_utc(at) if at is not None else None


#: (English, for ``str.format``; ``moved_words`` says it in the reader's language)
MOVED_WORDS = ("Your settings and games moved to another address of yours on {at:%d %B %Y}, "
               "so the links mailed to this address open nothing any more. Ask for a new "
               "link from your new address. Did you not move? Write to the server's "
               "operator.")


def moved_words(at: datetime) -> str:
    """``MOVED_WORDS`` in the reader's language, the day as they write it."""
    from babel.dates import format_date
    return _("Your settings and games moved to another address of yours on %(day)s, so the "
             "links mailed to this address open nothing any more. Ask for a new link from "
             "your new address. Did you not move? Write to the server's operator.",
             day=format_date(as_utc(at).date(), "long", locale=forms.cldr()))
