"""This tree against another (the commit before the redesign), interleaved in one run.

    .venv/bin/python -m bench against /work/before                  # SQLite and PostgreSQL
    .venv/bin/python -m bench against /work/before --db sqlite --rounds 3 --games 4

Issue 18's acceptance: "the redesigned main against a worktree of the commit
before the redesign, interleaved in one run: one-request moves/s >= 0.95x and
p99 <= 1.1x of before; statements per POST/GET unchanged or fewer."

Each round plays the other tree, then this one (before, after, before, after...):
each on a database of its own (a fresh SQLite file, or a fresh PostgreSQL schema
dropped afterwards), migrated and given its games by that tree's own code with
that tree's own interpreter (bench/served/setup_games.py), and served by
gunicorn started from that tree's root with its interpreter and its
gunicorn.conf.py (the Procfile's setup: sync workers, one per core), through
bench/served/counted_wsgi.py, which adds to every answer the statements it sent.
The client threads here play ``--games`` games at once to their end, one
request a move (``bench.http_bench.play_game(one_request=True)``: a seat whose
view is stale GETs its actions first, and the latency is the whole move), then
GET the seat page (``/play/<token>``) ``--page-gets`` times per thread. Then, on a
database of its own, ``--mails`` mails through that tree's outbox to a local SMTP
server (bench/served/outbox_rate.py, that tree's ``sending.send_due``): mails/s, and
what raw ``smtplib`` makes to the same server in the same minute (issue 34's "mails/s
through the outbox >= 0.95x of before").

Printed per database: each round's figures, then per tree the medians over the
rounds and the ratios after ÷ before (the median of the rounds' own ratios: the
machine's speed drifts between minutes, a round's pair shares the minute).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import sqlalchemy as sa

from bench import http_bench
from bench.processes import HOST, free_port, wait_until_ready

HERE = Path(__file__).resolve().parent
SERVED = HERE / "served"
THIS_TREE = HERE.parent
SEATS = 3
#: The games and their moves are the same in both trees (same seeds), but which of
#: the two workers holds a game's state is not: a worker that does not reads it in
#: one more statement. A mean this much above before's is still "unchanged".
STATEMENT_NOISE = 0.05


def python_of(root: Path) -> str:
    python = root / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{root} has no .venv/bin/python")
    return str(python)


@contextmanager
def database(kind: str, workdir: Path) -> Iterator[str]:
    """A fresh database URL of ``kind`` (``sqlite`` file, or a ``postgresql`` schema)."""
    if kind == "sqlite":
        path = workdir / f"bench-{uuid.uuid4().hex[:8]}.db"
        yield f"sqlite:///{path}"
        return
    base = http_bench._pg_url()
    schema = f"bench_against_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql("CHECKPOINT")  # the last round's writes are on disk now
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield http_bench._with_schema(base, schema)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def make_games(root: Path, url: str, games: int, seed: int, secret: str) -> list[dict[str, Any]]:
    done = subprocess.run([python_of(root), str(SERVED / "setup_games.py"), url, str(games),
                           str(SEATS), str(seed)], cwd=root, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, SECRET_KEY=secret))
    if done.returncode != 0:
        raise RuntimeError(f"setting up games in {root} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


@contextmanager
def served(root: Path, url: str, secret: str, workdir: Path) -> Iterator[int]:
    """gunicorn from ``root`` (its interpreter, its gunicorn.conf.py), counting statements."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=url, SECRET_KEY=secret, BENCH_ENDPOINTS="1",
               MAIL_BACKEND="file", MAIL_DIR=str(workdir / "mail"),
               BASE_URL=f"http://{HOST}:{port}", PYTHONPATH=str(SERVED))
    server = subprocess.Popen([python_of(root), "-m", "gunicorn", "--bind", f"{HOST}:{port}",
                               "--log-level", "warning", "counted_wsgi:application"],
                              cwd=root, env=env)
    try:
        wait_until_ready(lambda: http_bench.Client(port).call("GET", "/api/openapi.json")[0] == 200,
                         server, 60, lambda: f"gunicorn in {root} did not start")
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


def page_gets(port: int, token: str, count: int) -> list[tuple[float, int]]:
    """``count`` GETs of the seat page: (latency, statements) of each."""
    conn, out = http.client.HTTPConnection(HOST, port, timeout=60), []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", f"/play/{token}")
        response = conn.getresponse()
        response.read()
        out.append((time.perf_counter() - start, int(response.getheader("X-Bench-Statements", -1))))
        assert response.status == 200, response.status
    return out


def mail_rate(root: Path, kind: str, mails: int) -> dict[str, float]:
    """``mails`` through ``root``'s outbox on a fresh database of ``kind``: mails/s, and
    raw smtplib's to the same server."""
    workdir = Path(tempfile.mkdtemp(prefix="silver-eye-against-mail-"))
    try:
        with database(kind, workdir) as url:
            done = subprocess.run([python_of(root), str(SERVED / "outbox_rate.py"), url,
                                   str(mails)], cwd=root, capture_output=True, text=True,
                                  timeout=900)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if done.returncode != 0:
        raise RuntimeError(f"the outbox run in {root} failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    return {"mail_rate": out["sent"] / out["seconds"], "smtplib": out["smtplib"],
            "sent": out["sent"]}


def one_round(root: Path, kind: str, games: int, page_get_count: int, seed: int,
              mails: int = 0) -> dict[str, Any]:
    """One tree's round: its moves/s, p50/p99, statements per request, app CPU per request
    (and, ``mails``, its outbox's mails/s)."""
    secret = secrets.token_urlsafe(32)
    workdir = Path(tempfile.mkdtemp(prefix="silver-eye-against-"))
    try:
        with database(kind, workdir) as url:
            made = make_games(root, url, games, seed, secret)
            with served(root, url, secret, workdir) as port:
                with http_bench._SERVER_CPU_LOCK:
                    http_bench.SERVER_CPU.clear()
                    http_bench.STATEMENTS.clear()
                counts: list[dict[str, int]] = [{} for _ in range(games)]
                results, wall = http_bench.in_threads([
                    lambda g=g: http_bench.play_game(port, made[g]["tokens"], g, one_request=True,
                                                     counts=counts[g]) for g in range(games)])
                with http_bench._SERVER_CPU_LOCK:
                    statements = {k: list(v) for k, v in http_bench.STATEMENTS.items()}
                    cpu = {k: statistics.median(v) for k, v in http_bench.SERVER_CPU.items()}
                pages, page_wall = http_bench.in_threads([
                    lambda g=g: page_gets(port, made[g]["tokens"][0], page_get_count)
                    for g in range(games)])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    moves = [x for each in results for x in each]
    page = [x for each in pages for x in each]
    mail = mail_rate(root, kind, mails) if mails else {}
    return {**mail, "moves": len(moves), "latencies": moves, "rate": len(moves) / wall, "p50": http_bench._ms(moves, 0.5),
            "p99": http_bench._ms(moves, 0.99),
            "requests_per_move": (sum(c.get("POST", 0) + c.get("GET", 0) for c in counts)
                                  / max(1, len(moves))),
            "post_statements": statements.get("POST move", []),
            "get_statements": statements.get("GET actions", []),
            "page_statements": [n for _, n in page],
            "page_rate": len(page) / page_wall,
            "page_p50": http_bench._ms([t for t, _ in page], 0.5),
            "page_p99": http_bench._ms([t for t, _ in page], 0.99),
            "cpu_post_ms": cpu.get("POST move"), "cpu_get_ms": cpu.get("GET actions")}


def _stmt(values: list[int]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):g}/{statistics.mean(values):.2f}/{max(values)}"


def _line(label: str, f: dict[str, Any]) -> str:
    cpu = (f"app CPU POST {f['cpu_post_ms']:.2f} ms" if f["cpu_post_ms"] is not None else "")
    return (f"    {label:<22} {f['moves']:>5} moves {f['rate']:7.1f}/s  p50 {f['p50']:6.2f} ms  "
            f"p99 {f['p99']:7.2f} ms  ({f['requests_per_move']:.2f} req/move)  statements "
            f"(median/mean/max) POST {_stmt(f['post_statements'])}, GET actions "
            f"{_stmt(f['get_statements'])}, seat page {_stmt(f['page_statements'])}; seat page "
            f"{f['page_rate']:.0f}/s p50 {f['page_p50']:.2f} ms; {cpu}"
            + (f"; mail {f['sent']} sent, {f['mail_rate']:.0f}/s (smtplib {f['smtplib']:.0f}/s)"
               if "mail_rate" in f else ""))


def compare(kind: str, rounds: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Medians per tree, and the median of the rounds' ratios after ÷ before."""
    def med(side: int, key: str) -> float:
        return statistics.median(pair[side][key] for pair in rounds)

    def ratio(key: str) -> float:
        return statistics.median(pair[1][key] / pair[0][key] for pair in rounds)

    def pooled(side: int, key: str) -> list[int]:
        return [n for pair in rounds for n in pair[side][key]]

    def pooled_ms(side: int, q: float) -> float:
        return http_bench._ms([t for pair in rounds for t in pair[side]["latencies"]], q)

    out = {"rate": ratio("rate"), "p99": ratio("p99"), "p50": ratio("p50"),
           "pooled_p99": pooled_ms(1, 0.99) / pooled_ms(0, 0.99)}
    print(f"  {kind}: medians of {len(rounds)} rounds")
    for side, name in ((0, "before"), (1, "after")):
        print(f"    {name:<7} moves/s {med(side, 'rate'):7.1f}  p50 {med(side, 'p50'):6.2f} ms  "
              f"p99 {med(side, 'p99'):7.2f} ms (all rounds' moves: p99 {pooled_ms(side, 0.99):.2f} "
              f"ms)  statements (median/mean/max) POST "
              f"{_stmt(pooled(side, 'post_statements'))}, GET actions "
              f"{_stmt(pooled(side, 'get_statements'))}, seat page "
              f"{_stmt(pooled(side, 'page_statements'))}; seat page p50 "
              f"{med(side, 'page_p50'):.2f} ms")
    verdict_rate = "ok" if out["rate"] >= 0.95 else "BELOW 0.95x"
    verdict_p99 = "ok" if out["p99"] <= 1.1 else "ABOVE 1.1x"
    same = []
    for key, label in (("post_statements", "POST"), ("get_statements", "GET actions"),
                       ("page_statements", "seat page")):
        b, a = pooled(0, key), pooled(1, key)
        if b and a:
            fewer = statistics.mean(a) <= statistics.mean(b) + STATEMENT_NOISE
            same.append(f"{label} {statistics.mean(b):.2f} -> {statistics.mean(a):.2f} "
                        f"({'ok' if fewer else 'MORE'})")
    print(f"    after ÷ before (median of the rounds' ratios): moves/s {out['rate']:.3f}x "
          f"({verdict_rate}), p99 {out['p99']:.3f}x ({verdict_p99}; all rounds' moves pooled: "
          f"{out['pooled_p99']:.3f}x), p50 {out['p50']:.3f}x")
    print(f"    statements per request, mean before -> after: {'; '.join(same)}")
    print(f"    seat page p50 after ÷ before: {ratio('page_p50'):.3f}x")
    if all("mail_rate" in side for pair in rounds for side in pair):
        out["mail_rate"] = ratio("mail_rate")
        print(f"    mails/s through the outbox after ÷ before: {out['mail_rate']:.3f}x "
              f"({'ok' if out['mail_rate'] >= 0.95 else 'BELOW 0.95x'}); after ÷ smtplib in "
              f"the same minute: {statistics.median(p[1]['mail_rate'] / p[1]['smtplib'] for p in rounds):.2f}x")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench against", description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path, help="the other tree's root (with its own .venv)")
    parser.add_argument("--after", type=Path, default=THIS_TREE, help="default: this tree")
    parser.add_argument("--db", default="sqlite,postgresql", help="sqlite, postgresql or both")
    parser.add_argument("--rounds", type=int, default=5, help="pairs of rounds per database")
    parser.add_argument("--games", type=int, default=4, help="games played at once (threads)")
    parser.add_argument("--page-gets", type=int, default=25, help="seat page GETs per thread")
    parser.add_argument("--mails", type=int, default=1000,
                        help="mails through each tree's outbox a round (0: none)")
    args = parser.parse_args(argv)
    before, after = args.before.resolve(), args.after.resolve()
    print(f"{before} (before) against {after} (after), interleaved: {args.rounds} rounds of "
          f"before then after per database, {args.games} games of {SEATS} seats at once to "
          f"their end, one request a move, gunicorn as the Procfile (each tree's "
          f"gunicorn.conf.py); load {os.getloadavg()[0]:.2f}")
    for kind in [k.strip() for k in args.db.split(",") if k.strip()]:
        print(f"  {kind}:")
        rounds = []
        for number in range(args.rounds):
            pair = []
            for label, root in (("before", before), ("after", after)):
                figures = one_round(root, kind, args.games, args.page_gets, 1000 + 100 * number,
                                    args.mails)
                print(_line(f"round {number + 1} {label}", figures)
                      + f" (load {os.getloadavg()[0]:.2f})", flush=True)
                pair.append(figures)
            rounds.append((pair[0], pair[1]))
        compare(kind, rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
