"""Replay stored games and compare them with what the database says (issue 10).

`flask --app app check-games` runs `check_games`: every game's log is replayed
under the rules version the game was created with, and the result is compared
with the log's numbering (seq 1..n, one engine step per row), the game's status
and the cached state. A failing game is reported; nothing is ever written, not
even a fresh cache: an operator decides what to do with a game that fails.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any, Iterator

from sqlmodel import Session, col, select

from app import engine
from app.gamelog import states, store
from app.db import read_session


@dataclass
class GameCheck:
    """What replaying one game found: problems fail it, notes do not."""

    game_id: str
    status: str
    rules: int
    actions: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        head = (f"{'ok  ' if self.ok else 'FAIL'} {self.game_id} ({self.status}, rules "
                f"{self.rules}, {self.actions} actions)")
        return "\n    ".join([head] + self.problems + [f"note: {n}" for n in self.notes])


def check_game(session: Session, game: store.Game) -> GameCheck:
    result = GameCheck(game.id, game.status, game.rules_version)
    rows = store.load_actions(session, game.id)
    result.actions = len(rows)
    seqs = [row.seq for row in rows]
    if seqs != list(range(1, len(rows) + 1)):
        result.problems.append(f"the log's seq is not 1..{len(rows)}: {_gaps(seqs)}")
    if game.rules_version not in engine.SUPPORTED_RULES:
        result.problems.append(f"rules version {game.rules_version} cannot be replayed by this "
                               f"engine (it replays {list(engine.SUPPORTED_RULES)})")
        return result
    cache = session.get(store.StateCache, game.id)
    state = engine.new_game(game.seats, states.engine_int_seed(game.seed),
                            options=states.engine_options(game.options or {}), rules=game.rules_version)
    at_cache = state if cache is not None and cache.seq == 0 else None
    for row in rows:
        try:
            state, _ = engine.apply_action(state, row.seat, dict(row.action))
        except engine.IllegalAction as exc:
            result.problems.append(f"action {row.seq} (seat {row.seat}: {row.action}) is refused "
                                   f"on replay: {exc}")
            return result
        if cache is not None and row.seq == cache.seq:
            at_cache = state
    if state.step != len(rows):
        result.problems.append(f"the replay took {state.step} engine steps for {len(rows)} rows")
    over = state.phase == "over"
    if game.status == "over" and not over:
        result.problems.append("the game is marked over but its log does not finish it")
    if game.status == "running" and over:
        result.problems.append("the log finishes the game but it is still marked running")
    if cache is not None:
        _compare_cache(result, cache, at_cache, seqs[-1] if seqs else 0)
    return result


def _compare_cache(result: GameCheck, cache: store.StateCache, at_cache: Any, last: int) -> None:
    current = cache.engine_version == engine.ENGINE_VERSION
    report = result.problems if current else result.notes
    origin = "" if current else (f" (written by engine {cache.engine_version or 'before 0005'}, "
                                 f"ignored by the server)")
    if at_cache is None:
        report.append(f"the cache is at seq {cache.seq} but the log ends at {last}{origin}")
        return
    try:
        cached = pickle.loads(cache.state)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is the finding
        report.append(f"the cached state cannot be read: {type(exc).__name__}{origin}")
        return
    if cached != at_cache:
        report.append(f"the cached state after seq {cache.seq} differs from the replay{origin}")
    elif not current:
        result.notes.append(f"the cache after seq {cache.seq} agrees with the replay{origin}")


def _gaps(seqs: list[int]) -> str:
    expected = set(range(1, len(seqs) + 1))
    missing, extra = sorted(expected - set(seqs)), sorted(set(seqs) - expected)
    return f"missing {missing[:5]}, unexpected {extra[:5]}"


def check_games(game_ids: list[str] | None = None) -> Iterator[GameCheck]:
    """Check the given games (default: every game, oldest first), one read session each."""
    with read_session() as session:
        query = select(store.Game.id).order_by(col(store.Game.created), col(store.Game.id))
        ids = list(game_ids) if game_ids else list(session.exec(query))
    for game_id in ids:
        with read_session() as session:
            game = session.get(store.Game, game_id)
            if game is None:
                yield GameCheck(game_id, "missing", 0, problems=["there is no such game"])
                continue
            yield check_game(session, game)
