"""What a game's people decide together (issue 21): votes, ballots and time given.

A **vote** is a question put to a game's people by one seat: ``abort`` (end the game
as abandoned by agreement: every person still playing says yes), ``substitute`` (hand
an away or resigned seat to a new address: passes when the others confirm, after its
player had their time to say no, R51) or ``rematch`` (after the game: every person
accepts, and a new game with the same seats starts). One vote is open per game at a
time, so a page never shows two questions at once; its proposer's own ballot is yes.
A vote closes once (``status`` leaves ``open`` by one conditional UPDATE), with
``outcome`` in words for the pages and the mails. Its expiry is a deadline row of
kind ``vote`` (``app.clock.deadlines``), so the clock that fires timeouts fires it.

A **gift** is one more day given to another seat's current decision (lichess's
"+"): kept so that everyone sees who gave what, and so that the giver's limit per
round holds.

Nothing here is part of the rules: the engine hears of a vote only through what it
decides (a ``take_over`` logged when a substitute arrives, R49). The person themself
(their row, their tenures at seats) is ``app.people``.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

#: What a vote asks.
ABORT, SUBSTITUTE, REMATCH = "abort", "substitute", "rematch"
VOTE_KINDS = (ABORT, SUBSTITUTE, REMATCH)
#: Where a vote stands: ``open`` until it passed, failed (a no, a veto, a decline),
#: expired (an abort or a rematch nobody finished) or was withdrawn by its proposer.
OPEN, PASSED, FAILED, EXPIRED, WITHDRAWN = "open", "passed", "failed", "expired", "withdrawn"
VOTE_STATUSES = (OPEN, PASSED, FAILED, EXPIRED, WITHDRAWN)
#: Where a ballot came from: the seat page, the JSON API, a reply by mail.
PAGE, API, MAIL = "page", "api", "mail"


class Vote(SQLModel, table=True):
    """One question put to a game's people."""

    __tablename__ = "vote"
    __table_args__ = (
        # one open vote per game: the partial unique index makes a second start lose
        Index("uq_vote_open", "game_id", unique=True,
              sqlite_where=text("status = 'open'"), postgresql_where=text("status = 'open'")),
        Index("ix_vote_game", "game_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    kind: str = Field(max_length=16)
    #: The seat that asked.
    seat: int
    #: ``substitute``: the seat handed over, and the new player's name and address.
    subject_seat: int | None = None
    name: str | None = Field(default=None, max_length=100)
    email: str | None = Field(default=None, max_length=320)
    status: str = Field(default=OPEN, max_length=16)
    #: The game's step when the vote began (what its mails' reply address names).
    step: int = 0
    started_at: datetime = Field(sa_type=DateTime(timezone=True))
    expires_at: datetime = Field(sa_type=DateTime(timezone=True))
    closed_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: Why it closed, in words ("Bob said no.", "Nobody vetoed within a day.").
    outcome: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    #: ``rematch`` that passed: the new game.
    new_game_id: str | None = Field(default=None, max_length=64)


class Ballot(SQLModel, table=True):
    """One seat's answer to a vote (once: a second answer changes nothing)."""

    __tablename__ = "ballot"
    __table_args__ = (UniqueConstraint("vote_id", "seat", name="uq_ballot"),)

    id: int | None = Field(default=None, primary_key=True)
    vote_id: int = Field(index=False)
    seat: int
    yes: bool
    at: datetime = Field(sa_type=DateTime(timezone=True))
    source: str = Field(default=PAGE, max_length=16)


class Gift(SQLModel, table=True):
    """More time given by one seat to another seat's current decision."""

    __tablename__ = "clock_gift"
    __table_args__ = (Index("ix_clock_gift_game", "game_id", "giver", "round"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    giver: int
    receiver: int
    #: The round it was given in (the limit is per round and giver).
    round: int
    #: The game's step then, and the decision's deadline row it moved.
    step: int
    deadline_id: int | None = None
    seconds: int
    at: datetime = Field(sa_type=DateTime(timezone=True))
    #: The receiver's deadline before and after (shown: "due Tuesday 19:00, was Monday").
    due_before: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    due_after: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
