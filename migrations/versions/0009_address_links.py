"""All my games: the version of each address's magic link, so a link can be revoked.

A link to "all my games" is signed and expires by itself; it carries the
version stored here for its address (a keyed hash, never the address), and
revoking bumps the version so every older link stops working.

Revision ID: 0009
Revises: 0004
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: Union[str, Sequence[str], None] = "0006"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "address_link",
        sa.Column("address_hash", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address_hash"),
    )


def downgrade() -> None:
    op.drop_table("address_link")
