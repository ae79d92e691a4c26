"""gunicorn's settings for the web process (read from the working directory; the
Procfile's web line and ``make run`` also name it with ``-c``).

Sync workers, one per core (``WEB_CONCURRENCY`` overrides). A move is
CPU-bound Python: measured on two cores with ``python -m bench http``
(docs/benchmarks.md), two sync workers served more moves per second, at a
lower p99, than two workers of four threads (the threads queue on their
worker's GIL) and than four single-thread ``gthread`` workers with
keep-alive (a kept-alive connection stays with the worker that accepted it,
so the load spreads unevenly), although keep-alive spares the server a
connection per request. The clients that matter (browsers, mail links) send
one request now and then, not a stream.

Three more things live here (issue 19 item 5), each because only the gunicorn
master can do it:

- **Metrics across workers** (``app.web.metrics``, served only to a scrape that brings
  ``METRICS_TOKEN``): prometheus-client's multiprocess
  mode keeps each worker's counters in files under ``PROMETHEUS_MULTIPROC_DIR`` and
  every scrape adds them up. The directory must be empty when gunicorn starts (stale
  files from a previous run would be added in) and a dead worker's live gauges must
  be dropped (``child_exit``). Set ``PROMETHEUS_MULTIPROC_DIR`` yourself (a directory
  of this server alone, e.g. ``/run/silver-eye/metrics``) or leave it unset and a
  fresh temporary one is made here and removed at exit: the master sets it before
  any worker is forked, so every worker inherits it.
- **One log format** (``app.access.masking``): gunicorn's own lines go through the
  same masked JSON/text formatter as the application's (``LOG_FORMAT``).
- **No gunicorn access log**: its line carries the raw path, which holds the seat's
  token. ``app.web.access_log`` writes the one access line per request instead.
"""
from __future__ import annotations

# Underscore names: gunicorn reads this module's public names as its settings.
import os as _os
import shutil as _shutil
import tempfile as _tempfile
from pathlib import Path as _Path
from typing import Any as _Any

from app.access import masking as _masking

_MADE_HERE = not _os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _MADE_HERE:
    _os.environ["PROMETHEUS_MULTIPROC_DIR"] = _tempfile.mkdtemp(prefix="silver-eye-metrics-")

# Imported here, once the directory is set (prometheus-client picks its multiprocess
# values at import), and never first inside ``child_exit``: that hook runs in the
# master's SIGCHLD handler, and a second worker's exit arriving during the first import
# re-entered it and imported a half-imported module (ImportError at shutdown).
from prometheus_client import multiprocess as _multiprocess  # noqa: E402
from gunicorn.glogging import Logger as _Logger  # noqa: E402


class _NoAccessLine(_Logger):
    """gunicorn's logger without its access line. ``accesslog = None`` alone does not
    spare it: with a ``logconfig_dict`` set, gunicorn still builds the line's atoms (the
    headers, the raw path, the time) for every request and hands them to a logger that
    drops them, 2 % of a web worker's CPU under load (py-spy, issue 30)."""

    def access(self, resp: _Any, req: _Any, environ: _Any, request_time: _Any) -> None:
        return None

worker_class = "sync"
workers = int(_os.environ.get("WEB_CONCURRENCY") or _os.cpu_count() or 2)
accesslog = None  # app.web.access_log writes the safe one
logger_class = _NoAccessLine
logconfig_dict = _masking.logging_dict()


def on_starting(server: _Any) -> None:
    """Empty the metrics directory before the first worker: a previous run's counts
    would otherwise be added to this one's."""
    folder = _Path(_os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()


def child_exit(server: _Any, worker: _Any) -> None:
    """A worker exited: drop its live gauges (its counters stay in the sums)."""
    _multiprocess.mark_process_dead(worker.pid)


def on_exit(server: _Any) -> None:
    if _MADE_HERE:
        _shutil.rmtree(_os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
