"""``/healthz`` and ``/readyz``: for load balancers and monitors (issue 17 item 1).

Two questions with different answers. ``/healthz``: is this web process alive
and answering? It touches nothing (no database), so a database outage never
makes a load balancer kill healthy web workers. ``/readyz``: is the service
doing its job? The database is reachable, the clock and the mail sender beat
recently (their heartbeats, ``app.runners.heartbeats``), and no mail has been due and
unsent longer than ``READY_MAIL_LATE_SECONDS``. The JSON body says which check
failed and why; not ready is HTTP 503, never a 500. Both are GETs that only
read, and are never cached.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from app.runners import heartbeats
from app.db import get_engine

bp = Blueprint("health", __name__)


def _uncached(response: Any) -> Any:
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz() -> Any:
    """The process is alive (nothing else is asked)."""
    return _uncached(jsonify({"status": "ok"}))


@bp.get("/readyz")
def readyz() -> Any:
    """Every check of ``heartbeats.readiness``; 200 when all pass, else 503."""
    result = heartbeats.readiness(get_engine())
    response = jsonify(result.as_json())
    response.status_code = 200 if result.ready else 503
    return _uncached(response)
