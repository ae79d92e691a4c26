"""Issue 34 item 1: a clock killed while it holds claimed mail does not hold it for the
lease.

Measured before: after a ``kill -9`` of a clock, 7 mails it had claimed waited the
10-minute lease, although its sender's heartbeat was stale after 30 s: the ``sender``
heartbeat names one owner, and the live clock's sender had overwritten it. Now each
sender thread beats under its own owner name too, and any clock that finds that beat
stale gives the claims back (``heartbeats.release_dead_claimers``).

Real processes: clock A (``python -m app.processes clock``) claims the due mail and
hangs in the first mail's DATA (the recording SMTP server keeps it waiting); clock B
runs beside it; A gets SIGKILL. B must then send every mail A held, once each, before
A's lease would have let it go. The test waits with a generous limit only so that a
broken loop fails instead of hanging; it measures no speed (the seconds it took are
printed for the curious).
"""
from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller

from app.clock.time import as_utc
from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.runners import heartbeats
from tests.clock.test_supervision import ROOT, clock_env, stop, wait_until
from tests.conftest import TEST_DATABASE_URL
from tests.mail.conftest import free_port

pytestmark = [pytest.mark.postgres, pytest.mark.skipif(
    not TEST_DATABASE_URL.startswith("postgresql"),
    reason="needs TEST_DATABASE_URL pointing at PostgreSQL (two clock processes)")]

MAILS = 7
#: A limit against hanging, not a measure: the lease alone would be 600 s.
GIVE_UP_SECONDS = 300.0


class FirstMailHangs:
    """An SMTP handler that records what it accepts, and keeps the first DATA waiting
    (the clock that sends it is then inside a send, holding its claims)."""

    def __init__(self) -> None:
        self.received: list[str] = []
        self.hanging = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if not self.hanging.is_set():
            self.hanging.set()
            await asyncio.sleep(3600)  # (cancelled when the server stops)
        text = envelope.content.decode("utf-8", "replace")
        message_id = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                           if line.lower().startswith("message-id:")), "")
        self.received.append(message_id)
        return "250 accepted"


def rows(app: Any) -> list[dict[str, Any]]:
    with get_engine(app).connect() as conn:
        return [dict(row._mapping) for row in conn.execute(sa.text(
            "SELECT id, status, lease_owner, lease_until, sent_at, message_id FROM outbox "
            "ORDER BY id"))]


def start_clock(database_url: str, smtp_url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.processes", "clock", "--tick", "0.5"], cwd=ROOT,
        env=clock_env(database_url, MAIL_BACKEND="smtp", SMTP_URL=smtp_url,
                      MAIL_FROM="Silver Eye Post <post@silver-eye.test>"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_clock_killed_holding_claimed_mail_has_it_sent_by_another_clock(app, database_url):
    handler = FirstMailHangs()
    port = free_port()
    server = Controller(handler, hostname="127.0.0.1", port=port)
    server.start()
    smtp_url = f"smtp://127.0.0.1:{port}?timeout=900"  # (A must not give up by itself)
    with app.app_context(), write_session() as session:
        for n in range(MAILS):
            outbox.enqueue(session, game_id=None, seat=None, kind="test",
                           to=f"player{n}@example.com", to_name=f"Player {n}",
                           mail=compose.Mail(subject=f"Mail {n}", text=f"Body {n}",
                                             html=f"<p>Body {n}</p>"),
                           idempotency=f"killed-clock:{n}", domain="silver-eye.test",
                           now=heartbeats.wall_now())
    first = start_clock(database_url, smtp_url)
    second: subprocess.Popen[str] | None = None
    try:
        wait_until(handler.hanging.is_set, "clock A to send its first mail",
                   GIVE_UP_SECONDS)
        held = [row for row in rows(app) if row["lease_owner"]]
        assert len(held) == MAILS, "clock A holds every mail under its claim"
        owner = held[0]["lease_owner"]
        assert owner.startswith(heartbeats.CLAIMER_PREFIX)
        lease_ends = min(as_utc(row["lease_until"]) for row in held)

        second = start_clock(database_url, smtp_url)
        wait_until(lambda: len([name for name in heartbeats.read(get_engine(app))
                                if name.startswith(heartbeats.CLAIMER_PREFIX)]) == 2,
                   "clock B's sender to beat", GIVE_UP_SECONDS)
        assert {row["lease_owner"] for row in rows(app)} == {owner}, "B takes nothing from A"

        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = time.monotonic()
        wait_until(lambda: all(row["status"] == "sent" for row in rows(app)),
                   "clock B to send what A held", GIVE_UP_SECONDS)
        took = time.monotonic() - killed_at

        done = rows(app)
        # before A's lease would have let the mail go: released because A went quiet
        assert all(as_utc(row["sent_at"]) < lease_ends for row in done)
        received = Counter(handler.received)
        assert all(received[row["message_id"]] == 1 for row in done), "once each"
        assert owner not in heartbeats.read(get_engine(app)), "the dead claimer is forgotten"
        assert second.poll() is None, "clock B still runs"
        print(f"clock B sent the {MAILS} mails {took:.1f} s after the kill")
    finally:
        output = stop(second) if second is not None else ""
        stop(first)
        server.stop()
    assert f"the mail sender {owner} went quiet holding" in output, output

