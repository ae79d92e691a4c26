"""``/metrics`` (issue 19 item 5): requests by route, never by path; the database's gauges
read at scrape time; and, under gunicorn with two workers, counts summed across them.
Every scrape brings the operator's token, as Prometheus does: without ``METRICS_TOKEN``
the server serves no metrics (issue 45 item 6), but under ``DEBUG``."""
from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families

from app.db import get_engine, upgrade
from app.runners import heartbeats
from tests.conftest import TEST_SECRET_KEY
from tests.mail.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
#: The operator's ``METRICS_TOKEN`` in these tests, and the header a scrape brings.
SCRAPE_TOKEN = "scrape-secret-for-the-tests"
BEARER = {"Authorization": f"Bearer {SCRAPE_TOKEN}"}


@pytest.fixture
def scrape(app, client) -> Any:
    """``scrape()``: ``GET /metrics`` as Prometheus asks it, with the server's token."""
    app.config["METRICS_TOKEN"] = SCRAPE_TOKEN

    def get() -> Any:
        return client.get("/metrics", headers=BEARER)
    return get


def samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    return [(s.name, dict(s.labels), s.value)
            for family in text_string_to_metric_families(text) for s in family.samples]


def value(text: str, name: str, **labels: str) -> float:
    found = [v for n, ls, v in samples(text) if n == name and all(ls.get(k) == w
                                                                 for k, w in labels.items())]
    assert len(found) == 1, (name, labels, found)
    return found[0]


def requests_counted(text: str) -> float:
    """Requests of every route but the scrapes themselves."""
    return sum(v for n, ls, v in samples(text)
               if n == "silver_eye_http_requests_total" and ls["route"] != "/metrics")


def api_moves(text: str) -> float:
    """Moves the API took (0 before the first: the counter has no sample yet)."""
    return sum(v for n, ls, v in samples(text)
               if n == "silver_eye_moves_total" and ls == {"via": "api"})


def prepare_state(engine: Any, game_id: str) -> None:
    """One failed mail, one overdue decision, one dead inbox message, a stale clock; a
    Discord target paused after failing (one delivery failed for good), and an address
    that bounces (issue 34 item 5)."""
    now = datetime.now(timezone.utc)
    with engine.begin() as conn:
        first = conn.execute(sa.text("SELECT min(id) FROM outbox")).scalar_one()
        conn.execute(sa.text("UPDATE outbox SET status = 'failed' WHERE id = :i"), {"i": first})
        deadline = conn.execute(sa.text(
            "SELECT min(id) FROM deadline WHERE game_id = :g AND kind = 'decision' "
            "AND done_at IS NULL"), {"g": game_id}).scalar_one()
        conn.execute(sa.text("UPDATE deadline SET due_at = :t WHERE id = :i"),
                     {"t": now - timedelta(hours=1), "i": deadline})
        conn.execute(sa.text(
            "INSERT INTO inbox (message_id, received_at, via, rcpt, raw, status, attempts) "
            "VALUES ('<x@test>', :t, 'smtp', '[]', :raw, 'dead', 5)"),
            {"t": now, "raw": b"Subject: x\r\n\r\nx"})
        target = conn.execute(sa.text(
            "INSERT INTO notice_target (game_id, seat, url, service, created_at, failures, "
            "paused_at) VALUES (:g, 0, 'discord://x/y', 'Discord', :t, 5, :t) RETURNING id"),
            {"g": game_id, "t": now}).scalar_one()
        conn.execute(sa.text(
            "INSERT INTO notice_delivery (target_id, game_id, seat, kind, title, body, status, "
            "attempts, next_attempt_at, created_at) VALUES (:target, :g, 0, 'turn', 'x', 'x', "
            "'failed', 5, :t, :t)"), {"target": target, "g": game_id, "t": now})
        conn.execute(sa.text(
            "INSERT INTO person (address, mode, soft_bounces, by_mail, bouncing_since, "
            "bounce_reason) VALUES ('gone@example.com', 'per_game', 0, TRUE, :t, '550')"),
            {"t": now})
    heartbeats.write(engine, heartbeats.CLOCK, every=5, detail={},
                     at=now - timedelta(seconds=120))


def expect_prepared_gauges(text: str) -> None:
    assert value(text, "silver_eye_database_up") == 1
    assert value(text, "silver_eye_mail", status="failed") == 1
    assert value(text, "silver_eye_deadlines_overdue", kind="decision") == 1
    assert value(text, "silver_eye_inbox", status="dead") == 1
    assert value(text, "silver_eye_inbox", status="applied") == 0
    assert value(text, "silver_eye_notices", status="failed") == 1
    assert value(text, "silver_eye_notices", status="sent") == 0
    assert value(text, "silver_eye_notice_targets_paused") == 1
    assert value(text, "silver_eye_addresses_bouncing") == 1
    assert value(text, "silver_eye_heartbeat_age_seconds", worker="clock") >= 120
    assert value(text, "silver_eye_heartbeat_alive", worker="clock") == 0
    assert value(text, "silver_eye_heartbeat_alive", worker="sender") == 0


def test_requests_are_counted_by_route_and_the_token_is_never_a_label(app, client, new_game,
                                                                     scrape):
    token = new_game().tokens[0]
    before = scrape().get_data(as_text=True)
    assert client.get(f"/play/{token}").status_code == 200
    assert client.get("/play/not-a-real-token").status_code == 403
    after = scrape()
    text = after.get_data(as_text=True)
    assert after.status_code == 200 and after.headers["Cache-Control"] == "no-store"

    def seat_pages(body: str, status: str) -> float:
        return sum(v for n, ls, v in samples(body) if n == "silver_eye_http_requests_total"
                   and ls == {"method": "GET", "route": "/play/<token>", "status": status})
    assert seat_pages(text, "200") - seat_pages(before, "200") == 1
    assert seat_pages(text, "403") - seat_pages(before, "403") == 1
    assert token not in text and "not-a-real-token" not in text


def test_a_move_through_the_api_is_counted_once(app, client, new_game, scrape):
    created = new_game()
    seat = created.snapshot.view(None)["to_act"][0]
    action = created.snapshot.view(seat)["legal_actions"][0]
    before = api_moves(scrape().get_data(as_text=True))
    answer = client.post(f"/api/play/{created.tokens[seat]}/actions",
                         json={"action": action, "expected_seq": 0})
    assert answer.status_code == 200, answer.get_json()
    refused = client.post(f"/api/play/{created.tokens[seat]}/actions",
                          json={"action": action, "expected_seq": 0})
    assert refused.status_code == 409  # the same move again: not a move made
    text = scrape().get_data(as_text=True)
    assert api_moves(text) - before == 1


def test_the_database_gauges_say_what_the_store_holds_and_the_scrape_writes_nothing(
        app, client, db, new_game, scrape):
    created = new_game()
    prepare_state(get_engine(app), created.game_id)
    before = db.dump()
    text = scrape().get_data(as_text=True)
    expect_prepared_gauges(text)
    assert value(text, "silver_eye_mail_oldest_due_seconds") >= 0
    assert db.dump() == before


def test_with_a_metrics_token_a_scrape_must_bring_it(app, client, scrape):
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": SCRAPE_TOKEN},
                    {"Authorization": f"Basic {SCRAPE_TOKEN}"}):
        refused = client.get("/metrics", headers=headers)
        assert refused.status_code == 401, headers
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
        words = refused.get_data(as_text=True)
        assert "Authorization: Bearer <METRICS_TOKEN>" in words
        assert "silver_eye" not in words and "pid" not in words
    answer = scrape()
    assert answer.status_code == 200 and b"silver_eye_database_up" in answer.data


def test_without_a_metrics_token_the_server_serves_no_metrics_and_says_what_to_set(
        app, client, new_game):
    """Issue 45 item 6: 1,071 lines, worker pids among them, went to anyone."""
    client.get(f"/play/{new_game().tokens[0]}")
    app.config["METRICS_TOKEN"] = None
    for headers in ({}, {"Authorization": "Bearer "}, {"Authorization": "Bearer None"}):
        answer = client.get("/metrics", headers=headers)
        assert answer.status_code == 403
        words = answer.get_data(as_text=True)
        assert "Set METRICS_TOKEN" in words and "docs/operations.md" in words
        assert "silver_eye" not in words and "X-Metrics-Pid" not in answer.headers
    # under DEBUG (``make run``) the developer reads their own
    app.config["DEBUG"] = True
    shown = client.get("/metrics")
    assert shown.status_code == 200 and b"silver_eye_http_requests_total" in shown.data


def test_a_database_that_cannot_be_read_is_a_gauge_not_a_500(app, client, monkeypatch, scrape):
    from app.web import metrics

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise sa.exc.OperationalError("SELECT", {}, Exception("gone"))
    monkeypatch.setattr(metrics, "read_session", broken)
    answer = scrape()
    assert answer.status_code == 200
    assert value(answer.get_data(as_text=True), "silver_eye_database_up") == 0


# -- two gunicorn workers ----------------------------------------------------------------

def _get(port: int, path: str) -> http.client.HTTPResponse:
    """One request on a connection of its own (so either worker may take it)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request("GET", path, headers={"Connection": "close"})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def _scrape(port: int) -> tuple[str, str]:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request("GET", "/metrics", headers={"Connection": "close", **BEARER})
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    assert response.status == 200, body
    return response.getheader("X-Metrics-Pid") or "", body


@pytest.mark.slow  # a real gunicorn with two workers
def test_two_gunicorn_workers_are_summed_whichever_answers_the_scrape(
        app, database_url, new_game, tmp_path):
    created = new_game()
    prepare_state(get_engine(app), created.game_id)
    upgrade(database_url)
    port = free_port()
    env = {key: val for key, val in os.environ.items() if key != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(DATABASE_URL=database_url, SECRET_KEY=TEST_SECRET_KEY, LOG_FORMAT="json",
               INSTANCE_PATH=str(tmp_path / "gunicorn"), METRICS_TOKEN=SCRAPE_TOKEN)
    log_path = tmp_path / "gunicorn.log"
    log_file = log_path.open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-w", "2", "-c", "gunicorn.conf.py",
         "--bind", f"{HOST}:{port}", "app:create_app()"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log_file)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _get(port, "/healthz").status == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.2)
        made = 1  # the /healthz that answered

        # requests from four threads at once until each worker has served some
        lock = threading.Lock()

        def batch() -> None:
            nonlocal made
            for path in ("/healthz", "/rules", f"/play/{created.tokens[0]}", "/nothing-here"):
                _get(port, path)
                with lock:
                    made += 1
        served: dict[str, float] = {}
        for _ in range(25):
            threads = [threading.Thread(target=batch) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            _, text = _scrape(port)
            served = {ls["pid"]: v for n, ls, v in samples(text)
                      if n == "silver_eye_web_worker_requests"}
            if len(served) == 2 and all(served.values()):
                break
        assert len(served) == 2 and all(served.values()), f"one worker took it all: {served}"

        # every scrape, from either worker, has the same sum and the same gauges
        answered_by = set()
        for _ in range(40):
            pid, text = _scrape(port)
            answered_by.add(pid)
            assert requests_counted(text) == made
            assert value(text, "silver_eye_http_requests_total", method="GET",
                         route="<unmatched>", status="404") == (made - 1) // 4
            expect_prepared_gauges(text)
            if len(answered_by) == 2:
                break
        assert len(answered_by) == 2, "every scrape went to one worker"
        assert created.tokens[0] not in text
    finally:
        server.terminate()
        server.wait(timeout=30)
        log_file.close()
    # what gunicorn wrote: JSON lines, one access line per request, and no token anywhere
    written = log_path.read_text()
    assert "Traceback" not in written, written  # a clean start and a clean stop
    lines = [json.loads(line) for line in written.splitlines() if line.strip()]
    access = [line for line in lines if line["logger"] == "app.access"]
    assert len([line for line in access if line["route"] != "/metrics"]) == made
    assert {line["route"] for line in access} >= {"/play/<token>", "/healthz", "<unmatched>"}
    assert not [line for line in lines if line["logger"] == "gunicorn.access"], \
        "one access log, not two"
    assert created.tokens[0] not in log_path.read_text()
