"""The inbound process's apply loop (``python -m app.processes inbound``, the
``inbound:`` line of the Procfile: the SMTP receiver and this loop).

Listens on ``INBOUND_SMTP`` (host:port, default 127.0.0.1:2525), applies
whatever the inbox still holds from before a restart, then stores and
applies replies as they come, until SIGTERM or Ctrl-C.

Supervised (issue 17 item 1): an apply loop on a thread of its own applies,
every ``APPLY_SECONDS``, what the inbox still holds (a reply stored while
the database was failing, one whose apply at receipt failed), and writes the
``inbound`` heartbeat; a lost database is retried with a backoff. The main
thread watches it and the SMTP server's thread: a loop that keeps dying, or
an SMTP server that stopped, makes the process exit non-zero
(``heartbeats.EXIT_GAVE_UP``) for the process manager to start a fresh one,
never a receiver that listens to nothing.
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from typing import Any

log = logging.getLogger("app.inbound")  # (the process's log name, as before)

#: How often the apply loop looks for rows left pending (seconds). Replies are
#: applied at receipt; this only catches up on what failed then.
APPLY_SECONDS = 5.0


class ApplyLoop:
    """Applies what the inbox still holds and beats the ``inbound`` heartbeat."""

    def __init__(self, app: Any, *, apply: bool = True, every: float = APPLY_SECONDS) -> None:
        from app.runners import heartbeats
        from app.db import get_engine

        self.app = app
        self.apply = apply
        self.every = every
        self.stop = threading.Event()
        self.progress = time.monotonic()
        self.failures = 0
        self.beater = heartbeats.Beater(get_engine(app), heartbeats.INBOUND, every=every)

    def step(self) -> None:
        from app.runners import heartbeats
        from app.inbound import worker

        detail: dict[str, Any] = {"applies": self.apply}
        if self.apply:
            report = worker.apply_pending(self.app)
            detail["last_apply"] = heartbeats.wall_now()
            if report.handled:
                detail["last_handled"] = heartbeats.wall_now()
                log.info("applied what was left: %s", report.outcomes)
        self.beater.beat(force=True, **detail)

    def died(self, error: str) -> None:
        """The thread ended on ``error``: say so in the heartbeat at once."""
        self.beater.died(error)

    def run(self) -> None:
        from app.runners.sender import retry_delay

        while not self.stop.is_set():
            self.progress = time.monotonic()
            try:
                self.step()
            except Exception as exc:  # noqa: BLE001 - the database is gone: retry
                self.failures += 1
                if self.failures == 1:
                    log.exception("applying the inbox failed; trying again")
                else:
                    log.warning("applying the inbox failed again (%s in a row): %s",
                                self.failures, exc)
                self.stop.wait(retry_delay(self.failures))
                continue
            if self.failures:
                log.info("applying the inbox works again after %s failures", self.failures)
                self.failures = 0
            self.stop.wait(self.every)
