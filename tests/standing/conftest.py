"""Helpers for standing (issue 47): games played out at random through the services, and
the standing rows they leave."""
from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from app.db import get_engine
from app.standing.models import Result, Standing
from tests.people.conftest import play_out, some_moves  # noqa: F401  (helpers)
from tests.clock.conftest import T0, hours, mailbox, tick  # noqa: F401,F811  (fixtures)


@pytest.fixture(autouse=True)
def _turn_mail_at_once(turn_mail_at_once):
    """No grace period, no hourly cap here (tests/conftest.py says why)."""


def results(game_id: str) -> list[Any]:
    with get_engine().connect() as connection:
        return list(connection.execute(sa.select(Result.__table__).where(
            Result.__table__.c.game_id == game_id).order_by(
            Result.__table__.c.seat, Result.__table__.c.from_step)))


def standing_of(address: str) -> Any:
    from app.people.models import Person
    people, standing = Person.__table__, Standing.__table__
    with get_engine().connect() as connection:
        return connection.execute(sa.select(standing).select_from(
            standing.join(people, people.c.id == standing.c.person_id)).where(
            sa.func.lower(people.c.address) == address.lower())).first()
