"""The peer benchmark (``python -m bench peer``): boardgame.io run beside ours.

A figure of ours means more next to what the best-known open-source turn-based
game server does on the same machine in the same session, so this runs one:
boardgame.io 0.50 with its PostgreSQL storage (bgio-postgres), serving a small
hidden-information card game for three (bench/peer/game.js), with 8 matches
played at once by boardgame.io's own client over its socket.io transport
(bench/peer/drive.js, one client per seat).  It reports moves/s, p50/p99 of a
move (from ``client.moves.x()`` to the server's new state arriving at the
mover), the server's CPU time per move (the node process, from /proc) and
PostgreSQL's (the backends serving the run's database, found through
``pg_stat_activity``), and the p50 of moves 1-10 beside moves 191-200: the
peer rewrites a match's whole JSON log on every save, so its cost grows with
the match.  Under load the first and last moves also see the run ramp up and
tail off, so one more match is played alone after the run and its moves 1-10,
96-105 and 191-200 show the growth cleanly.  Two short warm-up matches before
the run are not counted at all.

The peer does less per move than ours (no signed-link check, rules a fraction
of the size, no mail or deadline rows); see bench/peer/README.md.

Needs node and npm: ``bench/peer/node_modules`` is installed from the pinned
package.json/package-lock.json on first use; without node the suite says so and
skips.  PostgreSQL comes from ``BENCH_DATABASE_URL`` or ``TEST_DATABASE_URL``
(default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``); bgio-postgres
always names its table "Games", so the run gets a database of its own
(``bench_peer_<random>``), dropped afterwards.

``run_peer()`` returns the figures as a dict, for a suite that wants to print a
ratio against ours from the same run; it raises ``PeerUnavailable`` when node or
npm is missing.
"""
from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bench.processes import HOST, cpu_seconds, free_port, wait_until_ready

PEER = Path(__file__).resolve().parent / "peer"
MATCHES = 8
MOVES_PER_MATCH = 200
STARTUP_SECONDS = 30
DRIVE_SECONDS = 900
POLL_SECONDS = 0.2        # how often the PostgreSQL backends' CPU time is sampled


class PeerUnavailable(RuntimeError):
    """node or npm is not installed, so the peer cannot run."""


def _pg_url() -> str:
    return (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _node_url(url: sa.engine.URL, database: str) -> str:
    """The URL for sequelize (``postgres://user:password@host:port/database``)."""
    return sa.engine.URL.create("postgres", username=url.username, password=url.password,
                                host=url.host or HOST, port=url.port or 5432,
                                database=database).render_as_string(hide_password=False)


def _version(package: str) -> str:
    return json.loads((PEER / "node_modules" / package / "package.json").read_text())["version"]


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def ensure_installed() -> None:
    """Install bench/peer/node_modules from the pinned lockfile unless it is there."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise PeerUnavailable("node and npm are needed for the peer (boardgame.io) benchmark")
    if (PEER / "node_modules" / "boardgame.io").is_dir() and (PEER / "node_modules" / "bgio-postgres").is_dir():
        return
    print("  installing the peer into bench/peer/node_modules (npm install) ...")
    subprocess.run(["npm", "install", "--prefix", str(PEER), "--no-audit", "--no-fund"],
                   check=True, stdout=subprocess.DEVNULL)


class BackendCPU:
    """CPU time of the PostgreSQL backends connected to one database.

    A thread samples them every POLL_SECONDS between start() and stop(), so a
    backend that appears mid-run is counted from its birth; the pool keeps its
    connections open, so none should end before the last sample."""

    def __init__(self, admin: sa.engine.Engine, database: str) -> None:
        self.admin, self.database = admin, database
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self, first: bool = False) -> None:
        with self.admin.connect() as conn:
            pids = conn.execute(sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :d"),
                                {"d": self.database}).scalars().all()
        for pid in pids:
            cpu = cpu_seconds(pid)
            if cpu is None:
                continue
            self.first.setdefault(pid, cpu if first else 0.0)
            self.last[pid] = cpu

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self._sample()

    def start(self) -> None:
        self._sample(first=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def stop(self) -> float:
        self.close()
        self._sample()
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


def _wait_for_server(port: int, server: subprocess.Popen, log: Path) -> None:
    def answers() -> bool:
        conn = http.client.HTTPConnection(HOST, port, timeout=5)
        conn.request("GET", "/games")
        return conn.getresponse().status == 200

    wait_until_ready(answers, server, STARTUP_SECONDS,
                     lambda: f"the peer server did not start:\n{_tail(log)}")


def _drive(port: int, env: dict[str, str], server_pid: int, backends: BackendCPU,
           log: Path) -> tuple[dict[str, Any], float, float, float]:
    """Run drive.js; return its results and the server's, PostgreSQL's and the
    driver's own CPU seconds from the start of play to the last move's answer
    (the driver shares the machine's cores, as our benchmark's client does)."""
    with open(log, "w") as err:
        drive = subprocess.Popen(["node", str(PEER / "drive.js"), str(port), str(MATCHES),
                                  str(MOVES_PER_MATCH)],
                                 cwd=PEER, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
    timer = threading.Timer(DRIVE_SECONDS, drive.kill)
    timer.start()
    server_start = server_cpu = pg_cpu = result = driver_start = driver_cpu = None
    try:
        for line in drive.stdout:
            if not line.startswith("{"):
                continue   # only our JSON lines matter (NODE_ENV=production keeps the rest quiet)
            message = json.loads(line)
            if message.get("event") == "start":
                server_start = cpu_seconds(server_pid)
                driver_start = cpu_seconds(drive.pid)
                backends.start()
            elif message.get("event") == "end":
                server_cpu = cpu_seconds(server_pid) - server_start
                driver_cpu = cpu_seconds(drive.pid) - driver_start
                pg_cpu = backends.stop()
            else:
                result = message
        drive.wait()
    finally:
        timer.cancel()
        backends.close()
        if drive.poll() is None:
            drive.kill()
    if drive.returncode != 0 or result is None or server_cpu is None:
        raise RuntimeError(f"drive.js failed (exit {drive.returncode}):\n{_tail(log)}")
    return result, server_cpu, pg_cpu, driver_cpu


def run_peer() -> dict[str, Any]:
    """Run the peer once and return its figures (see the module docstring)."""
    ensure_installed()
    base = sa.engine.make_url(_pg_url())
    database = f"bench_peer_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool, isolation_level="AUTOCOMMIT")
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="silver-eye-peer-"))
    env = dict(os.environ, NODE_ENV="production", PEER_PORT=str(port),
               PEER_DATABASE_URL=_node_url(base, database))
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
    server = None
    try:
        server_log = workdir / "server.log"
        with open(server_log, "w") as out:
            server = subprocess.Popen(["node", str(PEER / "server.js"), str(port)], cwd=PEER,
                                      env=env, stdout=out, stderr=subprocess.STDOUT)
        _wait_for_server(port, server, server_log)
        backends = BackendCPU(admin, database)
        result, server_cpu, pg_cpu, driver_cpu = _drive(port, env, server.pid, backends, workdir / "drive.log")
        moves = result["moves"]
        result.update(
            boardgameio=_version("boardgame.io"), bgio_postgres=_version("bgio-postgres"),
            server_cpu_ms_per_move=round(1000 * server_cpu / moves, 2),
            pg_cpu_ms_per_move=round(1000 * pg_cpu / moves, 2),
            driver_cpu_ms_per_move=round(1000 * driver_cpu / moves, 2),
            pg_backends=len(backends.last))
        return result
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.dispose()
        shutil.rmtree(workdir, ignore_errors=True)


def figure_line(r: dict[str, Any]) -> str:
    """The one-line summary of ``run_peer()``'s figures."""
    minor = ".".join(r["boardgameio"].split(".")[:2])
    return (f"  peer: boardgame.io {minor} + bgio-postgres, {r['matches']} matches x {r['seats']} "
            f"players over socket.io: {r['moves_per_s']:.0f} moves/s, p50 {r['p50_ms']:.1f} ms, "
            f"p99 {r['p99_ms']:.1f} ms; server CPU {r['server_cpu_ms_per_move']:.2f} ms/move, "
            f"PostgreSQL CPU {r['pg_cpu_ms_per_move']:.2f} ms/move, driver (client) CPU "
            f"{r['driver_cpu_ms_per_move']:.2f} ms/move; moves 1-10 p50 "
            f"{r['first10_p50_ms']:.1f} ms, moves 191-200 p50 {r['moves191_200_p50_ms']:.1f} ms")


def main() -> None:
    print(f"Peer benchmark: boardgame.io + bgio-postgres (bench/peer), {MATCHES} matches of "
          f"3 seats played at once, {MOVES_PER_MATCH} moves each, one socket.io client per seat")
    try:
        result = run_peer()
    except PeerUnavailable as e:
        print(f"  skipped: {e}")
        return
    print(figure_line(result))
    print(f"    (boardgame.io {result['boardgameio']}, bgio-postgres {result['bgio_postgres']}; "
          f"{result['moves']} moves in {result['wall_s']:.1f} s; "
          f"CPU of the node server and of {result['pg_backends']} PostgreSQL backends, "
          f"from the first move to the last)")
    print(f"    one match alone ({result['alone_moves']} moves, no other load): moves 1-10 p50 "
          f"{result['alone_first10_p50_ms']:.2f} ms, moves 96-105 "
          f"{result['alone_middle10_p50_ms']:.2f} ms, moves 191-200 "
          f"{result['alone_moves191_200_p50_ms']:.2f} ms (ratio "
          f"{result['alone_moves191_200_p50_ms'] / result['alone_first10_p50_ms']:.2f}): each save "
          f"rewrites the match's whole JSON log; under load the first and last moves also see "
          f"the run's ramp up and tail off")


if __name__ == "__main__":
    main()
