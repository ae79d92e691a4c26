"""Pruning: the clock's housekeeping, so the database does not grow forever.

Games run for weeks and the server for years. The action log and the games
are the truth and are never pruned; what is pruned is bookkeeping whose job
is done:

- outbox rows that left (sent, or ``notified``: to the seat's notice targets only,
  issue 20), were superseded or failed for good, once they
  are older than ``MAIL_RETENTION_DAYS`` (default 30). Their idempotency keys
  name causes in the past (a step of a log that has moved on, a deadline row
  that closed, a round that ended), so no hook can enqueue the same key again
  after the row is gone; pending rows are never touched.
- deadline rows closed longer ago than the same retention (the clock only
  reads open rows, through a partial index).
- inbox rows finished (applied, answered, ignored, dead) longer ago than the
  same retention (issue 17 item 5: inbound mail used to be kept for ever).
  Pending rows are never touched. A Message-ID forgotten this way could be
  stored again if a relay re-delivered it a month later; its reply address
  then names a step long gone, and it is answered, not applied.

- notice deliveries (issue 20) finished (sent, superseded, failed) longer ago than
  the same retention; pending ones are never touched. Table talk is never pruned: it
  is part of the game, shown in its replay like the log.

(Used lobby form tokens, the one lobby table that grows, are forgotten by the
lobby itself as new ones come: ``store.use_form_token``.)

Deletes go in bounded batches (issue 46 item 5): the pass walks each table in the
order of its ids, ``PRUNE_BATCH`` rows a window (default ``BATCH``), and in each window
deletes the rows that are done and old: two statements, each reading at most the
window's rows through the primary key, in one short transaction, so a large backlog
never holds a long lock on a table the web nodes write to, and no statement reads more
than a window. The walk stops at the first window that holds a row written after the
cutoff: ids are handed out in the order rows are written, so what lies beyond is younger
still. (It used to ask for "any 500 done and old rows" again and again: each statement a
sequential scan from the table's start, and the last one, which found none, a walk of the
whole table: every hour, 250,000 outbox rows and 4.6 million deadlines on a lived store.)
A row written late out of that order (a transaction that took long to commit) is pruned
by a later pass, once the cutoff has passed the rows before it: later, never early.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

log = logging.getLogger(__name__)

DEFAULT_RETENTION_DAYS = 30
BATCH = 500


@dataclass
class PruneReport:
    """Rows deleted per table by one pruning pass."""

    deleted: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.deleted.values())


def _tables(engine: Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())


def _delete_in_batches(engine: Engine, table: str, where: str, params: dict[str, Any],
                       batch: int, *, born: str, keep_newest: bool = False) -> int:
    """Delete the rows of ``table`` matching ``where`` (which names ``:cutoff``), a window
    of ``batch`` ids at a time, from the oldest id up to the first window holding a row
    ``born`` at or after the cutoff (the column of when the row was written; never later
    than the time ``where`` compares: a row is done after it is written).

    ``keep_newest`` spares the row with the highest id: SQLite hands out
    ``max(id) + 1`` to the next row, and an id reused would reuse keys that
    name it (a reminder mail's idempotency key names its deadline row).
    """
    guard = f" AND id < (SELECT max(id) FROM {table})" if keep_newest else ""
    cutoff = sa.bindparam("cutoff", type_=sa.DateTime(timezone=True))
    window = sa.text(
        f"SELECT count(*), max(id), max(CASE WHEN {born} >= :cutoff THEN 1 ELSE 0 END) "
        f"FROM (SELECT id, {born} FROM {table} WHERE id > :after ORDER BY id LIMIT :batch) "
        "AS w").bindparams(cutoff)
    delete = sa.text(f"DELETE FROM {table} WHERE id > :after AND id <= :upto "
                     f"AND {where}{guard}").bindparams(cutoff)
    total, after = 0, 0
    while True:
        with engine.begin() as conn:
            rows, upto, reached = conn.execute(
                window, {**params, "after": after, "batch": batch}).one()
            if not rows:
                return total
            total += conn.execute(delete, {**params, "after": after, "upto": upto}).rowcount or 0
        if reached or rows < batch:
            return total
        after = upto


def prune(engine: Engine, now: datetime, *, retention_days: float = DEFAULT_RETENTION_DAYS,
          batch: int | None = None) -> PruneReport:
    """One pruning pass at ``now`` (injected in tests, wall time in the clock); ``batch``:
    the rows a statement reads at most (default ``PRUNE_BATCH``)."""
    from app.config import setting

    batch = int(batch if batch is not None else setting("PRUNE_BATCH"))
    if batch < 1:
        raise ValueError(f"PRUNE_BATCH must be at least 1, not {batch}")
    report = PruneReport()
    cutoff = now - timedelta(days=float(retention_days))
    tables = _tables(engine)
    if "outbox" in tables:
        report.deleted["outbox"] = _delete_in_batches(
            engine, "outbox",
            "status IN ('sent', 'notified', 'superseded', 'failed') "
            "AND COALESCE(sent_at, created_at) < :cutoff",
            {"cutoff": cutoff}, batch, born="created_at")
    if "notice_delivery" in tables:
        report.deleted["notice_delivery"] = _delete_in_batches(
            engine, "notice_delivery",
            "status <> 'pending' AND COALESCE(sent_at, created_at) < :cutoff",
            {"cutoff": cutoff}, batch, born="created_at", keep_newest=True)
    if "deadline" in tables:
        report.deleted["deadline"] = _delete_in_batches(
            engine, "deadline", "done_at IS NOT NULL AND done_at < :cutoff",
            {"cutoff": cutoff}, batch, born="opened_at", keep_newest=True)
    if "inbox" in tables:
        # keep_newest: SQLite would hand the next reply the id of a pruned newest row,
        # and an id that names two messages in the logs misleads whoever reads them
        report.deleted["inbox"] = _delete_in_batches(
            engine, "inbox", "status <> 'pending' AND done_at IS NOT NULL AND done_at < :cutoff",
            {"cutoff": cutoff}, batch, born="received_at", keep_newest=True)
    if report.total:
        log.info("pruned %s", report.deleted)
    return report
