"""Issue 17 item 7 (invitation guard): an address may refuse invitations, across all creators.

``address_mail.no_invitations_at``: when the address asked (by the one-click
``List-Unsubscribe`` of an invitation, RFC 8058, or from its games page) not to
be invited to games here; NULL: invitations are welcome. The lobby refuses a
later game seating that address, with words to its creator.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: Union[str, Sequence[str], None] = "0013"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("address_mail") as batch:
        batch.add_column(sa.Column("no_invitations_at", sa.DateTime(timezone=True),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("address_mail") as batch:
        batch.drop_column("no_invitations_at")
