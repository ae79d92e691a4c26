"""Table talk and notice targets (issue 20, part of ``make bench``).

1. What a message said at the table costs beside a move: ``POST /api/play/<token>/talk``
   and ``POST /api/play/<token>/actions`` through the Flask test client (no network), on
   the same games, interleaved in one run, p50/p99 of each and their ratio.
2. How fast a notice reaches its target beside the mail it stands beside: mails of a seat
   with a JSON-webhook target (a local HTTP sink) committed at random moments while the
   production waker runs (``runners.waker.Waker``: the mail, then the notices); due →
   handed to SMTP (an aiosmtpd sink) and due → received by the webhook sink, p50/p99.

SQLite in a temp folder, and PostgreSQL when ``BENCH_DATABASE_URL`` or
``TEST_DATABASE_URL`` reaches one (a schema of its own, dropped afterwards). Timings
only: what is right is the tests' business.
"""
from __future__ import annotations

import os
import random
import re
import socket
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import sqlalchemy as sa

GAMES = 12           # three seats each
TALK_PER_GAME = 20   # messages, one between two moves
NOTICES = 60
NOTICE_SPREAD_SECONDS = 12.0
DOMAIN = "bench.silver-eye.test"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def _stores() -> Iterator[tuple[str, str]]:
    """(name, url) of SQLite, then PostgreSQL in a fresh schema when one answers."""
    folder = tempfile.mkdtemp()
    yield "SQLite", f"sqlite:///{folder}/talk.db"
    base = (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except Exception as exc:  # noqa: BLE001 - no PostgreSQL here: say so, go on
        print(f"  PostgreSQL: skipped ({exc.__class__.__name__})")
        return
    url = sa.engine.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield "PostgreSQL", url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def _app(url: str, **extra: Any) -> Any:
    from app import create_app
    from app.db import upgrade

    upgrade(url)
    folder = tempfile.mkdtemp()
    return create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-secret",
                       "INSTANCE_PATH": folder, "MAIL_FROM": f"Post <post@{DOMAIN}>",
                       "MAIL_DOMAIN": DOMAIN, "MAIL_DIR": os.path.join(folder, "mail"),
                       "TALK_PER_SEAT_PER_HOUR": 10_000, **extra})


# -- 1. a message's POST beside a move's POST -----------------------------------------

def talk_beside_moves() -> None:
    from app import services

    print(f"a message said beside a move made, both by JSON POST: {GAMES} three-seat games, {TALK_PER_GAME} messages "
          "each, one between two moves, same client, same run")
    for name, url in _stores():
        app = _app(url)
        client = app.test_client()
        with app.app_context():
            games = [services.create_game(
                [{"name": n, "email": f"{n.lower()}{i}@example.org"} for n in ("Ann", "Bob", "Cid")],
                {}, name="bench", seed=str(2000 + i)) for i in range(GAMES)]
        moves: list[float] = []
        talks: list[float] = []
        rng = random.Random(7)
        for created in games:
            for n in range(TALK_PER_GAME):
                state = client.get(f"/api/play/{created.tokens[0]}/actions").get_json()
                seat = (state.get("to_act") or [0])[0]
                token = created.tokens[seat]
                legal = client.get(f"/api/play/{token}/actions").get_json()
                if not legal.get("legal_actions"):
                    break
                action = rng.choice(legal["legal_actions"])
                begin = time.perf_counter()
                answer = client.post(f"/api/play/{token}/actions",
                                     json={"action": action, "expected_seq": legal["seq"]})
                moves.append(time.perf_counter() - begin)
                assert answer.status_code in (200, 201), answer.get_data(as_text=True)[:200]
                begin = time.perf_counter()
                answer = client.post(f"/api/play/{created.tokens[n % 3]}/talk",
                                     json={"text": f"message {n}: nice one"})
                talks.append(time.perf_counter() - begin)
                assert answer.status_code in (200, 201), answer.get_data(as_text=True)[:200]
        m50, m99 = _percentile(moves, .5) * 1000, _percentile(moves, .99) * 1000
        t50, t99 = _percentile(talks, .5) * 1000, _percentile(talks, .99) * 1000
        print(f"  {name:10s} move       p50 {m50:7.2f} ms  p99 {m99:7.2f} ms  ({len(moves)})")
        print(f"  {name:10s} message    p50 {t50:7.2f} ms  p99 {t99:7.2f} ms  ({len(talks)})"
              f"  talk/move p50 {t50 / m50:.2f}x")
        from app.db import get_engine
        get_engine(app).dispose()


def main() -> None:
    talk_beside_moves()
    print()
    notices_beside_mail()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


MARKER = re.compile(r"bench-(?:notice|push)-(\d+)")


def smtp_sink(mailed: dict[int, float]) -> tuple[Any, int]:
    """An SMTP server on a free port that notes when each marked mail arrived (n → when):
    its started controller and its port."""
    from aiosmtpd.controller import Controller

    class Smtp:
        async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
            found = MARKER.search(envelope.content.decode("utf-8", "replace"))
            if found:
                mailed.setdefault(int(found.group(1)), time.time())
            return "250 OK"

    port = _free_port()
    smtp = Controller(Smtp(), hostname="127.0.0.1", port=port)
    smtp.start()
    return smtp, port


def _notice_run(url: str) -> tuple[list[float], list[float]]:
    """Commit ``NOTICES`` mails of one seat with a JSON-webhook target at random moments
    while the waker runs; return (mail seconds, notice seconds) from commit to arrival."""
    from app.channels import targets
    from app.db import get_engine, write_session

    mailed: dict[int, float] = {}
    noticed: dict[int, float] = {}

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            found = MARKER.search(body.decode("utf-8", "replace"))
            if found:
                noticed.setdefault(int(found.group(1)), time.time())
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    smtp, smtp_port = smtp_sink(mailed)
    hook = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    app = _app(url, MAIL_BACKEND="smtp", SMTP_URL=f"smtp://127.0.0.1:{smtp_port}",
               MAIL_PER_ADDRESS_PER_HOUR=0, NOTICE_ALLOW_PRIVATE=True)
    with app.app_context():
        created = ann_against_a_bot(app, "3000")
        target_url, service = targets.validate(
            f"json://127.0.0.1:{hook.server_address[1]}/hook")
        with write_session(get_engine(app)) as session:
            targets.add(session, url=target_url, service=service,
                        now=datetime.now(timezone.utc), game_id=created.game_id, seat=0)
        due = waking(app, created.game_id, "notice", NOTICES, NOTICE_SPREAD_SECONDS,
                     {"mails": mailed, "notices": noticed})
    smtp.stop()
    hook.shutdown()
    return ([mailed[n] - due[n] for n in mailed], [noticed[n] - due[n] for n in noticed])


def ann_against_a_bot(app: Any, seed: str) -> Any:
    """A game of Ann (ann@example.org) and a bot, where Ann played her first move herself:
    a known player, not a stranger whose mail the day's cap would hold (app/mail/trust.py)."""
    from app import services

    created = services.create_game([{"name": "Ann", "email": "ann@example.org"},
                                    {"name": "Bot", "kind": "bot"}], {}, name="bench", seed=seed)
    client = app.test_client()
    legal = client.get(f"/api/play/{created.tokens[0]}/actions").get_json()
    client.post(f"/api/play/{created.tokens[0]}/actions",
                json={"action": legal["legal_actions"][0], "expected_seq": legal["seq"]})
    return created


def waking(app: Any, game_id: str, what: str, count: int, spread: float,
           arrivals: dict[str, dict[int, float]], kind: str = "round") -> dict[int, float]:
    """Commit ``count`` mails of ``kind`` ("bench-<what>-<n>") of the game's seat 0 at random
    moments over ``spread`` seconds while the production waker runs, wait until every
    one arrived in each of ``arrivals`` (what a sink noted: n → when), at most 30 s; return
    when each was committed (n → when). Says what did not arrive."""
    from app.db import get_engine, write_session
    from app.mail import compose, outbox
    from app.runners.waker import Waker

    due: dict[int, float] = {}
    waker = Waker(app)
    thread = waker.start()
    rng = random.Random(2)
    gaps = [rng.random() for _ in range(count)]
    scale = spread / sum(gaps)
    for n, gap in enumerate(gaps):
        time.sleep(gap * scale)
        with write_session(get_engine(app)) as session:
            mail = compose.Mail(subject=f"bench-{what}-{n} ", text=f"bench-{what}-{n} is the news",
                                html=None)
            outbox.enqueue(session, game_id=game_id, seat=0, kind=kind, to="ann@example.org",
                           to_name="Ann", mail=mail, idempotency=f"bench-{what}:{n}",
                           domain=DOMAIN, now=datetime.now(timezone.utc))
        due[n] = time.time()
    end = time.time() + 30
    while any(len(got) < count for got in arrivals.values()) and time.time() < end:
        time.sleep(0.05)
    waker.stop.set()
    thread.join(timeout=5)
    get_engine(app).dispose()
    for name, got in arrivals.items():
        if len(got) < count:
            print(f"  !! {count - len(got)} {name} did not arrive")
    return due


def notices_beside_mail() -> None:
    print(f"notice latency beside mail's, due -> received: {NOTICES} mails of a seat with a "
          f"JSON-webhook target, committed at random moments over {NOTICE_SPREAD_SECONDS:.0f} s,"
          " the production waker sending")
    for name, url in _stores():
        beside_mail(name, "notice", *_notice_run(url))


def beside_mail(store: str, what: str, mails: list[float], others: list[float]) -> None:
    """Two lines: the mails' p50/p99 and the ``what``s' (seconds in, milliseconds out)."""
    m50, m99 = _percentile(mails, .5) * 1000, _percentile(mails, .99) * 1000
    n50, n99 = _percentile(others, .5) * 1000, _percentile(others, .99) * 1000
    print(f"  {store:10s} {'mail':6s}  p50 {m50:8.1f} ms  p99 {m99:8.1f} ms")
    print(f"  {store:10s} {what:6s}  p50 {n50:8.1f} ms  p99 {n99:8.1f} ms  "
          f"({what}/mail p50 {n50 / max(m50, 1e-9):.2f}x)")


if __name__ == "__main__":
    main()
