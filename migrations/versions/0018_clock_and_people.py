"""A clock that fits a week, and games that survive the people in them (issue 21):
quiet hours per seat, a time bank per seat, a deadline's budget and what it refers to,
why a game ended early and the series it belongs to, votes with their ballots, and
time given.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: Union[str, Sequence[str], None] = "0017"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "vote",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("subject_seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=True),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.Column("new_game_id", sa.String(length=64), nullable=True),
    )
    op.create_index("uq_vote_open", "vote", ["game_id"], unique=True,
                    sqlite_where=sa.text("status = 'open'"),
                    postgresql_where=sa.text("status = 'open'"))
    op.create_index("ix_vote_game", "vote", ["game_id", "id"])

    op.create_table(
        "ballot",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("vote_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("yes", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.UniqueConstraint("vote_id", "seat", name="uq_ballot"),
    )

    op.create_table(
        "clock_gift",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("giver", sa.Integer(), nullable=False),
        sa.Column("receiver", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("deadline_id", sa.Integer(), nullable=True),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_before", sa.DateTime(timezone=True), nullable=True),
        sa.Column("due_after", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_clock_gift_game", "clock_gift", ["game_id", "giver", "round"])

    # plain ADD COLUMN (the game table is what the log's foreign keys point at: 0017)
    op.add_column("seat_mail", sa.Column("quiet_start", sa.Integer(), nullable=True))
    op.add_column("seat_mail", sa.Column("quiet_end", sa.Integer(), nullable=True))
    op.add_column("seat_clock", sa.Column("bank_used_seconds", sa.Integer(), nullable=False,
                                          server_default="0"))
    op.add_column("deadline", sa.Column("ref_id", sa.Integer(), nullable=True))
    op.add_column("deadline", sa.Column("budget_seconds", sa.Integer(), nullable=True))
    op.add_column("game", sa.Column("end_reason", sa.String(length=16), nullable=True))
    op.add_column("game", sa.Column("series_id", sa.String(length=64), nullable=True))
    op.add_column("game", sa.Column("rematch_of", sa.String(length=64), nullable=True))
    op.add_column("game", sa.Column("series_no", sa.Integer(), nullable=False,
                                    server_default="1"))
    op.create_index("ix_game_series_id", "game", ["series_id"])
    op.create_index("ix_game_rematch_of", "game", ["rematch_of"])


def downgrade() -> None:
    op.drop_index("ix_game_rematch_of", table_name="game")
    op.drop_index("ix_game_series_id", table_name="game")
    with op.batch_alter_table("game") as batch:
        for name in ("series_no", "rematch_of", "series_id", "end_reason"):
            batch.drop_column(name)
    with op.batch_alter_table("deadline") as batch:
        batch.drop_column("budget_seconds")
        batch.drop_column("ref_id")
    with op.batch_alter_table("seat_clock") as batch:
        batch.drop_column("bank_used_seconds")
    with op.batch_alter_table("seat_mail") as batch:
        batch.drop_column("quiet_end")
        batch.drop_column("quiet_start")
    op.drop_index("ix_clock_gift_game", table_name="clock_gift")
    op.drop_table("clock_gift")
    op.drop_table("ballot")
    op.drop_index("ix_vote_game", table_name="vote")
    op.drop_index("uq_vote_open", table_name="vote")
    op.drop_table("vote")
