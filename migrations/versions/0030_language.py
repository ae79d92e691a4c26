"""The reader's language (issue 50 item 1): ``person.language``, one of the languages the
server speaks ('en', 'de', 'ja'), chosen on the settings page or guessed once from the
first request's ``Accept-Language``; None: not known yet (English, or the browser's).

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-06

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: Union[str, Sequence[str], None] = "0029"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # (no batch: SQLite adds a column in place and keeps ix_person_lower)
    op.add_column("person", sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    op.drop_column("person", "language")  # (in place, as 0029: the batch copy loses ix_person_lower)
