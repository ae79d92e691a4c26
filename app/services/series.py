"""A series of games (issue 21 item 6): a rematch that everyone accepted, and the score
of the series (rounds and wins across its games).

A rematch starts in the transaction of the vote that passed (``app.services.votes``):
the same seats (names, addresses, bots) and options, a new seed, and the seat after the
old game's first player starts (R50's ``first``, so starting goes round the table from
game to game). Each game knows the first game of its series, the game it is a rematch
of and its number, so both the old and the new game show the series score. Issue 32: a
rematch carries each person's notices at the table (``_carry_notices``; their zone and
quiet hours are theirs in every game already), and the score counts people, not seat
indexes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from app import engine
from app.channels.models import NoticeTarget
from app.channels.targets import PUSH_SERVICE
from app.clock import deadlines as dl
from app.db import read_session
from app.db.unit import Unit
from app.gamelog import store
from app.mail import seat_prefs
from app.mail import unsent
from app.services.games import Series, create_in
from app.services.repository import _load_game
from app.services.results import Created


def rematch(unit: Unit, game: Any) -> "Rematched":
    """The new game of a rematch that everyone accepted, in the caller's unit of work:
    the same seats (names, addresses, bots, their lobby preferences) and options, a new
    seed, and the seat after the old game's first player starts (R50: the ``first``
    option)."""
    seats = store.load_seats(unit.session, str(game.id))
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
    _carry_notices(unit, str(game.id), created.game_id, seats)
    return Rematched(created.game_id, created)


def _carry_notices(unit: Unit, old_id: str, new_id: str, seats: list[store.Seat]) -> None:
    """Each person's notices at this table come along (issue 32 item 5): the targets a
    seat kept for "this game" are kept for the rematch's seat of the same person, and so
    is its choice of targets instead of mail (``SeatMail.by_mail``). What a person keeps
    for all their games (zone, quiet hours, targets, mail across games) is theirs already;
    what means this game only (its mail mode, its muted talk) starts afresh."""
    session = unit.session
    people = {s.index for s in seats if s.kind == "human" and s.email}
    now = dl.now()
    for target in session.exec(select(NoticeTarget).where(
            col(NoticeTarget.game_id) == old_id, col(NoticeTarget.seat).is_not(None))):
        # (a browser's push subscription for "this game" stays with this game: its keys
        # are the browser's, and it subscribes again for the rematch: issue 49)
        if target.seat in people and target.service != PUSH_SERVICE:
            # not a unit write: the rematch's game is an ORM row of this session, and
            # its targets must be flushed after it (their foreign key names it)
            session.add(NoticeTarget(game_id=new_id, seat=target.seat, url=target.url,
                                     service=target.service, created_at=now))
    for seat, marks in unsent.marks_of_game(session, old_id).items():
        if seat in people and marks.by_mail is False:
            unit.update(seat_prefs.mail_row(unit, new_id, seat), by_mail=False)
    session.flush()
    unit.write()  # (the new game's own writes went with ``create_in``: these follow them)


@dataclass(frozen=True)
class Rematched:
    game_id: str
    created: Created


def _first_player(game: Any) -> int:
    """Round 1's first player of ``game`` (R6, or R50's ``first``): the engine deals it."""
    from app.gamelog.states import engine_int_seed, engine_options
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
    """Rounds won and games won by each person across a series (issue 21 item 6; by
    person since issue 32: the same address in any seat of any game is one line)."""

    games: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    #: Each line's person: the address (lower case), or ``bot:<name>`` for a bot.
    people: list[str] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        return {"games": self.games, "names": self.names, "rounds_won": self.rounds,
                "wins": self.wins}

    def line(self, person: str, name: str) -> int:
        """The line of ``person``, added (with nothing won yet) on first sight."""
        if person not in self.people:
            self.people.append(person)
            self.names.append(name)
            self.rounds.append(0)
            self.wins.append(0)
        return self.people.index(person)


def person_of(seat: Any) -> str:
    """Whom a seat's line of the score counts for: its holder's address, a bot by name."""
    email = (seat.email or "").strip().lower() if seat.kind == "human" else ""
    return email or f"{seat.kind}:{seat.name}"


def series_score(game_id: str, session: Session | None = None) -> SeriesScore | None:
    """The score of the series ``game_id`` belongs to, None for a game with no rematch
    (no series). A round is won by the seats with its lowest round score (ties count
    for each), a game by its winner (R28, R48: never a resigned seat). Each is counted
    for the person holding the seat in that game (its holder at the game's end, when the
    seat was handed over), whichever seat they sat in: the lines follow this game's
    seats, then anyone who played an earlier game only."""
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
    score = SeriesScore()
    seats_of: dict[str, list[store.Seat]] = {member.id: [] for member in members}
    for seat in session.exec(select(store.Seat).where(  # (one statement, as before)
            col(store.Seat.game_id).in_(list(seats_of))).order_by(col(store.Seat.index))):
        seats_of[seat.game_id].append(seat)
    for seat in seats_of[game.id]:
        score.line(person_of(seat), seat.name)
    for member in members:
        lines = [score.line(person_of(seat), seat.name) for seat in seats_of[member.id]]
        _, _, state = _load_game(session, member.id)
        status = engine.status(state)
        for scores in status.get("round_scores") or []:
            low = min(scores)
            for index, points in enumerate(scores[:len(lines)]):
                if points == low:
                    score.rounds[lines[index]] += 1
        winner = status.get("winner") if member.status == "over" else None
        if isinstance(winner, int) and winner < len(lines):
            score.wins[lines[winner]] += 1
        score.games.append({"id": member.id, "name": member.name, "number": member.series_no,
                            "status": member.status, "winner": winner,
                            "rounds": len(status.get("round_scores") or [])})
    return score
