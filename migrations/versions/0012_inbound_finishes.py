"""Issue 17 item 5 (inbound mail always finishes): the inbox keeps its last error.

A row that keeps failing for a transient reason is retried with backoff and then
dead-lettered; ``last_error`` keeps the failure in full for the operator
(``flask status``), while ``outcome`` says it in a few words. Finished rows drop
their raw bytes (``raw`` becomes empty), so the column stays NOT NULL.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: Union[str, Sequence[str], None] = "0011"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column("inbox", sa.Column("last_error", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("inbox") as batch:
        batch.drop_column("last_error")
