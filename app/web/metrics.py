"""``GET /metrics``: Prometheus metrics, correct whichever gunicorn worker answers.

Two kinds of numbers, kept apart on purpose:

- **Per process, summed across workers**: requests (by method, *route* and status:
  the URL rule such as ``/play/<token>``, never the path, which carries the token),
  their latency, and the moves the web took. Each worker counts its own; under
  gunicorn prometheus-client's multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``, set up
  by gunicorn.conf.py) writes them to files that every scrape adds up.
- **From the database, at scrape time** (``DatabaseCollector``): mail by status, the
  oldest due mail's age, overdue deadlines, the inbox by status, the workers'
  heartbeats. Read in one read-only pass when scraped, so they are the same whatever
  process answers and nothing stored can drift. The heartbeat and mail-backlog
  queries are ``app.runners.heartbeats``' own (what ``/readyz`` reads).

A database that cannot be reached gives ``silver_eye_database_up 0`` and the
per-process numbers, never a 500: the scrape is how the operator learns of it.

Who may scrape (issue 45 item 6: it served 1,071 lines, worker pids among them, to
anyone): a scrape must bring ``Authorization: Bearer <METRICS_TOKEN>``, as Prometheus's
``authorization: {credentials: ...}`` sends it (401 without it). With no
``METRICS_TOKEN`` set the server serves no metrics at all (403, in words saying what to
set), but under ``DEBUG`` (``make run``), where the page is the developer's own.
"""
from __future__ import annotations

import hmac
import logging
import os
import time
from typing import Any, Iterator

from flask import Blueprint, Response, current_app, request
from prometheus_client import (CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter,
                               Gauge, Histogram, generate_latest, multiprocess)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.engine import Engine
from sqlmodel import col, func, select

from app.config import setting
from app.db import get_engine, read_session
from app.runners import heartbeats
from app.web.doors import door

log = logging.getLogger(__name__)
bp = Blueprint("metrics", __name__)

#: Methods counted by name; anything else is "other" (a label per made-up verb would not do).
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
#: The route label of a request no rule matched (a 404): its path is never a label.
UNMATCHED = "<unmatched>"
#: When the request started (``time.perf_counter``), in the WSGI environ: the request's own.
STARTED_KEY = "silver_eye.started"
#: The views that make moves, and the status each answers a move it took with.
MOVE_VIEWS = {"api.submit": (200, "api"), "play.act": (303, "form")}

REQUESTS = Counter("silver_eye_http_requests", "HTTP requests answered, by method, route "
                   "(the URL rule, never the path) and status.", ["method", "route", "status"])
LATENCY = Histogram("silver_eye_http_request_duration_seconds",
                    "Time from the request's start to its response, by method and route.",
                    ["method", "route"],
                    buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10))
MOVES = Counter("silver_eye_moves", "Moves the web accepted (one per request that played "
                "one or several steps), by how: the JSON API or the seat page's form.", ["via"])
WORKER_REQUESTS = Gauge("silver_eye_web_worker_requests", "Requests each live web worker "
                        "served (pid label under gunicorn): shows that the load spreads.",
                        multiprocess_mode="liveall")


def route_of_request() -> str:
    rule = request.url_rule
    return rule.rule if rule is not None else UNMATCHED


def start_timer() -> None:
    """``before_request`` (the first one): when this request started."""
    request.environ[STARTED_KEY] = time.perf_counter()


def elapsed_seconds() -> float:
    """Seconds since ``start_timer`` (0 if a request never reached it)."""
    started = request.environ.get(STARTED_KEY)
    return 0.0 if started is None else max(0.0, time.perf_counter() - started)


def count_request(response: Any) -> Any:
    """``after_request``: the request counted, timed, and its move if it made one."""
    method = request.method if request.method in METHODS else "other"
    route = route_of_request()
    REQUESTS.labels(method, route, str(response.status_code)).inc()
    LATENCY.labels(method, route).observe(elapsed_seconds())
    WORKER_REQUESTS.inc()
    move = MOVE_VIEWS.get(request.endpoint or "")
    if move is not None and response.status_code == move[0]:
        MOVES.labels(move[1]).inc()
    return response


# -- from the database -----------------------------------------------------------------

def _gauge(name: str, documentation: str, labels: list[str],
           values: dict[tuple[str, ...], float]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, documentation, labels=labels)
    for key, value in sorted(values.items()):
        family.add_metric(list(key), value)
    return family


class DatabaseCollector(Collector):
    """The gauges read from the database when scraped (see the module doc)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[Metric]:
        try:
            families = self._read()
        except Exception as exc:  # noqa: BLE001 - the scrape says so instead of failing
            log.warning("metrics: the database could not be read: %s", type(exc).__name__)
            families = []
        yield _gauge("silver_eye_database_up", "1 when this scrape could read the database.",
                     [], {(): 1.0 if families else 0.0})
        yield from families

    def _read(self) -> list[Metric]:
        from app.channels import models as channels
        from app.clock.deadlines import DECISION, DIGEST, REMINDER, Deadline
        from app.inbound.inbox import by_status as inbox_counts
        from app.mail.models import FAILED, PENDING, SENT, SUPERSEDED, Outbox
        from app.people.models import Person

        now = heartbeats.wall_now()
        with read_session(self.engine) as session:
            mail = {status: 0 for status in (PENDING, SENT, FAILED, SUPERSEDED)}
            mail.update(session.exec(select(Outbox.status, func.count())
                                     .group_by(col(Outbox.status))).all())
            inbox = inbox_counts(session)
            overdue = {kind: 0 for kind in (DECISION, REMINDER, DIGEST)}
            overdue.update(session.exec(
                select(Deadline.kind, func.count())
                .where(col(Deadline.done_at).is_(None), col(Deadline.due_at) <= now)
                .group_by(col(Deadline.kind))).all())
            # issue 34 item 5: notices, as the outbox for mail (a paused Discord target
            # can raise an alert), and the addresses no mail is tried to
            # issue 49: pushes by what became of them (a subscription found gone is
            # "expired"), from the deliveries' own channel word: the target may be gone;
            # one statement for both, and for the count by channel and status (item 5:
            # sent, replaced, expired, failed, by channel)
            statuses = (channels.PENDING, channels.SENT, channels.FAILED,
                        channels.SUPERSEDED, channels.EXPIRED)
            by_channel: dict[tuple[str, str], int] = {
                (channel, status): 0 for channel in ("notice", "push") for status in statuses}
            by_channel.update({(str(c), str(s)): int(n) for c, s, n in session.exec(
                select(channels.NoticeDelivery.channel, channels.NoticeDelivery.status,
                       func.count())
                .group_by(col(channels.NoticeDelivery.channel),
                          col(channels.NoticeDelivery.status))).all()})
            notices = {status: sum(n for (_, s), n in by_channel.items() if s == status)
                       for status in statuses if status != channels.EXPIRED}
            pushes = {status: n for (c, status), n in by_channel.items() if c == "push"}
            subscriptions = session.exec(select(func.count())
                                         .select_from(channels.PushSubscription)).one()
            paused = session.exec(select(func.count()).select_from(channels.NoticeTarget)
                                  .where(col(channels.NoticeTarget.paused_at).is_not(None))
                                  ).one()
            bouncing = session.exec(select(func.count()).select_from(Person)
                                    .where(col(Person.bouncing_since).is_not(None))).one()
        backlog = heartbeats.mail_backlog(self.engine, now)
        beats = heartbeats.read(self.engine, now)
        names = (heartbeats.CLOCK, heartbeats.SENDER, heartbeats.INBOUND)
        return [
            _gauge("silver_eye_mail", "Outbox rows by status.", ["status"],
                   {(str(k),): float(v) for k, v in mail.items()}),
            _gauge("silver_eye_mail_held", "Pending mail held back by a cap.", [],
                   {(): float(backlog.held)}),
            _gauge("silver_eye_mail_oldest_due_seconds", "Age of the oldest mail that is due "
                   "and not sent (0: none waits).", [],
                   {(): round(backlog.late_seconds(now) or 0.0, 3)}),
            _gauge("silver_eye_deadlines_overdue", "Open deadlines whose time has passed "
                   "(the clock fires them within a tick), by kind.", ["kind"],
                   {(str(k),): float(v) for k, v in overdue.items()}),
            _gauge("silver_eye_notices", "Notice deliveries (Discord, ntfy, webhooks) by "
                   "status.", ["status"], {(str(k),): float(v) for k, v in notices.items()}),
            _gauge("silver_eye_notices_by_channel", "Notice deliveries by channel (notice: "
                   "apprise targets; push: Web Push) and status (sent; superseded: replaced or "
                   "no longer true at send time; expired: its deadline passed first; failed; "
                   "pending).", ["channel", "status"],
                   {(c, s): float(n) for (c, s), n in by_channel.items()}),
            _gauge("silver_eye_push", "Web Push deliveries by status: sent (handed to the "
                   "push service), failed, superseded, expired (the deadline passed first, "
                   "or the browser's subscription was gone: 404/410), pending.", ["status"],
                   {(str(k),): float(v) for k, v in pushes.items()}),
            _gauge("silver_eye_push_subscriptions", "Browsers subscribed to Web Push "
                   "notices (each for one game or all a person's games).", [],
                   {(): float(subscriptions)}),
            _gauge("silver_eye_notice_targets_paused", "Notice targets paused because they "
                   "kept failing (their seats get mail instead).", [], {(): float(paused)}),
            _gauge("silver_eye_addresses_bouncing", "Addresses marked bouncing: no mail is "
                   "tried to them until they reply or `flask mail-works` clears them.", [],
                   {(): float(bouncing)}),
            _gauge("silver_eye_inbox", "Inbox messages by status (what became of them).",
                   ["status"], {(str(k),): float(v) for k, v in inbox.items()}),
            _gauge("silver_eye_heartbeat_age_seconds", "Seconds since each loop's last "
                   "heartbeat.", ["worker"],
                   {(name,): round(beats[name].age_seconds, 3) for name in names
                    if name in beats}),
            _gauge("silver_eye_heartbeat_alive", "1 when the loop's heartbeat is fresh "
                   "and it did not die (what /readyz judges).", ["worker"],
                   {(name,): 1.0 if name in beats and beats[name].fresh else 0.0
                    for name in names}),
        ]


class _ThisProcess(Collector):
    """The default registry's metrics (one process, no gunicorn: ``flask run``, tests)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def registry(engine: Engine) -> CollectorRegistry:
    """What one scrape reports: every worker's files under gunicorn, else this process's
    metrics; and the database's gauges."""
    found = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(found)
    else:
        found.register(_ThisProcess())
    found.register(DatabaseCollector(engine))
    return found


#: What a server without ``METRICS_TOKEN`` answers a scrape (outside DEBUG).
NO_TOKEN_WORDS = ("No metrics here: this server serves them only to a scraper that brings "
                  "its METRICS_TOKEN, and none is set. Set METRICS_TOKEN, and give "
                  "Prometheus authorization: {credentials: <the token>} "
                  "(docs/operations.md, \"Metrics\").\n")
#: What a scrape without the right bearer token is answered.
WRONG_TOKEN_WORDS = ("This scrape needs the header Authorization: Bearer <METRICS_TOKEN>; "
                     "it brought none, or another.\n")


def refusal() -> Response | None:
    """None: this request may read the metrics; else the answer refusing it, in words."""
    token = setting("METRICS_TOKEN")
    if not token:
        if current_app.debug:
            return None
        return _words(403, NO_TOKEN_WORDS)
    given = request.headers.get("Authorization", "")
    if hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return None
    answer = _words(401, WRONG_TOKEN_WORDS)
    answer.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return answer


def _words(status: int, words: str) -> Response:
    answer = Response(words, status=status, content_type="text/plain; charset=utf-8")
    answer.headers["Cache-Control"] = "no-store"
    return answer


@bp.get("/metrics")
@door("metrics token", "the operator's figures (outside debug only with METRICS_TOKEN)")
def metrics() -> Any:
    """The exposition text, for a scrape with the bearer token (``refusal`` says who)."""
    refused = refusal()
    if refused is not None:
        return refused
    response = Response(generate_latest(registry(get_engine())), content_type=CONTENT_TYPE_LATEST)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Metrics-Pid"] = str(os.getpid())
    return response


def init_app(app: Any) -> None:
    """The timer first among the ``before_request``s, then the counter and the route."""
    app.before_request(start_timer)
    app.after_request(count_request)
    app.register_blueprint(bp)
