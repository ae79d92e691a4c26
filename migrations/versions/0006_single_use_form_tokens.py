"""Single-use lobby form tokens: the ids of form tokens that already created a game.

A lobby form token was good for six hours and any number of posts; now the
transaction that creates a game also inserts the token's id here, so a
second post of the same form finds it (and a second racing post fails on the
primary key). Rows older than a token's life are pruned as new ones come.

Revision ID: 0006
Revises: 0004
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: Union[str, Sequence[str], None] = "0005"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "used_form_token",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_used_form_token_used_at", "used_form_token", ["used_at"])


def downgrade() -> None:
    op.drop_index("ix_used_form_token_used_at", table_name="used_form_token")
    op.drop_table("used_form_token")
