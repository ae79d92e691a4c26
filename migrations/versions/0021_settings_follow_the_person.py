"""Settings follow the person (issue 32 item 2): a seat's zone and quiet hours go away.

Migration 0020 merged each address's zone and quiet hours into its ``person`` row (the
most recently set of its seats wins); from here every game reads them there, so the
seat's copies (``seat_mail.time_zone``, ``quiet_start``, ``quiet_end``) are dropped. A
seat without an address (no person) shows its times in UTC.

The downgrade gives the columns back, filled from each seat's person as it stands.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-04

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: Union[str, Sequence[str], None] = "0020"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # (a seat's settings that 0020 did not take, a bot's or an address-less seat's,
    # meant nothing beyond that seat's page: nobody is mailed there)
    with op.batch_alter_table("seat_mail") as batch:
        batch.drop_column("time_zone")
        batch.drop_column("quiet_start")
        batch.drop_column("quiet_end")


def downgrade() -> None:
    with op.batch_alter_table("seat_mail") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(length=64), nullable=False,
                                   server_default="UTC"))
        batch.add_column(sa.Column("quiet_start", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("quiet_end", sa.Integer(), nullable=True))
    op.execute("""
        UPDATE seat_mail SET
          time_zone = COALESCE((SELECT person.time_zone FROM seat JOIN person
                                  ON person.address = seat.email
                                WHERE seat.game_id = seat_mail.game_id
                                  AND seat."index" = seat_mail.seat), 'UTC'),
          quiet_start = (SELECT person.quiet_start FROM seat JOIN person
                           ON person.address = seat.email
                         WHERE seat.game_id = seat_mail.game_id
                           AND seat."index" = seat_mail.seat),
          quiet_end = (SELECT person.quiet_end FROM seat JOIN person
                         ON person.address = seat.email
                       WHERE seat.game_id = seat_mail.game_id
                         AND seat."index" = seat_mail.seat)""")
