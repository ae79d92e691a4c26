"""Rules versions: each game records the rules it was created under; the state
cache records the engine that pickled it (issue 10).

Games made before this revision were played under rules version 1 (the server
default fills them in). Cache rows made before it get an empty engine version,
which no engine has: the server ignores them and rebuilds from the log.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: Union[str, Sequence[str], None] = "0008"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("rules_version", sa.Integer(), nullable=False,
                                   server_default="1"))
    with op.batch_alter_table("state_cache") as batch:
        batch.add_column(sa.Column("engine_version", sa.String(length=64), nullable=False,
                                   server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("state_cache") as batch:
        batch.drop_column("engine_version")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("rules_version")
