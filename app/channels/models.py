"""Notification targets and their deliveries (issue 20 item 3)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, DateTime, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

#: Delivery states, the outbox's words (``app.mail.models``): pending, sent, failed for
#: good, superseded (what it announced was gone before it could be delivered); and a
#: push's own (issue 49): expired (its deadline passed before it left, or the browser's
#: subscription was gone).
PENDING, SENT, FAILED, SUPERSEDED = "pending", "sent", "failed", "superseded"
EXPIRED = "expired"


class NoticeTarget(SQLModel, table=True):
    """Where a seat (``game_id`` + ``seat``) or an address (``address``, every game of
    it) wants its notices besides or instead of mail. ``url`` is an apprise URL and a
    secret (a webhook's token): it is never logged, and shown only masked."""

    __tablename__ = "notice_target"
    __table_args__ = (
        Index("ix_notice_target_seat", "game_id", "seat"),
        Index("ix_notice_target_address", "address"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str | None = Field(default=None, max_length=64)
    seat: int | None = None
    address: str | None = Field(default=None, max_length=320)
    url: str = Field(sa_column=Column(Text, nullable=False))
    #: The service in words, for the page ("Discord", "ntfy", "JSON webhook").
    service: str = Field(max_length=40)
    created_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: Failed deliveries in a row; at ``NOTICE_FAILURES_TO_PAUSE`` the target is paused.
    failures: int = 0
    last_error: str | None = Field(default=None, max_length=300)
    last_ok_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: Set while the target is paused (it kept failing): nothing is tried to it, its
    #: seat page says so, and mail stands in for it.
    paused_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class NoticeDelivery(SQLModel, table=True):
    """One notice to one target: written when the outbox row it stands for leaves (or
    by "send a test notice", ``outbox_id`` None), sent once, retried with a backoff."""

    __tablename__ = "notice_delivery"
    __table_args__ = (
        UniqueConstraint("outbox_id", "target_id", name="uq_notice_delivery"),
        Index("ix_notice_delivery_due", "next_attempt_at",
              sqlite_where=text("status = 'pending'"),
              postgresql_where=text("status = 'pending'")),
        Index("ix_notice_delivery_target", "target_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    outbox_id: int | None = None
    target_id: int
    game_id: str | None = Field(default=None, max_length=64)
    seat: int | None = None
    kind: str = Field(max_length=32)
    #: Which way it leaves (issue 49): ``notice`` (apprise) or ``push`` (Web Push): what
    #: ``/metrics`` counts by channel, kept on the row since a push target that expired
    #: is gone.
    channel: str = Field(default="notice", max_length=16,
                         sa_column_kwargs={"server_default": "notice"})
    title: str = Field(max_length=300)
    body: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default=PENDING, max_length=16)
    attempts: int = 0
    next_attempt_at: datetime = Field(sa_type=DateTime(timezone=True))
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    sent_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(sa_type=DateTime(timezone=True))


class PushSubscription(SQLModel, table=True):
    """The keys of a browser's Web Push subscription (issue 49 item 3). The subscription
    itself is a ``NoticeTarget`` (service ``Web Push``, its ``url`` the push service's
    endpoint, its scope a seat or an address), so it goes through the targets' one
    mechanism: fan-out, the superseded check, quiet hours, caps, pausing. Here only what
    encrypts a push to that browser (RFC 8291): its P-256 public key and auth secret."""

    __tablename__ = "push_subscription"
    __table_args__ = (UniqueConstraint("target_id", name="uq_push_subscription_target"),)

    id: int | None = Field(default=None, primary_key=True)
    target_id: int
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)
    created_at: datetime = Field(sa_type=DateTime(timezone=True))
