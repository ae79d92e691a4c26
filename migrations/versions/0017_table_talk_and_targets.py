"""Table talk and notices where people are (issue 20): the talk table, each seat's talk
settings and what it was told, notification targets and their deliveries, and whether
a game's spectators read its talk.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: Union[str, Sequence[str], None] = "0016"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "talk",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=True),
        sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("hidden_by", sa.Integer(), nullable=True),
        sa.UniqueConstraint("key", name="uq_talk_key"),
    )
    op.create_index("ix_talk_game", "talk", ["game_id", "id"])
    op.create_index("ix_talk_game_seat_at", "talk", ["game_id", "seat", "at"])

    op.create_table(
        "notice_target",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("address", sa.String(length=320), nullable=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("service", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.Column("last_ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_notice_target_seat", "notice_target", ["game_id", "seat"])
    op.create_index("ix_notice_target_address", "notice_target", ["address"])

    op.create_table(
        "notice_delivery",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("outbox_id", "target_id", name="uq_notice_delivery"),
    )
    op.create_index("ix_notice_delivery_due", "notice_delivery", ["next_attempt_at"],
                    sqlite_where=sa.text("status = 'pending'"),
                    postgresql_where=sa.text("status = 'pending'"))
    op.create_index("ix_notice_delivery_target", "notice_delivery", ["target_id", "id"])

    # plain ADD COLUMN (with a default, which SQLite takes too), not a batch copy: a
    # copy of ``game`` would have to drop the table the log's foreign keys point at
    op.add_column("seat_mail", sa.Column("talk_mode", sa.String(length=16), nullable=False,
                                         server_default="hourly"))
    op.add_column("seat_mail", sa.Column("talk_muted", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))
    op.add_column("seat_mail", sa.Column("talk_told_id", sa.Integer(), nullable=False,
                                         server_default="0"))
    op.add_column("seat_mail", sa.Column("talk_mail_at", sa.DateTime(timezone=True),
                                         nullable=True))
    op.add_column("seat_mail", sa.Column("by_mail", sa.Boolean(), nullable=False,
                                         server_default=sa.true()))
    op.add_column("address_mail", sa.Column("by_mail", sa.Boolean(), nullable=False,
                                            server_default=sa.true()))
    op.add_column("game", sa.Column("talk_spectators", sa.Boolean(), nullable=False,
                                    server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_column("talk_spectators")
    with op.batch_alter_table("address_mail") as batch:
        batch.drop_column("by_mail")
    with op.batch_alter_table("seat_mail") as batch:
        for name in ("by_mail", "talk_mail_at", "talk_told_id", "talk_muted", "talk_mode"):
            batch.drop_column(name)
    op.drop_index("ix_notice_delivery_target", table_name="notice_delivery")
    op.drop_index("ix_notice_delivery_due", table_name="notice_delivery")
    op.drop_table("notice_delivery")
    op.drop_index("ix_notice_target_address", table_name="notice_target")
    op.drop_index("ix_notice_target_seat", table_name="notice_target")
    op.drop_table("notice_target")
    op.drop_index("ix_talk_game_seat_at", table_name="talk")
    op.drop_index("ix_talk_game", table_name="talk")
    op.drop_table("talk")
