"""A person's standing across games (issue 47): each ended game's result per stretch at a
seat (``Result``, written once, at the game's end, in the unit of work that ends it) and
each person's record and rating as of their last ended game (``Standing``).

Both key on ``person.id``, never on the address: a person who moves to a new address
takes their record and rating along (the person row keeps its id), and the address never
needs to appear where standing is shown. A person is shown by ``Standing.public_id``, a
random id that says nothing about the address.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel


class Result(SQLModel, table=True):
    """What one ended game says about one stretch at a seat
    (``app.standing.outcome.Outcome``), and what it did to its person's rating."""

    __tablename__ = "standing_result"
    __table_args__ = (
        UniqueConstraint("game_id", "seat", "from_step", name="uq_standing_result"),
        #: a person's last games, newest first (the record; the public page)
        Index("ix_standing_result_person", "person_id", "ended_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    from_step: int = 0
    person_id: int
    #: The name the seat was shown by in that stretch (R53).
    name: str = Field(max_length=100)
    outcome: str = Field(max_length=16)
    own_moves: int = 0
    clock_moves: int = 0
    #: The seat's place at the end (R54) when this stretch held it then; None otherwise.
    place: int | None = None
    #: How many seats the game had (a place is "2nd of 4").
    seats: int = 0
    #: The rating before and after, when this result changed it (a rated game that
    #: counted: ``outcome.counts_for_rating``); None otherwise.
    mu_before: float | None = None
    sigma_before: float | None = None
    mu_after: float | None = None
    sigma_after: float | None = None
    ended_at: datetime = Field(sa_type=DateTime(timezone=True))


class Standing(SQLModel, table=True):
    """A person's record and rating, as of their last ended game. The record's figures
    are kept here so every page that shows a seated person's line reads one row, not
    their last ten games (``app.standing.record`` says them in words)."""

    __tablename__ = "standing"
    __table_args__ = (
        UniqueConstraint("public_id", name="uq_standing_public_id"),
        #: the leaderboard, best shown rating first: its first hundred without reading
        #: every rated person (``services.standing.leaderboard``)
        Index("ix_standing_board", text("(mu - 3 * sigma) DESC"), "person_id",
              postgresql_where=text("mu IS NOT NULL"), sqlite_where=text("mu IS NOT NULL")),
    )

    person_id: int = Field(primary_key=True)
    #: How the person's page is addressed (random; never the address).
    public_id: str = Field(max_length=24)
    #: The name of their seat in their last ended game (shown where they chose none).
    name: str = Field(default="", max_length=100)
    #: Ended games that counted for this person, ever (under 3: *new*).
    ended: int = 0
    #: Of their last ``RECENT`` ended games: how many, how many they left (resigned,
    #: handed over, timed out to the end), their own decisions and the clock's.
    recent: int = 0
    recent_left: int = 0
    recent_moves: int = 0
    recent_clock: int = 0
    #: The rating (``app.standing.rating``); None: never rated.
    mu: float | None = None
    sigma: float | None = None
    rated_games: int = 0
    #: The game that last changed the rating.
    rated_by: str | None = Field(default=None, max_length=64)
    updated_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
