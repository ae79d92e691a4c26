"""Issue 17 (invitation guard): placeholder, filled in by the part of issue 17 that owns it.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa  # noqa: F401
from alembic import op  # noqa: F401

revision: str = "0014"
down_revision: Union[str, Sequence[str], None] = "0013"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
