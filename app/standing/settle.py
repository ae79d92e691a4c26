"""A game's end, as standing records it (issue 47): in the unit of work that ends the
game, each counted stretch's result is written (``Result``), each person's record is
summed again from their last ten results and, in a rated game that counts, their rating
moves (OpenSkill, ``app.standing.rating``). Nothing of this runs on a move that does not
end a game: the move path costs what it cost.

Reads: the game's log (its last rows are still queued on the unit: ``queued_rows``) and
tenures, the people's rows (made here for a person who has none) with their standing,
and their last results: four statements, once a game. Writes: the results, one upsert of
the standing rows.

``rerate`` (``app.standing.rerate``) replays the same function over every ended game.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Sequence

import sqlalchemy as sa

from app.db.statements import Insert, dialect_insert, table_of
from app.db.unit import Unit
from app.engine.scoring import ranking
from app.gamelog import store
from app.people.models import PER_GAME, Person
from app.people.tenures import of_game
from app.standing import outcome as oc
from app.standing.models import Result, Standing
from app.standing.rating import Skill, rate
from app.standing.record import RECENT, summed

_ACTIONS = table_of(store.Action)
_PERSONS = table_of(Person)
_RESULTS = table_of(Result)
_STANDING = table_of(Standing)


@dataclass(frozen=True)
class Change:
    """What one ended game did to a person's rating (for the game-over mail and page)."""

    seat: int
    before: Skill
    after: Skill
    games: int


def is_rated(options: dict[str, Any] | None) -> bool:
    """Whether the game's creator chose a rated game (default: friendly)."""
    return bool((options or {}).get("rated"))


def final_of(state: Any, over: bool) -> oc.Final:
    """How the game ended, from the engine's state (R28, R48: ``ranking``)."""
    if not over:
        return oc.Final(over=False, resigned=tuple(getattr(state, "resigned", ()) or ()))
    return oc.Final(over=True, order=tuple(ranking(state)), totals=tuple(state.totals),
                    resigned=tuple(state.resigned))


def log_of(unit: Unit, game_id: str) -> list[oc.Logged]:
    """The game's whole log as the outcome reads it, with the rows still queued."""
    rows = [(r.seq, r.seat, r.action, r.source) for r in unit.session.connection().execute(
        sa.select(_ACTIONS.c.seq, _ACTIONS.c.seat, _ACTIONS.c.action, _ACTIONS.c.source)
        .where(_ACTIONS.c.game_id == game_id))]
    rows += [(q["seq"], q["seat"], q["action"], q["source"]) for q in unit.queued_rows(_ACTIONS)
             if q["game_id"] == game_id]
    return logged(rows)


def settle(unit: Unit, game: Any, seats: Sequence[Any], state: Any, now: datetime, *,
           over: bool) -> dict[int, Change]:
    """Record the end of ``game`` (``over``: played to its end; False: abandoned because
    nobody was left, R29). Returns each rated seat's change of rating."""
    found = outcomes_of(unit.session, str(game.id), seats, state, over,
                        log_of(unit, str(game.id)))
    if not found:
        return {}
    rated = over and is_rated(getattr(game, "options", None)) and oc.counts_for_rating(found)
    return record(unit, str(game.id), len(seats), found, rated, now)


def outcomes_of(session: Any, game_id: str, seats: Sequence[Any], state: Any, over: bool,
                log: Sequence[oc.Logged]) -> list[oc.Outcome]:
    """The game's outcomes (``outcome.outcomes``) from its tenures, seats, final state and
    ``log``: what the game's end and ``rerate --from-log`` both read."""
    stretches = [oc.Stretch(t.seat, t.from_step, t.to_step, t.address, t.name)
                 for t in of_game(session, game_id).rows]
    humans = [int(seat.index) for seat in seats if seat.kind == "human"]
    return oc.outcomes(stretches, log, final_of(state, over), humans)


def logged(rows: Iterable[tuple[Any, Any, Any, Any]]) -> list[oc.Logged]:
    """Log rows ``(seq, seat, action, source)`` as the outcome reads them."""
    return [oc.Logged(int(seq), int(seat), str((action or {}).get("type")), str(source))
            for seq, seat, action, source in rows]


def record(unit: Unit, game_id: str, seat_count: int, found: Sequence[oc.Outcome],
           rated: bool, now: datetime) -> dict[int, Change]:
    """Write one game's results and move its people's standing (``settle``; ``rerate``
    calls it again for every game, in order)."""
    people = people_of(unit, [o.address for o in found])
    ratings = _rated(found, people) if rated else {}
    rows = []
    for each in found:
        person = people[each.address.casefold()]
        change = ratings.get((each.seat, each.from_step))
        rows.append({"game_id": game_id, "seat": each.seat, "from_step": each.from_step,
                     "person_id": person["person_id"], "name": each.name[:100],
                     "outcome": each.outcome, "own_moves": each.own_moves,
                     "clock_moves": each.clock_moves, "place": each.place,
                     "seats": seat_count, "ended_at": now,
                     "mu_before": change.before.mu if change else None,
                     "sigma_before": change.before.sigma if change else None,
                     "mu_after": change.after.mu if change else None,
                     "sigma_after": change.after.sigma if change else None})
    ids = sorted({person["person_id"] for person in people.values()})
    earlier = _recent(unit, ids)
    unit.insert(Insert(_RESULTS, rows, conflict=("game_id", "seat", "from_step")))
    by_seat = {c.seat: c for c in ratings.values()}
    standing = []
    for person in {p["person_id"]: p for p in people.values()}.values():
        pid = person["person_id"]
        mine = [o for o in found if people[o.address.casefold()]["person_id"] == pid]
        rows_before, games_before = earlier.get(pid, ([], 0))
        rec = summed([(o.outcome, o.own_moves, o.clock_moves) for o in mine] + rows_before,
                     games_before + 1)
        skill = next((by_seat[o.seat] for o in mine
                      if o.place is not None and o.seat in by_seat), None)
        standing.append({
            "person_id": pid, "public_id": person["public_id"] or new_public_id(),
            "name": mine[-1].name[:100],
            "ended": rec.ended, "recent": rec.recent, "recent_left": rec.recent_left,
            "recent_moves": rec.recent_moves, "recent_clock": rec.recent_clock,
            "mu": skill.after.mu if skill else person["mu"],
            "sigma": skill.after.sigma if skill else person["sigma"],
            "rated_games": skill.games if skill else int(person["rated_games"] or 0),
            "rated_by": game_id if skill else person["rated_by"], "updated_at": now})
    for row in standing:  # (one upsert a person: a many-row insert only skips conflicts)
        unit.insert(Insert(_STANDING, [row], conflict=("person_id",), replace=(
            "name", "ended", "recent", "recent_left", "recent_moves", "recent_clock", "mu",
            "sigma", "rated_games", "rated_by", "updated_at")))
    return by_seat


def _rated(found: Sequence[oc.Outcome], people: dict[str, dict[str, Any]]
           ) -> dict[tuple[int, int], Change]:
    """The rating changes of a counted rated game: the person holding each seat at the end
    takes its place (a person at two seats, their better one); bots are not rated."""
    best: dict[int, oc.Outcome] = {}
    for each in found:
        if each.place is None:
            continue  # handed over: the abandoned mark, no rating change
        pid = people[each.address.casefold()]["person_id"]
        if pid not in best or each.place < (best[pid].place or 0):
            best[pid] = each
    if len(best) < 2:
        return {}
    chosen = sorted(best.values(), key=lambda o: o.seat)
    before = [_skill(people[o.address.casefold()]) for o in chosen]
    after = rate(before, [o.place or 0 for o in chosen])
    return {(o.seat, o.from_step): Change(o.seat, old, new,
                                         int(people[o.address.casefold()]["rated_games"]
                                             or 0) + 1)
            for o, old, new in zip(chosen, before, after)}


def _skill(person: dict[str, Any]) -> Skill:
    if person["mu"] is None or person["sigma"] is None:
        return Skill()
    return Skill(float(person["mu"]), float(person["sigma"]))


def new_public_id() -> str:
    """A person page's id: random, short, nothing of the address."""
    return secrets.token_urlsafe(9)


def people_of(unit: Unit, addresses: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Each address's person (made now where none is) with its standing, by the
    case-folded address: one insert of the missing rows, one read."""
    wanted = sorted({a.strip() for a in addresses if a.strip()}, key=str.casefold)
    connection = unit.session.connection()
    connection.execute(dialect_insert(_PERSONS, unit.dialect).values(
        [{"address": a, "mode": PER_GAME, "by_mail": True, "soft_bounces": 0} for a in wanted])
        .on_conflict_do_nothing(index_elements=["address"]))
    found = connection.execute(
        sa.select(_PERSONS.c.id, _PERSONS.c.address, _STANDING.c.public_id, _STANDING.c.mu,
                  _STANDING.c.sigma, _STANDING.c.rated_games, _STANDING.c.rated_by)
        .select_from(_PERSONS.outerjoin(_STANDING, _STANDING.c.person_id == _PERSONS.c.id))
        .where(sa.func.lower(_PERSONS.c.address).in_([a.lower() for a in wanted]))
        .order_by(_PERSONS.c.id)).mappings().all()
    people: dict[str, dict[str, Any]] = {}
    for row in found:
        people.setdefault(str(row["address"]).casefold(), {
            "person_id": int(row["id"]), "public_id": row["public_id"], "mu": row["mu"],
            "sigma": row["sigma"], "rated_games": row["rated_games"],
            "rated_by": row["rated_by"]})
    return people


def _recent(unit: Unit, person_ids: Sequence[int]
            ) -> dict[int, tuple[list[tuple[str, int, int]], int]]:
    """Each person's results before this game (``history``)."""
    return history(unit.session.connection(), person_ids) if person_ids else {}


def history(connection: Any, person_ids: Sequence[int] | None
            ) -> dict[int, tuple[list[tuple[str, int, int]], int]]:
    """Each person's last ``RECENT`` results, newest first, as ``(outcome, own moves,
    clock moves)``, and how many games counted for them: two statements (a window over
    their results, a count) for these people (None: everyone, for ``rerate``)."""
    mine = (_RESULTS.c.person_id.in_(list(person_ids)),) if person_ids is not None else ()
    newest = sa.func.row_number().over(
        partition_by=_RESULTS.c.person_id,
        order_by=(_RESULTS.c.ended_at.desc(), _RESULTS.c.id.desc())).label("n")
    inner = sa.select(_RESULTS.c.person_id, _RESULTS.c.outcome, _RESULTS.c.own_moves,
                      _RESULTS.c.clock_moves, newest).where(*mine).subquery()
    rows = connection.execute(
        sa.select(inner.c.person_id, inner.c.outcome, inner.c.own_moves, inner.c.clock_moves)
        .where(inner.c.n <= RECENT).order_by(inner.c.person_id, inner.c.n)).all()
    counted = {int(pid): int(n) for pid, n in connection.execute(
        sa.select(_RESULTS.c.person_id, sa.func.count(sa.distinct(_RESULTS.c.game_id)))
        .where(*mine).group_by(_RESULTS.c.person_id)).all()}
    result: dict[int, tuple[list[tuple[str, int, int]], int]] = {}
    for pid, outcome, own, clock in rows:
        result.setdefault(int(pid), ([], counted.get(int(pid), 0)))[0].append(
            (str(outcome), int(own), int(clock)))
    return result
