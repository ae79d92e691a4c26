"""A store that has lived beside a fresh one (``python -m bench lived``, issue 30 item 2).

Every other section of the bench starts from empty tables; a server on its thirtieth
day does not. This one runs four measurements on the lived store (``bench.lived_store``:
10,000 finished games with their logs, deadlines, seat mail and inbox rows, 250,000
outbox rows over 30 days among 2,000 addresses ``p<n>@example.com``, built once into the
schema ``bench_lived_v1`` and reused while its fingerprint holds) and on a fresh schema,
interleaved (fresh, lived, fresh, lived ...: ``BENCH_LIVED_ROUNDS``, default 2), and
prints lived ÷ fresh of each (goal >= 0.9):

1. moves/s: 8 three-seat games of ``p0..p2@example.com`` played to their end at once
   over HTTP, one request a move (``http_bench.play_game(one_request=True)``), through
   gunicorn as the Procfile runs it, with the clock running beside it as the Procfile
   runs it (``python -m app.processes clock``, mail to a recording SMTP server), and the
   rows fetched per move (``idx_tup_fetch + seq_tup_read`` of the schema's tables in
   ``pg_stat_user_tables``, every process's reads, the clock's too) with the tables
   that fetched most;
2. the seat page's p50 (``GET /play/<token>`` of a game 60 moves in, 8 threads);
3. mail throughput: 2,000 mails queued and sent from the outbox to a recording SMTP
   server (``mail_bench.outbox_throughput``, with the hourly per-address cap and the
   stranger check on, as the clock sends; the time is now, so the store's last days
   are inside their windows);
4. reply apply: replies sent over SMTP to the inbound receiver and applied
   (``reply_bench._mail_run``, the players at ``p<n>@example.com``).

``VACUUM ANALYZE`` and ``CHECKPOINT`` run before each measured section; the load
average is printed beside each figure. The lived store is put back after each run
(``lived_store.reset``: the games, mail and replies the run added are deleted); the
clock runs with ``MAIL_RETENTION_DAYS=36500`` in both stores so that its hourly
pruning leaves the history alone (pruning is ``python -m bench prune``'s).

``BENCH_LIVED_GAMES`` / ``BENCH_LIVED_OUTBOX`` build a smaller store (its own
fingerprint), for trying the bench out; ``BENCH_LIVED_SCHEMA`` names another schema
(a worktree of another commit keeps its own store), ``BENCH_LIVED_REBUILD=1``
rebuilds it.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import sqlalchemy as sa

from bench import http_bench, lived_store
from bench.processes import ROOT, CpuMeter, backends, gunicorn, stop, tree

GAMES = http_bench.GAMES
SEATS = http_bench.SEATS
PAGE_GETS = 60            # per client thread
#: One client per gunicorn worker: the p50 is a page's time, not a queue's.
PAGE_THREADS = 2
MAILS = 2_000
#: pg_stat counters reach the shared statistics at most every second, and an idle
#: backend's only after ten: wait this long before reading them.
STATS_SETTLE_SECONDS = 11


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f}"


def _prepare(admin: sa.Engine, schema: str) -> None:
    """``VACUUM ANALYZE`` the schema's tables and ``CHECKPOINT``: each measured section
    starts with fresh statistics and nothing of the last one's left to write."""
    with admin.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        tables = [row[0] for row in conn.execute(sa.text(
            "SELECT tablename FROM pg_tables WHERE schemaname = :s"), {"s": schema})]
        for table in tables:
            conn.exec_driver_sql(f'VACUUM ANALYZE "{schema}"."{table}"')
        conn.exec_driver_sql("CHECKPOINT")


def _table_stats(admin: sa.Engine, schema: str) -> dict[str, tuple[int, int]]:
    """Per table of ``schema`` so far: (rows fetched: index fetches + sequential reads,
    sequential scans)."""
    with admin.connect() as conn:
        conn.exec_driver_sql("SELECT pg_stat_clear_snapshot()")
        return {row[0]: (int(row[1]), int(row[2])) for row in conn.execute(sa.text(
            "SELECT relname, coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0), "
            "coalesce(seq_scan, 0) FROM pg_stat_user_tables WHERE schemaname = :s"),
            {"s": schema})}


class Sink:
    """A recording SMTP server's handler: counts what it was handed."""

    def __init__(self) -> None:
        self.count = 0

    async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
        self.count += 1
        return "250 OK"


@contextmanager
def smtp_sink() -> Iterator[tuple[int, Sink]]:
    from aiosmtpd.controller import Controller

    from bench.processes import free_port

    port, sink = free_port(), Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, sink
    finally:
        controller.stop()


#: Runs ``app.processes`` counting the PostgreSQL transactions it ends (issue 30 item 4).
COUNTED = ROOT / "bench" / "served" / "counted_process.py"


@contextmanager
def clock_process(env: dict[str, str], log_path: Path, name: str = "clock",
                  counts: Path | None = None) -> Iterator[subprocess.Popen[Any]]:
    """``python -m app.processes clock`` (or ``name``: ``inbound``) as the Procfile runs
    it; with ``counts``, through ``bench/served/counted_process.py``, which writes the
    transactions the process ended there (``transactions(counts)``)."""
    command = ([sys.executable, str(COUNTED), str(counts), name] if counts is not None
               else [sys.executable, "-m", "app.processes", name])
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    try:
        time.sleep(1.0)
        if process.poll() is not None:
            raise RuntimeError(f"the {name} process exited: {log_path.read_text()[-2000:]}")
        yield process
    finally:
        stop(process)


def transactions(counts: Path) -> int:
    """The transactions a process run with ``clock_process(counts=...)`` ended so far."""
    try:
        found = json.loads(counts.read_text())
        return sum(found.get(kind, 0) for kind in ("commit", "rollback", "autocommit"))
    except (OSError, ValueError):
        return 0


def _named(url: str, name: str) -> str:
    return sa.engine.make_url(url).update_query_dict({"application_name": name}).render_as_string(
        hide_password=False)


def measure(url: str, schema: str, admin: sa.Engine, store: str) -> dict[str, Any]:
    """The four sections on the migrated schema at ``url``."""
    from app import create_app, services
    from app.db import get_engine

    figures: dict[str, Any] = {"store": store}
    secret = secrets.token_urlsafe(32)
    workdir = Path(tempfile.mkdtemp(prefix="silver-eye-lived-"))
    people = [{"name": f"P{i}", "email": lived_store.address(i)} for i in range(SEATS)]
    try:
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": secret,
                          "INSTANCE_PATH": str(workdir / "instance")})
        with app.app_context():
            played = [services.create_game(people, {"memory": False}, seed=str(1000 + g))
                      for g in range(GAMES)]
            paged = services.create_game(people, {"memory": False}, seed="777")
        get_engine(app).dispose()
        server_name, clock_name = f"silver-eye-{schema}"[:60], f"silver-eye-clock-{schema}"[:60]
        with smtp_sink() as (smtp_port, sink):
            env = dict(os.environ, DATABASE_URL=_named(url, server_name), SECRET_KEY=secret,
                       MAIL_BACKEND="smtp", SMTP_URL=f"smtp://127.0.0.1:{smtp_port}",
                       MAIL_FROM="Silver Eye Post <post@bench.test>", MAIL_DOMAIN="bench.test",
                       MAIL_RETENTION_DAYS="36500", INSTANCE_PATH=str(workdir / "instance"))
            _prepare(admin, schema)
            with gunicorn(env, [], lambda port: http_bench.Client(port).call(
                    "GET", "/api/openapi.json")[0] == 200,
                    output=workdir / "gunicorn.log") as (port, server), \
                    clock_process(dict(env, DATABASE_URL=_named(url, clock_name)),
                                  workdir / "clock.log", counts=workdir / "clock.json") as clock:
                time.sleep(STATS_SETTLE_SECONDS)
                before = _table_stats(admin, schema)
                section = http_bench.Section(server.pid, admin, server_name)
                # issue 30 item 4: what the clock costs while nothing of it is due
                clock_cpu = CpuMeter(lambda: tree(clock.pid))
                clock_db = CpuMeter(lambda: backends(admin, clock_name))
                clock_cpu.start()
                clock_db.start()
                ended = transactions(workdir / "clock.json")
                moves = section.run(f"{store}: moves (one request a move, clock running)", [
                    lambda g=g: http_bench.play_game(port, played[g].tokens, g, one_request=True)
                    for g in range(GAMES)])
                made = max(moves["count"], 1)
                figures.update(clock_ms=1000 * clock_cpu.stop() / made,
                               clock_db_ms=1000 * clock_db.stop() / made)
                time.sleep(1.0)  # (the counts are written every half second)
                figures["clock_xacts"] = (transactions(workdir / "clock.json") - ended) / made
                if clock.poll() is not None or figures["clock_ms"] == 0:  # said, not hidden
                    print(f"      the clock process {'exited' if clock.poll() is not None else 'did nothing'}"
                          f"; its log ends: {(workdir / 'clock.log').read_text()[-1500:]}")
                print(f"      the clock process: {figures['clock_ms']:.3f} ms CPU a move, its "
                      f"PostgreSQL backends {figures['clock_db_ms']:.3f} ms, "
                      f"{figures['clock_xacts']:.3f} transactions a move (goal <= 0.5 ms, "
                      f"<= 0.1)")
                time.sleep(STATS_SETTLE_SECONDS)
                after = _table_stats(admin, schema)
                delta = {t: v[0] - before.get(t, (0, 0))[0] for t, v in after.items()}
                scans = {t: v[1] - before.get(t, (0, 0))[1] for t, v in after.items()}
                figures.update(moves=moves["rate"], move_p50=moves["p50"], move_p99=moves["p99"],
                               move_load=f"load {moves['load'][0]:.2f} -> {moves['load'][1]:.2f}",
                               moves_made=moves["count"],
                               fetched=sum(delta.values()) / moves["count"],
                               fetched_by=sorted(((v / moves["count"], t) for t, v in
                                                  delta.items() if v), reverse=True)[:4],
                               seq_scans={t: v for t, v in scans.items() if v})
                by = ", ".join(f"{t} {v:,.1f}" for v, t in figures["fetched_by"])
                print(f"      rows fetched per move: {figures['fetched']:,.1f} ({by}); "
                      f"sequential scans: {figures['seq_scans'] or 'none'}")

                http_bench.play_game_partly(port, paged.tokens, 777, 60)
                _prepare(admin, schema)
                load = _load()
                samples, wall = http_bench.in_threads([
                    lambda: http_bench.get_many(port, f"/play/{paged.tokens[0]}", PAGE_GETS)
                    for _ in range(PAGE_THREADS)])
                flat = [x for each in samples for x in each]
                figures.update(page_p50=http_bench._ms(flat, 0.5),
                               page_p99=http_bench._ms(flat, 0.99), page_load=load)
                print(f"    {store}: seat page GET /play/<token> ({PAGE_THREADS} threads): "
                      f"{len(flat)} in {wall:.1f} s, p50 {figures['page_p50']:.2f} ms, p99 "
                      f"{figures['page_p99']:.2f} ms  ({load} -> {_load()})")

            from bench import mail_bench
            with app.app_context():  # the bounce address is signed with the app's key
                _prepare(admin, schema)
                load = _load()
                received = sink.count
                sent, seconds = mail_bench.outbox_throughput(
                    get_engine(app), smtp_port, MAILS, datetime.now(timezone.utc),
                    per_address_hour=60)
                figures.update(mails=sent / seconds, mail_load=load,
                               mails_received=sink.count - received)
                print(f"    {store}: mail: {sent:,} mails outbox -> SMTP in {seconds:.1f} s: "
                      f"{figures['mails']:.0f} mails/s ({sink.count - received} received)  "
                      f"({load} -> {_load()})")
            get_engine(app).dispose()

        from bench import reply_bench
        _prepare(admin, schema)
        load = _load()
        rate, p50, p99 = reply_bench._mail_run(
            url, str(workdir / "reply"),
            address=lambda i, seat: lived_store.address(100 + 2 * i + seat))
        figures.update(replies=rate, reply_p50=p50, reply_load=load)
        print(f"    {store}: replies applied {rate:.1f}/s, one reply p50 {p50:.1f} ms, "
              f"p99 {p99:.1f} ms  ({load} -> {_load()})")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return figures


@contextmanager
def fresh(base: str) -> Iterator[tuple[str, str]]:
    from app.db import upgrade

    schema = f"bench_fresh_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        url = http_bench._with_schema(base, schema)
        upgrade(url)
        yield url, schema
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@contextmanager
def lived(url: str) -> Iterator[None]:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        lived_store.reset(engine)
        yield
    finally:
        deleted = lived_store.reset(engine)
        engine.dispose()
        print(f"    lived store put back (deleted what the run added: "
              f"{', '.join(f'{t} {n}' for t, n in sorted(deleted.items()))})")


def _sizes() -> dict[str, int]:
    sizes = {}
    if os.environ.get("BENCH_LIVED_GAMES"):
        sizes["games"] = int(os.environ["BENCH_LIVED_GAMES"])
    if os.environ.get("BENCH_LIVED_OUTBOX"):
        sizes["outbox_rows"] = int(os.environ["BENCH_LIVED_OUTBOX"])
    return sizes


RATIOS = (("moves", "moves/s", True), ("page_p50", "seat page p50", False),
          ("mails", "mails/s", True), ("replies", "replies applied/s", True))


def main() -> None:
    import logging
    logging.getLogger("app").setLevel(logging.WARNING)
    rounds = int(os.environ.get("BENCH_LIVED_ROUNDS", "2"))
    base = http_bench._pg_url()
    schema = os.environ.get("BENCH_LIVED_SCHEMA", lived_store.SCHEMA)
    print(f"== a store that has lived (issue 30): fresh and lived interleaved, {rounds} rounds; "
          f"{GAMES} games of {SEATS} played at once over HTTP (gunicorn.conf.py, the clock "
          f"running), the seat page, {MAILS:,} mails outbox -> SMTP, replies by SMTP")
    lived_url, marks = lived_store.lived_url(
        base, schema=schema, rebuild=os.environ.get("BENCH_LIVED_REBUILD") == "1", **_sizes())
    rows = marks.get("rows", {})
    print(f"  lived store: schema {schema}, built {marks.get('built_at', '?')[:19]} in "
          f"{marks.get('build_seconds', '?')} s: " + ", ".join(
              f"{t} {n:,}" for t, n in rows.items()))
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    measured: dict[str, list[dict[str, Any]]] = {"fresh": [], "lived": []}
    try:
        for number in range(rounds):
            print(f"  round {number + 1}:")
            with fresh(base) as (url, fresh_schema):
                measured["fresh"].append(measure(url, fresh_schema, admin, "fresh"))
            with lived(lived_url):
                measured["lived"].append(measure(lived_url, schema, admin, "lived"))
    finally:
        admin.dispose()
    report(measured)


def report(measured: dict[str, list[dict[str, Any]]]) -> None:
    print("  lived ÷ fresh, each round's pair (goal >= 0.9; the seat page: fresh p50 ÷ lived p50):")
    for key, label, higher in RATIOS:
        ratios = []
        for one, other in zip(measured["fresh"], measured["lived"]):
            ratios.append(other[key] / one[key] if higher else one[key] / other[key])
        values = ", ".join(
            f"{one[key]:.1f} vs {other[key]:.1f} ({ratio:.2f})"
            for one, other, ratio in zip(measured["fresh"], measured["lived"], ratios))
        print(f"    {label:<18} median {statistics.median(ratios):.2f}  (fresh vs lived: "
              f"{values})")
    for store in ("fresh", "lived"):  # the load (1 min) as each section began
        runs = measured[store]
        print(f"    {store}: rows fetched per move " + ", ".join(
            f"{r['fetched']:,.1f}" for r in runs) + "; load at the moves " + ", ".join(
            r["move_load"] for r in runs) + "; at the seat page " + ", ".join(
            r["page_load"] for r in runs) + "; at the mail " + ", ".join(
            r["mail_load"] for r in runs) + "; at the replies " + ", ".join(
            r["reply_load"] for r in runs))


if __name__ == "__main__":
    main()
