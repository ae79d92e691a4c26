"""Bounces that count (issue 19 item 3): an address's bounce state across games, on
its row of address-wide mail settings (``address_mail``).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: Union[str, Sequence[str], None] = "0015"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("address_mail") as batch:
        batch.add_column(sa.Column("bouncing_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("bounce_reason", sa.String(length=300), nullable=True))
        batch.add_column(sa.Column("soft_bounces", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("address_mail") as batch:
        batch.drop_column("soft_bounces")
        batch.drop_column("bounce_reason")
        batch.drop_column("bouncing_since")
