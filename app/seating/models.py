"""An open table and its seats, and the holds of the people asking to sit down (issue 48).

A table is not a game: nothing is dealt until every seat is confirmed, so the deck's
seed and its commitment are made when the game starts (``services.games.create_in``,
as for any game), never while strangers come and go. Three tables:

- ``open_table``: what the creator chose (name, the game's options, the gate, how long
  it waits) and where it stands (``OPEN``, ``STARTED`` with its game, ``EXPIRED``,
  ``CLOSED`` by its creator).
- ``table_seat``: each seat as the lobby made it (``human`` named by the creator,
  ``bot``, or ``open``) and who sits there: a name and an address once a hold on it
  was confirmed by the click of its mailed link (``confirmed_at``).
- ``table_hold``: one ask to sit down, by a name and an address. Its random id is what
  the mailed link signs (``app.access.tokens.TABLE_SEAT``). A stranger's hold keeps one
  of the open seats for ``held_until``; its link works until ``link_until`` (later: a
  link clicked after its hold lapsed still seats its person if a seat is free). The
  creator's named seats get holds too, kept for the whole wait (``seat`` set): every
  address at the table proves itself by one click before turn one (Diplicity's muster).

Addresses are kept with their ``person_key`` (``app.mail.addresses.person_key``: no
``+tag``, case-folded), which the same-address check and the caps compare; the address
itself is shown to nobody.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Index, text
from sqlmodel import Field, SQLModel

#: Where a table stands.
OPEN, STARTED, EXPIRED, CLOSED = "open", "started", "expired", "closed"
#: What the lobby made each seat.
HUMAN, BOT, OPEN_SEAT = "human", "bot", "open"


class OpenTable(SQLModel, table=True):
    """One open table (see the module docstring)."""

    __tablename__ = "open_table"
    __table_args__ = (
        #: the list at /tables, newest first, open ones only
        Index("ix_open_table_listed", "created_at", "id",
              postgresql_where=text("status = 'open'"), sqlite_where=text("status = 'open'")),
        #: the clock's sweep of tables whose wait is over
        Index("ix_open_table_wait", "wait_until",
              postgresql_where=text("status = 'open'"), sqlite_where=text("status = 'open'")),
    )

    id: str = Field(primary_key=True, max_length=24)
    name: str = Field(max_length=200)
    #: The game's options as ``services.options.validate`` returned them.
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    talk_spectators: bool = True
    seats: int
    #: ``rules.GATES``: who may sit down.
    gate: str = Field(max_length=16)
    #: The lobby's keyed hash of the creator's network address (as ``game.created_by``).
    created_by: str | None = Field(default=None, max_length=64)
    #: The seat of the creator's own address: its link also starts or closes the table.
    host_seat: int = 0
    created_at: datetime = Field(sa_type=DateTime(timezone=True))
    wait_until: datetime = Field(sa_type=DateTime(timezone=True))
    status: str = Field(default=OPEN, max_length=16)
    ended_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: The game it became (``STARTED``).
    game_id: str | None = Field(default=None, max_length=64)


class TableSeat(SQLModel, table=True):
    """One seat of an open table and who sits there."""

    __tablename__ = "table_seat"
    __table_args__ = (Index("ix_table_seat_person", "person_key"),)

    table_id: str = Field(primary_key=True, max_length=24)
    index: int = Field(primary_key=True)
    #: ``HUMAN``, ``BOT`` or ``OPEN_SEAT``, as the lobby made it.
    kind: str = Field(max_length=8)
    name: str | None = Field(default=None, max_length=100)
    email: str | None = Field(default=None, max_length=320)
    person_key: str | None = Field(default=None, max_length=320)
    #: R16: how this seat claims Simon discards (the lobby's choice; a joiner's is "auto").
    simon: str = Field(default="auto", max_length=8)
    #: When its person clicked their link (a bot is confirmed from the start).
    confirmed_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: The hold that seated them.
    hold_id: str | None = Field(default=None, max_length=32)


class TableHold(SQLModel, table=True):
    """One ask to sit down (a stranger's), or a named seat waiting for its click."""

    __tablename__ = "table_hold"
    __table_args__ = (
        Index("ix_table_hold_table", "table_id"),
        #: the asks of one address, and of one network address, in the last hour
        Index("ix_table_hold_person", "person_key", "asked_at"),
        Index("ix_table_hold_ip", "ip_key", "asked_at"),
    )

    id: str = Field(primary_key=True, max_length=32)
    table_id: str = Field(max_length=24)
    name: str = Field(max_length=100)
    email: str = Field(max_length=320)
    person_key: str = Field(max_length=320)
    #: The keyed hash of the asking network address (None: a named seat).
    ip_key: str | None = Field(default=None, max_length=64)
    #: A named seat's index (the creator's seats); None: any open seat.
    seat: int | None = None
    asked_at: datetime = Field(sa_type=DateTime(timezone=True))
    held_until: datetime = Field(sa_type=DateTime(timezone=True))
    link_until: datetime = Field(sa_type=DateTime(timezone=True))
    #: When the click seated them (None: not yet), and when they gave the seat up.
    seated_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    left_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
