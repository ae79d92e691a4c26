"""The server's time: aware UTC everywhere, and the clock's injectable "now".

One home for what every context needs of time (the log stamps its rows, mail says
when a deadline falls, the clock fires what is due), so none of them imports the
deadline rows for it. SQLite gives stored times back naive; they are UTC
(``as_utc``).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timezone, tzinfo
from typing import Iterator

from app.i18n import forms

_frozen_now: ContextVar[datetime | None] = ContextVar("silver_eye_now", default=None)


def utcnow() -> datetime:
    """Timezone-aware UTC wall time (what rows are stamped with)."""
    return datetime.now(timezone.utc)


def now() -> datetime:
    """The clock's "now": the injected moment inside ``at(...)``, else wall time (UTC).

    Reactions write deadlines relative to this, so a tick run for an injected
    moment (tests, a clock catching up after downtime) schedules the next
    deadlines from that moment, not from the wall clock.
    """
    frozen = _frozen_now.get()
    return frozen if frozen is not None else utcnow()


@contextmanager
def at(moment: datetime) -> Iterator[datetime]:
    """Run the block as if it were ``moment`` (see ``now``)."""
    token = _frozen_now.set(as_utc(moment))
    try:
        yield as_utc(moment)
    finally:
        _frozen_now.reset(token)


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime: a naive one (SQLite's) is read as UTC, an aware one is
    converted."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def iso_in(moment: datetime, zone: tzinfo | None) -> str:
    """``moment`` as ISO 8601 at the reader's offset ("2030-01-07T10:00:00+01:00"): the
    same instant a program reads, the wall time its person reads (issue 33: a seat's
    JSON shows no UTC time once its person chose a zone). ``zone`` None: UTC."""
    return as_utc(moment).astimezone(zone or timezone.utc).isoformat()


def short_time_words(moment: datetime, zone: tzinfo | None = None) -> str:
    """'Tue 8 Dec 18:00 CET': a deadline as a first line or a lock screen has room for
    it, in the reader's zone (issue 49 item 1) and language (``forms.short_when``, issue
    50); the mail's lead, every notice and push, and the seat page's line under its
    question say it the same way."""
    return forms.short_when(as_utc(moment), zone)
