"""A game's state as the engine gets it: from its seed and options, the cache or the
state this process holds, and the log after it.

The engine takes a stored game's seed and options in its own terms (``engine_seed``,
``engine_options``: the clock's options stay out). The state after a ``seq`` is kept
twice, both optimisations the log can rebuild: the ``StateCache`` row (a pickle,
trusted only under this ``ENGINE_VERSION``) and the state this process computed lately
(``app.gamelog.warm_states``), used only while the game row and the log row it was
computed after are still the ones it saw (``held_state``). ``read_game`` and
``read_seats_and_game`` read the game with the log from such a state on in one query.
"""
from __future__ import annotations

import functools
import hashlib
import pickle
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col

from app.clock.time import as_utc, utcnow
from app.db.statements import Insert, table_of
from app.db.unit import Row, Unit
from app.engine.versions import ENGINE_VERSION
from app.gamelog import warm_states
from app.gamelog.store import Action, Game, Seat, SeatRow, StateCache

#: Keys of a game's options that the engine takes; the others (deadlines,
#: reminders...) belong to the clock and are kept for it untouched.
ENGINE_OPTION_KEYS = ("memory", "simon", "first")  # first: R50 (a rematch's start player)


def commitment_of(seed: str) -> str:
    """The public commitment to a secret seed: sha256 hex of ``str(seed)``."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def engine_seed(seed: str) -> int | str:
    """The value handed to the engine for a stored seed (decimal digits → int)."""
    return int(seed) if seed.isascii() and seed.isdigit() else seed  # ("²" is a digit)


def engine_int_seed(seed: str) -> int:
    """``engine_seed`` as the engine's ``new_game`` and ``replay`` take it: an integer
    (a seed of other characters is refused with the engine's own error)."""
    value = engine_seed(seed)
    if isinstance(value, str):
        raise ValueError("the seed must be an integer")
    return value


def engine_options(options: dict[str, Any]) -> dict[str, Any]:
    return {key: options[key] for key in ENGINE_OPTION_KEYS if key in options}


# -- the cache ---------------------------------------------------------------

def read_cache(session: Session, game_id: str) -> tuple[int, Any] | None:
    """``(seq, state)`` from the cache, or None when missing or unreadable.

    A pickle written by other engine code (another ``ENGINE_VERSION``) is not
    trusted even if it loads, and an unreadable one is treated like a missing
    one: the caller rebuilds from the log.
    """
    row = session.get(StateCache, game_id)
    if row is None or row.engine_version != ENGINE_VERSION:
        return None
    try:
        return row.seq, pickle.loads(row.state)
    except Exception:  # noqa: BLE001 - any unpickling failure means "rebuild"
        return None


def write_cache(unit: Unit, game_id: str, seq: int, state: Any) -> None:
    """Remember ``state`` as the state after action ``seq`` of the game: one upsert,
    queued with the move's other writes (the blob, kilobytes, is never read back
    just to be overwritten)."""
    blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    unit.insert(Insert(_CACHE, [{"game_id": game_id, "seq": seq, "state": blob,
                                 "engine_version": ENGINE_VERSION, "updated": utcnow()}],
                       conflict=("game_id",),
                       replace=("seq", "state", "engine_version", "updated")))
    held = unit.session.identity_map.get(identity_key(StateCache, game_id))
    if held is not None:  # an object loaded earlier must not flush its old blob back
        unit.session.expunge(held)


class Logged(NamedTuple):
    """An action row as read with the game: what replaying it needs, no ORM object."""

    seq: int
    seat: int
    action: dict[str, Any]
    created: datetime


@functools.cache
def _game_with_cache() -> Any:
    """The query of ``read_game`` when no state is held, built once. The cache and
    the actions come back as columns: only the game is an object."""
    return (sa.select(Game, col(StateCache.seq).label("cache_seq"), col(StateCache.state),
                      col(Action.seq).label("action_seq"), col(Action.seat), col(Action.action),
                      col(Action.created))
            .outerjoin(StateCache, sa.and_(col(StateCache.game_id) == Game.id,
                                           col(StateCache.engine_version) == ENGINE_VERSION))
            .outerjoin(Action, sa.and_(col(Action.game_id) == Game.id,
                                       col(Action.seq) >= StateCache.seq))
            .where(col(Game.id) == sa.bindparam("game_id")).order_by(col(Action.seq)))


@functools.cache
def _game_with_log_from() -> Any:
    """The query of ``read_game`` when this process holds a state: the game and the
    log from the held ``seq`` on; the cache's blob is not sent at all."""
    return (sa.select(Game, col(Action.seq), col(Action.seat), col(Action.action),
                      col(Action.created))
            .outerjoin(Action, sa.and_(col(Action.game_id) == Game.id,
                                       col(Action.seq) >= sa.bindparam("from_seq")))
            .where(col(Game.id) == sa.bindparam("game_id")).order_by(col(Action.seq)))


@functools.cache
def _seats_game_and_log_from() -> Any:
    """The query of ``read_seats_and_game``, as plain columns: the seats (four columns
    each), every column of the game and the log from the held ``seq`` on. The log rows
    go with seat 0's row only (every game has one), so seats + rows come back, not
    seats × rows; a game without a seat 0 gets none, and its held state does not fit."""
    game = table_of(Game)
    return (sa.select(col(Seat.index), col(Seat.name), col(Seat.kind), col(Seat.token_version),
                      *game.columns,
                      col(Action.seq), col(Action.seat), col(Action.action), col(Action.created))
            .join(game, game.c.id == Seat.game_id)
            .outerjoin(Action, sa.and_(col(Action.game_id) == Seat.game_id,
                                       col(Seat.index) == 0,
                                       col(Action.seq) >= sa.bindparam("from_seq")))
            .where(col(Seat.game_id) == sa.bindparam("game_id"))
            .order_by(col(Seat.index), col(Action.seq)))


def read_seats_and_game(session: Session, game_id: str) -> tuple[
        list[SeatRow], Row | None, tuple[int, Any] | None, list[Logged]] | None:
    """A read-only request's link check and game in one query, when this process
    holds a state of the game that still fits its log: ``(seats, game, (seq,
    state), log from seq on)``, like ``seat_rows`` and ``read_game``. None when
    no state is held or it no longer fits: the caller asks those two."""
    warm = warm_states.get(game_id)
    if warm is None:
        return None
    rows = session.connection().execute(_seats_game_and_log_from(),
                                        {"game_id": game_id, "from_seq": warm.seq}).all()
    if not rows:
        return [], None, None, []
    columns = _GAMES.columns.keys()
    log_at = 4 + len(columns)
    seats = list({row[0]: SeatRow(*row[:4]) for row in rows}.values())
    game = Row(_GAMES, dict(zip(columns, rows[0][4:log_at])))
    logged = list({row[log_at]: Logged(*row[log_at:]) for row in rows
                   if row[log_at] is not None}.values())
    fitting = held_state(warm, game, logged)
    return None if fitting is None else (seats, game, fitting, logged)


def warm_state(game: Game | Row, seq: int, state: Any,
               anchor: datetime | None) -> warm_states.Warm:
    """What ``warm_states`` keeps of a game's state after ``seq`` (a copy of it), its
    times in aware UTC; ``anchor`` is the ``created`` of log row ``seq`` (None at 0)."""
    return warm_states.Warm(seq, state.clone(), as_utc(game.created),
                            None if anchor is None else as_utc(anchor))


def held_state(warm: warm_states.Warm, game: Game | Row,
               logged: list[Logged]) -> tuple[int, Any] | None:
    """``(seq, a copy of the state)`` of ``warm`` if the game and the log read now are
    the ones it was computed from (``logged`` starts at its ``seq``); else None,
    and it is forgotten (another log under this id: a restored database)."""
    anchor = logged[0].created if warm.seq and logged and logged[0].seq == warm.seq else None
    if ((warm.seq == 0 or anchor is not None) and as_utc(game.created) == warm.game_created
            and (anchor and as_utc(anchor)) == warm.anchor):
        return warm.seq, warm.state.clone()
    warm_states.forget(game.id)
    return None


def read_game(session: Session, game_id: str) -> tuple[Game | None, tuple[int, Any] | None,
                                                       list[Logged]]:
    """The game, a state to start from and the log from that state's ``seq`` on, in one query.

    ``(game, (seq, state) or None, actions with seq >= that seq)``: the action
    rows start *at* the state's ``seq`` so the caller can check it still
    matches the log. The state is the one this process holds (``warm_states``)
    when it still fits the log, otherwise the cache's. A missing, foreign-version
    or unreadable cache gives None (and no actions): the caller replays the
    whole log.
    """
    warm = warm_states.get(game_id)
    if warm is not None:
        rows = list(session.exec(_game_with_log_from(),
                                 params={"game_id": game_id, "from_seq": warm.seq}))
        if not rows:
            return None, None, []
        logged = [Logged(*row[1:]) for row in rows if row[1] is not None]
        fitting = held_state(warm, rows[0][0], logged)
        if fitting is not None:
            return rows[0][0], fitting, logged
    rows = list(session.exec(_game_with_cache(), params={"game_id": game_id}))
    if not rows:
        return None, None, []
    game, cache_seq, blob = rows[0][0], rows[0][1], rows[0][2]
    if cache_seq is None:
        return game, None, []
    try:
        state = pickle.loads(blob)
    except Exception:  # noqa: BLE001 - any unpickling failure means "rebuild"
        return game, None, []
    return game, (cache_seq, state), [Logged(*row[3:]) for row in rows if row[3] is not None]


_GAMES: sa.Table = table_of(Game)
_CACHE: sa.Table = table_of(StateCache)
