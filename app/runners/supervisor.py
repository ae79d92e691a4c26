"""Supervision of the long-running loops (issue 17 item 1): restart, or give up.

A sender thread that died on a dropped LISTEN connection used to leave a clock
process that ticked, looked healthy and sent nothing. Each process's main
thread now runs a ``Supervisor``: it runs the loops on threads of their own,
restarts one whose thread ended unasked, and raises ``GaveUp`` when one keeps
dying or stops making progress, so that the process exits non-zero
(``EXIT_GAVE_UP``) and the process manager starts a fresh one. Whether a loop
is alive for the rest of the system is its heartbeat (``app.runners.heartbeats``).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

log = logging.getLogger("app.runners.heartbeats")  # (the log name the operator knows)


class Loop(Protocol):
    """A worker loop the supervisor can run on a thread: ``run()`` returns once
    ``stop`` is set; ``progress`` is the ``time.monotonic()`` of its last step.
    A loop may also have ``died(error)``, called on its thread when it ended
    unasked (the sender marks its heartbeat dead: ``Beater.died``)."""

    stop: threading.Event
    progress: float

    def run(self) -> None: ...


class GaveUp(RuntimeError):
    """A supervised loop died too often, or stopped making progress: exit non-zero."""


#: Deaths of one loop within ``WINDOW_SECONDS`` after which its process gives up.
MAX_DEATHS = 5
WINDOW_SECONDS = 600.0
#: A loop alive but without a step for this long is stuck (a hung connection).
STUCK_SECONDS = 900.0
#: Restart delays: 0.5 s, 1 s, 2 s, ... at most this.
RESTART_CAP_SECONDS = 10.0
#: Exit code of a process whose supervisor gave up (non-zero: the manager restarts it).
EXIT_GAVE_UP = 3


@dataclass
class _Watched:
    loop: Loop
    thread: threading.Thread | None = None
    deaths: list[float] = field(default_factory=list)
    restart_at: float | None = None
    last_error: str | None = None


class Supervisor:
    """Keeps loops running on threads of their own; ``check()`` from the main thread.

    A loop whose thread ended without being asked to stop (an exception that
    got past the loop's own retries, a BaseException) is restarted after a
    short backoff; the death is logged with its error. When one dies more than
    ``max_deaths`` times in ``window`` seconds, or is alive but made no step in
    ``stuck`` seconds, ``check`` raises ``GaveUp`` for the caller to exit
    non-zero (``EXIT_GAVE_UP``): a fresh process is the better cure then.
    """

    def __init__(self, *, max_deaths: int = MAX_DEATHS, window: float = WINDOW_SECONDS,
                 stuck: float = STUCK_SECONDS) -> None:
        self.max_deaths = max_deaths
        self.window = window
        self.stuck = stuck
        self.watched: dict[str, _Watched] = {}
        self.progress_checks: dict[str, tuple[Callable[[], float], float]] = {}
        self.stopping = threading.Event()

    def add(self, name: str, loop: Loop) -> None:
        self.watched[name] = _Watched(loop)

    def watch_progress(self, name: str, progress: Callable[[], float], stuck: float) -> None:
        """Also give up when ``progress()`` (a monotonic time) lags more than ``stuck``
        seconds: for a loop that runs elsewhere (the clock's scheduled tick)."""
        self.progress_checks[name] = (progress, stuck)

    def _run(self, name: str, watched: _Watched) -> None:
        try:
            watched.loop.run()
        except BaseException as exc:  # noqa: BLE001 - recorded, and the loop restarted
            watched.last_error = f"{type(exc).__name__}: {exc}"
            log.error("the %s loop died: %s", name, watched.last_error, exc_info=True)
        else:
            if watched.loop.stop.is_set():
                return
            watched.last_error = "returned without being asked to stop"
            log.error("the %s loop %s", name, watched.last_error)
        died = getattr(watched.loop, "died", None)
        if died is not None:
            died(watched.last_error)

    def _start(self, name: str, watched: _Watched) -> None:
        watched.loop.stop.clear()
        watched.loop.progress = time.monotonic()
        watched.restart_at = None
        watched.thread = threading.Thread(target=self._run, args=(name, watched),
                                          name=f"{name}-loop", daemon=True)
        watched.thread.start()

    def start(self) -> None:
        for name, watched in self.watched.items():
            self._start(name, watched)

    def check(self) -> None:
        """Restart dead loops whose backoff passed; raise ``GaveUp`` when it is hopeless."""
        now = time.monotonic()
        for name, watched in self.watched.items():
            thread = watched.thread
            if thread is not None and thread.is_alive():
                if now - watched.loop.progress > self.stuck:
                    raise GaveUp(f"the {name} loop made no progress for "
                                 f"{now - watched.loop.progress:.0f} s")
                continue
            if self.stopping.is_set():
                continue
            if watched.restart_at is None:  # it just died
                watched.deaths = [t for t in watched.deaths if now - t <= self.window] + [now]
                if len(watched.deaths) > self.max_deaths:
                    raise GaveUp(f"the {name} loop died {len(watched.deaths)} times in "
                                 f"{self.window:.0f} s (last: {watched.last_error})")
                delay = min(0.5 * 2 ** (len(watched.deaths) - 1), RESTART_CAP_SECONDS)
                watched.restart_at = now + delay
                log.warning("restarting the %s loop in %.1f s (death %s in %.0f s)", name,
                            delay, len(watched.deaths), self.window)
            if now >= watched.restart_at:
                self._start(name, watched)
                log.info("the %s loop was restarted", name)
        for name, (progress, stuck) in self.progress_checks.items():
            if now - progress() > stuck:
                raise GaveUp(f"the {name} loop made no progress for {now - progress():.0f} s")

    def watch(self, stop: threading.Event, every: float = 0.5) -> None:
        """``check()`` every ``every`` seconds until ``stop`` is set (``GaveUp`` propagates)."""
        while not stop.wait(every):
            self.check()

    def shutdown(self, timeout: float = 10.0) -> None:
        """Ask every loop to stop and wait for its thread a while."""
        self.stopping.set()
        for watched in self.watched.values():
            watched.loop.stop.set()
        for watched in self.watched.values():
            if watched.thread is not None:
                watched.thread.join(timeout)

    def deaths(self, name: str) -> int:
        return len(self.watched[name].deaths)
