"""Statements that run while their caller goes on: one autocommit connection, each
statement in a thread of its own, at most one in flight.

Why: ending an outbox row after its mail left is one UPDATE whose commit waits for
PostgreSQL's WAL flush (0.7-3.3 ms on the machines measured, a fifth of a mail's time,
issue 30 item 5). ``app.runners.sending`` hands each row's end to an ``InFlight`` and
composes the next mail meanwhile; it calls ``settle`` before the next mail is handed to
the server, so a crash between a send and its end still doubles at most that one mail.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sqlalchemy.engine import Connection


class InFlight:
    """``execute`` returns at once; the statement runs on ``connection`` in the worker
    thread. The next ``execute`` (or ``settle``) waits for the one before; a statement
    that failed raises there, in the caller's thread. ``close`` settles and stops the
    thread (the connection stays the caller's)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="in-flight")
        self.pending: Future[Any] | None = None

    def execute(self, statement: Any, params: dict[str, Any] | None = None) -> None:
        self.settle()
        self.pending = self.pool.submit(self.connection.execute, statement, params)

    def settle(self) -> None:
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        try:
            self.settle()
        finally:
            self.pool.shutdown(wait=True)
