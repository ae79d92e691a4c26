"""The mail sender: delivers due outbox rows within seconds, each once, never stale.

- ``send_mail_due`` sends what is due now, asking ``still_holds`` of each row
  that announces something (a decision, an absence) and holding back rows over
  the per-address hourly cap (``MAIL_PER_ADDRESS_PER_HOUR``, default 60).
- ``Waker`` is the loop of the sender thread in the clock process: it sleeps
  until the next row is due or a transaction commits mail — PostgreSQL
  ``LISTEN`` on ``outbox.CHANNEL`` (the ``NOTIFY`` is sent by ``outbox.enqueue``
  from the committing transaction), on SQLite a short poll of the outbox's due
  index — then sends. Leases, retries and "once" are the outbox's own, so a
  waker and a clock tick (or two wakers) never send a row twice.
"""
from __future__ import annotations

import logging
import select as select_module
import threading
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import case, func
from sqlmodel import Session, col, select

from app import deadlines as dl
from app import engine, services, store
from app.db import get_engine, read_session
from app.mail import outbox
from app.mail.backends import MailBackend, backend_from_config
from app.mail import notify
from app.mail.compose import Mail, decision_of
from app.mail.models import PENDING, Outbox
from app.mail.notify import DEFAULT_MAIL_FROM, setting

log = logging.getLogger("app.sender")

#: Mails to one address per hour, across all games (a real mail server blocks
#: senders that flood one inbox). ``MAIL_PER_ADDRESS_PER_HOUR``; 0 turns it off.
#: Sixty leaves room for a player replying move after move (issue 11).
DEFAULT_PER_ADDRESS_PER_HOUR = 60
#: SQLite has no LISTEN: the waker polls the due index this often (seconds).
POLL_SECONDS = 0.1
#: The longest a waker sleeps without looking (a missed NOTIFY costs at most this).
MAX_SLEEP_SECONDS = 30.0


def still_holds(row: Outbox) -> bool:
    """Whether what ``row`` announces is still true now (checked just before sending).

    ``decision``: the game runs, the seat has not acted since the mail's step,
    and it still faces the same decision in the same round. ``absent``: the
    seat is still away. Anything else (or nothing announced): true.
    """
    said = row.announces or {}
    what = said.get("what")
    if what not in ("decision", "absent") or row.game_id is None:
        return True
    seat = int(said.get("seat", -1))
    with read_session() as session:
        game = session.get(store.Game, row.game_id)
        if game is None or game.status != "running":
            return False
        if what == "absent":
            clock = session.exec(select(dl.SeatClock).where(
                dl.SeatClock.game_id == row.game_id, dl.SeatClock.seat == seat)).first()
            return bool(clock and clock.absent)
        acted = session.exec(select(func.count()).select_from(store.Action).where(
            store.Action.game_id == row.game_id, store.Action.seat == seat,
            store.Action.seq > int(said.get("step", 0)))).one()
        if acted:
            return False
    status = engine.status(services.snapshot(row.game_id).state)
    return (status.get("phase") != "over" and status.get("round") == said.get("round")
            and decision_of(status, seat) == said.get("decision"))


def compose_late(row: Outbox, now: datetime) -> Mail | None:
    """The turn mail of a row that waited out its grace period, composed now
    (``still_holds`` has just said the seat still faces its decision)."""
    if row.game_id is None or row.seat is None:
        return None
    state = services.load_state(row.game_id)
    with read_session() as session:
        game = session.get(store.Game, row.game_id)
        if game is None:
            return None
        return notify.late_turn_mail(session, game, int(row.seat), state, row.announces or {},
                                     now)


def per_address_cap() -> int | None:
    cap = int(float(setting("MAIL_PER_ADDRESS_PER_HOUR", DEFAULT_PER_ADDRESS_PER_HOUR)))
    return cap if cap > 0 else None


def mail_backend(app: Any) -> MailBackend:
    return backend_from_config(app.config, app.config.get("INSTANCE_PATH") or app.instance_path)


def send_mail_due(app: Any, now: datetime, *, backend: MailBackend | None = None
                  ) -> outbox.SendReport:
    """Send every due outbox row, batch after batch."""
    total = outbox.SendReport()
    with app.app_context():
        backend = backend or mail_backend(app)
        sender = str(setting("MAIL_FROM", DEFAULT_MAIL_FROM))
        cap = per_address_cap()
        while True:
            part = outbox.send_due(get_engine(app), backend, now, sender=sender,
                                   still_holds=still_holds, compose_late=compose_late,
                                   per_address_hour=cap)
            for name in ("claimed", "sent", "retried", "failed", "superseded", "held"):
                setattr(total, name, getattr(total, name) + getattr(part, name))
            if part.claimed < outbox.BATCH:
                return total


def next_due(app: Any) -> datetime | None:
    """When the earliest pending row may be sent: its due time, or the end of the
    lease another sender holds on it (pending rows only: the partial index
    ``ix_outbox_due``). A read, so polling it takes no write lock."""
    later = case((col(Outbox.lease_until) > col(Outbox.next_attempt_at), Outbox.lease_until),
                 else_=Outbox.next_attempt_at)
    with Session(get_engine(app)) as session:
        value = session.exec(select(func.min(later)).where(col(Outbox.status) == PENDING)).one()
    return dl.as_utc(value) if value is not None else None


class Waker:
    """Sends mail as soon as it is due: woken by commits (PostgreSQL) or a short poll."""

    def __init__(self, app: Any, backend: MailBackend | None = None,
                 poll: float = POLL_SECONDS) -> None:
        self.app = app
        self.backend = backend
        self.poll = poll
        self.stop = threading.Event()
        self.reports: list[outbox.SendReport] = []
        self._listener: Any = None

    # -- PostgreSQL LISTEN --------------------------------------------------------

    def _listen(self) -> None:
        engine = get_engine(self.app)
        if engine.dialect.name != "postgresql":
            return
        import psycopg

        url = engine.url.set(drivername="postgresql")
        conn = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)
        conn.execute(f"LISTEN {outbox.CHANNEL}")
        self._listener = conn

    def _wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``; a NOTIFY (PostgreSQL) or ``stop`` ends it early."""
        seconds = max(0.0, seconds)
        if self._listener is None:
            self.stop.wait(min(seconds, self.poll))
            return
        conn = self._listener
        ready, _, _ = select_module.select([conn.fileno()], [], [], min(seconds, 1.0))
        if ready:
            for _ in conn.notifies(timeout=0):
                pass

    def run(self) -> None:
        """Loop until ``stop`` is set: send what is due, sleep until the next is."""
        self._listen()
        try:
            while not self.stop.is_set():
                try:
                    upcoming = next_due(self.app)
                    now = datetime.now(timezone.utc)
                    if upcoming is not None and upcoming <= now:
                        report = send_mail_due(self.app, now, backend=self.backend)
                        if report.claimed:
                            self.reports.append(report)
                            log.info("mail: %s", report)
                            continue  # there may be more
                except Exception:  # noqa: BLE001 - a bad mail must not stop the sender
                    log.exception("sending mail failed; trying again shortly")
                    self.stop.wait(1.0)
                    continue
                left = MAX_SLEEP_SECONDS if upcoming is None else \
                    (upcoming - datetime.now(timezone.utc)).total_seconds()
                self._wait(min(max(left, self.poll), MAX_SLEEP_SECONDS))
        finally:
            if self._listener is not None:
                self._listener.close()

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="mail-waker", daemon=True)
        thread.start()
        return thread

