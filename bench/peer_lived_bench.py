"""Ours beside the peer as production runs them (``python -m bench peer-lived``, issue 30 item 5).

``python -m bench peer`` and the peer rounds of ``python -m bench http`` put our web
workers alone, on a fresh schema, beside boardgame.io; a server in production also runs
its clock and its inbound receiver, on a store that has lived, and PostgreSQL spends
CPU outside the backends (the WAL writer, the checkpointer, autovacuum). This section
runs all of it:

- **ours**: gunicorn as the Procfile runs it (``gunicorn.conf.py``: sync workers, one a
  core), ``python -m app.processes clock`` and ``python -m app.processes inbound``
  beside it, on the lived store (``bench.lived_store``, schema ``bench_lived_v1``, put
  back before and after), mail to a recording SMTP server; ``GAMES`` three-seat games
  of ``p0..p2@example.com`` at once over HTTP, one request a move
  (``http_bench.play_game(one_request=True)``), each client going on with a new game
  when one ends, made then, inside the window (``Tables``: its invitations and first
  turn mail are the window's work, as on a server where every game made is played;
  games made ahead, before the window, were mostly never played on a slow machine, and
  their mail, two or three times the played games', fell into later windows);
- **the peer**: boardgame.io 0.50 + bgio-postgres (``bench/peer``, its own database,
  started once), ``GAMES`` matches of 200 moves at once over socket.io by its own
  client (``drive.js`` in window mode: a match that ends is followed by a new one,
  created inside the window).

Both servers run the whole time; the measured windows alternate, ours, peer, ours,
peer ... (``BENCH_PEER_ROUNDS``, default 3), each ``BENCH_PEER_WINDOW`` seconds
(default 30), after a ``CHECKPOINT`` (and, once at the start, ``VACUUM ANALYZE`` of
both stores); ``BENCH_KEEP=1`` keeps the run's folder (the processes' logs, and with
``BENCH_COUNT_STATEMENTS=1`` each statement the clock ran, counted). In each window the CPU of every process is read from ``/proc``: ours
(the gunicorn master and workers, the clock, the inbound receiver), the peer's node
server, the clients (this process, with the recording SMTP server's thread; the
peer's driver), and all of PostgreSQL (``processes.postgres_cpu``: the postmaster and
every child, backends and background processes, with the children it reaped). Each
side's CPU per move is its processes' and its backends' (by ``application_name`` /
database) over *every* window, its own and the other's (our clock sends the mail of
our moves while the peer plays), plus PostgreSQL's background work (all PostgreSQL
CPU that no backend of either side spent) in its own windows. The clock's and the
receiver's PostgreSQL transactions are counted in their processes
(``bench/served/counted_process.py``).

Printed per round and as medians: moves/s, p50/p99 of a move, CPU per move, ours ÷
peer (goal: >= 1.5x moves/s, p99 <= the peer's), the clock's CPU and transactions
per move (goal <= 0.5 ms, <= 0.1), the load average at each window's start and end.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

import sqlalchemy as sa

from bench import http_bench, lived_bench, lived_store, peer_bench
from bench.processes import (CpuMeter, backends, cpu_seconds, free_port, gunicorn,
                             postgres_cpu, stop, tree)

GAMES = http_bench.GAMES          # games (matches) played at once, each side
SEATS = http_bench.SEATS
PEER_MOVES = peer_bench.MOVES_PER_MATCH
SETTLE_SECONDS = 20               # at most, for the mail due before a window
PEOPLE = 2_000                    # the lived store's addresses (lived_store.build's people)


def _window() -> float:
    return float(os.environ.get("BENCH_PEER_WINDOW", "30"))


def _rounds() -> int:
    return int(os.environ.get("BENCH_PEER_ROUNDS", "3"))


class Meters:
    """CPU seconds of each side's processes and backends, and PostgreSQL's whole, over
    one window."""

    def __init__(self, parts: dict[str, Callable[[], list[int]]]) -> None:
        self.meters = {name: CpuMeter(pids) for name, pids in parts.items()}
        self.pg_before = 0.0

    def start(self) -> None:
        for meter in self.meters.values():
            meter.start()
        self.pg_before = postgres_cpu()

    def stop(self) -> dict[str, float]:
        spent = {name: meter.stop() for name, meter in self.meters.items()}
        spent["postgres"] = postgres_cpu() - self.pg_before
        return spent


def _load() -> float:
    return os.getloadavg()[0]


def _checkpoint(admin: sa.Engine) -> None:
    with admin.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("CHECKPOINT")


def _settle(engine: sa.Engine) -> None:
    """Wait (at most ``SETTLE_SECONDS``) until no mail is due: a window starts with
    no backlog from the one before (the warm-up's games, the peer's window)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            due = conn.exec_driver_sql(
                "SELECT count(*) FROM outbox WHERE status = 'pending' "
                "AND next_attempt_at <= now() AND held_until IS NULL").scalar()
        if not due:
            return
        time.sleep(0.5)


def _lane(port: int, tables: "Tables", lane: int, until: float) -> list[float]:
    """One client: games one after the other until the window ends, each made when the
    last one ends."""
    latencies: list[float] = []
    while time.perf_counter() < until:
        number, game = tables.make()
        latencies += http_bench.play_game(port, game.tokens, lane * 100_000 + number,
                                          one_request=True, until=until)
    return latencies


def _ours_window(port: int, tables: "Tables", seconds: float) -> tuple[list[float], float]:
    until = time.perf_counter() + seconds
    results, wall = http_bench.in_threads([
        lambda g=g: _lane(port, tables, g, until) for g in range(GAMES)])
    return [x * 1000 for each in results for x in each], wall


def _peer_window(port: int, env: dict[str, str], seconds: float, log: Path,
                 meters: Meters | None) -> tuple[dict[str, Any], dict[str, float]]:
    """drive.js in window mode; ``meters`` read at its first move and after its last, with
    the driver's own CPU (``driver``)."""
    with open(log, "a") as err:
        drive = subprocess.Popen(
            ["node", str(peer_bench.PEER / "drive.js"), str(port), str(GAMES), str(PEER_MOVES),
             str(seconds)], cwd=peer_bench.PEER, env=env, stdout=subprocess.PIPE, stderr=err,
            text=True)
    result: dict[str, Any] | None = None
    spent: dict[str, float] = {}
    driver = 0.0
    try:
        assert drive.stdout is not None
        for line in drive.stdout:
            if not line.startswith("{"):
                continue
            message = json.loads(line)
            if message.get("event") == "start":
                driver = cpu_seconds(drive.pid) or 0.0
                if meters is not None:
                    meters.start()
            elif message.get("event") == "end":
                if meters is not None:
                    spent = meters.stop()
                spent["driver"] = (cpu_seconds(drive.pid) or 0.0) - driver
            else:
                result = message
        drive.wait(timeout=seconds + 120)
    finally:
        if drive.poll() is None:
            drive.kill()
    if drive.returncode != 0 or result is None:
        raise RuntimeError(f"drive.js failed (exit {drive.returncode}):\n{peer_bench._tail(log)}")
    return result, spent


class Tables:
    """Games made one at a time as the clients need them (thread-safe: the clients'
    threads share it). Game ``k``'s seats are ``p<3k>..p<3k+2>@example.com``, regulars
    of the lived store (its history of mail and moves, their caps, trust and quiet
    hours), a table of their own, as on a server of many people (the same three at
    every table would be held by the hourly cap); its seed is ``k``. Made in this
    process through the service the lobby calls (``services.create_game``), so what it
    costs here is counted as the client's CPU and PostgreSQL's."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.made = 0  # (how many so far: the next game's number)
        self._lock = threading.Lock()

    def make(self) -> tuple[int, Any]:
        from app import services

        with self._lock:
            number, self.made = self.made, self.made + 1
        people = [{"name": f"P{seat}", "email": lived_store.address((3 * number + seat) % PEOPLE)}
                  for seat in range(SEATS)]
        with self.app.app_context():
            game = services.create_game(people, {"memory": False}, seed=str(number))
        return number, game


def main() -> None:
    import logging
    logging.getLogger("app").setLevel(logging.WARNING)
    try:
        peer_bench.ensure_installed()
    except peer_bench.PeerUnavailable as exc:
        print(f"peer-lived: skipped ({exc})")
        return
    window, rounds = _window(), _rounds()
    base = http_bench._pg_url()
    schema = os.environ.get("BENCH_LIVED_SCHEMA", lived_store.SCHEMA)
    print(f"== ours beside the peer as production runs them (issue 30 item 5): {rounds} "
          f"rounds of a {window:.0f} s window each, ours then boardgame.io + bgio-postgres; "
          f"{GAMES} games of {SEATS} at once each side; ours = gunicorn (Procfile) + clock + "
          f"inbound on the lived store; CPU of every process, all of PostgreSQL's included")
    lived_url, marks = lived_store.lived_url(
        base, schema=schema, rebuild=os.environ.get("BENCH_LIVED_REBUILD") == "1",
        **lived_bench._sizes())
    print(f"  lived store: schema {schema}: " + ", ".join(
        f"{t} {n:,}" for t, n in marks.get("rows", {}).items()))
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    try:
        with lived_bench.lived(lived_url):
            measured = _run(lived_url, schema, admin, window, rounds)
    finally:
        admin.dispose()
    report(measured)


def _run(url: str, schema: str, admin: sa.Engine, window: float,
         rounds: int) -> list[dict[str, Any]]:
    from app import create_app
    from app.db import get_engine

    secret = secrets.token_urlsafe(32)
    workdir = Path(tempfile.mkdtemp(prefix="silver-eye-peer-lived-"))
    peer_db = f"bench_peer_{uuid.uuid4().hex[:12]}"
    base = http_bench._pg_url()
    peer_url = peer_bench._node_url(sa.engine.make_url(base), peer_db)
    auto = sa.create_engine(base, poolclass=sa.pool.NullPool, isolation_level="AUTOCOMMIT")
    #: one kept connection asks which backends serve whom, so that the asking adds no
    #: backend's start and end to PostgreSQL's CPU in a window
    meter = sa.create_engine(base, pool_size=1, max_overflow=0)
    with auto.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{peer_db}"')
    names = {part: f"silver-eye-{part}-{schema}"[:60] for part in ("web", "clock", "inbound")}
    counts = {part: workdir / f"{part}.json" for part in ("clock", "inbound")}
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": secret,
                      "INSTANCE_PATH": str(workdir / "instance")})
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    measured: list[dict[str, Any]] = []
    try:
        with ExitStack() as stack:
            smtp_port, sink = stack.enter_context(lived_bench.smtp_sink())
            env = dict(os.environ, SECRET_KEY=secret, MAIL_BACKEND="smtp",
                       SMTP_URL=f"smtp://127.0.0.1:{smtp_port}",
                       MAIL_FROM="Silver Eye Post <post@bench.test>", MAIL_DOMAIN="bench.test",
                       INBOUND_SMTP=f"127.0.0.1:{free_port()}", MAIL_RETENTION_DAYS="36500",
                       INSTANCE_PATH=str(workdir / "instance"))
            port, server = stack.enter_context(gunicorn(
                dict(env, DATABASE_URL=lived_bench._named(url, names["web"])), [],
                lambda p: http_bench.Client(p).call("GET", "/api/openapi.json")[0] == 200,
                output=workdir / "gunicorn.log"))
            clock = stack.enter_context(lived_bench.clock_process(
                dict(env, DATABASE_URL=lived_bench._named(url, names["clock"])),
                workdir / "clock.log", counts=counts["clock"]))
            inbound = stack.enter_context(lived_bench.clock_process(
                dict(env, DATABASE_URL=lived_bench._named(url, names["inbound"])),
                workdir / "inbound.log", name="inbound", counts=counts["inbound"]))
            peer_port = free_port()
            peer_env = dict(os.environ, NODE_ENV="production", PEER_PORT=str(peer_port),
                            PEER_DATABASE_URL=peer_url)
            with open(workdir / "peer.log", "w") as out:
                node = subprocess.Popen(["node", str(peer_bench.PEER / "server.js"),
                                         str(peer_port)], cwd=peer_bench.PEER, env=peer_env,
                                        stdout=out, stderr=subprocess.STDOUT)
            stack.callback(stop, node)
            peer_bench._wait_for_server(peer_port, node, workdir / "peer.log")

            ours_pids = {"web": lambda: tree(server.pid), "clock": lambda: tree(clock.pid),
                         "inbound": lambda: tree(inbound.pid)}
            parts: dict[str, Callable[[], list[int]]] = dict(ours_pids)
            parts.update({f"{name}_db": (lambda n=names[name]: backends(meter, n))
                          for name in ours_pids})
            parts["peer"] = lambda: [node.pid]
            parts["peer_db"] = lambda: _database_backends(meter, peer_db)
            # warm-up, not measured: our workers import and cache, the peer's node compiles
            tables = Tables(app)
            _ours_window(port, tables, 5)
            _peer_window(peer_port, peer_env, 5, workdir / "drive.log", None)
            lived_bench._prepare(admin, schema)
            peer_store = sa.create_engine(sa.engine.make_url(base).set(database=peer_db),
                                          poolclass=sa.pool.NullPool,
                                          isolation_level="AUTOCOMMIT")
            with peer_store.connect() as conn:
                conn.exec_driver_sql('VACUUM ANALYZE "Games"')
            peer_store.dispose()
            for number in range(rounds):
                _settle(engine)
                _checkpoint(admin)
                meters = Meters(parts)
                load = _load()
                transactions = {part: lived_bench.transactions(path)
                                for part, path in counts.items()}
                received = sink.count
                client = time.process_time()
                meters.start()
                made = tables.made
                latencies, wall = _ours_window(port, tables, window)
                spent = meters.stop()
                client = time.process_time() - client
                time.sleep(1.0)  # (the counts are written every half second)
                ours: dict[str, Any] = {
                        "moves": len(latencies), "wall": wall, "latencies": latencies,
                        "games": tables.made - made,
                        "cpu": spent, "client": client, "load": (load, _load()),
                        "mails": sink.count - received,
                        "transactions": {part: lived_bench.transactions(path) - transactions[part]
                                         for part, path in counts.items()}}
                _line(number + 1, "ours", ours["moves"], wall, latencies, ours["load"],
                      f"; {ours['games']} games made")

                _checkpoint(admin)
                meters = Meters(parts)
                load = _load()
                transactions = {part: lived_bench.transactions(path)
                                for part, path in counts.items()}
                result, spent = _peer_window(peer_port, peer_env, window,
                                             workdir / "drive.log", meters)
                time.sleep(1.0)
                peer = {"moves": result["moves"], "wall": result["wall_s"], "result": result,
                        "cpu": spent, "load": (load, _load()),
                        "transactions": {part: lived_bench.transactions(path) - transactions[part]
                                         for part, path in counts.items()}}
                print(f"    round {number + 1}: peer: {peer['moves']:>6} moves "
                      f"{result['moves_per_s']:7.1f}/s  p50 {result['p50_ms']:6.2f} ms  p99 "
                      f"{result['p99_ms']:6.2f} ms  ({result['matches_played']} matches; load "
                      f"{peer['load'][0]:.2f} -> {peer['load'][1]:.2f})")
                measured.append(_figures(ours, peer))
                _round_line(number + 1, measured[-1])
    finally:
        engine.dispose()
        meter.dispose()
        get_engine(app).dispose()
        with auto.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{peer_db}" WITH (FORCE)')
        auto.dispose()
        if os.environ.get("BENCH_KEEP"):  # (the logs, and the clock's counted statements)
            print(f"  kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return measured


def _database_backends(admin: sa.Engine, database: str) -> list[int]:
    with admin.connect() as conn:
        return [row[0] for row in conn.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :d"), {"d": database})]


def _ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _line(number: int, who: str, moves: int, wall: float, latencies: list[float],
          load: tuple[float, float], more: str = "") -> None:
    print(f"    round {number}: {who}: {moves:>6} moves {moves / wall:7.1f}/s  p50 "
          f"{_ms(latencies, 0.5):6.2f} ms  p99 {_ms(latencies, 0.99):6.2f} ms  (load "
          f"{load[0]:.2f} -> {load[1]:.2f}{more})")


OURS = ("web", "clock", "inbound")


def _figures(ours: dict[str, Any], peer: dict[str, Any]) -> dict[str, Any]:
    """One round's figures; each side billed for its own processes and backends in both
    windows, and for PostgreSQL's background work in its own window."""
    def background(cpu: dict[str, float]) -> float:
        known = sum(cpu[f"{part}_db"] for part in OURS) + cpu["peer_db"]
        return max(0.0, cpu["postgres"] - known)

    o, p = ours["cpu"], peer["cpu"]
    ours_moves, peer_moves = max(ours["moves"], 1), max(peer["moves"], 1)
    parts = {part: 1000 * (o[part] + p[part]) / ours_moves for part in OURS}
    ours_db = 1000 * (sum(o[f"{part}_db"] + p[f"{part}_db"] for part in OURS)
                      + background(o)) / ours_moves
    clock_db = 1000 * (o["clock_db"] + p["clock_db"]) / ours_moves
    clock_xacts = (ours["transactions"]["clock"] + peer["transactions"]["clock"]) / ours_moves
    inbound_xacts = (ours["transactions"]["inbound"]
                     + peer["transactions"]["inbound"]) / ours_moves
    peer_server = 1000 * (o["peer"] + p["peer"]) / peer_moves
    peer_db = 1000 * (o["peer_db"] + p["peer_db"] + background(p)) / peer_moves
    return {
        "ours_rate": ours["moves"] / ours["wall"], "peer_rate": peer["result"]["moves_per_s"],
        "ours_p50": _ms(ours["latencies"], 0.5), "ours_p99": _ms(ours["latencies"], 0.99),
        "peer_p50": peer["result"]["p50_ms"], "peer_p99": peer["result"]["p99_ms"],
        "ours_parts": parts, "ours_server": sum(parts.values()), "ours_db": ours_db,
        "ours_background": 1000 * background(o) / ours_moves,
        "peer_background": 1000 * background(p) / peer_moves,
        "clock_db": clock_db, "clock_xacts": clock_xacts, "inbound_xacts": inbound_xacts,
        "peer_server": peer_server, "peer_db": peer_db,
        "ours_client": 1000 * ours["client"] / ours_moves,
        "peer_client": 1000 * p.get("driver", 0.0) / peer_moves,
        "ours_mails": ours["mails"],
        "load": (ours["load"][0], ours["load"][1], peer["load"][0], peer["load"][1]),
    }


def _round_line(number: int, f: dict[str, Any]) -> None:
    parts = ", ".join(f"{part} {f['ours_parts'][part]:.2f}" for part in OURS)
    print(f"      ours ÷ peer: moves/s {f['ours_rate'] / f['peer_rate']:.2f}x, p99 "
          f"{f['ours_p99']:.1f} vs {f['peer_p99']:.1f} ms; CPU a move: server "
          f"{f['ours_server']:.2f} ms ({parts}) vs {f['peer_server']:.2f}, PostgreSQL "
          f"{f['ours_db']:.2f} vs {f['peer_db']:.2f} ms (of it background, no backend's: "
          f"{f['ours_background']:.2f} vs {f['peer_background']:.2f}), client "
          f"{f['ours_client']:.2f} vs {f['peer_client']:.2f} ms")
    print(f"      our clock: {f['ours_parts']['clock']:.3f} ms CPU a move, its backends "
          f"{f['clock_db']:.3f} ms, {f['clock_xacts']:.3f} transactions a move (goal <= 0.5 ms, "
          f"<= 0.1); the receiver {f['ours_parts']['inbound']:.3f} ms, "
          f"{f['inbound_xacts']:.3f} transactions a move; {f['ours_mails']} mails received "
          f"in our window")


def report(measured: list[dict[str, Any]]) -> None:
    if not measured:
        return

    def median(key: str) -> float:
        return statistics.median(f[key] for f in measured)

    ratios = [f["ours_rate"] / f["peer_rate"] for f in measured]
    print(f"  median of {len(measured)} rounds: ours {median('ours_rate'):.1f} moves/s, peer "
          f"{median('peer_rate'):.1f}: ours ÷ peer {statistics.median(ratios):.2f}x (goal >= "
          f"1.5x; rounds " + ", ".join(f"{r:.2f}" for r in ratios) + f"); p99 ours "
          f"{median('ours_p99'):.1f} ms vs peer {median('peer_p99'):.1f} ms (goal <=); CPU a "
          f"move, server + PostgreSQL: ours {median('ours_server'):.2f} + "
          f"{median('ours_db'):.2f} ms, peer {median('peer_server'):.2f} + "
          f"{median('peer_db'):.2f} ms; the clock {median('clock_xacts'):.3f} transactions "
          f"and " + f"{statistics.median(f['ours_parts']['clock'] for f in measured):.3f} ms "
          f"a move; load at the windows' starts " + ", ".join(
              f"{f['load'][0]:.2f}/{f['load'][2]:.2f}" for f in measured))


if __name__ == "__main__":
    main()
