"""One key, one door (issue 45): the settings links mailed to an address
(``person_key``) and the person-wide changes they made, kept so each can be undone
(``person_change``): ``app.people.keys``.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: Union[str, Sequence[str], None] = "0023"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "person_key",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("made_for", sa.String(length=32), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_person_key_address", "person_key", [sa.text("lower(address)")])
    op.create_table(
        "person_change",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("via", sa.String(length=16), nullable=False),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
        sa.Column("words", sa.String(length=2000), nullable=False),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_person_change_address", "person_change", [sa.text("lower(address)")])


def downgrade() -> None:
    op.drop_index("ix_person_change_address", table_name="person_change")
    op.drop_table("person_change")
    op.drop_index("ix_person_key_address", table_name="person_key")
    op.drop_table("person_key")
