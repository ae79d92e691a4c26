"""The wake-up a committed insert sends a listener (PostgreSQL ``NOTIFY``): it says when
the earliest row written is due, so a listener with nothing due before then sleeps on
instead of asking the database (issue 30 item 4: the mail sender read the outbox once
for every mail queued). Written by ``app.db.statements`` (a unit of work's inserts)
and ``app.mail.outbox.enqueue``; read by ``app.runners.waker.Waker``."""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa

#: The column of a table whose inserts wake a listener (``Insert.wake``) that says when
#: the row is due: the notification carries it (``wake_payload``).
WAKE_DUE = "next_attempt_at"


def wake_payload(due: Any) -> Any:
    """The text a wake-up carries: the schema written to (a channel is the database's,
    and servers or tests in other schemas of it hear it too), a space, and the epoch
    seconds of ``due`` (an aggregate or a column; none: the listener looks at once)."""
    return sa.func.concat(sa.func.current_schema(), " ", sa.func.coalesce(
        sa.cast(sa.func.extract("epoch", due), sa.Text), ""))


#: What ``wake_due`` says of a wake-up from another schema.
NOT_MINE = float("inf")


def wake_due(payload: str, schema: str | None) -> float | None:
    """When a wake-up said its rows are due (epoch seconds); ``NOT_MINE`` when it came
    from another schema than ``schema`` (the listener's; None: any); None when it did
    not say (an older writer's empty payload)."""
    written, _, due = payload.rpartition(" ")
    if schema is not None and written and written != schema:
        return NOT_MINE
    try:
        return float(due)
    except ValueError:
        return None


def woken_returning(table: sa.Table) -> tuple[Any, Any]:
    """What an insert that wakes returns: its id, and when the row is due."""
    return table.c.id, table.c[WAKE_DUE]


def notify(woken: list[tuple[str, Any]]) -> Any:
    """``pg_notify(channel, <earliest due of the rows the woken inserts wrote>)``."""
    due = sa.union_all(*(sa.select(cte.c[WAKE_DUE].label("due")) for _, cte in woken)
                       ).subquery("due")
    return sa.func.pg_notify(woken[0][0], wake_payload(
        sa.select(sa.func.min(due.c.due)).scalar_subquery()))
