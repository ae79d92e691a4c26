"""``/healthz`` and ``/readyz``: for load balancers and monitors (issue 17 item 1).

Two questions with different answers. ``/healthz``: is this web process alive
and answering? It touches nothing (no database), so a database outage never
makes a load balancer kill healthy web workers. ``/readyz``: is the service
doing its job? The database is reachable, the clock and the mail sender beat
recently (their heartbeats, ``app.runners.heartbeats``), no mail has been due and
unsent longer than ``READY_MAIL_LATE_SECONDS``, and mail has not failed to leave for
longer than ``READY_MAIL_FAILING_SECONDS`` (the mail server refusing or gone).

Both answer anyone, so they say no more than a monitor needs (issue 45 item 6: the
answer showed each loop's pid and host): ``{"ready": true|false, "reason": "..."}``,
the reason in words made here from what failed (a check's name, an age, a bound),
never a pid, a host name, a version or an error's own text. The operator's whole
report, pids and hosts included, is ``flask --app app status``. Not ready is HTTP 503,
never a 500. Both are GETs that only read, and are never cached.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from app.runners import heartbeats
from app.db import get_engine
from app.web.doors import door

bp = Blueprint("health", __name__)

#: How the reason names each loop.
LOOPS = {heartbeats.CLOCK: "the clock", heartbeats.SENDER: "the mail sender"}


def _uncached(response: Any) -> Any:
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
@door("none", "whether the process answers")
def healthz() -> Any:
    """The process is alive (nothing else is asked)."""
    return _uncached(jsonify({"status": "ok"}))


@bp.get("/readyz")
@door("none", "ready or not, with a reason (no pid, host or version)")
def readyz() -> Any:
    """Every check of ``heartbeats.readiness``: 200 and ready when all pass, else 503
    and the reason."""
    result = heartbeats.readiness(get_engine())
    response = jsonify({"ready": result.ready, "reason": reason(result)})
    response.status_code = 200 if result.ready else 503
    return _uncached(response)


def reason(result: heartbeats.Readiness) -> str:
    """Why the service is ready or not, in words that show nothing of the machine."""
    if result.ready:
        return "ready: the database answers, the clock and the mail sender beat, mail leaves"
    if "database" in result.failed:
        return "not ready: the database cannot be reached"
    return "not ready: " + "; ".join(_failed(name, result.checks[name])
                                     for name in result.failed)


def _failed(name: str, check: dict[str, Any]) -> str:
    """One failed check, in words of its own (an error's text may name a host)."""
    if name == "mail":  # its words are numbers and bounds only
        late = check.get("oldest_due_seconds")
        failing = check.get("failing_seconds")
        if failing is not None and failing > check.get("failing_bound_seconds", failing):
            return (f"mail has failed to leave for {failing:.0f} s (bound "
                    f"{check['failing_bound_seconds']:.0f} s)")
        return f"a mail has been due for {late or 0:.0f} s (bound {check['bound_seconds']:.0f} s)"
    loop = LOOPS.get(name, name)
    if "age_seconds" not in check:
        return f"{loop} has never beaten"
    if str(check.get("error", "")).startswith("the loop died"):
        return f"{loop} stopped"
    return f"{loop}'s last heartbeat is {check['age_seconds']:.0f} s old"
