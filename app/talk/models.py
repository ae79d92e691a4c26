"""The talk table: every message said at a game's table, in order, never deleted.

A message the creator hides keeps its row (``hidden_at``, ``hidden_by``): the page,
the replay and the JSON say "hidden by the creator" in its place, and no mail or
notice carries it after it was hidden. ``step`` is the game's step when it was said,
so the replay shows it beside the move it followed.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

#: Where a message came from: the seat page, the JSON API, a ``SAY`` reply by mail.
PAGE, API, MAIL = "page", "api", "mail"


class Talk(SQLModel, table=True):
    """One message at a game's table."""

    __tablename__ = "talk"
    __table_args__ = (
        # The game's talk in order, and what a seat was not told of yet (id > told).
        Index("ix_talk_game", "game_id", "id"),
        # A seat's messages in the last hour (the rate limit).
        Index("ix_talk_game_seat_at", "game_id", "seat", "at"),
        # A form or reply posted twice says it once (the form's key, the Message-ID).
        UniqueConstraint("key", name="uq_talk_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    #: Plain text as typed (at most ``TALK_MAX_CHARS``), escaped wherever it is shown.
    text: str = Field(sa_column=Column(Text, nullable=False))
    #: The game's step (its log's last seq) when it was said.
    step: int = 0
    at: datetime = Field(sa_type=DateTime(timezone=True))
    source: str = Field(default=PAGE, max_length=16)
    #: What makes a second submission of the same message say nothing new (None: none).
    key: str | None = Field(default=None, max_length=200)
    hidden_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    hidden_by: int | None = None
