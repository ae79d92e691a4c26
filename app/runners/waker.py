"""The sender thread: sends each outbox row within seconds of falling due.

``Waker`` is the loop of the sender thread in the clock process (its steps are
``app.runners.sender``'s: ``send_mail_due``, ``send_notices_due``, ``next_due``). It
sleeps until the next row is due or a transaction commits mail — PostgreSQL ``LISTEN``
on ``outbox.CHANNEL`` (the ``NOTIFY`` is sent by ``outbox.enqueue`` from the
committing transaction), on SQLite a short poll of the outbox's due index — then
sends. Leases, retries and "once" are the sending runner's own, so a waker and a clock
tick (or two wakers) never send a row twice. It lives through an SMTP outage (backoff,
then a probe that sends what the outage put off) and a lost database, and its heartbeat
names the claims its rows carry. It logs as the sender does (``app.runners.sender``).
"""
from __future__ import annotations

import logging
import os
import select as select_module
import smtplib
import threading
import time
import uuid
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col

from app.db import get_engine
from app.db.wake import wake_due
from app.mail import outbox
from app.mail.backends import MailBackend, SmtpBackend
from app.mail.models import PENDING, Outbox
from app.runners import heartbeats, reports, sender, sending

log = logging.getLogger("app.runners.sender")

#: SQLite has no LISTEN: the waker polls the due index this often (seconds).
POLL_SECONDS = 0.1
#: The longest a waker sleeps without looking (a missed NOTIFY costs at most this); well
#: inside the heartbeat's freshness (``HEARTBEAT_STALE_SECONDS``, 30 s), since each
#: look beats: a sender idle this long is still seen alive, and keeps its claims.
MAX_SLEEP_SECONDS = 10.0
#: While it sleeps on ``LISTEN``, the waker sees ``stop`` within this (no query).
STOP_CHECK_SECONDS = 1.0
#: A quiet LISTEN connection is pinged this often (seconds), so a dead one is found.
LISTEN_PING_SECONDS = 30.0
#: How often a sender thread looks for the claims of a sender that went quiet (another
#: clock killed with its mail claimed): one read of the heartbeats (issue 34 item 1).
SWEEP_SECONDS = 5.0
#: A failed sender step is retried after 0.5 s, then 1 s, 2 s, ... at most 5 s: a
#: database back from a restart gets its mail out within seconds (issue 17 item 1).
RETRY_FIRST_SECONDS = 0.5
RETRY_CAP_SECONDS = 5.0
#: While the SMTP server cannot be reached, the sender asks this often whether it is back.
SMTP_PROBE_SECONDS = 2.0
#: A step that sends mail leaves the notices to the next step, unless the last look at
#: them is older than this (steps that find mail due one after the other).
NOTICES_LOOK_SECONDS = 2.0
#: After a run that took what was due in one short batch, the next run starts no sooner
#: than this after it, however soon the next mail falls due: mail that falls due in a
#: stream (each game in play leaves a turn mail its grace period after a move) leaves
#: in batches a second apart, each one claim and one look, not one by one (issue 30
#: item 4: batches of 2.9 rows, 0.115 clock transactions a move). A mail waits at most
#: this much longer; a backlog (a full batch) is drained without a pause.
GATHER_SECONDS = 1.0


def _earlier(one: datetime | None, other: datetime | None) -> datetime | None:
    """The earlier of two due times, either of which may be None (nothing due)."""
    return other if one is None else one if other is None else min(one, other)


class Waker:
    """Sends mail as soon as it is due: woken by commits (PostgreSQL) or a short poll.

    It survives what a restart, a failover or a dropped idle connection does
    to it (issue 17 item 1): any failure of a step (the database, SMTP, the
    ``LISTEN`` connection) is logged and retried with a backoff of
    ``RETRY_FIRST_SECONDS`` doubling up to ``RETRY_CAP_SECONDS``, and a lost
    ``LISTEN`` connection is opened again. Each step writes the ``sender``
    heartbeat (at most every ``heartbeats.BEAT_SECONDS``), which the clock
    reads to decide whether it must send mail itself; ``progress`` tells the
    supervisor that the loop still turns. Only what gets past ``Exception``
    ends the thread, and then the supervisor (``app.runners.clock``) restarts it.
    """

    def __init__(self, app: Any, backend: MailBackend | None = None,
                 poll: float = POLL_SECONDS) -> None:
        self.app = app
        self.backend = backend
        self.poll = poll
        #: (monotonic) no run before this: ``GATHER_SECONDS`` after a short run began
        self._gathering_until = float("-inf")
        self.stop = threading.Event()
        self.reports: list[sending.SendReport] = []
        self.progress = time.monotonic()
        self.failures = 0
        self._listener: Any = None
        #: the schema this sender's mail is written in (wake-ups of others are not its)
        self._schema: str | None = None
        self._listened_at = 0.0
        self._unreachable_since: float | None = None
        self._check_put_off = False
        self._probed_at = 0.0
        self._noticed_at = time.monotonic()
        #: whose claims this thread's rows carry; its heartbeat names it, and it beats
        #: under that name too, so any clock that finds it stale gives them back
        #: (``heartbeats.release_dead_claimers``, issue 34 item 1)
        self.owner = f"{heartbeats.CLAIMER_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._beater = heartbeats.Beater(get_engine(app), heartbeats.SENDER,
                                         claimer=self.owner)
        self._beater.detail["owner"] = self.owner
        self._swept_at = float("-inf")

    # -- PostgreSQL LISTEN --------------------------------------------------------

    def _listen(self) -> None:
        """Open the ``LISTEN`` connection if there is none (PostgreSQL only); raises
        when the database cannot be reached, for the loop to back off."""
        if self._listener is not None:
            return
        engine = get_engine(self.app)
        if engine.dialect.name != "postgresql":
            return
        import psycopg

        url = engine.url.set(drivername="postgresql")
        conn = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True,
                               connect_timeout=10)
        try:
            # (the URL's search_path: the schema this sender's mail is written in; asked
            # first, so that LISTEN stays the connection's last word, as operators see it)
            found = conn.execute("SELECT current_schema()").fetchone()
            self._schema = found[0] if found else None
            conn.execute(f"LISTEN {outbox.CHANNEL}")
        except BaseException:
            conn.close()
            raise
        self._listener = conn
        self._listened_at = time.monotonic()

    def _unlisten(self) -> None:
        conn, self._listener = self._listener, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - it is gone either way
                pass

    def _wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``; ``stop``, or a NOTIFY of mail due before then
        (PostgreSQL), ends it early.

        A NOTIFY says when the mail it announces is due (``app.db.wake``):
        mail due later than this sleep's end (a turn mail in its grace period) moves
        nothing, and mail due sooner shortens the sleep to its due time, without a
        query either way (issue 30 item 4: a read of the outbox for every mail queued
        cost the clock process more per move than the move's own web worker). A NOTIFY
        that says nothing wakes the sender at once. Neither wakes it inside the
        ``GATHER_SECONDS`` after a short run.

        A ``LISTEN`` connection that broke (the server restarted, the backend was
        terminated) is dropped here and opened again by the next step; one that
        sat quiet ``LISTEN_PING_SECONDS`` is pinged, so a link that died without
        a word is found too."""
        seconds = max(0.0, seconds)
        conn = self._listener
        if conn is None:
            look = self.poll if get_engine(self.app).dialect.name != "postgresql" else 1.0
            self.stop.wait(min(seconds, max(look, self._gathering_until - time.monotonic())))
            return
        until = time.monotonic() + seconds
        try:
            while not self.stop.is_set():
                left = until - time.monotonic()
                if left <= 0:
                    return
                ready, _, _ = select_module.select([conn.fileno()], [], [],
                                                   min(left, STOP_CHECK_SECONDS))
                if ready:
                    self._listened_at = time.monotonic()
                    said = [wake_due(note.payload, self._schema)
                            for note in conn.notifies(timeout=0)]
                    dues = [due for due in said if due is not None]
                    if len(dues) < len(said):  # (at once, after the gathering)
                        if time.monotonic() >= self._gathering_until:
                            return
                        until = min(until, self._gathering_until)
                    if dues:
                        until = max(min(until, time.monotonic() + min(dues) - time.time()),
                                    self._gathering_until)
                elif time.monotonic() - self._listened_at > LISTEN_PING_SECONDS:
                    conn.execute("SELECT 1")
                    self._listened_at = time.monotonic()
        except Exception as exc:  # noqa: BLE001 - psycopg.OperationalError, OSError, ...
            log.warning("the mail sender's LISTEN connection was lost (%s); reconnecting",
                        exc)
            self._unlisten()

    def step(self) -> float | None:
        """Send what is due now; return how long to sleep (None: look again at once)."""
        self._listen()
        if time.monotonic() - self._swept_at >= SWEEP_SECONDS:  # a dead clock's claims
            heartbeats.release_dead_claimers(get_engine(self.app), sending.OUTBOX.release_all)
            self._swept_at = time.monotonic()
        upcoming, noticed = sender.next_due(self.app)
        now = datetime.now(timezone.utc)
        if upcoming is not None and upcoming <= now:
            # the notices its mails wrote go in the next step, when ``next_due``
            # finds them due, as it finds any other (no claim of notices in every step that
            # sends mail); with them, unless a stream of mail kept the steps from looking
            looked = time.monotonic() - self._noticed_at > NOTICES_LOOK_SECONDS
            # its claims will carry ``owner``: a beat under that name first, so that a
            # clock that dies inside the send leaves a beat that goes stale (issue 34)
            self._beater.beat()
            began = time.monotonic()
            report = sender.send_mail_due(self.app, now, backend=self.backend,
                                          on_sent=self._sent, owner=self.owner,
                                          with_notices=looked)
            if report.looked_ahead:  # (a short last batch: what was due has gone)
                self._gathering_until = began + GATHER_SECONDS
            if looked:
                self._noticed_at = time.monotonic()
            if report.claimed:
                self.reports.append(report)
                log.info("mail: %s", reports.words(report), extra=reports.extra(mail=report))
                if report.retried and not report.sent and self._unreachable_since is None \
                        and self._mail_server_unreachable():
                    self._went_down()
                self._beater.beat()
                return self._after_run(report, noticed)
        # issue 20 item 3: notices due by themselves (a retry, a test notice)
        self._noticed_at = time.monotonic()
        if noticed is not None and noticed <= datetime.now(timezone.utc):
            told = sender.send_notices_due(self.app, datetime.now(timezone.utc))
            if told.claimed:
                log.info("notices: %s", reports.words(told), extra=reports.extra(notices=told))
                self._beater.beat()
                return None
        upcoming = _earlier(upcoming, noticed)
        if self._unreachable_since is not None or self._check_put_off:
            self._probe_mail_server()
        self._beater.beat()  # after the work: a heartbeat says a step went through
        left = self._seconds_until(upcoming)
        if self._unreachable_since is not None:
            left = min(left, SMTP_PROBE_SECONDS)
        return self._sleep_for(left)

    def _after_run(self, report: sending.SendReport, noticed: datetime | None) -> float | None:
        """How long to sleep after a run that sent mail: None, look again at once, unless
        the run's last claim saw what falls due after it (``report.due_next``). Then the
        look ``next_due`` would take is spared (issue 30 item 4: one transaction a batch
        of the clock's); mail queued since wakes the sender as always, and what the run
        held or put off (a cap, a retry) is seen at the next look, at most
        ``MAX_SLEEP_SECONDS`` away. Not after a run whose batches had notice targets
        (the notices it wrote announce nothing) nor while the mail server is down."""
        if not report.looked_ahead or report.targeted or self._unreachable_since is not None \
                or self._check_put_off:
            return None
        upcoming = _earlier(report.due_next, noticed)
        if upcoming is not None and upcoming <= datetime.now(timezone.utc):
            return None
        return self._sleep_for(self._seconds_until(upcoming))

    @staticmethod
    def _seconds_until(upcoming: datetime | None) -> float:
        return MAX_SLEEP_SECONDS if upcoming is None else \
            (upcoming - datetime.now(timezone.utc)).total_seconds()

    def _sleep_for(self, seconds: float) -> float:
        """A sleep of ``seconds``, at least the poll and at most ``MAX_SLEEP_SECONDS``."""
        return min(max(seconds, self.poll), MAX_SLEEP_SECONDS)

    # -- an SMTP outage -------------------------------------------------------------

    def _mail_server_unreachable(self) -> bool:
        """Whether the SMTP server refuses connections now (never true for the file
        mailbox, or a test's backend)."""
        backend = self.backend or sender.mail_backend(self.app)
        if not isinstance(backend, SmtpBackend):
            return False
        try:
            backend._connect().quit()  # the backend's own way in (TLS, login)
        except (smtplib.SMTPException, OSError):
            return True
        return False

    def _probe_mail_server(self) -> None:
        """While the SMTP server is down, ask every ``SMTP_PROBE_SECONDS`` whether it is
        back; when it is, the mail its outage pushed back (the outbox's backoff: 30 s,
        1 min, 2 min...) is due again at once, so it leaves within seconds of the
        server's return instead of minutes later (issue 17 item 1)."""
        if time.monotonic() - self._probed_at < SMTP_PROBE_SECONDS:
            return
        self._probed_at = time.monotonic()
        if self._mail_server_unreachable():
            if self._unreachable_since is None:
                self._went_down()
            return
        now = datetime.now(timezone.utc)
        with Session(get_engine(self.app)) as session:
            brought = session.exec(update(Outbox)
                                   .where(col(Outbox.status) == PENDING,
                                          col(Outbox.attempts) > 0,
                                          col(Outbox.next_attempt_at) > now,
                                          col(Outbox.held_until).is_(None))
                                   .values(next_attempt_at=now)
                                   .execution_options(synchronize_session=False)).rowcount
            session.commit()
        if brought:
            log.info("the mail server answers; %s mails put off by failed attempts go now",
                     brought)
        self._unreachable_since = None
        self._check_put_off = False

    def _went_down(self) -> None:
        self._unreachable_since = self._probed_at = time.monotonic()
        log.warning("the mail server cannot be reached; its mail goes out as soon as it "
                    "answers again")

    def died(self, error: str) -> None:
        """The thread ended on ``error``: the heartbeat says so at once, so the clock's
        tick sends the mail from now on instead of waiting for it to go stale."""
        self._beater.died(error)

    def _sent(self, _row: Outbox) -> None:
        self.progress = time.monotonic()
        # (at most every few seconds) a sender busy with a long batch stays fresh, so
        # nobody takes its claims from it while it works
        self._beater.beat(last_send=datetime.now(timezone.utc))

    def run(self) -> None:
        """Loop until ``stop`` is set: send what is due, sleep until the next is.

        A sender that starts (a restarted clock, a restarted thread) first asks
        the mail server as after an outage: what an earlier sender was made to
        put off goes at once if the server answers now."""
        self._check_put_off = True
        try:
            while not self.stop.is_set():
                self.progress = time.monotonic()
                try:
                    sleep = self.step()
                except Exception as exc:  # noqa: BLE001 - a bad mail or a lost database
                    self.failures += 1
                    delay = retry_delay(self.failures)
                    if self.failures == 1:
                        log.exception("sending mail failed; trying again in %.1f s", delay)
                    else:
                        log.warning("sending mail failed again (%s in a row: %s); "
                                    "trying again in %.1f s", self.failures, exc, delay)
                    if _connection_lost(exc):
                        self._unlisten()
                    self.stop.wait(delay)
                    continue
                if self.failures:
                    log.info("the mail sender works again after %s failures", self.failures)
                    self.failures = 0
                gathering = self._gathering_until - time.monotonic()
                if gathering > 0:
                    sleep = max(sleep or 0.0, gathering)
                if sleep is not None:
                    self._wait(sleep)
        finally:
            self._unlisten()

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="mail-waker", daemon=True)
        thread.start()
        return thread


def retry_delay(failures: int) -> float:
    """The backoff after ``failures`` failed steps in a row: 0.5 s, 1 s, 2 s, ... 5 s."""
    return min(RETRY_FIRST_SECONDS * (1 << max(failures - 1, 0)), RETRY_CAP_SECONDS)


def _connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the database went away (then the LISTEN link went too)."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated) or "OperationalError" in type(exc.orig).__name__
    return type(exc).__name__ == "OperationalError"
