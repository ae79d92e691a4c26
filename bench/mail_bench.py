"""Mail and clock benchmark (part of ``make bench``).

1. Finding due deadlines among 100,000 open games on PostgreSQL: the clock's
   query (``app.runners.clock.due_query``, served by the partial index on ``due_at``
   where ``done_at IS NULL``), beside the same query forced to scan the table
   in the same run, with 1% of the games due and as many closed rows as open.
2. Mails sent per second from the outbox to a local aiosmtpd server, beside a
   baseline of the same messages sent straight through ``smtplib`` (no outbox).
3. Due -> handed-to-SMTP latency (p50, p99) of mails committed at random
   moments, with the sender woken by commits (``app.runners.waker.Waker``: PostgreSQL
   LISTEN/NOTIFY, SQLite a short poll of the due index) beside the 30 s clock
   tick it replaces, on SQLite and PostgreSQL, in the same run.

PostgreSQL comes from ``BENCH_DATABASE_URL`` or ``TEST_DATABASE_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); the benchmark works in a
schema of its own and drops it afterwards.
"""
from __future__ import annotations

import os
import smtplib
import socket
import statistics
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any

import sqlalchemy as sa

GAMES = 100_000
DUE_SHARE = 0.01
QUERY_RUNS = 50
MAILS = 2_000
T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def _pg_url() -> str:
    return (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _with_schema(url: str, schema: str) -> str:
    parsed = sa.engine.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


def _timed(fn, runs: int) -> tuple[float, float]:
    """Median and p99-ish (max of runs) in milliseconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def due_deadlines() -> None:
    from app.runners.clock import due_query
    from app.db import make_engine, upgrade

    base = _pg_url()
    admin = make_engine(base, poolclass=sa.pool.NullPool)
    try:
        with admin.connect():
            pass
    except Exception as exc:  # noqa: BLE001 - no PostgreSQL here: say so and go on
        print(f"due deadlines: skipped, PostgreSQL not reachable at {base} ({exc.__class__.__name__})")
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        url = _with_schema(base, schema)
        upgrade(url)
        engine = make_engine(url)
        now = T0 + timedelta(hours=48)
        due = int(GAMES * DUE_SHARE)
        start = time.perf_counter()
        with engine.begin() as conn:
            raw = conn.connection.driver_connection
            with raw.cursor() as cur:
                with cur.copy("COPY deadline (game_id, seat, kind, due_at, opened_step, opened_at, "
                              "done_at, outcome) FROM STDIN") as copy:
                    for n in range(GAMES):
                        gid = f"g{n:07d}"
                        due_at = now - timedelta(minutes=n % 60) if n < due else \
                            now + timedelta(minutes=1 + n % 5000)
                        copy.write_row((gid, n % 4, "decision", due_at, n, T0, None, None))
                        # an older, closed window of the same seat (history)
                        copy.write_row((gid, n % 4, "decision", T0, 0, T0 - timedelta(days=2),
                                        T0, "acted"))
                        copy.write_row((gid, n % 4, "reminder", due_at - timedelta(hours=2), n, T0,
                                        None, None))
            conn.exec_driver_sql("ANALYZE deadline")
        loaded = time.perf_counter() - start
        query = due_query(now, limit=200)
        with engine.connect() as conn:
            def indexed() -> None:
                rows = conn.execute(query).all()
                assert len(rows) == 200

            def scanned() -> None:
                conn.exec_driver_sql("SET enable_indexscan = off")
                conn.exec_driver_sql("SET enable_bitmapscan = off")
                try:
                    assert len(conn.execute(query).all()) == 200
                finally:
                    conn.exec_driver_sql("RESET enable_indexscan")
                    conn.exec_driver_sql("RESET enable_bitmapscan")

            plan = "\n".join(r[0] for r in conn.execute(
                sa.text("EXPLAIN " + str(query.compile(engine, compile_kwargs={"literal_binds": True})))))
            med, worst = _timed(indexed, QUERY_RUNS)
            smed, sworst = _timed(scanned, max(5, QUERY_RUNS // 5))
        engine.dispose()
        rows = GAMES * 3
        print(f"due deadlines: {GAMES:,} open games ({rows:,} deadline rows, {due:,} games due), "
              f"loaded in {loaded:.1f} s")
        print(f"  clock query, first 200 due (partial index): median {med:.2f} ms, max {worst:.2f} ms")
        print(f"  same query without indexes (baseline):      median {smed:.2f} ms, max {sworst:.2f} ms")
        print("  plan: " + " | ".join(line.strip() for line in plan.splitlines()[:3]))
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def outbox_throughput(engine: Any, port: int, mails: int, now: datetime,
                      **send: Any) -> tuple[int, float]:
    """Queue ``mails`` turn mails to ``p<n>@example.com`` in ``engine``'s outbox, then send
    them (``sending.send_due``, batch after batch, ``send``: its keywords) to the SMTP
    server on ``port``: ``(mails sent, seconds spent sending)``."""
    from app.db import write_session
    from app.mail import compose, outbox
    from app.mail.backends import SmtpBackend, SmtpSettings
    from app.runners import sending

    tag = uuid.uuid4().hex[:8]
    with write_session(engine) as session:
        for n in range(mails):
            mail = compose.Mail(subject=f"Silver Eye · bench: round 1, your turn ({n})",
                                text="Your village: ? ? ? ?\n" * 20,
                                html="<p>Your village</p>" * 20)
            outbox.enqueue(session, game_id=f"g{n % 100}", seat=n % 4, kind="turn",
                           to=f"p{n}@example.com", to_name=f"Player {n}", mail=mail,
                           idempotency=f"bench:{tag}:{n}", domain="bench.test", now=now,
                           unsubscribe=f"http://bench.test/unsubscribe/{n}")
    backend = SmtpBackend(SmtpSettings.from_url(f"smtp://127.0.0.1:{port}"))
    start = time.perf_counter()
    sent = 0
    while True:
        report = sending.send_due(engine, backend, now, sender="post@bench.test", **send)
        sent += report.sent
        if report.claimed == 0:
            break
    return sent, time.perf_counter() - start


def mails_per_second() -> None:
    from aiosmtpd.controller import Controller

    from app import create_app
    from app.db import make_engine, upgrade

    class Sink:
        count = 0

        async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
            Sink.count += 1
            return "250 OK"

    port = _free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{folder}/bench.db"
            upgrade(url)
            engine = make_engine(url)
            # (the bounce address of each mail is signed with the app's key: an app context)
            app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-secret",
                              "INSTANCE_PATH": f"{folder}/instance"})
            with app.app_context():
                sent, through_outbox = outbox_throughput(engine, port, MAILS, T0)
            engine.dispose()

            # the same mail as a script would send it through smtplib alone
            message = EmailMessage()
            message["From"], message["To"], message["Subject"] = (
                "Silver Eye Post <post@bench.test>", "P <p@example.com>", "s")
            message.set_content("Your village: ? ? ? ?\n" * 20)
            message.add_alternative("<p>Your village</p>" * 20, subtype="html")
            start = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", port) as conn:
                for _ in range(MAILS):
                    conn.send_message(message)
            bare = time.perf_counter() - start
        print(f"mail: {sent:,} mails through the outbox to a local aiosmtpd server: "
              f"{sent / through_outbox:,.0f} mails/s (SQLite outbox, one transaction per mail)")
        print(f"  baseline, the same number straight through smtplib: {MAILS / bare:,.0f} mails/s")
    finally:
        controller.stop()


LATENCY_MAILS = 60
LATENCY_SPREAD_SECONDS = 45.0
TICK_SECONDS = 30.0


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def _latency_run(url: str, waker: bool) -> list[float]:
    """Commit ``LATENCY_MAILS`` mails at random moments over the spread; return each
    one's seconds from commit (due) to the SMTP server receiving it."""
    import random
    import threading

    from aiosmtpd.controller import Controller

    from app import create_app
    from app.runners import sender
    from app.runners.waker import Waker
    from app.db import get_engine, write_session
    from app.mail import compose, outbox

    arrived: dict[int, float] = {}

    class Sink:
        async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
            text = envelope.content.decode("utf-8", "replace")
            marker = text.split("bench-mail-", 1)[1].split(" ", 1)[0].split("\r", 1)[0]
            arrived.setdefault(int(marker), time.time())
            return "250 OK"

    port = _free_port()
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    folder = tempfile.mkdtemp()
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench", "INSTANCE_PATH": folder,
                      "MAIL_BACKEND": "smtp", "SMTP_URL": f"smtp://127.0.0.1:{port}",
                      "MAIL_FROM": "post@bench.example", "MAIL_PER_ADDRESS_PER_HOUR": 0})
    due: dict[int, float] = {}
    stop = threading.Event()
    with app.app_context():
        if waker:
            runner = Waker(app)
            thread = runner.start()
        else:
            def ticking() -> None:
                while not stop.wait(TICK_SECONDS):
                    sender.send_mail_due(app, datetime.now(timezone.utc))
            thread = threading.Thread(target=ticking, daemon=True)
            thread.start()
        rng = random.Random(1)
        gaps = [rng.random() for _ in range(LATENCY_MAILS)]
        scale = LATENCY_SPREAD_SECONDS / sum(gaps)
        for n, gap in enumerate(gaps):
            time.sleep(gap * scale)
            with write_session(get_engine(app)) as session:
                mail = compose.Mail(subject=f"bench-mail-{n} ", text=f"bench-mail-{n} body",
                                    html=None)
                outbox.enqueue(session, game_id=None, seat=None, kind="bench",
                               to=f"p{n}@example.com", to_name="P", mail=mail,
                               idempotency=f"latency:{waker}:{n}", domain="bench.example",
                               now=datetime.now(timezone.utc))
            due[n] = time.time()  # committed: due from now
        end = time.time() + TICK_SECONDS + 10
        while len(arrived) < LATENCY_MAILS and time.time() < end:
            time.sleep(0.05)
        if waker:
            runner.stop.set()
        stop.set()
        thread.join(timeout=5)
        get_engine(app).dispose()
    controller.stop()
    missing = LATENCY_MAILS - len(arrived)
    if missing:
        print(f"  !! {missing} mails did not arrive")
    return [arrived[n] - due[n] for n in arrived]


def latency() -> None:
    stores: list[tuple[str, str, Any]] = []
    sqlite_dir = tempfile.mkdtemp()
    stores.append(("SQLite", f"sqlite:///{sqlite_dir}/latency.db", None))
    from app.db import make_engine, upgrade

    base = _pg_url()
    admin = make_engine(base, poolclass=sa.pool.NullPool)
    try:
        with admin.connect():
            pass
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        stores.append(("PostgreSQL", _with_schema(base, schema), schema))
    except Exception as exc:  # noqa: BLE001 - no PostgreSQL here: say so and go on
        print(f"latency on PostgreSQL: skipped ({exc.__class__.__name__})")
    print(f"mail latency, due -> handed to SMTP: {LATENCY_MAILS} mails committed at random "
          f"moments over {LATENCY_SPREAD_SECONDS:.0f} s")
    try:
        for name, url, _ in stores:
            upgrade(url)
            woken = _latency_run(url, waker=True)
            ticked = _latency_run(url, waker=False)
            p50, p99 = _percentile(woken, 0.5), _percentile(woken, 0.99)
            t50, t99 = _percentile(ticked, 0.5), _percentile(ticked, 0.99)
            print(f"  {name:10s} waker: p50 {p50 * 1000:8.1f} ms, p99 {p99 * 1000:8.1f} ms")
            print(f"  {name:10s} {TICK_SECONDS:.0f} s tick (baseline): p50 {t50 * 1000:8.1f} ms, "
                  f"p99 {t99 * 1000:8.1f} ms  (p50 ratio {t50 / max(p50, 1e-9):,.0f}x)")
    finally:
        for _, _, schema in stores:
            if schema:
                with admin.begin() as conn:
                    conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def main() -> None:
    print("== mail and clock")
    due_deadlines()
    mails_per_second()
    latency()


if __name__ == "__main__":
    main()
