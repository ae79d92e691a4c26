"""Core tables: games, seats, the append-only action log, the state cache.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: Union[str, Sequence[str], None] = None
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "game",
        sa.Column("id", sa.String(length=64), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
    )
    op.create_table(
        "seat",
        sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("token_version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("preferences", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "index"),
    )
    op.create_table(
        "action",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_action_game_seq"),
    )
    op.create_index("ix_action_created", "action", ["created"])
    _append_only_guard()
    op.create_table(
        "state_cache",
        sa.Column("game_id", sa.String(length=64), sa.ForeignKey("game.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )


def _append_only_guard() -> None:
    """The database itself refuses to update or delete a logged action."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("""
            CREATE FUNCTION action_is_append_only() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION 'the action log is append-only: % refused', TG_OP;
            END;
            $$ LANGUAGE plpgsql
        """)
        op.execute("CREATE TRIGGER action_append_only BEFORE UPDATE OR DELETE ON action "
                   "FOR EACH ROW EXECUTE FUNCTION action_is_append_only()")
    elif op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER action_no_{verb.lower()} BEFORE {verb} ON action "
                       f"BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER action_append_only ON action")
        op.execute("DROP FUNCTION action_is_append_only()")
    op.drop_table("state_cache")
    op.drop_index("ix_action_created", table_name="action")
    op.drop_table("action")
    op.drop_table("seat")
    op.drop_table("game")
