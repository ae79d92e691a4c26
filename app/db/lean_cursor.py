"""psycopg's cursor with a description that costs a third (issue 30).

SQLAlchemy reads ``cursor.description`` after every statement that returns rows, and
psycopg builds it afresh on each access: a ``psycopg.Column`` per column, five calls
into libpq and a lookup of the column's type adapter each. A move's one read returns
74 columns (the seats with their mail, clock, address and plan rows, the game and the
log: ``app.services.move_read``), so a move spent about 6 % of a web worker's CPU
building descriptions (py-spy on the lived store) whose every entry SQLAlchemy reads
only two fields of: the name and the type code.

``LeanCursor.description`` is the DB-API's seven-item sequence per column (PEP 249),
as a named tuple with the same field names as psycopg's ``Column`` (``name``,
``type_code``, ``display_size``, ``internal_size``, ``precision``, ``scale``,
``null_ok``), the sizes and precision left None as the DB-API allows, and kept for the
result it describes: 79 µs → 28 µs for the move's read, measured on this machine. Every
connection of a PostgreSQL engine uses it (``app.db.make_engine``).
"""
from __future__ import annotations

from collections import namedtuple
from typing import Any

import psycopg
from psycopg.pq import ExecStatus

#: One column of a description, by the DB-API's names.
Described = namedtuple("Described", "name type_code display_size internal_size precision "
                                    "scale null_ok")
_ROWS = (ExecStatus.TUPLES_OK, ExecStatus.SINGLE_TUPLE, ExecStatus.TUPLES_CHUNK)


class LeanCursor(psycopg.Cursor[Any]):
    """A ``psycopg.Cursor`` whose ``description`` is plain tuples, built once a result."""

    _described: tuple[Any, list[Described] | None] | None = None

    @property
    def description(self) -> Any:  # (list[Described] | None: psycopg's says Column)
        result = self.pgresult
        kept = self._described
        if kept is not None and kept[0] is result:
            return kept[1]
        described: list[Described] | None = None
        # (psycopg's rule: columns, or a result that says it has rows: "SELECT ;")
        if result is not None and (result.nfields or result.status in _ROWS):
            encoding = self._encoding
            described = []
            for index in range(result.nfields):
                name = result.fname(index)
                described.append(Described(
                    name.decode(encoding) if name else f"column_{index + 1}",
                    result.ftype(index), None, None, None, None, None))
        self._described = (result, described)
        return described


def use_lean_cursors(dbapi_connection: Any, _record: Any) -> None:
    """``connect`` listener: the connection's plain cursors are ``LeanCursor``s (named,
    server-side cursors are psycopg's own)."""
    dbapi_connection.cursor_factory = LeanCursor
