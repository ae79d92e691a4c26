"""Mail tables: the outbox (what to send) and each seat's mail preferences.

The outbox is written in the same transaction as the action that caused the
mail; a separate sender (the clock process) delivers it later. One row is one
message: its Message-ID is fixed when the row is written, so a retry re-sends
the very same message, and the row's status makes the sender skip it once it
went out.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, JSON, Column, Index, Text, UniqueConstraint, column, func, text
from sqlmodel import Field, SQLModel

#: Address-wide preferences (each game as the seat chose, one daily digest, or no game
#: mail at all) belong to the person: ``app.people.models.Person`` (issue 32).
from app.people.models import ADDRESS_MODES as ADDRESS_MODES
from app.people.models import DAILY as DAILY
from app.people.models import NONE as NONE
from app.people.models import PER_GAME as PER_GAME

#: Outbox row states. ``pending`` rows are sent when due; ``failed`` rows were
#: refused for good by the mail server (a bad address) and are kept for reading;
#: ``superseded`` rows announced a decision that was gone by their send time
#: (the seat acted, a timeout played it, a newer mail replaced it): kept, unsent.
PENDING, SENT, FAILED, SUPERSEDED = "pending", "sent", "failed", "superseded"

#: Seat mail preferences: a mail for every decision, one digest mail per
#: period, or nothing but invitations and links the player asked for.
EVERY, DIGEST = "every", "digest"
MAIL_MODES = (EVERY, DIGEST, NONE)

#: How table talk reaches a seat by mail (``SeatMail.talk_mode``, issue 20 item 2).
TALK_EVERY, TALK_HOURLY, TALK_TURNS, TALK_NEVER = "every", "hourly", "turns", "never"
TALK_MODES = (TALK_EVERY, TALK_HOURLY, TALK_TURNS, TALK_NEVER)


class Outbox(SQLModel, table=True):
    """One message waiting to be sent (or already sent: rows are kept)."""

    __tablename__ = "outbox"
    __table_args__ = (
        UniqueConstraint("idempotency", name="uq_outbox_idempotency"),
        UniqueConstraint("message_id", name="uq_outbox_message_id"),
        Index("ix_outbox_due", "next_attempt_at",
              sqlite_where=text("status = 'pending'"),
              postgresql_where=text("status = 'pending'")),
        Index("ix_outbox_game", "game_id", "seat"),
        # A stranger's mails in a day (app/mail/trust.py, issue 17 item 7), case-folded.
        Index("ix_outbox_to_created", func.lower(column("to")), "created_at"),
        # The per-address hourly cap counts an address's recent sent mail.
        Index("ix_outbox_to_sent", "to", "sent_at",
              sqlite_where=text("status = 'sent'"),
              postgresql_where=text("status = 'sent'")),
        # Held mail nobody was told of yet (issue 17 item 3): nearly always empty,
        # so asking it for every mail that leaves costs an index probe.
        Index("ix_outbox_held_untold", "to",
              sqlite_where=text("held_untold"), postgresql_where=text("held_untold")),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str | None = Field(default=None, max_length=64)
    seat: int | None = None
    kind: str = Field(max_length=32)
    to: str = Field(max_length=320)
    subject: str = Field(max_length=300)
    text: str = Field(sa_column=Column(Text, nullable=False))
    html: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    headers: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default=PENDING, max_length=16)
    attempts: int = 0
    next_attempt_at: datetime = Field(sa_type=DateTime(timezone=True))
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    sent_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    message_id: str = Field(max_length=255)
    #: Who asked for this mail, as a key: a second request for the same mail
    #: (a retried hook, two clocks) finds the row and adds nothing.
    idempotency: str = Field(max_length=200)
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: What must still hold when the mail leaves (None: always send), e.g.
    #: ``{"what": "decision", "seat": 1, "step": 40, "round": 2, "decision": "turn"}``
    #: or ``{"what": "absent", "seat": 0}``; the sender checks it and marks the
    #: row ``superseded`` instead of sending a mail about a position that is gone.
    announces: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    #: Set while a cap (the per-address hourly one, or a stranger's day) holds this
    #: mail back (shown to the game).
    held_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: Mail the person asked for by replying (issue 17 item 3: the answer to a reply,
    #: the turn mail after their own move made by reply): bounded by their own reply
    #: rate, so the per-address hourly cap neither holds it nor counts it.
    conversation: bool = False
    #: A cap held this row and no mail told the person yet: the next mail of the same
    #: seat that leaves says "we held N mails because ..." and clears it (issue 17 item 3).
    held_untold: bool = False
    #: Which cap held it: ``hour`` (``MAIL_PER_ADDRESS_PER_HOUR``) or ``stranger``
    #: (an address that never acted: ``app.mail.trust``).
    held_why: str | None = Field(default=None, max_length=16)
    #: When a sender's caps let this row go (issue 34 item 1): while its claim lasts,
    #: the caps of every other sender count it as sent, so two senders at once cannot
    #: each allow an address the whole hour's mails (``app.mail.holds.Caps.settle``).
    counted_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class SeatMail(SQLModel, table=True):
    """How much mail a seat wants, and what it has been told so far."""

    __tablename__ = "seat_mail"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_seat_mail"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    mode: str = Field(default=EVERY, max_length=16)
    #: The last step this seat acted at (its own action): a turn mail tells it
    #: what happened after that step.
    last_acted_step: int = 0
    #: When the last digest went out (digest mode sends at most one a period).
    last_digest_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: When the last fresh link this seat asked for was mailed: asking again
    #: within ``FRESH_LINK_MINUTES`` mails nothing (no flooding an inbox).
    link_mailed_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    updated_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: (Zone and quiet hours were the seat's until issue 32: they are its person's now,
    #: ``app.people.models.Person``, the same in every game of theirs.)
    #: The outbox row of the seat's latest decision mail (turn or reminder) while
    #: it may be unsent: the one row an action supersedes, found by its id, so
    #: the cost does not grow with the mail a long game has written.
    unsent_mail_id: int | None = None
    #: The steps the server played for this seat (its timeouts, R29), newest last, as
    #: ``[step, why]`` (why: ``deadline`` or ``away``): its next mail and its page say
    #: what was played for it, the others' mails say it too (issue 17 item 2).
    played: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    #: Table talk by mail (issue 20 item 2): ``every`` message (collapsed over the grace
    #: period), at most one talk mail ``hourly`` (``TALK_MAIL_MINUTES``), only in the
    #: ``turns`` mails the seat gets anyway, or ``never``.
    talk_mode: str = Field(default="hourly", max_length=16)
    #: The seat muted the talk: its page folds it away, and no mail or notice carries it.
    talk_muted: bool = False
    #: The newest talk id a mail of this seat carried (each message is told once).
    talk_told_id: int = 0
    #: When the seat's last talk mail left (the next waits out the period from it).
    talk_mail_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: False: the seat takes its notices on its targets instead of by mail (issue 20
    #: item 3); mail stands in again while none of its targets is active.
    by_mail: bool = True


