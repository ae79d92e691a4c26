"""Issue 17 items 2-3 (mail policy): conversation mail, and held mail that is told.

- ``outbox.conversation``: mail a person asked for by replying (the answer to a
  reply, the turn mail after their own move made by reply): bounded by their
  own reply rate, so the per-address flood cap neither holds it nor counts it.
- ``outbox.held_untold`` / ``outbox.held_why``: a cap (the hourly one, or the
  stranger's day) held this row and no mail has said so yet; the first mail of
  the same seat that leaves says "we held N mails because ..." and clears it.
  A partial index on ``to`` of such rows keeps that look-up free for the
  (nearly always) empty case.
- ``seat_mail.played``: the steps the server played for the seat (its timeouts,
  and why), so its next mail, its page and the others' news say so (item 2).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: Union[str, Sequence[str], None] = "0012"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("conversation", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("held_untold", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("held_why", sa.String(length=16), nullable=True))
    op.create_index("ix_outbox_held_untold", "outbox", ["to"],
                    sqlite_where=sa.text("held_untold"),
                    postgresql_where=sa.text("held_untold"))
    with op.batch_alter_table("seat_mail") as batch:
        batch.add_column(sa.Column("played", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seat_mail") as batch:
        batch.drop_column("played")
    op.drop_index("ix_outbox_held_untold", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("held_why")
        batch.drop_column("held_untold")
        batch.drop_column("conversation")
