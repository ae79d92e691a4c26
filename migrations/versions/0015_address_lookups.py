"""Case-folded address lookups: whether an address ever played, and a stranger's
mails in a day (app/mail/trust.py, issue 17 item 7), without a scan of the seats
and the outbox at every game creation and every batch of mail.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: Union[str, Sequence[str], None] = "0014"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_index("ix_seat_email", "seat", [sa.text("lower(email)")])
    op.create_index("ix_outbox_to_created", "outbox", [sa.text('lower("to")'), "created_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_to_created", table_name="outbox")
    op.drop_index("ix_seat_email", table_name="seat")
