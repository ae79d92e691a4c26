"""Play-by-reply benchmark (part of ``make bench``): replies applied per second.

End to end: a reply is sent over SMTP to the inbound receiver (aiosmtpd, the
code of ``python -m app.processes inbound``), stored in the inbox, applied through
``services.submit_action`` by the receiver's worker thread; the clock is not
involved. Timed until the action is committed in the log. Beside it, in the
same run and on the same kind of store, the same moves as web submissions
(``POST /api/play/<token>/actions`` through the Flask test client, no
network), which is the baseline: the ratio is what mail costs over the web.

The moves are the round-start peeks of two-seat games, one reply each (the
second peek of a game is a reply to the step-0 mail, as a real player's is).
Throughput sends every reply over one SMTP connection as fast as the
receiver takes them; latency sends one, waits for its action, then the next.
SQLite in a temp folder; PostgreSQL too when ``BENCH_DATABASE_URL`` or
``TEST_DATABASE_URL`` reaches one.
"""
from __future__ import annotations

import email
import email.policy
import os
import smtplib
import socket
import statistics
import tempfile
import time
import uuid
from email.message import EmailMessage
from email.utils import make_msgid

import sqlalchemy as sa

GAMES = 100          # two replies (peeks) each: 200 replies per measurement
LATENCY_SAMPLES = 40
DOMAIN = "bench.silver-eye.test"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _app(url: str, folder: str):
    from app import create_app
    from app.db import upgrade

    upgrade(url)
    return create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-secret",
                       "INSTANCE_PATH": folder, "MAIL_FROM": f"Post <post@{DOMAIN}>",
                       "MAIL_DOMAIN": DOMAIN, "MAIL_DIR": os.path.join(folder, "mail")})


def _address(i: int, seat: int) -> str:
    """Game ``i``'s players: strangers to the store, each at one game."""
    return f"{('ann', 'bob')[seat]}{i}@example.org"


def _games(app, count: int, address=_address) -> list:
    from app import services

    with app.app_context():
        return [services.create_game([{"name": "Ann", "email": address(i, 0)},
                                      {"name": "Bob", "email": address(i, 1)}],
                                     {}, name="bench", seed=str(1000 + i))
                for i in range(count)]


def _replies(app, games: list, address=_address) -> list[tuple[str, bytes]]:
    from app.access.reply_address import reply_address

    out = []
    with app.app_context():
        for i, created in enumerate(games):
            for seat, sender in ((0, address(i, 0)), (1, address(i, 1))):
                message = EmailMessage()
                message["From"] = sender
                message["To"] = reply_address(created.game_id, seat, 1, 0)
                message["Subject"] = "Re: your turn"
                message["Message-ID"] = make_msgid(domain="bench.example")
                message.set_content("peek 1 2\n\nOn Monday Silver Eye Post wrote:\n> ...\n")
                out.append((sender, message.as_bytes(policy=email.policy.SMTP)))
    return out


def _applied(engine, after_id: int = 0) -> int:
    """Actions logged from replies with an id above ``after_id`` (the log as the run
    found it: on a store that has lived, counting its whole log would cost more than
    the replies)."""
    with engine.connect() as conn:
        return int(conn.execute(sa.text(
            "SELECT count(*) FROM action WHERE source = 'mail' AND id > :after"),
            {"after": after_id}).scalar_one())


def _last_action_id(engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT coalesce(max(id), 0) FROM action")).scalar_one())


def _wait_for(engine, count: int, limit_s: float = 120.0, after_id: int = 0) -> None:
    deadline = time.perf_counter() + limit_s
    while _applied(engine, after_id) < count:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"only {_applied(engine, after_id)} of {count} replies applied")
        time.sleep(0.002)


def _mail_run(url: str, folder: str, address=_address) -> tuple[float, float, float]:
    """(replies/s, p50 ms, p99 ms) end to end through the SMTP receiver; ``address(i,
    seat)``: the players' addresses."""
    from app.db import get_engine
    from app.inbound import receiver
    from app.runners import inbound as runners_inbound

    app = _app(url, folder)
    port = _free_port()
    smtpd = receiver.controller(app, "127.0.0.1", port, apply=runners_inbound.apply_one)
    smtpd.start()
    try:
        engine = get_engine(app)
        after = _last_action_id(engine)
        replies = _replies(app, _games(app, GAMES, address), address)
        start = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", port) as client:
            for sender, data in replies:
                client.sendmail(sender, [email.message_from_bytes(data)["To"]], data)
        _wait_for(engine, len(replies), after_id=after)
        rate = len(replies) / (time.perf_counter() - start)

        samples = []
        more = _replies(app, _games(app, LATENCY_SAMPLES // 2, address), address)
        done = len(replies)
        with smtplib.SMTP("127.0.0.1", port) as client:
            for sender, data in more:
                begin = time.perf_counter()
                client.sendmail(sender, [email.message_from_bytes(data)["To"]], data)
                done += 1
                _wait_for(engine, done, after_id=after)
                samples.append((time.perf_counter() - begin) * 1000)
        samples.sort()
        return rate, statistics.median(samples), samples[int(len(samples) * 0.99) - 1]
    finally:
        smtpd.stop()
        smtpd.handler.close()


def _web_run(url: str, folder: str) -> float:
    """Moves/s of the same peeks as web submissions (the baseline)."""
    app = _app(url, folder)
    games = _games(app, GAMES)
    client = app.test_client()
    start = time.perf_counter()
    for created in games:
        for seat, seq in ((0, 0), (1, 1)):
            answer = client.post(f"/api/play/{created.tokens[seat]}/actions",
                                 json={"action": {"type": "peek", "positions": [0, 1]},
                                       "expected_seq": seq})
            assert answer.status_code == 200, answer.get_json()
    return GAMES * 2 / (time.perf_counter() - start)


def _pg_schema_url() -> tuple[str, object, str] | None:
    from app.db import make_engine

    base = (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    admin = make_engine(base, poolclass=sa.pool.NullPool)
    try:
        with admin.connect():
            pass
    except Exception:  # noqa: BLE001 - no PostgreSQL: SQLite only
        return None
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.engine.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False), admin, schema


def _report(store: str, mail: tuple[float, float, float], web: float) -> None:
    rate, p50, p99 = mail
    print(f"  {store:<10} replies by SMTP {rate:7.1f}/s   web submissions {web:7.1f}/s   "
          f"ratio mail/web {rate / web:4.2f}   one reply SMTP-in -> committed: "
          f"p50 {p50:6.1f} ms, p99 {p99:6.1f} ms")


def main() -> None:
    import logging
    logging.getLogger("app").setLevel(logging.WARNING)
    print(f"play by reply: {GAMES * 2} replies (SMTP in -> action committed) beside the same "
          f"moves as web submissions; latency over {LATENCY_SAMPLES} replies one at a time")
    with tempfile.TemporaryDirectory() as folder:
        mail = _mail_run(f"sqlite:///{folder}/mail.db", os.path.join(folder, "a"))
        web = _web_run(f"sqlite:///{folder}/web.db", os.path.join(folder, "b"))
        _report("SQLite", mail, web)
        pg = _pg_schema_url()
        if pg is None:
            print("  PostgreSQL not reachable: skipped")
            return
        url, admin, schema = pg
        try:
            mail = _mail_run(url, os.path.join(folder, "c"))
            with admin.begin() as conn:  # type: ignore[attr-defined]
                conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE; CREATE SCHEMA "{schema}"')
            web = _web_run(url, os.path.join(folder, "d"))
            _report("PostgreSQL", mail, web)
        finally:
            with admin.begin() as conn:  # type: ignore[attr-defined]
                conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            admin.dispose()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
