"""systemd's service notifications (sd_notify(3)) for the clock and inbound processes.

The units run ``Type=notify`` with ``WatchdogSec`` (deploy/systemd, issue 34 item 5): a
process that hangs without exiting — a tick stuck on a lock, a loop waiting on a socket
that never answers — is restarted by systemd instead of sitting there with its mail.
The pings come from the process's own heartbeat (``heartbeats.Beater`` of the clock's
tick and of the inbound apply loop), written once per turn of that loop: the first is
``READY=1`` (the process is up once its loop has done a turn and written it), each one
after it ``WATCHDOG=1``. So a loop that stops turning stops the pings, whatever the
process's other threads still do.

The protocol is one datagram to the ``AF_UNIX`` socket named by ``NOTIFY_SOCKET`` (a
leading ``@`` is Linux's abstract namespace); without that variable (``make run``, the
tests, a process manager that is not systemd) nothing is sent. Written here rather than
taken from a library: it is these few lines, and the packages that wrap them either
need libsystemd's headers to build or are unmaintained.
"""
from __future__ import annotations

import logging
import os
import socket
import threading

log = logging.getLogger("app.runners.watchdog")

READY, PING = "READY=1", "WATCHDOG=1"

_lock = threading.Lock()
_told_ready = False
_warned = False


def notify(state: str) -> bool:
    """Send ``state`` to systemd; False when not run by systemd or the send failed (said
    once in the log: the process goes on, and systemd's watchdog acts if pings stop)."""
    global _warned
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode("ascii"))
    except OSError as exc:
        if not _warned:
            _warned = True
            log.warning("could not notify systemd (%s): %s", state, exc)
        return False
    return True


def alive() -> None:
    """The process's loop did a turn: ``READY=1`` the first time, ``WATCHDOG=1`` after."""
    global _told_ready
    with _lock:
        first, _told_ready = not _told_ready, True
    notify(READY if first else PING)
