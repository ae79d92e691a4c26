"""HTTP benchmark (part of ``make bench``): moves through the real web stack.

gunicorn with two workers on PostgreSQL, several games played at once by
client threads over keep-alive HTTP on 127.0.0.1:

1. Submit-action throughput and p50/p99 latency (``POST /api/play/<token>/actions``,
   with the mail/clock hooks and the state cache, i.e. the production path),
   beside a bare baseline endpoint that parses JSON, reads the last step and
   inserts one row (``POST /api/bench/insert/<game>``, served only when
   ``BENCH_ENDPOINTS=1``), measured in the same run with the same threads.
2. The latency of the first ten vs the last ten actions of complete four-round
   games: it must stay flat, since an action costs one cached state plus the
   actions after it, never a replay of the whole log.
3. What an open page costs: requests/s of the live-update probe
   (``GET /games/<id>/seq``, answered 304 while nothing moved and 200 when it
   did) beside the seat page itself (``GET /play/<token>``, full render), whose
   p50/p99 is the seat-page render time, and the seat's JSON view.

PostgreSQL comes from ``BENCH_DATABASE_URL`` or ``TEST_DATABASE_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); the run works in a
schema of its own and drops it afterwards.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import shutil
import statistics
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import sqlalchemy as sa

from bench.processes import HOST, CpuMeter, backends, gunicorn, tree

GAMES = 8                 # games played at once, one client thread each
SEATS = 3
BASELINE_PER_THREAD = 250
MAX_MOVES_PER_GAME = 3000


def _pg_url() -> str:
    return (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _with_schema(url: str, schema: str) -> str:
    parsed = sa.engine.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


def _ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


#: The app's own CPU per request, by kind ("POST move", "GET actions", "POST insert"...),
#: as the server reports it with BENCH_ENDPOINTS on (``X-Server-CPU-Ms``): what a
#: section's /proc total cannot split between a move's POST and its GET.
SERVER_CPU: dict[str, list[float]] = {}
_SERVER_CPU_LOCK = threading.Lock()
#: Statements per request, by kind, when the server says (``X-Bench-Statements``, added
#: by bench/served/counted_wsgi.py, which ``python -m bench against`` serves).
STATEMENTS: dict[str, list[int]] = {}


def _kind(method: str, path: str) -> str:
    if "/bench/insert/" in path:
        return "POST insert"
    return f"{method} {'move' if method == 'POST' else 'actions'}" if path.endswith(
        "/actions") else f"{method} other"


class Client:
    """One keep-alive HTTP connection that times its POSTs."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        start = time.perf_counter()
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        elapsed = time.perf_counter() - start
        cpu = response.getheader("X-Server-CPU-Ms")
        if cpu is not None:
            with _SERVER_CPU_LOCK:
                SERVER_CPU.setdefault(_kind(method, path), []).append(float(cpu))
        statements = response.getheader("X-Bench-Statements")
        if statements is not None:
            with _SERVER_CPU_LOCK:
                STATEMENTS.setdefault(_kind(method, path), []).append(int(statements))
        return response.status, json.loads(payload or b"null"), elapsed


def per_request_cpu_line() -> str:
    """The app's CPU per request of each kind since the last call (medians), and the
    POST's against the bare insert's: what "the POST >= 0.5x the bare insert" asks."""
    with _SERVER_CPU_LOCK:
        taken = {kind: statistics.median(values) for kind, values in SERVER_CPU.items()}
        SERVER_CPU.clear()
    parts = [f"{kind} {value:.2f} ms" for kind, value in sorted(taken.items())]
    line = "app CPU per request (median, X-Server-CPU-Ms): " + ", ".join(parts)
    if "POST move" in taken and "POST insert" in taken:
        line += (f"; bare insert ÷ POST of a move: "
                 f"{taken['POST insert'] / taken['POST move']:.2f}x")
    return line


def play_game(port: int, tokens: list[str], seed: int, kinds: list[str] | None = None,
              one_request: bool = False, counts: dict[str, int] | None = None,
              until: float | None = None) -> list[float]:
    """Play one game to its end over HTTP; return the latency of every move.

    Two requests per move (``one_request=False``): the mover GETs its legal
    actions, then POSTs one; the latency is the POST's. One request per move:
    each seat keeps the view its last answer carried (a POST's answer has the
    seat's new view and legal actions), so a seat that goes on with its own
    turn only POSTs; a seat whose view is older than the game (someone else
    moved since) fetches it first, once, as its page would when told it is
    its turn. Then the latency is the whole move, fetch included, and
    ``counts`` adds up the requests of each kind. ``until``: no move is begun once
    ``time.perf_counter()`` has passed it (a measured window's end; the game is left
    unfinished).
    """
    client, rng, latencies = Client(port), random.Random(seed), []
    status, state, _ = client.call("GET", f"/api/play/{tokens[0]}")
    assert status == 200, state
    seq, to_act, round_no = state["seq"], state["view"]["to_act"], state["view"]["round"]
    known: dict[int, tuple[int, list[Any]]] = {}  # seat -> (seq, legal actions) it holds
    counts = counts if counts is not None else {}
    for _ in range(MAX_MOVES_PER_GAME):
        if not to_act or (until is not None and time.perf_counter() >= until):
            break
        seat = rng.choice(to_act)
        fetched = 0.0
        if not one_request or known.get(seat, (-1, []))[0] != seq:
            status, legal, fetched = client.call("GET", f"/api/play/{tokens[seat]}/actions")
            assert status == 200 and legal["seq"] == seq, legal
            known[seat] = (seq, legal["legal_actions"])
            counts["GET"] = counts.get("GET", 0) + 1
        action = rng.choice(known[seat][1])
        status, answer, elapsed = client.call(
            "POST", f"/api/play/{tokens[seat]}/actions", {"action": action, "expected_seq": seq})
        assert status == 200, answer
        counts["POST"] = counts.get("POST", 0) + 1
        latencies.append(elapsed + (fetched if one_request else 0.0))
        if kinds is not None:
            kinds.append((action["type"], round_no))
        seq = answer["seq"]
        if answer["game"]["status"] != "running":
            break
        known[seat] = (seq, answer["view"].get("legal_actions", []))
        to_act, round_no = answer["view"]["to_act"], answer["view"]["round"]
    else:
        raise RuntimeError("a benchmark game did not end")
    return latencies


def get_many(port: int, path: str, count: int, etag: bool = False) -> list[float]:
    """GET ``path`` ``count`` times on one keep-alive connection; with ``etag``, send back
    the ETag of the first answer (an open page asking "did the game move?")."""
    conn, latencies, headers = http.client.HTTPConnection(HOST, port, timeout=60), [], {}
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        response.read()
        latencies.append(time.perf_counter() - start)
        assert response.status in (200, 304), (path, response.status)
        if etag and response.getheader("ETag"):
            headers = {"If-None-Match": response.getheader("ETag")}
    return latencies


def baseline(port: int, game_id: str, count: int) -> list[float]:
    client, latencies = Client(port), []
    for n in range(count):
        status, answer, elapsed = client.call("POST", f"/api/bench/insert/{game_id}", {"n": n})
        assert status == 200, answer
        latencies.append(elapsed)
    return latencies


def in_threads(work: list[Any]) -> tuple[list[Any], float]:
    """Run the callables at once; return their results and the wall time."""
    results: list[Any] = [None] * len(work)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            results[index] = work[index]()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=900)
    wall = time.perf_counter() - start
    if errors:
        raise errors[0]
    return results, wall


def _line(label: str, samples: list[float], wall: float) -> str:
    return (f"  {label:<26} {len(samples):>6} requests  {len(samples) / wall:>8.1f}/s  "
            f"p50 {_ms(samples, 0.50):7.2f} ms  p99 {_ms(samples, 0.99):7.2f} ms")


#: The gunicorn setups compared in one run. The first is the Procfile's (no
#: flags: gunicorn.conf.py, sync workers, one per core); the rest of the run
#: (cost over a game, open pages) is measured on it, the peer runs right after
#: it, and the others are compared with it: threads share a worker's GIL, and
#: kept-alive connections stay with the worker that accepted them
#: (docs/benchmarks.md).
SETUPS = [
    ("Procfile: gunicorn.conf.py (sync, a worker per core)", []),
    ("gthread, 2 workers x 4 threads, keep-alive", [
        "--workers", "2", "--worker-class", "gthread", "--threads", "4", "--keep-alive", "30"]),
    ("gthread, 4 workers x 1 thread, keep-alive", [
        "--workers", "4", "--worker-class", "gthread", "--threads", "1", "--keep-alive", "30"]),
]


class Section:
    """One measured section: client threads at work, and the CPU it cost."""

    def __init__(self, server_pid: int, admin: sa.engine.Engine, app_name: str) -> None:
        self.server = CpuMeter(lambda: tree(server_pid))
        self.database = CpuMeter(lambda: backends(admin, app_name))

    def run(self, label: str, work: list[Any], unit: str = "moves") -> dict[str, Any]:
        before = os.getloadavg()[0]
        self.server.start()
        self.database.start()
        client_cpu = time.process_time()  # this process: the client threads
        results, wall = in_threads(work)
        client_cpu = time.process_time() - client_cpu
        server_cpu, database_cpu = self.server.stop(), self.database.stop()
        flat = [x for each in results for x in each]
        figures = {"label": label, "count": len(flat), "rate": len(flat) / wall,
                   "p50": _ms(flat, 0.50), "p99": _ms(flat, 0.99),
                   "server_ms": 1000 * server_cpu / len(flat),
                   "database_ms": 1000 * database_cpu / len(flat),
                   "client_ms": 1000 * client_cpu / len(flat),
                   "load": (before, os.getloadavg()[0]), "each": results}
        print(f"    {label:<34} {len(flat):>5} {unit:<8} {figures['rate']:7.1f}/s  "
              f"p50 {figures['p50']:6.2f} ms  p99 {figures['p99']:6.2f} ms  "
              f"CPU/{unit[:-1]}: server {figures['server_ms']:5.2f} ms, PostgreSQL "
              f"{figures['database_ms']:5.2f} ms, client {figures['client_ms']:4.2f} ms  (load {before:.2f} -> {figures['load'][1]:.2f})")
        return figures


def main() -> None:
    print(f"HTTP benchmark: gunicorn on PostgreSQL, {GAMES} games of {SEATS} seats "
          f"played at once ({GAMES} client threads, keep-alive, {HOST}); "
          f"CPU read from /proc for the gunicorn processes and their PostgreSQL backends; "
          f"each setup on a schema of its own")
    measured: dict[str, dict[str, Any]] = {}
    for number, (label, args) in enumerate(SETUPS):
        measured[label] = measure_setup(label, args, production=number == 0)
    _compare(measured)


@contextmanager
def bench_schema() -> Iterator[tuple[str, str, sa.engine.Engine]]:
    """A fresh schema (dropped afterwards): ``(url, server url, admin engine)``.

    Every setup starts from empty tables, so one measured later does not pay
    for the rows and dead tuples the earlier ones left (it did: by a tenth)."""
    base = _pg_url()
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql("CHECKPOINT")  # what the last setup wrote is on disk now
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = _with_schema(base, schema)
    server_url = sa.engine.make_url(url).update_query_dict(  # its backends, told by name
        {"application_name": f"silver-eye-{schema}"}).render_as_string(hide_password=False)
    try:
        yield url, server_url, admin
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def measure_setup(label: str, args: list[str], production: bool) -> dict[str, Any]:
    """Moves two ways and the bare insert on one gunicorn setup (and, on the
    ``production`` one, the rest of the run)."""
    from app import create_app, services
    from app.db import get_engine, upgrade

    secret = secrets.token_urlsafe(32)
    workdir = tempfile.mkdtemp(prefix="silver-eye-bench-")
    try:
        with bench_schema() as (url, server_url, admin):
            upgrade(url)
            app = create_app({"DATABASE_URL": url, "SECRET_KEY": secret,
                              "INSTANCE_PATH": str(Path(workdir) / "instance")})
            people = [{"name": f"P{i}", "email": f"p{i}@example.com"} for i in range(SEATS)]

            def new_games(first_seed: int, abandoned: bool = False) -> list[Any]:
                with app.app_context():
                    made = [services.create_game(people, {"memory": False},
                                                 seed=str(first_seed + g)) for g in range(GAMES)]
                    for game in made if abandoned else []:  # the baseline writes its rows here
                        services.abandon_game(game.game_id)
                return made

            two, one, inserts = new_games(1000), new_games(1000), new_games(9000, abandoned=True)
            env = dict(os.environ, DATABASE_URL=server_url, SECRET_KEY=secret,
                       BENCH_ENDPOINTS="1", MAIL_BACKEND="file",
                       MAIL_DIR=str(Path(workdir) / "mail"))
            app_name = sa.engine.make_url(server_url).query["application_name"]
            with gunicorn(env, args, lambda port: Client(port).call(
                    "GET", "/api/openapi.json")[0] == 200) as (port, server):
                print(f"  {label} ({' '.join(args) or 'gunicorn.conf.py'}):")
                section = Section(server.pid, admin, str(app_name))
                each_counts: list[dict[str, int]] = [{} for _ in range(GAMES)]
                SERVER_CPU.clear()
                figures = {
                    "two": section.run("move = GET legal actions + POST", [
                        lambda g=g: play_game(port, two[g].tokens, g) for g in range(GAMES)]),
                    "one": section.run("move = POST (GET at turn start)", [
                        lambda g=g: play_game(port, one[g].tokens, g, one_request=True,
                                              counts=each_counts[g]) for g in range(GAMES)]),
                    "insert": section.run("baseline: bare one-insert POST", [
                        lambda g=g: baseline(port, inserts[g].game_id, BASELINE_PER_THREAD)
                        for g in range(GAMES)], unit="requests"),
                }
                print(f"      {per_request_cpu_line()}")
                posts = sum(c.get("POST", 0) for c in each_counts)
                gets = sum(c.get("GET", 0) for c in each_counts)
                print(f"      the one-request path sent {posts} POSTs and {gets} GETs: "
                      f"{(posts + gets) / max(1, posts):.2f} requests per move")
                if production:
                    rest_of_run(port, app, people, figures["two"]["each"])
                    figures["pairs"] = against_the_peer(
                        section, port, lambda r: new_games(5000 + 100 * r))
            get_engine(app).dispose()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return figures


#: Rounds of "ours, then the peer" on the same machine: its speed drifts by
#: a third from one minute to the next (shared cores), so each pair is
#: compared on its own and the median ratio is the figure.
PEER_ROUNDS = 3


def against_the_peer(section: Section, port: int,
                     games: Callable[[int], list[Any]]) -> list[tuple[dict[str, Any],
                                                                      dict[str, Any]]]:
    """``PEER_ROUNDS`` pairs: our one-request moves, then the peer's run at once."""
    from bench.peer_bench import PeerUnavailable, figure_line, run_peer

    pairs = []
    print(f"  against the peer, {PEER_ROUNDS} rounds of ours (one request a move) then "
          f"boardgame.io:")
    for round_no in range(PEER_ROUNDS):
        played = games(round_no)
        ours = section.run(f"round {round_no + 1}: ours", [
            lambda g=g, played=played: play_game(port, played[g].tokens, g, one_request=True)
            for g in range(GAMES)])
        try:
            peer = run_peer()
        except PeerUnavailable as exc:
            print(f"    peer: skipped ({exc})")
            return pairs
        print("  " + figure_line(peer).strip().replace("peer:", f"  round {round_no + 1}: peer:")
              + f"  (load {os.getloadavg()[0]:.2f})")
        pairs.append((ours, peer))
    return pairs


def _compare(measured: dict[str, dict[str, Any]]) -> None:
    """The ratios the issue sets goals on, each against figures of this very run."""
    ours = list(measured.values())[0]
    print("  same run, ratios:")
    for label, figures in measured.items():
        print(f"    {label}: one-request moves/s {figures['one']['rate'] / ours['one']['rate']:.2f}x"
              f" the Procfile's; moves/s ÷ bare-insert requests/s: two requests "
              f"{figures['two']['rate'] / figures['insert']['rate']:.2f}, one request "
              f"{figures['one']['rate'] / figures['insert']['rate']:.2f}")
    pairs = ours.get("pairs") or []
    for number, (one, peer) in enumerate(pairs, 1):
        print(f"    round {number}, ours ÷ peer: moves/s {one['rate'] / peer['moves_per_s']:.2f}x; "
              f"p99 {one['p99']:.1f} vs {peer['p99_ms']:.1f} ms; CPU/move: server "
              f"{one['server_ms']:.2f} vs {peer['server_cpu_ms_per_move']:.2f} ms, PostgreSQL "
              f"{one['database_ms']:.2f} vs {peer['pg_cpu_ms_per_move']:.2f} ms, client "
              f"{one['client_ms']:.2f} vs {peer['driver_cpu_ms_per_move']:.2f} ms")
    if pairs:
        ratios = sorted(one["rate"] / peer["moves_per_s"] for one, peer in pairs)
        print(f"    median of the rounds, ours ÷ peer moves/s: {ratios[len(ratios) // 2]:.2f}x "
              f"(ours {sorted(o['rate'] for o, _ in pairs)[len(pairs) // 2]:.0f}/s, p99 "
              f"{sorted(o['p99'] for o, _ in pairs)[len(pairs) // 2]:.1f} ms, server CPU "
              f"{sorted(o['server_ms'] for o, _ in pairs)[len(pairs) // 2]:.2f} ms/move)")


def rest_of_run(port: int, app: Any, people: list[dict[str, str]],
                played: list[list[float]]) -> None:
    """Cost over a game's length, and open pages, on the production setup."""
    from app import services

    with app.app_context():
        single = services.create_game(people, {"memory": False}, seed="4242")
    alone_kinds: list[str] = []
    alone = play_game(port, single.tokens, 4242, alone_kinds)
    first = [x for game in played + [alone] for x in game[:10]]
    last = [x for game in played + [alone] for x in game[-10:]]
    lengths = sorted(len(game) for game in played + [alone])
    print(f"  complete 4-round games ({len(lengths)}, {lengths[0]}-{lengths[-1]} actions): "
          f"first ten POSTs p50 {_ms(first, 0.5):.2f} ms, last ten p50 "
          f"{_ms(last, 0.5):.2f} ms (ratio {_ms(last, 0.5) / _ms(first, 0.5):.2f})")
    print(f"  one game alone ({len(alone)} actions, no other load): first ten p50 "
          f"{_ms(alone[:10], 0.5):.2f} ms, middle ten "
          f"{_ms(alone[len(alone) // 2:len(alone) // 2 + 10], 0.5):.2f} ms, last ten "
          f"{_ms(alone[-10:], 0.5):.2f} ms (the last ones end the game: final scores and "
          f"result mails)")
    # like with like: a draw costs less than a move that hands the turn on (and mails)
    # the views carry this round's and the last round's public log, so cost may move
    # within a round but must not grow from round to round: compare the same place
    for round_no in (2, 3, 4):
        times = [t for t, (_, r) in zip(alone, alone_kinds) if r == round_no]
        print(f"    round {round_no}: first ten p50 {_ms(times[:10], 0.5):.2f} ms, "
              f"last ten p50 {_ms(times[-10:], 0.5):.2f} ms ({len(times)} actions)")
    for kind in ("draw", "discard", "exchange"):
        times = [t for t, (k, _) in zip(alone[:-1], alone_kinds[:-1]) if k == kind]
        if len(times) >= 20:
            print(f"    same move, early vs late: '{kind}' first ten p50 {_ms(times[:10], 0.5):.2f} ms,"
                  f" last ten p50 {_ms(times[-10:], 0.5):.2f} ms"
                  f" (ratio {_ms(times[-10:], 0.5) / _ms(times[:10], 0.5):.2f}, {len(times)} of them)")
    open_pages(port, app, people)


PAGE_GETS = 150            # per client thread


def open_pages(port: int, app: Any, people: list[dict[str, str]]) -> None:
    """Section 3: what keeps a page current costs next to what it costs to show it."""
    from app import services

    with app.app_context():
        game = services.create_game(people, {"memory": False}, seed="777")
    play_game_partly(port, game.tokens, 777, 60)
    with app.app_context():
        step = services.game_info(game.game_id).seq
    print(f"  open pages ({GAMES} threads, one game at step {step}):")
    rows = [("live probe, 304 (ETag)", f"/games/{game.game_id}/seq", True),
            ("live probe, 200", f"/games/{game.game_id}/seq", False),
            ("seat page (HTML render)", f"/play/{game.tokens[0]}", False),
            ("seat view (JSON API)", f"/api/play/{game.tokens[0]}", False)]
    rates = {}
    for label, path, etag in rows:
        samples, wall = in_threads([lambda p=path, e=etag: get_many(port, p, PAGE_GETS, e)
                                    for _ in range(GAMES)])
        flat = [x for thread in samples for x in thread]
        rates[label] = len(flat) / wall
        print("  " + _line(label, flat, wall))
    print(f"    the probe answers {rates['live probe, 304 (ETag)'] / rates['seat page (HTML render)']:.1f}x "
          f"as many requests/s as the seat page: a page polling every 3 s costs "
          f"{100 * (1 / 3) / rates['live probe, 304 (ETag)']:.3f}% of one server's capacity")


def play_game_partly(port: int, tokens: list[str], seed: int, moves: int) -> None:
    """A few random moves, so the pages measured show a game under way."""
    client, rng = Client(port), random.Random(seed)
    status, state, _ = client.call("GET", f"/api/play/{tokens[0]}")
    seq, to_act = state["seq"], state["view"]["to_act"]
    for _ in range(moves):
        if not to_act:
            return
        seat = rng.choice(to_act)
        _, legal, _ = client.call("GET", f"/api/play/{tokens[seat]}/actions")
        action = rng.choice(legal["legal_actions"])
        status, answer, _ = client.call("POST", f"/api/play/{tokens[seat]}/actions",
                                        {"action": action, "expected_seq": seq})
        assert status == 200, answer
        seq, to_act = answer["seq"], answer["view"]["to_act"]
        if answer["game"]["status"] != "running":
            return


if __name__ == "__main__":
    main()
