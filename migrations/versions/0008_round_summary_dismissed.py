"""Round summaries: the last round whose summary a seat dismissed on its page.

The seat page shows how the last round was scored until the seat dismisses it
(a POST) or acts in the next round; ``seat.summary_dismissed`` holds the
number of the round dismissed (0: none).

Revision ID: 0008
Revises: 0004
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: Union[str, Sequence[str], None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.add_column(sa.Column("summary_dismissed", sa.Integer(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("summary_dismissed")
