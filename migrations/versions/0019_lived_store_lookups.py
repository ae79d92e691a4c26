"""Lookups that stay one probe on a store that has lived (issue 30 item 1).

- ``ix_address_mail_lower``: the address's mail choices and bounce mark are looked up
  case-folded (``lower(address)``, by the seat page, the sender's bounce probe, the
  address settings); with only the unique index on ``address`` each was a scan of
  every address the server ever mailed.
- ``ix_action_own``: whether an address ever moved itself (``trust.has_acted``,
  asked by the sender for every batch and by the lobby) is one probe per seat of the
  address; it joined the whole action log (27.5 M rows read in one benchmark run).
  Partial: only the moves people made themselves, a share of the log.
- ``ix_address_mail_daily``: the clock's tick asks which addresses want their daily
  digest now; it read every address the server ever mailed, twice a minute. Partial:
  the addresses that chose the digest.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: Union[str, Sequence[str], None] = "0018"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

OWN = "source IN ('player', 'mail')"
DAILY = "mode = 'daily'"


def upgrade() -> None:
    op.create_index("ix_address_mail_lower", "address_mail", [sa.text("lower(address)")])
    op.create_index("ix_action_own", "action", ["game_id", "seat"],
                    postgresql_where=sa.text(OWN), sqlite_where=sa.text(OWN))
    op.create_index("ix_address_mail_daily", "address_mail", ["last_digest_at"],
                    postgresql_where=sa.text(DAILY), sqlite_where=sa.text(DAILY))


def downgrade() -> None:
    op.drop_index("ix_address_mail_daily", table_name="address_mail")
    op.drop_index("ix_action_own", table_name="action")
    op.drop_index("ix_address_mail_lower", table_name="address_mail")
