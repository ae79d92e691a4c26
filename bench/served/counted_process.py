"""``python bench/served/counted_process.py <counts.json> clock|inbound [args]``: the
process ``python -m app.processes`` runs, counting the PostgreSQL transactions it ends.

What the clock costs while games are played (issue 30 item 4: at most 0.1 clock
transactions a move) cannot be read from ``pg_stat_database``: its ``xact_commit`` and
``xact_rollback`` are the whole database's, the web workers' too, and PostgreSQL 15
keeps no such counter per connection. So the count is taken where the transactions
are ended, in the process, as PostgreSQL counts them: a ``commit()`` or ``rollback()``
of a psycopg connection with a transaction open (SQLAlchemy's sessions, and the pool's
reset of a connection given back), and each statement on a connection in autocommit
(``read_session`` on PostgreSQL, the sender's ``LISTEN`` connection: one transaction a
statement). Every half second the counts are written to ``counts.json`` (replaced
whole, so a reader never sees half of it), and once more at exit.

No import of ``bench`` (the folder is put on ``sys.path`` by being the script's);
the app and its arguments are exactly the Procfile's.
"""
from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
import threading
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

_lock = threading.Lock()
counts = {"commit": 0, "rollback": 0, "autocommit": 0}


def _count(kind: str) -> None:
    with _lock:
        counts[kind] += 1


def _ending(name: str) -> Any:
    original = getattr(psycopg.Connection, name)

    def ended(self: psycopg.Connection, *args: Any, **kwargs: Any) -> Any:
        if self.info.transaction_status != TransactionStatus.IDLE:
            _count(name)
        return original(self, *args, **kwargs)

    return ended


#: ``BENCH_COUNT_STATEMENTS=1``: each statement's first words counted too (what a
#: transaction a move was spent on), under "statements" in the counts.
STATEMENTS: dict[str, int] | None = {} if os.environ.get("BENCH_COUNT_STATEMENTS") else None


def _executing(original: Any) -> Any:
    def execute(self: Any, *args: Any, **kwargs: Any) -> Any:  # (Connection.execute too)
        if self.connection.autocommit:
            _count("autocommit")
        if STATEMENTS is not None and args:
            key = " ".join(str(args[0]).split())[:90]
            with _lock:
                STATEMENTS[key] = STATEMENTS.get(key, 0) + 1
        return original(self, *args, **kwargs)

    return execute


def _write(path: str) -> None:
    with _lock:
        text = json.dumps(counts if STATEMENTS is None else {**counts, "statements": STATEMENTS})
    partial = f"{path}.part"
    with open(partial, "w") as f:
        f.write(text)
    os.replace(partial, path)


def main() -> None:
    path, process = sys.argv[1], sys.argv[2:]
    psycopg.Connection.commit = _ending("commit")  # type: ignore[method-assign]
    psycopg.Connection.rollback = _ending("rollback")  # type: ignore[method-assign]
    psycopg.Cursor.execute = _executing(psycopg.Cursor.execute)  # type: ignore[method-assign]
    stop = threading.Event()

    def writing() -> None:
        while not stop.wait(0.5):
            _write(path)

    threading.Thread(target=writing, name="counted-transactions", daemon=True).start()
    atexit.register(lambda: (stop.set(), _write(path)))
    _write(path)
    sys.argv = ["app.processes", *process]
    runpy.run_module("app.processes", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
