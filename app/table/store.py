"""Queries of the table's rows that pages ask on their own (the rest is read by the use
cases in ``app.services.votes``, ``more_time`` and ``table``)."""
from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session

from app.db.statements import table_of
from app.table.models import OPEN, Ballot, Gift, Vote

_VOTES, _BALLOTS, _GIFTS = table_of(Vote), table_of(Ballot), table_of(Gift)


def news(session: Session, game_id: str) -> int:
    """A number that grows whenever something of the table's people changes (a vote
    opened or closed, an answer given, a day given): an open page compares it with the
    one it was drawn with and redraws itself when it differs (the ``/seq`` probe)."""
    def count(*where: Any, source: Any = _VOTES) -> ColumnElement[int]:
        return select(func.count()).select_from(source).where(*where).scalar_subquery()

    opened = count(_VOTES.c.game_id == game_id)
    closed = count(_VOTES.c.game_id == game_id, _VOTES.c.status != OPEN)
    answered = count(_VOTES.c.game_id == game_id,
                     source=_BALLOTS.join(_VOTES, _BALLOTS.c.vote_id == _VOTES.c.id))
    given = count(_GIFTS.c.game_id == game_id, source=_GIFTS)
    return int(session.connection().execute(select(opened + closed + answered + given))
               .scalar() or 0)
