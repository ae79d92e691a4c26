"""Issue 17 (supervision): placeholder, filled in by the part of issue 17 that owns it.

Revision ID: 0011
Revises: 0007
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision: str = "0011"
down_revision: Union[str, Sequence[str], None] = "0007"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
