"""Pruning benchmark (part of ``make bench``): table sizes after 10,000 games.

A few complete games are played through the services on PostgreSQL (every
hook runs: real outbox and deadline rows), then their rows are copied until
the store holds the bookkeeping of ``GAMES`` games, and aged past the
retention period. Printed: rows and on-disk size of the action log, the
outbox and the deadline table before pruning and after one pruning pass
(and ``VACUUM FULL``, which hands the freed pages back), plus the pass's time.
The action log is the baseline: it is never pruned, so its size is the same
on both lines.
"""
from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

GAMES = 10_000
PLAYED = 20
SEATS = 3
TABLES = ("action", "outbox", "deadline")


def _pg_url() -> str:
    return (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _sizes(conn: sa.Connection) -> dict[str, tuple[int, int]]:
    return {table: (conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one(),
                    conn.execute(sa.text(f"SELECT pg_total_relation_size('{table}')")).scalar_one())
            for table in TABLES}


def _line(label: str, sizes: dict[str, tuple[int, int]]) -> str:
    return "  " + label.ljust(22) + "  ".join(
        f"{table} {rows:>9,} rows {size / 2**20:8.1f} MB" for table, (rows, size) in sizes.items())


def _copy(conn: sa.Connection, copies: int) -> None:
    """Copy every bookkeeping row ``copies`` times, as if other games had made them."""
    conn.execute(sa.text(
        "INSERT INTO outbox (game_id, seat, kind, \"to\", subject, text, html, headers, status, "
        "attempts, next_attempt_at, sent_at, message_id, idempotency, created_at) "
        "SELECT o.game_id || '-' || n, o.seat, o.kind, o.\"to\", o.subject, o.text, o.html, "
        "o.headers, o.status, o.attempts, o.next_attempt_at, o.sent_at, "
        "n || '.' || o.message_id, o.idempotency || ':' || n, o.created_at "
        "FROM outbox o CROSS JOIN generate_series(1, :c) AS n"), {"c": copies})
    conn.execute(sa.text(
        "INSERT INTO deadline (game_id, seat, kind, due_at, opened_step, opened_at, fired_at, "
        "done_at, outcome) SELECT d.game_id || '-' || n, d.seat, d.kind, d.due_at, "
        "d.opened_step, d.opened_at, d.fired_at, d.done_at, d.outcome "
        "FROM deadline d CROSS JOIN generate_series(1, :c) AS n"), {"c": copies})
    conn.execute(sa.text(
        "INSERT INTO game (id, created, status, name, options, seed, commitment, seats) "
        "SELECT g.id || '-' || n, g.created, g.status, g.name, g.options, g.seed, g.commitment, "
        "g.seats FROM game g CROSS JOIN generate_series(1, :c) AS n"), {"c": copies})
    conn.execute(sa.text(
        "INSERT INTO action (game_id, seq, seat, action, source, created) "
        "SELECT a.game_id || '-' || n, a.seq, a.seat, a.action, a.source, a.created "
        "FROM action a CROSS JOIN generate_series(1, :c) AS n"), {"c": copies})


def main() -> None:
    from app import create_app, engine, services
    from app.clock import deadlines
    from app.runners import pruning
    from app.db import get_engine, upgrade

    base = _pg_url()
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.engine.make_url(base).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    workdir = tempfile.mkdtemp(prefix="silver-eye-prune-")
    try:
        upgrade(url)
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench",
                          "INSTANCE_PATH": str(Path(workdir) / "instance")})
        people = [{"name": f"P{i}", "email": f"p{i}@example.com"} for i in range(SEATS)]
        rng = random.Random(5)
        with app.app_context():
            for g in range(PLAYED):
                created = services.create_game(people, {"memory": False}, seed=str(g))
                while True:
                    snap = services.snapshot(created.game_id)
                    to_act = snap.view(None).get("to_act") or []
                    if snap.view(None).get("phase") == "over" or not to_act:
                        break
                    seat = rng.choice(to_act)
                    action = rng.choice(engine.legal_actions(snap.state, seat))
                    services.submit_action(created.game_id, seat, action, snap.seq)
        db = get_engine(app)
        with db.begin() as conn:
            # the mail went out and the deadlines closed long ago
            conn.execute(sa.text("UPDATE outbox SET status = 'sent', "
                                 "sent_at = now() - interval '60 days'"))
            conn.execute(sa.text("UPDATE deadline SET done_at = now() - interval '60 days'"))
            _copy(conn, GAMES // PLAYED - 1)
        with db.connect() as conn:
            conn.execute(sa.text("ANALYZE"))
            before = _sizes(conn)
        start = time.perf_counter()
        report = pruning.prune(db, deadlines.now(), retention_days=30)
        took = time.perf_counter() - start
        with db.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("VACUUM FULL outbox"))
            conn.execute(sa.text("VACUUM FULL deadline"))
            after = _sizes(conn)
        print(f"Pruning benchmark: the bookkeeping of {GAMES:,} complete {SEATS}-seat games "
              f"({PLAYED} played through the services, copied) on PostgreSQL")
        print(_line("before pruning", before))
        print(_line("after (VACUUM FULL)", after))
        print(f"  one pass deleted {report.total:,} rows in {took:.1f} s "
              f"({report.total / took:,.0f} rows/s, {pruning.BATCH} per statement); "
              f"the action log (never pruned) is the baseline")
        get_engine(app).dispose()
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
