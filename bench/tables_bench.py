"""`python -m bench tables`: the list of open tables with 10,000 of them (issue 48: "/tables
with 10,000 open tables answers in <= 50 ms p50").

A store is filled by bulk inserts as the lobby and the sit-downs would have left it:
``TABLES`` open tables of 2-4 seats (the creator's seat, confirmed or not; open seats,
some taken by strangers who clicked their link, some held for one who has not yet; a
bot here and there), each seat with its holds (the creator's, the seated ones', live,
lapsed and given-up asks), ``ENDED`` tables that started or expired beside them, and
``PEOPLE`` people, two in three with a standing row (rated or not, a few hiding it),
whom the seated are drawn from (the rest are strangers with no person row): the
standing join of the list is exercised on every page.

Measured through the Flask test client (no network; the whole request: the door, the
list's reads, the template or the JSON), ``REQUESTS`` requests each after a warm up:
``GET /tables`` and ``GET /api/tables`` on the big store and, as the baselines in the
same run, on stores of ``FEW`` and of ``PAGE`` open tables filled the same way (a page
shows at most ``PAGE``): the ratio 10,000 ÷ ``PAGE`` says what the number of tables
costs a page that shows as many. Then the big store's last page (``?page=200``, an
OFFSET of 9,950) beside its first, and the statements one ``GET /tables`` sends, with
their plans (SQLite's ``EXPLAIN QUERY PLAN``, PostgreSQL's ``EXPLAIN (ANALYZE,
BUFFERS)``: plan lines and time).

SQLite in a temp folder; PostgreSQL too when ``BENCH_DATABASE_URL`` or
``TEST_DATABASE_URL`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``)
reaches one, in schemas of its own dropped afterwards. ``python -m bench.tables_bench
--database-url URL`` measures only that PostgreSQL (or ``sqlite``).
"""
from __future__ import annotations

import argparse
import os
import random
import secrets
import shutil
import statistics
import tempfile
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

import sqlalchemy as sa

TABLES = 10_000
#: The baselines: a few tables, and one full page of them (``open_tables.PAGE_SIZE``), so
#: that the ratio against 10,000 compares pages that show as many tables.
FEW, PAGE = 10, 50
ENDED = 5_000
PEOPLE = 3_000
REQUESTS = 300
ROUNDS = 5
WARM = 20
#: Measured on each of the three stores.
PATHS = (("GET /tables", "/tables"), ("GET /api/tables", "/api/tables"))
#: The big store's last page (an OFFSET of 9,950), beside its first.
LAST = ("GET /tables?page=200", "/tables?page=200")
#: The options tables are opened with (as ``services.options.validate`` keeps them).
OPTIONS = ({"deadline_hours": 48, "reminders": ["half"], "absent_after": 3,
            "more_time_per_round": 1},
           {"bank_days": 5, "allowance_hours": 12, "clock_days": [0, 1, 2, 3, 4],
            "rated": True, "memory": True, "reminders": [2.0]},
           {"deadline_hours": 24, "rated": True})


def _pg_url() -> str:
    return (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
            or "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


# -- the store ---------------------------------------------------------------------------

def _people(rng: random.Random, now: datetime) -> tuple[list[dict[str, Any]],
                                                       list[dict[str, Any]]]:
    """``PEOPLE`` person rows and a standing row for two in three of them."""
    from app.db.statements import table_of
    from app.people.models import Person
    from app.standing.models import Standing

    persons, standings = [], []
    person_columns = [c.name for c in table_of(Person).columns]
    standing_columns = [c.name for c in table_of(Standing).columns]
    for i in range(1, PEOPLE + 1):
        person = Person(id=i, address=f"p{i}@example.org", name=f"P{i}",
                        standing_hidden=rng.random() < 0.05, updated_at=now)
        persons.append({c: getattr(person, c) for c in person_columns})
        if i % 3 == 0:
            continue
        ended = rng.choice((0, 1, 2, 3, 5, 8, 12, 20, 40))
        recent = min(ended, 10)
        rated = ended and rng.random() < 0.6
        standing = Standing(person_id=i, public_id=secrets.token_urlsafe(9), name=f"P{i}",
                            ended=ended, recent=recent,
                            recent_left=min(recent, rng.choice((0, 0, 0, 1, 2, 3))),
                            recent_moves=recent * 30, recent_clock=rng.randint(0, recent * 3),
                            mu=rng.uniform(18, 32) if rated else None,
                            sigma=rng.uniform(2, 8) if rated else None,
                            rated_games=ended if rated else 0, updated_at=now)
        standings.append({c: getattr(standing, c) for c in standing_columns})
    return persons, standings


def _tables(rng: random.Random, now: datetime, count: int, ended: int
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """``count`` open tables and ``ended`` started or expired ones: their rows, their
    seats' and their holds'."""
    from app.seating.models import BOT, EXPIRED, HUMAN, OPEN, OPEN_SEAT, STARTED

    tables, seats, holds = [], [], []
    strangers = 0

    def someone() -> tuple[str, str]:
        nonlocal strangers
        if rng.random() < 0.8:
            n = rng.randint(1, PEOPLE)
            return f"P{n}", f"p{n}@example.org"
        strangers += 1
        return f"S{strangers}", f"stranger{strangers}@example.net"

    def hold(table_id: str, name: str, email: str, asked: datetime, until: datetime,
             seat: int | None = None, seated: datetime | None = None,
             left: datetime | None = None) -> str:
        hold_id = secrets.token_urlsafe(16)
        holds.append({"id": hold_id, "table_id": table_id, "name": name, "email": email,
                      "person_key": email.lower(), "ip_key": None if seat is not None
                      else secrets.token_hex(24), "seat": seat, "asked_at": asked,
                      "held_until": until, "link_until": until, "seated_at": seated,
                      "left_at": left})
        return hold_id

    for n in range(count + ended):
        is_open = n < count
        table_id = secrets.token_urlsafe(9)
        size = rng.choice((2, 3, 3, 4, 4))
        created = now - timedelta(minutes=rng.uniform(1, 2 * 24 * 60) if is_open
                                  else rng.uniform(3 * 24 * 60, 60 * 24 * 60))
        wait_until = created + timedelta(days=rng.choice((3, 3, 3, 7, 14)))
        status = OPEN if is_open else rng.choice((STARTED, EXPIRED))
        tables.append({"id": table_id, "name": f"Table {n}", "options": rng.choice(OPTIONS),
                       "talk_spectators": True, "seats": size,
                       "gate": rng.choice(("open", "open", "new_reliable", "reliable")),
                       "created_by": secrets.token_hex(24), "host_seat": 0,
                       "created_at": created, "wait_until": wait_until, "status": status,
                       "ended_at": None if is_open else wait_until, "game_id": None})
        names: set[str] = set()
        for index in range(size):
            name, email = someone()
            while name in names:
                name, email = someone()
            kind = HUMAN if index == 0 else BOT if rng.random() < 0.1 else OPEN_SEAT
            seat = {"table_id": table_id, "index": index, "kind": kind, "name": None,
                    "email": None, "person_key": None, "simon": "auto", "confirmed_at": None,
                    "hold_id": None}
            # the last seat stays open on an open table: a full table would have started
            taken = kind == OPEN_SEAT and (index < size - 1 or not is_open) and rng.random() < 0.5
            if kind == HUMAN:
                confirmed = created + timedelta(minutes=5) if rng.random() < 0.7 else None
                seat.update(name=name, email=email, person_key=email.lower(),
                            confirmed_at=confirmed)
                hold(table_id, name, email, created, wait_until, seat=index, seated=confirmed)
            elif kind == BOT:
                seat.update(name=f"Bot {index + 1}", confirmed_at=created)
            elif taken:
                asked = created + timedelta(minutes=rng.uniform(1, 60))
                clicked = asked + timedelta(minutes=10)
                seat.update(name=name, email=email, person_key=email.lower(),
                            confirmed_at=clicked,
                            hold_id=hold(table_id, name, email, asked,
                                         asked + timedelta(hours=4), seated=clicked))
            else:
                odds = rng.random()  # an empty open seat: held now, lapsed, given up, none
                if odds < 0.3:
                    asked = now - timedelta(minutes=rng.uniform(1, 200))
                    hold(table_id, name, email, asked, asked + timedelta(hours=4))
                elif odds < 0.45:
                    asked = now - timedelta(hours=rng.uniform(5, 40))
                    hold(table_id, name, email, asked, asked + timedelta(hours=4))
                elif odds < 0.5:
                    asked = now - timedelta(hours=rng.uniform(1, 40))
                    hold(table_id, name, email, asked, asked + timedelta(hours=4),
                         left=asked + timedelta(minutes=30))
            names.add(name)
            seats.append(seat)
    return tables, seats, holds


def fill(engine: sa.engine.Engine, count: int, ended: int, seed: int = 48) -> dict[str, int]:
    """The store of ``count`` open tables (and ``ended`` others), in bulk inserts."""
    from app.db.statements import table_of
    from app.people.models import Person
    from app.seating.models import OpenTable, TableHold, TableSeat
    from app.standing.models import Standing

    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    persons, standings = _people(rng, now)
    tables, seats, holds = _tables(rng, now, count, ended)
    with engine.begin() as conn:
        for model, rows in ((Person, persons), (Standing, standings), (OpenTable, tables),
                            (TableSeat, seats), (TableHold, holds)):
            table = table_of(model)
            for start in range(0, len(rows), 5000):
                conn.execute(table.insert(), rows[start:start + 5000])
    # as autovacuum leaves a store after inserts (PostgreSQL: the visibility map too, so
    # the count may read its index alone)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("VACUUM ANALYZE" if engine.dialect.name == "postgresql"
                             else "ANALYZE")
    return {"tables": len(tables), "seats": len(seats), "holds": len(holds),
            "people": len(persons), "standing": len(standings)}


# -- measuring ---------------------------------------------------------------------------

def _app(url: str, folder: Path) -> Any:
    from app import create_app
    from app.db import upgrade

    upgrade(url)
    return create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-tables-" + "x" * 20,
                       "INSTANCE_PATH": str(folder)})


def _times(client: Any, path: str, count: int, warm: int) -> list[float]:
    samples = []
    for _ in range(warm):
        assert client.get(path).status_code == 200, path
    for _ in range(count):
        start = time.perf_counter()
        answer = client.get(path)
        samples.append(time.perf_counter() - start)
        assert answer.status_code == 200, (path, answer.status_code)
    return samples


def measure(apps: list[Any], paths: Any = PATHS) -> list[dict[str, list[float]]]:
    """``REQUESTS`` of each path on each app, in ``ROUNDS`` rounds that take turns (a
    machine whose load drifts weighs on every store alike)."""
    clients = [app.test_client() for app in apps]
    found: list[dict[str, list[float]]] = [{label: [] for label, _ in paths} for _ in apps]
    for round_ in range(ROUNDS):
        for app, client, samples in zip(apps, clients, found):
            with app.app_context():
                for label, path in paths:
                    samples[label] += _times(client, path, REQUESTS // ROUNDS,
                                             WARM if round_ == 0 else 2)
    return found


def statements(app: Any) -> list[tuple[str, Any]]:
    """The statements one ``GET /tables`` sends, with their parameters."""
    from app.db import get_engine

    seen: list[tuple[str, Any]] = []

    def note(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
             executemany: bool) -> None:
        seen.append((statement, parameters))

    engine = get_engine(app)
    sa.event.listen(engine, "before_cursor_execute", note)
    try:
        with app.app_context():
            assert app.test_client().get("/tables").status_code == 200
    finally:
        sa.event.remove(engine, "before_cursor_execute", note)
    return seen


def plans(app: Any, found: list[tuple[str, Any]]) -> list[str]:
    """Each SELECT's time from here (the median of 21 runs) and its plan in a few lines
    (PostgreSQL: with the times of its nodes)."""
    from app.db import get_engine

    engine = get_engine(app)
    postgres = engine.dialect.name == "postgresql"
    lines = []
    with engine.connect() as conn:
        for statement, parameters in found:
            if not statement.lstrip().upper().startswith("SELECT"):
                lines.append(f"  {' '.join(statement.split())[:100]}")
                continue
            head = ("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " if postgres
                    else "EXPLAIN QUERY PLAN ")
            rows = conn.exec_driver_sql(head + statement, parameters).all()
            took = []
            for _ in range(21):
                started = time.perf_counter()
                conn.exec_driver_sql(statement, parameters).all()
                took.append(time.perf_counter() - started)
            shown = ' '.join(statement.split())
            lines.append(f"  {statistics.median(took) * 1000:6.2f} ms (median of 21)  "
                         f"{shown[:130]}{'…' if len(shown) > 130 else ''}")
            if postgres:
                lines += [f"      {r[0]}" for r in rows
                          if not r[0].lstrip().startswith(("Buffers", "Planning:"))]
            else:
                lines += [f"      {r[-1]}" for r in rows]
    return lines


@contextmanager
def _pg_schemas(base: str, count: int) -> Iterator[list[str] | None]:
    """``count`` fresh schemas on the PostgreSQL at ``base`` (None: it does not answer)."""
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    try:
        with admin.connect():
            pass
    except Exception:  # noqa: BLE001 - no PostgreSQL: SQLite only
        admin.dispose()
        yield None
        return
    names = [f"bench_{uuid.uuid4().hex[:12]}" for _ in range(count)]
    with admin.begin() as conn:
        for name in names:
            conn.exec_driver_sql(f'CREATE SCHEMA "{name}"')
    try:
        yield [sa.engine.make_url(base).update_query_dict(
            {"options": f"-csearch_path={name}"}).render_as_string(hide_password=False)
            for name in names]
    finally:
        with admin.begin() as conn:
            for name in names:
                conn.exec_driver_sql(f'DROP SCHEMA "{name}" CASCADE')
        admin.dispose()


def _shown(app: Any) -> str:
    """What the big store's first page shows: the tables listed, the seated people and
    the standing lines among them (so the standing join is known to have had work)."""
    from app.services.open_tables import PAGE_SIZE

    assert PAGE_SIZE == PAGE, (PAGE_SIZE, PAGE)
    with app.app_context():
        body = app.test_client().get("/api/tables").get_json()
    assert body["total"] == TABLES and len(body["tables"]) == PAGE, body["total"]
    people = [p for t in body["tables"] for p in t["seated"] if p["kind"] == "person"]
    lined = [p for p in people if p["standing"]["public_id"] or p["standing"]["tier"] != "new"]
    rated = [p for p in people if p["standing"]["rating"] is not None]
    return (f"page 1 of {body['total']:,} open tables lists {len(body['tables'])}, with "
            f"{len(people)} people seated: {len(lined)} with a standing row shown, "
            f"{len(rated)} of them rated")


def _figures(samples: list[float]) -> str:
    return f"p50 {_ms(samples, .5):6.2f} ms  p99 {_ms(samples, .99):6.2f} ms"


def run(store: str, urls: list[str], folder: Path) -> None:
    """The three stores (``FEW``, ``PAGE`` and ``TABLES`` open tables) at ``urls``."""
    from app.db import get_engine

    sizes = (FEW, PAGE, TABLES)
    apps = {}
    for count, url in zip(sizes, urls):
        app = _app(url, folder / str(count))
        started = time.perf_counter()
        rows = fill(get_engine(app), count, ENDED if count == TABLES else 0)
        if count == TABLES:
            print(f"  {store}: filled {rows['tables']:,} tables ({count:,} open), "
                  f"{rows['seats']:,} seats, {rows['holds']:,} holds, {rows['people']:,} "
                  f"people ({rows['standing']:,} with standing) in "
                  f"{time.perf_counter() - started:.1f} s")
        apps[count] = app
    print(f"  {store}: {_shown(apps[TABLES])}")
    measured = dict(zip(sizes, measure([apps[count] for count in sizes])))
    print(f"  {store}: {REQUESTS} requests each, Flask test client, in {ROUNDS} rounds that "
          f"take turns between the stores, after {WARM} to warm up")
    for label, _ in PATHS:
        few, page, many = (measured[count][label] for count in sizes)
        print(f"    {label:<16} {FEW:>2} tables: {_figures(few)}   {PAGE} tables: "
              f"{_figures(page)}   {TABLES:,}: {_figures(many)}   ratio p50 "
              f"{TABLES:,} ÷ {PAGE}: {statistics.median(many) / statistics.median(page):.2f}x")
    first, last = measured[TABLES][PATHS[0][0]], measure([apps[TABLES]], (LAST,))[0][LAST[0]]
    print(f"    {LAST[0]} at {TABLES:,} (OFFSET {TABLES - PAGE:,}): {_figures(last)}   "
          f"÷ page 1: {statistics.median(last) / statistics.median(first):.2f}x")
    found = statements(apps[TABLES])
    print(f"  {store}: one GET /tables at {TABLES:,} tables sends {len(found)} statements:")
    for line in plans(apps[TABLES], found):
        print(line)
    for app in apps.values():
        get_engine(app).dispose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tables_bench",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", help="only this store: a PostgreSQL URL, or "
                        "'sqlite' (default: SQLite, then PostgreSQL if it answers)")
    args = parser.parse_args(argv if argv is not None else [])
    import logging
    logging.getLogger("app").setLevel(logging.WARNING)
    print(f"open tables (issue 48): /tables and /api/tables at {FEW}, {PAGE} and {TABLES:,} open "
          f"tables (beside {ENDED:,} started or expired), {PEOPLE:,} people; the acceptance "
          f"asks <= 50 ms p50 at {TABLES:,}")
    folder = Path(tempfile.mkdtemp(prefix="silver-eye-tables-"))
    try:
        if args.database_url in (None, "sqlite"):
            run("SQLite", [f"sqlite:///{folder / f'tables{n}.db'}" for n in range(3)],
                folder / "sqlite")
        if args.database_url == "sqlite":
            return
        with _pg_schemas(args.database_url or _pg_url(), 3) as urls:
            if urls is None:
                print("  PostgreSQL not reachable: skipped")
                return
            run("PostgreSQL", urls, folder / "postgresql")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
