"""A move in a handful of statements (issue 10, item 2): counted, so they cannot creep back.

A three-seat game is played through the JSON API exactly as a program plays it:
``GET /api/play/<token>/actions`` to learn what it may do, then ``POST`` of one
of them. A ``before_cursor_execute`` listener on the app's engine counts every
statement the app sends during each request (a pool ping of an idle connection is
not one: there is none on a busy pool, see test_reconnect.py).
The bounds are per dialect: SQLite and PostgreSQL differ in what an upsert or a
returning insert costs. This counts statements, it never times anything.
"""
from __future__ import annotations

import random
import statistics
from contextlib import contextmanager
from typing import Any, Iterator

import sqlalchemy as sa

from app.db import get_engine
from tests.conftest import PEOPLE

MOVES = 36
#: Statements per request, as measured when the bounds were set (docs/benchmarks.md).
BOUNDS = {
    #            POST median, POST max, GET median, GET max
    #  (issue 10's targets: POST <= 8, GET <= 3 on PostgreSQL; before it: 15.5/23, 5).
    #  A GET is one query, and a POST reads in one, when the worker holds the game's
    #  state (app/gamelog/warm_states.py); a worker that does not reads in two
    #  (test_a_fresh_worker_reads_in_two_statements). Since issue 18 a POST's writes
    #  are one statement (app/db/unit.py: every write a CTE), two when it queues a turn
    #  mail (db/statements.groups: each fits psycopg's statement cache): 2-3 in all,
    #  where 3-4 were.
    "postgresql": (2, 3, 1, 2),
    #  SQLite's max is one more since issue 17 item 2: a seat that drew keeps a turn
    #  mail waiting (re-aimed at the card in hand), which the end of its turn then
    #  supersedes. SQLite has no data-modifying CTEs: one statement per write.
    "sqlite": (5, 8, 1, 2),
}


class StatementCounter:
    """Every statement the engine sends, with its text (to say which crept in)."""

    def __init__(self, engine: sa.engine.Engine) -> None:
        self.engine = engine
        self.statements: list[str] = []

    def _count(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.statements.append(" ".join(statement.split())[:120])

    @contextmanager
    def listening(self) -> Iterator["StatementCounter"]:
        sa.event.listen(self.engine, "before_cursor_execute", self._count)
        try:
            yield self
        finally:
            sa.event.remove(self.engine, "before_cursor_execute", self._count)

    @contextmanager
    def request(self, into: list[int], texts: list[list[str]]) -> Iterator[None]:
        start = len(self.statements)
        yield
        into.append(len(self.statements) - start)
        texts.append(self.statements[start:])


def play_through_api(app: Any, client: Any, moves: int = MOVES,
                     seed: int = 10) -> dict[str, Any]:
    """Play ``moves`` moves of a new 3-seat game over HTTP; statements per GET and POST."""
    from app import services

    players = [{"name": name, "email": email} for name, email in PEOPLE[:3]]
    created = services.create_game(players, {}, name="Counted", seed="4242")
    rng = random.Random(seed)
    counter = StatementCounter(get_engine(app))
    gets: list[int] = []
    posts: list[int] = []
    get_texts: list[list[str]] = []
    post_texts: list[list[str]] = []
    with counter.listening():
        for _ in range(moves):
            menus = []
            for token in created.tokens:
                with counter.request(gets, get_texts):
                    answer = client.get(f"/api/play/{token}/actions")
                assert answer.status_code == 200, answer.get_json()
                menus.append((token, answer.get_json()))
            movers = [(token, body) for token, body in menus if body["legal_actions"]]
            assert movers, "somebody has to act in a running game"
            token, body = rng.choice(movers)
            choices = [a for a in body["legal_actions"] if a["type"] not in ("away", "back")]
            action = rng.choice(choices)
            with counter.request(posts, post_texts):
                answer = client.post(f"/api/play/{token}/actions",
                                     json={"action": action, "expected_seq": body["seq"]})
            assert answer.status_code == 200, answer.get_json()
    return {"dialect": counter.engine.dialect.name, "gets": gets, "posts": posts,
            "get_texts": get_texts, "post_texts": post_texts}


def figures(counts: list[int]) -> tuple[float, int]:
    return statistics.median(counts), max(counts)


def test_a_move_is_a_handful_of_statements(app, client):
    played = play_through_api(app, client)
    post_median, post_max, get_median, get_max = BOUNDS[played["dialect"]]
    posts, gets = played["posts"], played["gets"]
    worst_post = played["post_texts"][posts.index(max(posts))]
    worst_get = played["get_texts"][gets.index(max(gets))]
    assert len(posts) == MOVES and len(gets) == 3 * MOVES
    assert statistics.median(posts) <= post_median, (figures(posts), worst_post)
    assert max(posts) <= post_max, (figures(posts), worst_post)
    assert statistics.median(gets) <= get_median, (figures(gets), worst_get)
    assert max(gets) <= get_max, (figures(gets), worst_get)


def test_the_counter_sees_every_statement(app, client):
    """The counter itself can fail: a request that sends statements is counted."""
    counter = StatementCounter(get_engine(app))
    seen: list[int] = []
    with counter.listening():
        with counter.request(seen, []):
            client.get("/api/games/no-such-game")
    assert seen[0] >= 1


def test_a_fresh_worker_reads_in_two_statements(app, client):
    """A worker that holds no state of the game (just started, or the game was
    pushed out of its memory) checks the link, then reads the cache and the log."""
    from app import services
    from app.gamelog import warm_states

    players = [{"name": name, "email": email} for name, email in PEOPLE[:3]]
    created = services.create_game(players, {}, name="Cold", seed="4242")
    counter = StatementCounter(get_engine(app))
    seen: list[int] = []
    texts: list[list[str]] = []
    with counter.listening():
        with counter.request(seen, texts):
            assert client.get(f"/api/play/{created.tokens[0]}/actions").status_code == 200
        warm_states.forget()
        with counter.request(seen, texts):
            assert client.get(f"/api/play/{created.tokens[0]}/actions").status_code == 200
    assert seen == [1, 2], texts


def test_a_persons_zone_and_quiet_hours_cost_no_statement_on_a_move_or_a_seat_page(
        app, client):
    """Issue 32 item 2: zone and quiet hours are the person's. A move reads them from the
    person rows its one query joins already, and a seat page from the person row it read
    before: the same statements whether or not the people chose any."""
    from app import services
    from app.services import person_settings

    def page() -> list[int]:
        seen: list[int] = []
        with counter.listening(), counter.request(seen, []):
            assert client.get(f"/play/{created.tokens[0]}").status_code == 200
        return seen

    plain = play_through_api(app, client, moves=12)
    players = [{"name": name, "email": email} for name, email in PEOPLE[:3]]
    created = services.create_game(players, {}, name="Paged", seed="4243")
    counter = StatementCounter(get_engine(app))
    before = page()
    for _, address in PEOPLE[:3]:
        person_settings.set_time_zone(address, "America/New_York")
        person_settings.set_quiet(address, "22:00", "08:00")
    assert page() == before
    chosen = play_through_api(app, client, moves=12)
    assert chosen["posts"] == plain["posts"], (chosen["post_texts"], plain["post_texts"])
