"""Web Push (issue 49 items 3-5): a browser's subscription keys (``push_subscription``,
beside its ``notice_target`` row), the channel a delivery leaves by
(``notice_delivery.channel``), and a person's "mail only when push fails or for the
digest" (``person.push_instead``).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-06

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: Union[str, Sequence[str], None] = "0028"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "push_subscription",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("p256dh", sa.String(length=200), nullable=False),
        sa.Column("auth", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("target_id", name="uq_push_subscription_target"),
    )
    # (no batch: SQLite adds a column in place; a batch would copy the table and lose
    # person's expression index ix_person_lower, which reflection cannot see)
    op.add_column("notice_delivery", sa.Column("channel", sa.String(length=16),
                                               nullable=False, server_default="notice"))
    op.add_column("person", sa.Column("push_instead", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("person", "push_instead")
    op.drop_column("notice_delivery", "channel")
    op.drop_table("push_subscription")
