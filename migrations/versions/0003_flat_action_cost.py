"""Flat action cost: open deadlines by game through a partial index; fresh-link marker.

Every action closes or reads the open deadline rows of its game. The index on
``(game_id, seat)`` of 0002 holds the closed rows too, so that work grew with
the length of the game; the partial index holds only open rows (a few per
game) and replaces it (nothing reads a game's closed rows). ``seat_mail``
gains ``link_mailed_at``: when the last fresh link a player asked for was
mailed, so asking again within the window mails nothing.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: Union[str, Sequence[str], None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_index("ix_deadline_game_open", "deadline", ["game_id", "seat"],
                    sqlite_where=sa.text("done_at IS NULL"),
                    postgresql_where=sa.text("done_at IS NULL"))
    op.drop_index("ix_deadline_game_seat", table_name="deadline")
    with op.batch_alter_table("seat_mail") as batch:
        batch.add_column(sa.Column("link_mailed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat_mail") as batch:
        batch.drop_column("link_mailed_at")
    op.create_index("ix_deadline_game_seat", "deadline", ["game_id", "seat"])
    op.drop_index("ix_deadline_game_open", table_name="deadline")
