"""Votes, ballots and time given: what the people of a game decide together.

A **vote** is a question put to a game's people by one seat: ``abort`` (end the game
as abandoned by agreement: every person still playing says yes), ``substitute`` (hand
an away or resigned seat to a new address: passes when the others confirm, or after
``SUBSTITUTE_HOURS`` without a veto) or ``rematch`` (after the game: every person
accepts, and a new game with the same seats starts). One vote is open per game at a
time, so a page never shows two questions at once; its proposer's own ballot is yes.
A vote closes once (``status`` leaves ``open`` by one conditional UPDATE), with
``outcome`` in words for the pages and the mails. Its expiry is a deadline row of
kind ``vote`` (``app.clock.deadlines``), so the clock that fires timeouts fires it.

A **gift** is one more day given to another seat's current decision (lichess's
"+"): kept so that everyone sees who gave what, and so that the giver's limit per
round holds.

Nothing here is part of the rules: the engine hears of a vote only through what it
decides (a ``take_over`` logged when a substitute arrives, R49).

A **person** (issue 32) is one canonical address and what it chose for every game it
plays: the name it likes to be shown by, its time zone and quiet hours, how it wants
mail across games, its bounce state, whether it refuses invitations. A seat is held by
a person for a stretch of a game, a **tenure** (from step, to step): whatever was said
or done at a seat is the tenure's of that moment, so words about the past do not
change when the seat changes hands. ``seat.name`` and ``seat.email`` stay the seat's
holder *now* (the open tenure), read by every move; the tenure rows are the history,
written where a seat is first given (game creation) and where it changes hands
(``app.services.people.hand_over``), and nowhere else.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Index, Text, UniqueConstraint, column, func, text
from sqlmodel import Field, SQLModel

#: How a person wants the mail of its games (``Person.mode``): each game as its seat
#: chose, one digest a day gathering every game where the address is waited on, or no
#: game mail at all (links asked for still come: the digest's one-click unsubscribe).
#: ``NONE`` is also a seat's own "no mail" (``app.mail.models.MAIL_MODES``).
PER_GAME, DAILY, NONE = "per_game", "daily", "none"
ADDRESS_MODES = (PER_GAME, DAILY, NONE)


class Person(SQLModel, table=True):
    """One person: a canonical address and the choices that hold in all its games.

    Was ``address_mail`` (issue 17/19/20: mail mode, invitations refused, bounces,
    "instead of mail"); issue 32 folded it into the person and added the settings that
    used to die with each game (zone, quiet hours). A row is created on first need;
    no row means every default (UTC, no quiet hours, mail per game)."""

    __tablename__ = "person"
    __table_args__ = (UniqueConstraint("address", name="uq_person_address"),
                      #: case-folded lookups, one probe (issue 30)
                      Index("ix_person_lower", func.lower(column("address"))),
                      #: who wants a daily digest now: the clock asks every tick (issue 30)
                      Index("ix_person_daily", "last_digest_at",
                            postgresql_where=text("mode = 'daily'"),
                            sqlite_where=text("mode = 'daily'")))

    id: int | None = Field(default=None, primary_key=True)
    #: The normalised address (as stored on seats).
    address: str = Field(max_length=320)
    #: The name the person chose to be shown by (None: the name each game's creator
    #: typed for the seat).
    name: str | None = Field(default=None, max_length=100)
    #: The person's time zone (an IANA name; None: not chosen yet, shown as UTC) and
    #: quiet hours in minutes after local midnight (both None: none), for every game.
    time_zone: str | None = Field(default=None, max_length=64)
    quiet_start: int | None = None
    quiet_end: int | None = None
    #: When zone or quiet hours were last set (the migration kept the newest of the
    #: address's seats where they disagreed).
    settings_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    mode: str = Field(default=PER_GAME, max_length=16)
    #: When the last daily digest went out (one a day at most).
    last_digest_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    updated_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: When the address asked for no more invitations (issue 17 item 7: the one-click
    #: link of an invitation, or its games page); None: invitations are welcome. Every
    #: creator's next game seating this address is refused with words
    #: (``app.mail.invitations``); the address can undo it from its games page.
    no_invitations_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: Bounces (issue 19 item 3), across every game of the address: when the address
    #: was marked bouncing (a hard bounce, a refusal at send time, or too many soft
    #: bounces in a row) and why, in words; None: mail goes to it. The sender tries
    #: no mail to a bouncing address (each such row fails at once with the reason,
    #: so the game's creator is told, as of a refusal); an accepted reply from the
    #: address clears it (``app.mail.bounces``).
    bouncing_since: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    bounce_reason: str | None = Field(default=None, max_length=300)
    #: Soft bounces (mailbox full, server busy) since the last clear; at
    #: ``BOUNCE_SOFT_LIMIT`` the address counts as bouncing.
    soft_bounces: int = Field(default=0)
    #: False: the address takes the notices of all its games on its targets instead of
    #: by mail (issue 20 item 3), as ``SeatMail.by_mail`` for one seat.
    by_mail: bool = True


class Tenure(SQLModel, table=True):
    """A person's stretch at a seat: from ``from_step`` (0 for the seat's first holder,
    else the seq of the ``take_over`` that gave it) to ``to_step`` (the seq of the
    ``take_over`` that ended it; None: it holds the seat now).

    Whatever carries a step (a move of seq ``s`` was made at step ``s - 1``, talk, a
    gift, a vote) belongs to the tenure with ``from_step <= step < to_step``; a ballot
    or a mail by its time (``started_at``, ``ended_at``). ``name`` is the name the seat
    was shown by in that stretch, kept as it was."""

    __tablename__ = "tenure"
    __table_args__ = (
        UniqueConstraint("game_id", "seat", "from_step", name="uq_tenure"),
        #: a reply or a link from an address that no longer holds its seat (issue 32)
        Index("ix_tenure_address", func.lower(column("address"))),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    from_step: int = 0
    to_step: int | None = None
    name: str = Field(max_length=100)
    #: The holder's normalised address ("" for a bot, or a hand-over older than the
    #: tenures whose old address nothing kept).
    address: str = Field(default="", max_length=320)
    started_at: datetime = Field(sa_type=DateTime(timezone=True))
    ended_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


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
