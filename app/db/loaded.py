"""Rows read as plain columns, and the ORM objects made of them only when needed.

A move reads its game's seats with their mail, clock and address rows, the game
and the newest log rows in one query. Through the ORM that query cost about a
fifth of the move: every execution builds a compile state and a row processor
for each entity, whether or not anything looks at the objects. Read as plain
columns (Core), each row is kept as ``Stored`` values: what most of a move does
with them is read a field or two, or change one with its own UPDATE
(``deadlines.write_through``). Code that changes a row through the session asks
for its ORM object (``loaded``), made then, as a query would have loaded it.
"""
from __future__ import annotations

from typing import Any, Mapping, TypeVar

from sqlalchemy import inspect
from sqlalchemy.orm import Session, make_transient_to_detached
from sqlalchemy.orm.attributes import instance_dict, set_committed_value
from sqlalchemy.orm.instrumentation import manager_of_class

Model = TypeVar("Model")


class Stored:
    """A row of ``model``'s table as read: its columns as read-only attributes.

    Whoever writes one of its columns with an UPDATE of their own notes the new
    value here (``note``), as ``set_committed_value`` does on an ORM object. Once
    the ORM object of the row is made (``as_object``), a ``Stored`` still held
    somewhere reads and notes through it, so the two never disagree.
    """

    __slots__ = ("model", "values", "made")

    def __init__(self, model: type, values: dict[str, Any]) -> None:
        self.model = model
        self.values = values
        self.made: Any = None

    def __getattr__(self, name: str) -> Any:
        if self.made is not None:
            return getattr(self.made, name)
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"Stored({self.model.__name__}, {self.values!r})"


def note(row: Any, **values: Any) -> None:
    """What the caller's own UPDATE just wrote, on the row it holds (either kind)."""
    if isinstance(row, Stored):
        row.values.update(values)
        if row.made is None:
            return
        row = row.made
    for key, value in values.items():
        set_committed_value(row, key, value)


def as_object(session: Session, row: Any) -> Any:
    """The ORM object of ``row`` (``row`` itself when it is one; None stays None)."""
    if not isinstance(row, Stored):
        return row
    if row.made is None:
        row.made = loaded(session, row.model, row.values)
    return row.made


def loaded(session: Session, model: type[Model], values: Mapping[str, Any]) -> Model:
    """The persistent object of the row ``values`` (every column of ``model``'s table,
    by name), as if ``session`` had loaded it: clean, in the identity map, and a
    change to it is flushed as an UPDATE. An object the session already holds for
    that row wins: it may carry this transaction's changes.
    """
    mapper = inspect(model)
    key = mapper.identity_key_from_primary_key([values[column.key]
                                                for column in mapper.primary_key])
    held = session.identity_map.get(key)
    if held is not None:
        return held  # type: ignore[no-any-return]
    # Built the way the ORM's own loading builds it, not with the constructor (which
    # validates every stored value again, pydantic: 24 µs an object): the values go
    # into the instance's dict with no history, and ``make_transient_to_detached``
    # commits them as loaded ("a row known to exist", keyed by its primary key).
    row = manager_of_class(model).new_instance()
    instance_dict(row).update(values)
    make_transient_to_detached(row)
    session.add(row)
    return row  # type: ignore[no-any-return]
