"""The talk table's queries: one home for every read and write of it.

Plain functions on the caller's session, no transaction of their own (the use cases
in ``app.services.talk`` and the mail code in ``app.mail.table_talk`` open them).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlmodel import Session

from app.db.statements import Insert, table_of
from app.db.unit import Unit
from app.talk.models import Talk

_TALK = table_of(Talk)


@dataclass(frozen=True)
class Line:
    """One message as every reader gets it (the text is as typed: escape it to show it)."""

    id: int
    seat: int
    text: str
    step: int
    at: datetime
    source: str
    hidden: bool

    def shown(self) -> str | None:
        """The text, or None when the creator hid it."""
        return None if self.hidden else self.text


def _line(row: Any) -> Line:
    return Line(id=int(row["id"]), seat=int(row["seat"]), text=str(row["text"]),
                step=int(row["step"] or 0), at=row["at"], source=str(row["source"]),
                hidden=row["hidden_at"] is not None)


def add(session: Session, *, game_id: str, seat: int, text: str, step: int, at: datetime,
        source: str, key: str | None) -> tuple[int, bool]:
    """Write one message; ``(id, True)``, or ``(id of the earlier one, False)`` when a
    message with the same ``key`` was said already (a form posted twice, a reply
    delivered twice): nothing is doubled. Written through a unit of work that sends as
    it goes (``Unit(queued=False)``: the message's id names the talk mails queued after
    it), one ``INSERT ... ON CONFLICT (key) DO NOTHING RETURNING id``."""
    values = {"game_id": game_id, "seat": seat, "text": text, "step": step, "at": at,
              "source": source, "key": key, "hidden_at": None, "hidden_by": None}
    new = Unit(session, queued=False).insert(Insert(
        _TALK, [values], conflict=("key",) if key is not None else (), key="talk"))
    if new is not None:
        return int(new), True
    earlier = session.connection().execute(
        select(_TALK.c.id).where(_TALK.c.key == key)).scalar_one()
    return int(earlier), False


def said_since(session: Session, game_id: str, seat: int, since: datetime) -> int:
    """How many messages ``seat`` said at or after ``since`` (the rate limit)."""
    return int(session.connection().execute(
        select(func.count()).select_from(_TALK).where(
            _TALK.c.game_id == game_id, _TALK.c.seat == seat, _TALK.c.at >= since)).scalar_one())


def oldest_since(session: Session, game_id: str, seat: int, since: datetime) -> datetime | None:
    """When the oldest of ``seat``'s messages at or after ``since`` was said (the rate
    limit's answer says when the seat may talk again)."""
    return session.connection().execute(
        select(func.min(_TALK.c.at)).where(
            _TALK.c.game_id == game_id, _TALK.c.seat == seat, _TALK.c.at >= since)).scalar()


def lines(session: Session, game_id: str, *, after_id: int = 0, upto_step: int | None = None,
          limit: int | None = None) -> list[Line]:
    """The game's talk in order (hidden ones included, marked): after ``after_id``;
    ``upto_step``: said at that step or before (a replay frame); ``limit``: the newest
    that many."""
    query = select(_TALK).where(_TALK.c.game_id == game_id, _TALK.c.id > after_id)
    if upto_step is not None:
        query = query.where(_TALK.c.step <= upto_step)
    if limit is not None:
        newest = query.order_by(_TALK.c.id.desc()).limit(limit)
        return [_line(r) for r in reversed(session.connection().execute(newest).mappings().all())]
    return [_line(r) for r in
            session.connection().execute(query.order_by(_TALK.c.id)).mappings()]


def newest_counted(session: Session, game_id: str, limit: int) -> tuple[list[Line], int]:
    """The newest ``limit`` messages, oldest first, and how many the game has in all: one
    statement (the count rides on each row), for the seat page's box (issue 33)."""
    total = func.count().over().label("total_lines")
    query = (select(_TALK, total).where(_TALK.c.game_id == game_id)
             .order_by(_TALK.c.id.desc()).limit(limit))
    found = session.connection().execute(query).mappings().all()
    return [_line(r) for r in reversed(found)], int(found[0]["total_lines"]) if found else 0


def untold(session: Session, game_id: str, seat: int, told_id: int) -> list[Line]:
    """What ``seat`` was not told of by mail yet: the others' messages after ``told_id``
    that nobody hid (its own it knows; a hidden one is never carried)."""
    query = (select(_TALK).where(_TALK.c.game_id == game_id, _TALK.c.id > told_id,
                                 _TALK.c.seat != seat, _TALK.c.hidden_at.is_(None))
             .order_by(_TALK.c.id))
    return [_line(r) for r in session.connection().execute(query).mappings()]


def newest_id(session: Session, game_id: str) -> int:
    """The game's newest talk id (0: none yet): a page that shows it is current."""
    return int(session.connection().execute(
        select(func.coalesce(func.max(_TALK.c.id), 0)).where(_TALK.c.game_id == game_id))
        .scalar_one())


def hide(session: Session, game_id: str, talk_id: int, by_seat: int, at: datetime) -> bool:
    """Mark one message hidden (kept, shown as "hidden by the creator"); False when the
    game has no such message or it was hidden already."""
    return session.connection().execute(
        update(_TALK).where(_TALK.c.game_id == game_id, _TALK.c.id == talk_id,
                            _TALK.c.hidden_at.is_(None))
        .values(hidden_at=at, hidden_by=by_seat)).rowcount == 1


HOUR = timedelta(hours=1)
