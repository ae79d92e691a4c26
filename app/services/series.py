"""A series of games (issue 21 item 6): a rematch that everyone accepted, and the score
of the series (rounds and wins across its games).

A rematch starts in the transaction of the vote that passed (``app.services.votes``):
the same seats (names, addresses, bots) and options, a new seed, and the seat after the
old game's first player starts (R50's ``first``, so starting goes round the table from
game to game). Each game knows the first game of its series, the game it is a rematch
of and its number, so both the old and the new game show the series score.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from app import engine
from app.db import read_session
from app.db.unit import Unit
from app.gamelog import store
from app.services.games import Series, create_in
from app.services.repository import _load_game
from app.services.results import Created


def rematch(unit: Unit, game: Any, seats: list[store.Seat]) -> "Rematched":
    """The new game of a rematch that everyone accepted, in the caller's unit of work:
    the same seats (names, addresses, bots) and options, a new seed, and the seat after
    the old game's first player starts (R50: the ``first`` option)."""
    options = dict(game.options or {})
    first = _first_player(game)
    options["first"] = (first + 1) % int(game.seats)
    players = [{"name": s.name, "email": s.email, "kind": s.kind,
                "preferences": dict(s.preferences or {})} for s in seats]
    series = Series(series_id=game.series_id or game.id, rematch_of=game.id,
                    number=int(game.series_no or 1) + 1)
    title = _rematch_name(game.name, series.number)
    created = create_in(unit, players, options, name=title, creator=game.created_by,
                        talk_spectators=bool(getattr(game, "talk_spectators", True)),
                        series=series)
    return Rematched(created.game_id, created)


@dataclass(frozen=True)
class Rematched:
    game_id: str
    created: Created


def _first_player(game: Any) -> int:
    """Round 1's first player of ``game`` (R6, or R50's ``first``): the engine deals it."""
    from app.gamelog.store import engine_int_seed, engine_options
    options = engine_options(dict(game.options or {}))
    state = engine.new_game(int(game.seats), engine_int_seed(game.seed), options=options,
                            rules=game.rules_version)
    return int(engine.status(state).get("start_player") or 0)


def _rematch_name(name: str, number: int) -> str:
    """"Friday table · game 2": the series' name with the game's number."""
    base = (name or "").split(" · game ")[0].strip()
    return f"{base} · game {number}"[:200] if base else f"Rematch · game {number}"


@dataclass
class SeriesScore:
    """Rounds won and games won by each seat across a series (issue 21 item 6)."""

    games: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return {"games": self.games, "names": self.names, "rounds_won": self.rounds,
                "wins": self.wins}


def series_score(game_id: str, session: Session | None = None) -> SeriesScore | None:
    """The score of the series ``game_id`` belongs to, None for a game with no rematch
    (no series). A round is won by the seats with its lowest round score (ties count
    for each), a game by its winner (R28, R48: never a resigned seat)."""
    if session is None:
        with read_session() as own:
            return series_score(game_id, own)
    game = session.get(store.Game, str(game_id))
    if game is None:
        return None
    series_id = game.series_id or game.id
    members = list(session.exec(select(store.Game).where(
        (col(store.Game.series_id) == series_id) | (col(store.Game.id) == series_id))
        .order_by(col(store.Game.series_no), col(store.Game.created))))
    if len(members) < 2:
        return None
    score = SeriesScore(names=[s.name for s in store.load_seats(session, game.id)])
    score.rounds = [0] * len(score.names)
    score.wins = [0] * len(score.names)
    for member in members:
        _, _, state = _load_game(session, member.id)
        status = engine.status(state)
        for scores in status.get("round_scores") or []:
            low = min(scores)
            for index, points in enumerate(scores[:len(score.rounds)]):
                if points == low:
                    score.rounds[index] += 1
        winner = status.get("winner") if member.status == "over" else None
        if isinstance(winner, int) and winner < len(score.wins):
            score.wins[winner] += 1
        score.games.append({"id": member.id, "name": member.name, "number": member.series_no,
                            "status": member.status, "winner": winner,
                            "rounds": len(status.get("round_scores") or [])})
    return score
