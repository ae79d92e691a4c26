"""Every rated game again, in order (issue 47 item 3): ``flask --app app rerate``.

Each game's end wrote what it said about each stretch at a seat (``Result``: the place
and who held the seat, read from the log and the tenures, ``app.standing.outcome``).
``rerate`` starts everyone afresh and rates those games again in the order they ended,
with the same library call as the game's end (``rating.rate``), then sums each person's
record again from their last ten results. Where a stored value differs from the
replayed one it is corrected and counted; on a store nothing has tampered with it
changes nothing (idempotent), and says so.

``from_log`` first writes the results of ended games that have none: the games that
ended before standing existed (issue 47 item 6: their records come from them; no old
game was rated, so no rating does), or any a failure left without. Their final order
comes from replaying the log under the game's rules version (R3's seed, R54's places).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from app import engine
from app.db.statements import table_of
from app.db.unit import Unit
from app.gamelog import store
from app.gamelog.states import engine_int_seed, engine_options
from app.standing import outcome as oc
from app.standing.models import Result, Standing
from app.standing.rating import Skill, rate
from app.standing.record import summed
from app.standing.settle import history, is_rated, logged, outcomes_of, record

_RESULTS = table_of(Result)
_STANDING = table_of(Standing)
_GAMES = table_of(store.Game)
_ACTIONS = table_of(store.Action)


@dataclass
class Report:
    """What a run did: games rated again, values corrected, games given results."""

    games: int = 0
    results_fixed: int = 0
    people: int = 0
    people_fixed: int = 0
    backfilled: list[str] = field(default_factory=list)

    def words(self) -> str:
        said = (f"{self.games} rated game(s) rated again; {self.results_fixed} result(s) and "
                f"{self.people_fixed} of {self.people} person(s) corrected")
        if self.backfilled:
            said += f"; {len(self.backfilled)} ended game(s) given their results from the log"
        return said + ("." if self.results_fixed or self.people_fixed
                       else " (the stored values were already exact).")


def backfill(unit: Unit) -> list[str]:
    """The results of every ended game that has none, oldest first, from its log."""
    session = unit.session
    missing = session.connection().execute(
        sa.select(_GAMES.c.id, sa.func.max(_ACTIONS.c.created))
        .select_from(_GAMES.join(_ACTIONS, _ACTIONS.c.game_id == _GAMES.c.id))
        .where(_GAMES.c.status.in_(("over", "abandoned")),
               sa.or_(_GAMES.c.end_reason.is_(None), _GAMES.c.end_reason != "agreement"),
               ~sa.exists().where(_RESULTS.c.game_id == _GAMES.c.id))
        .group_by(_GAMES.c.id).order_by(sa.func.max(_ACTIONS.c.created), _GAMES.c.id)).all()
    done = []
    for game_id, ended in missing:
        if _backfill_one(unit, str(game_id), ended):
            done.append(str(game_id))
    return done


def _backfill_one(unit: Unit, game_id: str, ended: datetime) -> bool:
    session = unit.session
    game = session.get(store.Game, game_id)
    assert game is not None
    seats = store.load_seats(session, game_id)
    actions = store.load_actions(session, game_id)
    state = engine.replay(game.seats, engine_int_seed(game.seed), store.as_pairs(actions),
                          options=engine_options(game.options or {}),
                          rules=game.rules_version)
    over = game.status == "over"
    found = outcomes_of(session, game_id, seats, state, over,
                        logged((a.seq, a.seat, a.action, a.source) for a in actions))
    if not found:
        return False
    rated = over and is_rated(game.options) and oc.counts_for_rating(found)
    record(unit, game_id, len(seats), found, rated, ended)
    unit.write()
    return True


def rerate(session: Session) -> Report:
    """Rate every rated game again in the order they ended and sum every record again;
    correct what differs (module docstring). The caller commits."""
    report = Report()
    connection = session.connection()
    rows = connection.execute(
        sa.select(_RESULTS.c.id, _RESULTS.c.game_id, _RESULTS.c.person_id, _RESULTS.c.place,
                  _RESULTS.c.mu_before, _RESULTS.c.sigma_before, _RESULTS.c.mu_after,
                  _RESULTS.c.sigma_after)
        .where(_RESULTS.c.mu_after.is_not(None)).order_by(_RESULTS.c.id)).all()
    # in the order the games were rated: a game's results are written together, by one
    # statement, so the first id of each game orders the games (ended_at may tie)
    first: dict[str, int] = {}
    for row in rows:
        first.setdefault(str(row.game_id), int(row.id))
    rows = sorted(rows, key=lambda r: (first[str(r.game_id)], r.id))
    skills: dict[int, Skill] = {}
    games: dict[int, int] = {}
    last: dict[int, str] = {}
    fixes: list[dict[str, Any]] = []
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end].game_id == rows[start].game_id:
            end += 1
        played = rows[start:end]
        before = [skills.get(int(r.person_id), Skill()) for r in played]
        after = rate(before, [int(r.place) for r in played])
        for row, old, new in zip(played, before, after):
            pid = int(row.person_id)
            skills[pid], last[pid] = new, str(row.game_id)
            games[pid] = games.get(pid, 0) + 1
            if (row.mu_before, row.sigma_before, row.mu_after, row.sigma_after) != (
                    old.mu, old.sigma, new.mu, new.sigma):
                fixes.append({"rid": row.id, "mb": old.mu, "sb": old.sigma,
                              "ma": new.mu, "sa": new.sigma})
        report.games += 1
        start = end
    if fixes:
        connection.execute(sa.update(_RESULTS).where(_RESULTS.c.id == sa.bindparam("rid"))
                           .values(mu_before=sa.bindparam("mb"), sigma_before=sa.bindparam("sb"),
                                   mu_after=sa.bindparam("ma"), sigma_after=sa.bindparam("sa")),
                           fixes)
    report.results_fixed = len(fixes)
    records = _records(connection)
    kept = connection.execute(sa.select(_STANDING)).all()
    report.people = len(kept)
    changed = []
    for row in kept:
        pid = int(row.person_id)
        skill = skills.get(pid)
        want = {**records.get(pid, {"ended": 0, "recent": 0, "recent_left": 0,
                                    "recent_moves": 0, "recent_clock": 0}),
                "mu": skill.mu if skill else None, "sigma": skill.sigma if skill else None,
                "rated_games": games.get(pid, 0), "rated_by": last.get(pid)}
        if any(getattr(row, name) != value for name, value in want.items()):
            changed.append({"pid": pid, **want})
    if changed:
        connection.execute(sa.update(_STANDING).where(_STANDING.c.person_id == sa.bindparam("pid"))
                           .values({name: sa.bindparam(name) for name in changed[0]
                                    if name != "pid"}), changed)
    report.people_fixed = len(changed)
    return report


def _records(connection: Any) -> dict[int, dict[str, int]]:
    """Every person's record figures from their results (``settle.history``)."""
    result = {}
    for pid, (recent, counted) in history(connection, None).items():
        rec = summed(recent, counted)
        result[pid] = {"ended": rec.ended, "recent": rec.recent, "recent_left": rec.recent_left,
                       "recent_moves": rec.recent_moves, "recent_clock": rec.recent_clock}
    return result
