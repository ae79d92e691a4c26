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

Deletes go in small batches (``BATCH`` rows per statement, each batch its own
short transaction) so a large backlog never holds a long lock on a table that
the web nodes write to.
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
                       batch: int, keep_newest: bool = False) -> int:
    """Delete the rows of ``table`` matching ``where``, ``batch`` at a time.

    ``keep_newest`` spares the row with the highest id: SQLite hands out
    ``max(id) + 1`` to the next row, and an id reused would reuse keys that
    name it (a reminder mail's idempotency key names its deadline row).
    """
    guard = f" AND id < (SELECT max(id) FROM {table})" if keep_newest else ""
    statement = sa.text(f"DELETE FROM {table} WHERE id IN "
                        f"(SELECT id FROM {table} WHERE {where}{guard} LIMIT :batch)")
    total = 0
    while True:
        with engine.begin() as conn:
            count = conn.execute(statement, {**params, "batch": batch}).rowcount or 0
        total += count
        if count < batch:
            return total


def prune(engine: Engine, now: datetime, *, retention_days: float = DEFAULT_RETENTION_DAYS,
          batch: int = BATCH) -> PruneReport:
    """One pruning pass at ``now`` (injected in tests, wall time in the clock)."""
    report = PruneReport()
    cutoff = now - timedelta(days=float(retention_days))
    tables = _tables(engine)
    if "outbox" in tables:
        report.deleted["outbox"] = _delete_in_batches(
            engine, "outbox",
            "status IN ('sent', 'notified', 'superseded', 'failed') "
            "AND COALESCE(sent_at, created_at) < :cutoff",
            {"cutoff": cutoff}, batch)
    if "notice_delivery" in tables:
        report.deleted["notice_delivery"] = _delete_in_batches(
            engine, "notice_delivery",
            "status <> 'pending' AND COALESCE(sent_at, created_at) < :cutoff",
            {"cutoff": cutoff}, batch, keep_newest=True)
    if "deadline" in tables:
        report.deleted["deadline"] = _delete_in_batches(
            engine, "deadline", "done_at IS NOT NULL AND done_at < :cutoff",
            {"cutoff": cutoff}, batch, keep_newest=True)
    if "inbox" in tables:
        # keep_newest: SQLite would hand the next reply the id of a pruned newest row,
        # and an id that names two messages in the logs misleads whoever reads them
        report.deleted["inbox"] = _delete_in_batches(
            engine, "inbox", "status <> 'pending' AND done_at IS NOT NULL AND done_at < :cutoff",
            {"cutoff": cutoff}, batch, keep_newest=True)
    if report.total:
        log.info("pruned %s", report.deleted)
    return report
