"""The table's rows, read and written: the one home of the vote and ballot statements
(the use cases are ``app.services.votes``, ``more_time`` and ``table``), and the counter
pages ask on their own (``news``).

A vote's transaction reads the game's votes once, under the game's vote lock
(``votes_now``: the open vote with its ballots, and the votes started lately, in one
statement), holds them as ``Row`` values on its unit of work and queues its changes
there (``answer``, ``Unit.update``), sent with its other writes. One write is sent at
once: a new vote's row (``begin``), whose id its ballot, its expiry and its mails name.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, insert, or_, select
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session

from app.clock.time import as_utc
from app.db.statements import Insert, table_of
from app.db.unit import Row, Unit
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


# -- a vote's transaction ------------------------------------------------------------------

@dataclass
class Votes:
    """A game's votes as a vote's transaction holds them: the open one (None: none) and
    its answers so far by seat, and the votes started since the moment asked (any
    status: a seat's starts per day count them)."""

    open: Row | None
    ballots: dict[int, bool]
    started: list[Row]


def votes_now(session: Session, game_id: str, since: datetime | None = None) -> Votes:
    """The game's open vote with its ballots, and (``since``) the votes started since
    then: one statement (the game's votes by ``ix_vote_game``, an open vote's ballots by
    ``uq_ballot``)."""
    opened = _VOTES.c.status == OPEN
    which = opened if since is None else or_(opened, _VOTES.c.started_at > since)
    found = session.connection().execute(
        select(_VOTES, _BALLOTS.c.seat.label("ballot_seat"), _BALLOTS.c.yes.label("ballot_yes"))
        .select_from(_VOTES.outerjoin(_BALLOTS, and_(_BALLOTS.c.vote_id == _VOTES.c.id, opened)))
        .where(_VOTES.c.game_id == str(game_id), which)
        .order_by(_VOTES.c.id)).mappings().all()
    rows: dict[int, Row] = {}
    ballots: dict[int, bool] = {}
    for values in found:
        if values["id"] not in rows:
            rows[values["id"]] = Row(_VOTES, {c.name: values[c.name] for c in _VOTES.c})
        if values["ballot_seat"] is not None:
            ballots[int(values["ballot_seat"])] = bool(values["ballot_yes"])
    held = list(rows.values())
    open_one = next((row for row in held if row.status == OPEN), None)
    started = [row for row in held if since is None or _after(row.started_at, since)]
    return Votes(open_one, ballots, started)


def _after(moment: datetime, since: datetime) -> bool:
    return as_utc(moment) > as_utc(since)


def vote_row(session: Session, vote_id: int) -> Row | None:
    """One vote by its id (None: no such vote): the clock's expiry finds its game by it,
    an answer to a vote that closed says how it ended."""
    values = session.connection().execute(
        select(_VOTES).where(_VOTES.c.id == int(vote_id))).mappings().first()
    return Row(_VOTES, values) if values is not None else None


def begin(unit: Unit, values: dict[str, Any]) -> Row:
    """A new open vote's row, written at once (not queued: its id names its ballot, its
    expiry row and the key of each of its mails). ``IntegrityError`` when the game has an
    open vote already (``uq_vote_open``)."""
    row = {c.name: values.get(c.name) for c in _VOTES.c if c.name != "id"}
    new_id = unit.session.connection().execute(
        insert(_VOTES).values(row).returning(_VOTES.c.id)).scalar_one()
    return Row(_VOTES, {"id": int(new_id), **row})


def answer(unit: Unit, vote: Row, seat: int, yes: bool, at: datetime, source: str) -> None:
    """``seat``'s answer to ``vote``, queued on the unit (once a seat: ``uq_ballot``)."""
    unit.insert(Insert(_BALLOTS, [{"vote_id": vote.id, "seat": int(seat), "yes": bool(yes),
                                   "at": at, "source": source}]))


def as_vote(row: Row) -> Vote:
    """A vote row as the model its readers take (its mails, the use cases' callers): a
    value, bound to no session."""
    return Vote(**row.values)
