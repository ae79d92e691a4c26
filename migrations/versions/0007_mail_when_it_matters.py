"""Mail when it matters: superseded mail, per-address cap, time zones, address digests.

- ``outbox.announces``: what a mail announces, re-checked at send time;
  ``outbox.held_until``: set while the per-address hourly cap holds it back;
  an index on ``(to, sent_at)`` of sent rows for that cap.
- ``seat_mail.time_zone``: deadlines shown in the seat's zone;
  ``seat_mail.unsent_mail_id``: the seat's decision mail an action supersedes.
- ``seat_clock.away_noticed``: "X is away" mailed once per stretch.
- ``address_mail``: preferences of an address across all its games.

Revision ID: 0007
Revises: 0004
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: Union[str, Sequence[str], None] = "0010"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("announces", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("held_until", TZ, nullable=True))
    op.create_index("ix_outbox_to_sent", "outbox", ["to", "sent_at"],
                    sqlite_where=sa.text("status = 'sent'"),
                    postgresql_where=sa.text("status = 'sent'"))
    with op.batch_alter_table("seat_mail") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(length=64), nullable=False,
                                   server_default="UTC"))
        batch.add_column(sa.Column("unsent_mail_id", sa.Integer(), nullable=True))
    with op.batch_alter_table("seat_clock") as batch:
        batch.add_column(sa.Column("away_noticed", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "address_mail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("last_digest_at", TZ, nullable=True),
        sa.Column("updated_at", TZ, nullable=True),
        sa.UniqueConstraint("address", name="uq_address_mail"),
    )


def downgrade() -> None:
    op.drop_table("address_mail")
    with op.batch_alter_table("seat_clock") as batch:
        batch.drop_column("away_noticed")
    with op.batch_alter_table("seat_mail") as batch:
        batch.drop_column("unsent_mail_id")
        batch.drop_column("time_zone")
    op.drop_index("ix_outbox_to_sent", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("held_until")
        batch.drop_column("announces")
