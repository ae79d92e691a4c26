"""Heartbeats and supervision of the long-running loops (issue 17 item 1).

Why: a sender thread that died on a dropped LISTEN connection used to leave a
clock process that ticked, looked healthy, and sent nothing, for as long as
nobody looked. So every loop that must keep going (the clock's tick, the mail
sender thread, the inbound receiver's apply loop) now

- writes a *heartbeat* row in the database (one upsert at most every few
  seconds: ``Beater``), which the clock reads to decide whether it must send
  mail itself, and which ``/readyz`` and ``flask --app app status`` read to
  tell the operator what is alive and what is late (``readiness``);
- runs under a ``Supervisor`` (``app.runners.supervisor``) that restarts a
  thread that died and, when one keeps dying or stops making progress, raises
  ``GaveUp`` so that its process exits non-zero and the process manager starts
  a fresh one: never a process that runs and does nothing.

Freshness is judged against wall time, never the clock's injected "now": a
heartbeat says that a real process ran a real loop a moment ago.
"""
from __future__ import annotations

import logging
import os
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, func, select

from app.config import DEFAULT_HEARTBEAT_STALE_SECONDS, DEFAULT_READY_MAIL_LATE_SECONDS
from app.clock.time import as_utc
from app.runners import watchdog

log = logging.getLogger("app.runners.heartbeats")

#: The loops that beat.
CLOCK, SENDER, INBOUND = "clock", "sender", "inbound"
#: The loops that stand for their process (one per systemd unit): their beats are the
#: unit's watchdog pings. The sender is a thread of the clock process, watched by its
#: supervisor (``app.runners.supervisor``), not by systemd.
PROCESS_LOOPS = frozenset({CLOCK, INBOUND})
#: How often a busy loop writes its heartbeat at most (seconds): cheap, and far
#: below any freshness bound.
BEAT_SECONDS = 5.0


class Heartbeat(SQLModel, table=True):
    """The last sign of life of one loop: who (pid, host), when, and what it last did."""

    __tablename__ = "heartbeat"

    #: ``clock``, ``sender`` or ``inbound``.
    name: str = Field(primary_key=True, max_length=32)
    pid: int
    host: str = Field(max_length=255)
    beat_at: datetime = Field(sa_type=sa.DateTime(timezone=True))
    #: How often the loop promises to beat (seconds); freshness allows three of these.
    every_seconds: float
    #: What the loop last did, e.g. ``{"last_tick": "...", "last_send": "..."}`` (ISO times).
    detail: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON, nullable=False)


def wall_now() -> datetime:
    """Real time (UTC), never the clock's injected "now": heartbeats are about real loops."""
    return datetime.now(timezone.utc)


def write(engine: Engine, name: str, *, every: float, detail: dict[str, Any],
          at: datetime | None = None, also: str | None = None) -> None:
    """Upsert the heartbeat of ``name`` (one statement, its own transaction); ``also``:
    the same beat under a second name too (a claimer's own, ``Beater.claimer``)."""
    values = {"name": name, "pid": os.getpid(), "host": socket.gethostname()[:255],
              "beat_at": at or wall_now(), "every_seconds": float(every), "detail": detail}
    from sqlalchemy.dialects import postgresql, sqlite

    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    rows = [values] + ([{**values, "name": also}] if also else [])
    statement = dialect.insert(Heartbeat).values(rows)
    statement = statement.on_conflict_do_update(
        index_elements=["name"],
        set_={key: statement.excluded[key] for key in values if key != "name"})
    with Session(engine) as session:
        session.execute(statement)
        session.commit()


class Beater:
    """One loop's heartbeat, written at most every ``every`` seconds.

    ``beat(**detail)`` merges ``detail`` into what the loop said before (so a
    "last send" is kept across beats that sent nothing) and writes when due.
    A failed write raises: the loop treats it like any database failure (backs
    off, retries); it is not marked written, so the next beat tries again.
    """

    def __init__(self, engine: Engine, name: str, every: float = BEAT_SECONDS,
                 claimer: str | None = None) -> None:
        self.engine = engine
        self.name = name
        self.every = every
        #: the owner name the loop's claims carry (a sender thread's): each beat is
        #: written under it too, so whichever clock finds it stale gives its claims back
        #: (``release_dead_claimers``), however many clocks share the ``sender`` row
        self.claimer = claimer
        self.detail: dict[str, Any] = {}
        self._written = float("-inf")
        #: the process's own loop (the clock's tick, the inbound apply loop): each beat
        #: it writes is systemd's watchdog ping too (``app.runners.watchdog``)
        self.pings_systemd = name in PROCESS_LOOPS

    def beat(self, *, force: bool = False, **detail: Any) -> bool:
        """Note ``detail``; write the heartbeat if ``every`` has passed (or ``force``)."""
        for key, value in detail.items():
            self.detail[key] = value.isoformat() if isinstance(value, datetime) else value
        if not force and time.monotonic() - self._written < self.every:
            return False
        self.detail.pop(DEAD_KEY, None)
        write(self.engine, self.name, every=self.every, detail=dict(self.detail),
              also=self.claimer)
        self._written = time.monotonic()
        if self.pings_systemd:
            watchdog.alive()
        return True

    def died(self, error: str) -> None:
        """Write at once that the loop died (``error``): its heartbeat is then not
        alive however recent, until the restarted loop beats again. A database
        that cannot be reached is only logged: the heartbeat goes stale by itself."""
        self.detail["died_at"] = wall_now().isoformat()
        try:
            write(self.engine, self.name, every=self.every,
                  detail={**self.detail, DEAD_KEY: error[:300]}, also=self.claimer)
        except Exception as exc:  # noqa: BLE001 - the loop is dead either way
            log.warning("could not mark the %s heartbeat dead: %s", self.name, exc)
        self._written = float("-inf")  # the restarted loop's first step beats at once


#: ``detail`` key of a heartbeat whose loop died (its error); never alive then.
DEAD_KEY = "dead"


def stale_seconds() -> float:
    """``HEARTBEAT_STALE_SECONDS`` (app/config.py has the default and says why)."""
    from app.config import setting

    return float(setting("HEARTBEAT_STALE_SECONDS", DEFAULT_HEARTBEAT_STALE_SECONDS))


def mail_late_seconds() -> float:
    """``READY_MAIL_LATE_SECONDS`` (app/config.py has the default and says why)."""
    from app.config import setting

    return float(setting("READY_MAIL_LATE_SECONDS", DEFAULT_READY_MAIL_LATE_SECONDS))


def mail_failing_seconds() -> float:
    """``READY_MAIL_FAILING_SECONDS`` (app/config.py has the default and says why)."""
    from app.config import setting

    return float(setting("READY_MAIL_FAILING_SECONDS"))


@dataclass(frozen=True)
class Beat:
    """A heartbeat as read, with its age and whether it counts as alive."""

    name: str
    pid: int
    host: str
    beat_at: datetime
    every_seconds: float
    detail: dict[str, Any]
    age_seconds: float
    fresh: bool


def read(engine: Engine, now: datetime | None = None,
         stale: float | None = None) -> dict[str, Beat]:
    """Every heartbeat, by name, judged fresh or not at ``now`` (wall time)."""
    now = now or wall_now()
    stale = stale_seconds() if stale is None else stale
    with Session(engine) as session:
        rows = session.exec(select(Heartbeat)).all()
        found = {}
        for row in rows:
            at = as_utc(row.beat_at)
            age = (now - at).total_seconds()
            detail = dict(row.detail or {})
            found[row.name] = Beat(row.name, row.pid, row.host, at, row.every_seconds,
                                   detail, age, DEAD_KEY not in detail
                                   and age <= max(stale, 3 * row.every_seconds))
        session.rollback()
    return found


# -- claims of a loop that died ----------------------------------------------------------

#: What a claimer's heartbeat name begins with (``waker.Waker.owner``); one that beats
#: under its owner name is known, and its claims go when it goes quiet.
CLAIMER_PREFIX = "sender-"


def release_dead_claimers(engine: Engine, release: Any, now: datetime | None = None,
                          stale: float | None = None) -> dict[str, int]:
    """Give back the claims of every claimer whose own heartbeat went stale or says it
    died, and forget that heartbeat: ``{owner: rows released}``. ``release(engine,
    owner)``: the queue's release (the outbox's ``Lease.release_all``).

    Why (issue 34 item 1): a clock killed with ``kill -9`` held its claimed mail for the
    10-minute lease (7 mails waited 10 minutes although its heartbeat was stale after
    30 s). The ``sender`` heartbeat names the owner of one sender only, and with two
    clocks the live one overwrites it; each sender thread now also beats under its own
    owner name, and any clock (its tick, its sender thread) that finds such a beat stale
    releases that owner's claims at once. A claimer that only works slowly beats while
    it sends (``Waker._sent``), so its beat stays fresh and its claims stay its own."""
    now = now or wall_now()
    stale = stale_seconds() if stale is None else stale
    with Session(engine) as session:
        rows = session.exec(select(Heartbeat).where(
            col(Heartbeat.name).startswith(CLAIMER_PREFIX))).all()
        dead = [(row.name, row.beat_at) for row in rows
                if DEAD_KEY in (row.detail or {})
                or (now - as_utc(row.beat_at)).total_seconds() > max(stale, 3 * row.every_seconds)]
        session.rollback()
    released: dict[str, int] = {}
    for owner, beat_at in dead:
        released[owner] = int(release(engine, owner))
        with Session(engine) as session:  # (a claimer that beat again since keeps its row)
            session.exec(sa.delete(Heartbeat).where(col(Heartbeat.name) == owner,
                                                    col(Heartbeat.beat_at) == beat_at))
            session.commit()
        (log.warning if released[owner] else log.info)(
            "the mail sender %s went quiet holding %s mails; they are given back and "
            "sent by another sender now", owner, released[owner])
    return released


# -- mail that should have left --------------------------------------------------------

@dataclass(frozen=True)
class MailBacklog:
    """Pending mail as the operator needs it: how late the oldest is, and how much waits."""

    oldest_due_at: datetime | None
    pending: int
    held: int
    failed: int

    def late_seconds(self, now: datetime) -> float | None:
        return None if self.oldest_due_at is None else \
            max(0.0, (now - self.oldest_due_at).total_seconds())


def mail_backlog(engine: Engine, now: datetime | None = None, *, counts: bool = True
                 ) -> MailBacklog:
    """The oldest due-but-unsent mail and (with ``counts``) pending/held/failed counts.

    Due-but-unsent: pending, not held back by a cap, and either due (its
    ``next_attempt_at`` has passed) or tried and failed already (an SMTP outage
    pushes ``next_attempt_at`` forward at every retry, so such a row counts from
    when it was written: its first due time is not kept).
    """
    from app.mail.models import FAILED, PENDING, Outbox

    now = now or wall_now()
    not_held = col(Outbox.held_until).is_(None) | (col(Outbox.held_until) <= now)
    since = sa.case((col(Outbox.attempts) > 0, col(Outbox.created_at)),
                    else_=col(Outbox.next_attempt_at))
    with Session(engine) as session:
        oldest = session.exec(select(func.min(since)).where(
            col(Outbox.status) == PENDING, not_held,
            (col(Outbox.next_attempt_at) <= now) | (col(Outbox.attempts) > 0))).one()
        pending = held = failed = 0
        if counts:
            pending, held = session.exec(select(
                func.count(), func.count(sa.case((~not_held, 1))))
                .where(col(Outbox.status) == PENDING)).one()
            failed = session.exec(select(func.count()).select_from(Outbox)
                                  .where(col(Outbox.status) == FAILED)).one()
        session.rollback()
    return MailBacklog(as_utc(oldest) if oldest is not None else None,
                       int(pending), int(held), int(failed))


# -- readiness -------------------------------------------------------------------------

@dataclass
class Readiness:
    """What ``/readyz`` and ``flask status`` report: each check, and whether all passed."""

    checks: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        return all(check.get("ok") for check in self.checks.values())

    @property
    def failed(self) -> list[str]:
        return [name for name, check in self.checks.items() if not check.get("ok")]

    def as_json(self) -> dict[str, Any]:
        return {"ready": self.ready, "failed": self.failed, "checks": self.checks}


def readiness(engine: Engine, now: datetime | None = None) -> Readiness:
    """Database reachable, clock and sender alive, no mail later than the bound, and no
    mail failing to leave for longer than ``READY_MAIL_FAILING_SECONDS`` (issue 45 item 6:
    ``sending.failing_since``, the mail server refusing or gone).

    Never raises: a database that cannot be reached is the ``database`` check
    failing (the others are then unknown, and fail too, saying so).
    """
    from app.runners.sending import failing_since

    now = now or wall_now()
    result = Readiness()
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        beats = read(engine, now)
        backlog = mail_backlog(engine, now, counts=False)
        with Session(engine) as session:
            failing = failing_since(session, now)
            session.rollback()
    except Exception as exc:  # noqa: BLE001 - "not reachable" is the answer, not a 500
        reason = f"database unreachable: {type(exc).__name__}"
        result.checks["database"] = {"ok": False, "error": reason}
        for name in (CLOCK, SENDER, "mail"):
            result.checks[name] = {"ok": False, "error": "unknown: the database is unreachable"}
        return result
    result.checks["database"] = {"ok": True}
    for name in (CLOCK, SENDER):
        beat = beats.get(name)
        if beat is None:
            result.checks[name] = {"ok": False, "error": "no heartbeat ever written"}
            continue
        check: dict[str, Any] = {"ok": beat.fresh, "beat_at": beat.beat_at.isoformat(),
                                 "age_seconds": round(beat.age_seconds, 1),
                                 "pid": beat.pid, "host": beat.host}
        if beat.detail.get(DEAD_KEY):
            check["error"] = f"the loop died: {beat.detail[DEAD_KEY]}"
        elif not beat.fresh:
            check["error"] = f"heartbeat {beat.age_seconds:.0f} s old"
        result.checks[name] = check
    sender, clock = result.checks[SENDER], beats.get(CLOCK)
    if not sender["ok"] and clock is not None and clock.fresh and clock.detail.get("sends_mail"):
        # the tick sends the mail itself while no sender thread beats (``--no-waker``,
        # or a sender that died): mail leaves, which is what this check is for
        sender.update(ok=True, covered_by=CLOCK)
    late = backlog.late_seconds(now)
    bound = mail_late_seconds()
    mail: dict[str, Any] = {"ok": late is None or late <= bound, "bound_seconds": bound,
                            "oldest_due_seconds": None if late is None else round(late, 1)}
    if not mail["ok"]:
        mail["error"] = f"a mail has been due for {late:.0f} s (bound {bound:.0f} s)"
    failed_for = None if failing is None else max(0.0, (now - failing).total_seconds())
    limit = mail_failing_seconds()
    mail.update(failing_bound_seconds=limit,
                failing_seconds=None if failed_for is None else round(failed_for, 1))
    if failed_for is not None and failed_for > limit:
        mail["ok"] = False
        mail["error"] = (f"mail has failed to leave for {failed_for:.0f} s (bound "
                         f"{limit:.0f} s): the mail server refuses it or cannot be reached")
    result.checks["mail"] = mail
    return result
