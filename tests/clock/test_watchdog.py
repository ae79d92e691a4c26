"""systemd's watchdog hears from the loops themselves (issue 34 item 5).

The clock and inbound units run ``Type=notify`` with ``WatchdogSec``: the process says
``READY=1`` once its loop has done a turn, then ``WATCHDOG=1`` with every heartbeat that
loop writes. Scenarios: the real clock process, started as the unit starts it with a
``NOTIFY_SOCKET`` of the test's, says ready and pings while it ticks; when its tick hangs
(a test double: the tick blocks for ever) the pings stop while the process lives on, so
systemd would kill and restart it. Each wait has a generous limit and measures nothing.
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.db import get_engine
from app.runners import heartbeats, watchdog
from tests.clock.test_supervision import ROOT, clock_env, stop

GIVE_UP_SECONDS = 60.0


class Systemd:
    """The receiving end of ``NOTIFY_SOCKET``: what the service manager was told."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "notify.sock"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.sock.settimeout(0.2)

    def told(self, seconds: float) -> list[str]:
        """Every state sent in the next ``seconds``."""
        said: list[str] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                said.append(self.sock.recv(1024).decode())
            except socket.timeout:
                pass
        return said

    def until(self, wanted: int) -> list[str]:
        """States until ``wanted`` of them came (fails after a limit, measures nothing)."""
        said: list[str] = []
        end = time.monotonic() + GIVE_UP_SECONDS
        while len(said) < wanted:
            assert time.monotonic() < end, f"systemd heard only {said}"
            said += self.told(0.2)
        return said

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def systemd(tmp_path, monkeypatch):
    manager = Systemd(tmp_path)
    monkeypatch.setenv("NOTIFY_SOCKET", str(manager.path))
    monkeypatch.setattr(watchdog, "_told_ready", False)
    yield manager
    manager.close()


def test_the_process_loops_ping_and_the_sender_thread_does_not(app, systemd):
    for name in (heartbeats.SENDER, heartbeats.CLOCK, heartbeats.CLOCK, heartbeats.INBOUND):
        heartbeats.Beater(get_engine(app), name).beat(force=True)

    assert systemd.told(0.5) == ["READY=1", "WATCHDOG=1", "WATCHDOG=1"], \
        "ready once, then a ping per beat of the clock's and inbound's own loops"


def test_without_systemd_nothing_is_sent_and_nothing_fails(app, monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert watchdog.notify(watchdog.PING) is False
    assert heartbeats.Beater(get_engine(app), heartbeats.CLOCK).beat(force=True) is True


@pytest.mark.slow  # a real clock process, started and killed
def test_a_clock_whose_tick_hangs_stops_pinging_so_systemd_restarts_it(app, database_url,
                                                                     systemd, tmp_path):
    hung = tmp_path / "hung"
    code = "\n".join([
        "import sys, threading",
        "from app import processes",
        "from app.runners import clock",
        "real, calls = clock.tick, []",
        "def tick(app, **kw):",
        "    calls.append(1)",
        "    if len(calls) > 3:",
        f"        open({str(hung)!r}, 'w').close()",
        "        threading.Event().wait()  # hangs for ever, as on a lock never released",
        "    return real(app, **kw)",
        "clock.tick = tick",
        "sys.exit(processes.clock(['--tick', '0.3', '--no-waker']))",
    ])
    env = clock_env(database_url, MAIL_BACKEND="file", MAIL_DIR=str(tmp_path / "mail"),
                    NOTIFY_SOCKET=str(systemd.path))
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        said = systemd.until(3)
        assert said[:3] == ["READY=1", "WATCHDOG=1", "WATCHDOG=1"]
        end = time.monotonic() + GIVE_UP_SECONDS
        while not hung.exists():
            assert time.monotonic() < end and process.poll() is None, "the tick never hung"
            time.sleep(0.05)
        systemd.told(0.5)  # what the turns before the hang sent

        after = systemd.told(3.0)  # ten ticks' worth

        assert process.poll() is None, "the process lives on: only systemd's watchdog sees it"
        assert after == [], f"a hung loop stops the pings, yet systemd heard {after}"
    finally:
        process.kill()  # (a hung tick would hold up a TERM until its stop timeout)
        stop(process)
