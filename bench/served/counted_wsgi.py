"""The app as gunicorn serves it, telling each answer how many statements it sent.

``gunicorn counted_wsgi:application`` (with this folder on ``PYTHONPATH``), from a
tree's root with that tree's interpreter, serves that tree's ``create_app()``
(what the Procfile's ``app:create_app()`` serves) and adds
``X-Bench-Statements``: the statements the request's thread sent before the
answer's headers left (a ``before_cursor_execute`` listener on every engine;
what ``tests/web/test_statement_count.py`` counts). No import of ``bench``, so a
tree that has no such file (the one before the redesign) is served the same way.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Iterable

import sqlalchemy as sa

from app import create_app

_counted = threading.local()


def _count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
    _counted.n = getattr(_counted, "n", 0) + 1


sa.event.listen(sa.engine.Engine, "before_cursor_execute", _count)
_app = create_app()


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    _counted.n = 0

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        headers.append(("X-Bench-Statements", str(_counted.n)))
        return start_response(status, headers, exc_info) if exc_info else start_response(
            status, headers)

    return _app(environ, start)
