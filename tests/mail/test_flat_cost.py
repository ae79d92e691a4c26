"""An action costs the same at the end of a long game as at its start (issue 3).

A clock would make this test flaky, so it counts work instead of timing it.
Every call of ``hooks.after_action`` during a whole four-round game is
recorded with the SQL statements it ran and the work the database did for
them:

- on SQLite, the virtual-machine steps of those statements (counted with
  ``set_progress_handler``): a query that walks a game's closed deadlines or
  old mails takes more steps with every row it passes;
- on PostgreSQL, the rows the statements read from the tables
  (``pg_stat_xact_user_tables``: rows fetched through indexes plus rows read
  by sequential scans, in the hook's own transaction). Sequential scans are
  switched off for the run, so the planner must find an index path: the
  tables of a test game are tiny and would otherwise be scanned whole
  whatever indexes exist, which is not what happens in production.

Hooks that ran the same statements do the same job (close a deadline, open
the next, mail the next seat...). For each such kind of hook seen both in the
first and in the last third of the game, the work late in the game must not
exceed the work early in the game: it depends on the decision at hand, not
on how long the log has grown.
"""
from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest
import sqlalchemy as sa

from app import engine, services
from app.services import games
from app.services import reactions as hooks
from app.db import get_engine

PG_WORK = ("SELECT coalesce(sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)), 0) "
           "FROM pg_stat_xact_user_tables")


@dataclass
class HookCall:
    """One ``after_action`` call: the statements it ran and the work they cost."""

    seq: int
    statements: list[str] = field(default_factory=list)
    work: int = 0

    @property
    def kind(self) -> tuple[str, ...]:
        return tuple(self.statements)


class WorkMeter:
    """Records every ``after_action`` call of the services, with its SQL and its work."""

    def __init__(self, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.engine = get_engine(app)
        self.sqlite = self.engine.dialect.name == "sqlite"
        self.calls: list[HookCall] = []
        self._current: HookCall | None = None
        self.engine.dispose()  # new connections get the listeners below
        sa.event.listen(self.engine, "connect", self._on_connect)
        sa.event.listen(self.engine, "before_cursor_execute", self._on_statement)
        original = hooks.after_action

        def measured(unit: Any, game: Any, seq: int, *args: Any, **kwargs: Any) -> None:
            call = HookCall(seq)
            session = unit.session
            before = self._pg_work(session)
            self._current = call
            try:
                original(unit, game, seq, *args, **kwargs)
            finally:
                self._current = None
            if not self.sqlite:
                call.work = self._pg_work(session) - before
            self.calls.append(call)

        monkeypatch.setattr(hooks, "after_action", measured)
        sent = games.write_move

        def measured_write(unit: Any) -> int:
            """The move's writes, queued by its hooks, are sent here: counted with the
            last hook call of the move (the one whose queue they finish)."""
            call = self.calls[-1] if self.calls else None
            before = self._pg_work(unit.session)
            self._current = call
            try:
                return sent(unit)
            finally:
                self._current = None
                if call is not None and not self.sqlite:
                    call.work += self._pg_work(unit.session) - before

        monkeypatch.setattr(games, "write_move", measured_write)

    def _on_connect(self, dbapi_connection: Any, _record: Any) -> None:
        if self.sqlite:
            dbapi_connection.set_progress_handler(self._vm_step, 1)
        else:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET enable_seqscan = off")

    def _vm_step(self) -> int:
        if self._current is not None:
            self._current.work += 1
        return 0  # go on

    def _on_statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if self._current is not None:
            self._current.statements.append(re.sub(r"\s+", " ", statement).strip())

    def _pg_work(self, session: Any) -> int:
        if self.sqlite:
            return 0
        return int(session.connection().exec_driver_sql(PG_WORK).scalar_one())

    def detach(self) -> None:
        sa.event.remove(self.engine, "connect", self._on_connect)
        sa.event.remove(self.engine, "before_cursor_execute", self._on_statement)


@pytest.fixture
def meter(app, monkeypatch):
    meter = WorkMeter(app, monkeypatch)
    yield meter
    meter.detach()


def play_to_the_end(game_id: str, seed: int) -> int:
    """Random legal moves by whoever has to act, until the game is over; returns the steps."""
    rng = random.Random(seed)
    snap = services.snapshot(game_id)
    while snap.game.status == "running":
        to_act = snap.view(None)["to_act"]
        seat = rng.choice(to_act)
        action = rng.choice(engine.legal_actions(snap.state, seat))
        snap = services.submit_action(game_id, seat, action, snap.seq).snapshot
    assert snap.view(None)["phase"] == "over"
    return snap.seq


def work_by_kind(calls: list[HookCall]) -> dict[tuple[str, ...], int]:
    most: dict[tuple[str, ...], int] = defaultdict(int)
    for call in calls:
        most[call.kind] = max(most[call.kind], call.work)
    return most


def runs(kind: tuple[str, ...], *starts: str) -> bool:
    """Whether a hook of this kind (with the move's writes it finished) ran a statement
    beginning with each of ``starts`` (or a ``WITH`` statement holding it: PostgreSQL
    sends a move's writes as one)."""
    return all(any(statement.startswith(start)
                   or (statement.startswith("WITH") and start in statement)
                   for statement in kind) for start in starts)


@pytest.mark.parametrize("bots", [(), (1, 2, 3)], ids=["four people", "one person, three bots"])
def test_an_action_late_in_a_long_game_costs_what_it_cost_early(meter, new_game, bots):
    created = new_game(seats=4, bots=bots, seed="4242", memory=False)
    steps = play_to_the_end(created.game_id, seed=7)

    calls = meter.calls
    assert len(calls) == steps > 150  # a complete four-round game, every action hooked
    third = len(calls) // 3
    early, late = work_by_kind(calls[:third]), work_by_kind(calls[-third:])
    compared = [kind for kind in late if kind in early]
    # Most of the late actions are of a kind seen early (a draw, a discard,
    # an exchange that hands the turn on...), so the comparison covers them.
    assert sum(1 for call in calls[-third:] if call.kind in early) > third // 2
    # ... including hooks that close a decision, open the next one and mail it.
    assert any(runs(kind, "UPDATE deadline", "INSERT INTO deadline", "INSERT INTO outbox")
               for kind in compared)
    assert all(early[kind] > 0 for kind in compared if kind)  # the meter does count
    grown = {kind: (early[kind], late[kind]) for kind in compared if late[kind] > early[kind]}
    open("/tmp/grown.txt", "w").write(repr(list(grown)))
    assert grown == {}, "hooks that cost more late in the game than early: " + "; ".join(
        f"{before} -> {after}: {' | '.join(s[:60] for s in kind)}"
        for kind, (before, after) in grown.items())
