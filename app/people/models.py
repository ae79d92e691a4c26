"""The person: one canonical address and what it chose for every game it plays
(issue 32), and the stretches in which it held a seat (tenures).

A **person** is one canonical address and its choices for every game: the name it likes
to be shown by, its time zone and quiet hours, how it wants mail across games, its
bounce state, whether it refuses invitations. A seat is held by a person for a stretch
of a game, a **tenure** (from step, to step): whatever was said or done at a seat is the
tenure's of that moment, so words about the past do not change when the seat changes
hands. ``seat.name`` and ``seat.email`` stay the seat's holder *now* (the open tenure),
read by every move; the tenure rows are the history, written where a seat is first
given (game creation) and where it changes hands (``app.services.leaving.hand_over``),
and nowhere else.

What a game's people decide together (votes, ballots, time given) is the table's, not
the person's: ``app.table.models`` (issue 46: "people" meant two things).
"""
from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import DateTime, Index, UniqueConstraint, column, func, text
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
    #: The person's standing page (issue 47) is shown to others only as a tier ("new",
    #: "reliable") when True; its owner still sees it whole.
    standing_hidden: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    #: The person's time zone (an IANA name; None: not chosen yet, shown as UTC) and
    #: quiet hours in minutes after local midnight (both None: none), for every game.
    time_zone: str | None = Field(default=None, max_length=64)
    #: The language the person reads (issue 50: 'en', 'de', 'ja'; ``app.i18n.LANGUAGES``):
    #: chosen on the settings page, or guessed once from a browser's Accept-Language;
    #: None: not known (pages follow the browser, mail is English).
    language: str | None = Field(default=None, max_length=8)
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
    #: True: while a Web Push subscription of theirs works, a notice that went by push is
    #: not mailed too, but the digest is, and mail stands in for a push that failed
    #: (issue 49 item 4: "mail only when push fails or for the digest").
    push_instead: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    # -- away until a date (issue 47 item 5) --
    #: The person is away from all their games until ``away_until`` (None: not away):
    #: their deadlines in every running game that allows vacation do not run meanwhile
    #: (``app.people.away``). Set from ``away_since``; the days it took are counted in
    #: ``away_days_used`` against the yearly allowance (``AWAY_DAYS_PER_YEAR``) of the
    #: calendar year ``away_year`` (UTC), charged when set and refunded when it ends early.
    away_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    away_since: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    away_days_used: int = Field(default=0)
    away_year: int | None = None


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
