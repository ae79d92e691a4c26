"""The mail loop never goes silent (issue 17 item 1).

Scenarios: the real clock process loses every database connection, as a
PostgreSQL restart does, and a game created afterwards still gets its mail; a
sender thread that dies is restarted and mail still leaves; one that keeps
dying makes its process exit non-zero (while the tick keeps the mail going);
the tick sends mail itself whenever the sender's heartbeat is stale. Each
test waits for an event with a generous limit, so a broken loop fails
instead of hanging; none measures how fast anything happened.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

import pytest
import sqlalchemy as sa

from app import services
from app.runners import heartbeats
from app.runners import sender
from app.runners import supervisor as supervision
from app.runners.waker import Waker
from app.db import get_engine, make_engine
from tests.conftest import PEOPLE, TEST_DATABASE_URL, TEST_SECRET_KEY
from tests.mail.conftest import SmtpServer, mail_app, smtp  # noqa: F401  (fixtures)
from tests.mail.test_waker import Signalling
from tests.schema_drift import drift

ROOT = Path(__file__).resolve().parents[2]
GIVE_UP_SECONDS = 60.0


def wait_until(check: Callable[[], object], what: str,
               seconds: float = GIVE_UP_SECONDS) -> None:
    """Poll ``check`` until true; fail after ``seconds`` (a limit, not a measure)."""
    end = time.monotonic() + seconds
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def start_game(name: str, seats: int = 2) -> str:
    players = [{"name": person, "email": email} for person, email in PEOPLE[:seats]]
    return services.create_game(players, {}, name=name, seed="4711").game_id


def outbox_of(app, game_id: str) -> list[tuple[str, str, str]]:
    """(kind, status, message_id) of each mail of one game."""
    with get_engine(app).connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            "SELECT kind, status, message_id FROM outbox WHERE game_id = :g ORDER BY id"),
            {"g": game_id})]


def beat_at(app, name: str) -> datetime | None:
    beat = heartbeats.read(get_engine(app)).get(name)
    return beat.beat_at if beat is not None else None


def clock_env(database_url: str, **extra: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": TEST_SECRET_KEY,
            "BASE_URL": "http://silver-eye.test", "TURN_MAIL_DELAY_SECONDS": "0",
            "MAIL_PER_ADDRESS_PER_HOUR": "0", "PYTHONUNBUFFERED": "1", **extra}


def stop(process: subprocess.Popen) -> str:
    """Stop a child process (SIGTERM, then SIGKILL); return what it printed."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.stdout.read() if process.stdout is not None else ""


def test_the_heartbeat_table_is_the_one_the_model_describes(database_url):
    assert drift(database_url, {"heartbeat"}) == []


# -- a PostgreSQL restart, as the clock process lives it --------------------------------

def terminate_backends(application_name: str) -> list[int]:
    """``pg_terminate_backend`` every connection of ``application_name`` (and only those):
    what a PostgreSQL restart or failover does to a running process."""
    admin = make_engine(TEST_DATABASE_URL, poolclass=sa.pool.NullPool)
    try:
        with admin.begin() as conn:
            return [pid for pid, done in conn.execute(sa.text(
                "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = :name AND pid <> pg_backend_pid()"),
                {"name": application_name}).all() if done]
    finally:
        admin.dispose()


def listening(application_name: str, besides: list[int]) -> bool:
    """Whether a connection of ``application_name`` other than ``besides`` waits on
    ``LISTEN`` (its last query)."""
    admin = make_engine(TEST_DATABASE_URL, poolclass=sa.pool.NullPool)
    try:
        with admin.connect() as conn:
            return bool(conn.execute(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name "
                "AND query LIKE 'LISTEN %' AND NOT (pid = ANY(:old))"),
                {"name": application_name, "old": besides}).scalar())
    finally:
        admin.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs TEST_DATABASE_URL pointing at PostgreSQL")
def test_a_clock_whose_database_connections_were_all_dropped_still_sends_every_mail(
        app, database_url):
    smtp = SmtpServer()
    smtp.start()
    name = f"silver-eye-clock-{uuid.uuid4().hex[:10]}"
    url = sa.engine.make_url(database_url).update_query_dict({"application_name": name})
    clock = subprocess.Popen(
        [sys.executable, "-m", "app.processes", "clock", "--tick", "0.5"], cwd=ROOT,
        env=clock_env(url.render_as_string(hide_password=False), MAIL_BACKEND="smtp",
                      SMTP_URL=smtp.url, MAIL_FROM="Silver Eye Post <post@silver-eye.test>"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # Ann and Bob's first game: the clock's sender delivers its invitations
        before = start_game("Before the restart")
        wait_until(lambda: all(status == "sent" for _, status, _ in outbox_of(app, before)),
                   "the first game's mail")

        # the database drops every connection of the clock (its pool and its LISTEN)
        dropped_at = heartbeats.wall_now()
        dropped = terminate_backends(name)
        assert dropped, "the clock held no connection to drop"
        # the sender listens again (the connection it died on before, issue 17 item 1)...
        wait_until(lambda: listening(name, dropped), "the LISTEN connection to be opened again")
        # ...and beats: it came back by itself (not only the tick covering for it)
        wait_until(lambda: (beat_at(app, heartbeats.SENDER) or dropped_at) > dropped_at,
                   "a sender heartbeat after the drop")

        # a game created afterwards gets its invitations and turn mails all the same
        after = start_game("After the restart")
        wait_until(lambda: all(status == "sent" for _, status, _ in outbox_of(app, after)),
                   "the second game's mail")
        kinds = Counter(kind for kind, _, _ in outbox_of(app, after))
        assert kinds["invitation"] == 2 and kinds["turn"] >= 1
        received = Counter(str(mail.message["Message-ID"]) for mail in smtp.received)
        for _, _, message_id in outbox_of(app, before) + outbox_of(app, after):
            assert received[message_id] == 1, "a mail went missing or out twice"
        with get_engine(app).connect() as conn:
            assert conn.execute(sa.text(
                "SELECT count(*) FROM outbox WHERE status = 'pending'")).scalar() == 0
        assert clock.poll() is None, "the clock process died"
    finally:
        output = stop(clock)
        smtp.stop()
    assert "LISTEN connection was lost" in output or "sending mail failed" in output, output


# -- a sender thread that dies ----------------------------------------------------------

class Killed(BaseException):
    """What no retry of the loop catches: the thread ends."""


def test_a_sender_thread_that_dies_is_restarted_and_mail_still_leaves(app, monkeypatch):
    mailbox = Signalling()
    waker = Waker(app, backend=mailbox)
    supervisor = supervision.Supervisor()
    supervisor.add(heartbeats.SENDER, waker)
    real_next_due = sender.next_due
    died = threading.Event()

    def dies_once(the_app):  # noqa: ANN001, ANN202
        if not died.is_set():
            died.set()
            raise Killed("the sender's loop was killed")
        return real_next_due(the_app)

    monkeypatch.setattr(sender, "next_due", dies_once)
    stopping = threading.Event()
    watcher = threading.Thread(target=supervisor.watch, args=(stopping, 0.1))
    supervisor.start()
    watcher.start()
    try:
        wait_until(died.is_set, "the sender's loop to be killed")
        killed_at = heartbeats.wall_now()
        wait_until(lambda: supervisor.deaths(heartbeats.SENDER) == 1, "the death to be seen")
        # the restarted thread beats again...
        wait_until(lambda: (beat_at(app, heartbeats.SENDER) or killed_at) > killed_at,
                   "a heartbeat of the restarted sender")
        # ...and a game created now gets its invitations from it
        game_id = start_game("After the sender died")
        assert mailbox.wait_for(2), "no mail left after the sender thread died"
        assert sorted(str(m["To"]).split("<")[-1].rstrip(">") for _, m in mailbox.sent[:2]) \
            == ["ann@example.com", "bob@example.com"]
        assert {status for _, status, _ in outbox_of(app, game_id)} >= {"sent"}
    finally:
        stopping.set()
        watcher.join(GIVE_UP_SECONDS)
        supervisor.shutdown()
    assert supervisor.deaths(heartbeats.SENDER) == 1


@pytest.mark.slow  # a real clock process that must die
def test_a_sender_thread_that_keeps_dying_makes_the_clock_exit_non_zero(app, database_url,
                                                                        tmp_path):
    # A game is waiting for its invitations when the clock starts.
    game_id = start_game("While the sender keeps dying")
    code = "\n".join([
        "import sys",
        "from app import processes",
        "from app.runners import sender",
        "class Broken(BaseException):",
        "    pass",
        "def broken(app):",
        "    raise Broken('the sender loop is broken')",
        "sender.next_due = broken",
        "sys.exit(processes.clock(['--tick', '0.5']))",
    ])
    mail_dir = tmp_path / "mail"
    finished = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
        timeout=120, env=clock_env(database_url, MAIL_BACKEND="file", MAIL_DIR=str(mail_dir)))
    assert finished.returncode == supervision.EXIT_GAVE_UP, finished.stderr
    assert "the sender loop died 6 times" in finished.stderr
    assert "Broken: the sender loop is broken" in finished.stderr
    # while the sender was dead the tick sent the mail itself: nothing waited
    assert {status for _, status, _ in outbox_of(app, game_id)} == {"sent"}
    assert len(list(mail_dir.glob("*invitation.eml"))) == 2


# -- the tick covers for a sender that is not alive -------------------------------------

def test_the_tick_sends_due_mail_whenever_the_sender_has_no_fresh_heartbeat(app, tick,
                                                                           mailbox):
    engine = get_engine(app)
    start_game("Who sends the mail")
    now = datetime.now(timezone.utc)

    # a sender that beat a moment ago sends the mail: the tick leaves it
    heartbeats.write(engine, heartbeats.SENDER, every=5, detail={})
    report = tick(now, send_mail=None)
    assert not report.sent_mail and mailbox.sent == []

    # a sender whose last beat is an hour old is not alive: the tick sends
    heartbeats.write(engine, heartbeats.SENDER, every=5, detail={},
                     at=now - timedelta(hours=1))
    report = tick(now, send_mail=None)
    assert report.sent_mail
    for address in ("ann@example.com", "bob@example.com"):
        assert any("invited" in subject for subject in mailbox.subjects(address))


# -- an SMTP outage ---------------------------------------------------------------------

def test_mail_held_up_by_an_smtp_outage_leaves_once_the_server_answers_again(
        mail_app, smtp, monkeypatch, caplog):
    from app.runners import sending

    caplog.set_level(logging.INFO, logger="app.runners.sender")

    # the outbox's backoff alone would keep a failed mail back for an hour
    monkeypatch.setattr(sending, "BACKOFF_BASE", timedelta(hours=1))
    smtp.stop()  # the mail server is down
    waker = Waker(mail_app)
    thread = waker.start()
    try:
        game_id = start_game("Through an SMTP outage")
        wait_until(lambda: any(status == "pending" and tried for status, tried in
                               attempts_of(mail_app, game_id)), "a failed delivery attempt")
        # the operator's log says the server is gone (the sender now watches for it)
        wait_until(lambda: "the mail server cannot be reached" in caplog.text,
                   "the sender to notice the outage")
        assert smtp.received == []
        smtp.start()  # it is back
        wait_until(lambda: len(smtp.to("ann@example.com")) >= 1
                   and len(smtp.to("bob@example.com")) >= 1, "the invitations")
    finally:
        waker.stop.set()
        thread.join(GIVE_UP_SECONDS)
    subjects = [mail.lead for mail in smtp.received]
    assert sum("invited" in subject for subject in subjects) == 2
    assert len(subjects) == len(set(str(m.message["Message-ID"]) for m in smtp.received))


def attempts_of(app, game_id: str) -> list[tuple[str, int]]:
    with get_engine(app).connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            "SELECT status, attempts FROM outbox WHERE game_id = :g"), {"g": game_id})]
