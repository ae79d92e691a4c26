"""The game log's repository: a game, its seats (with their mail and clock
rows when a move follows), the cached state and the actions after it, read in
as few queries as possible; and the checks of a seat link on the same session.

The log is the truth; the cache is an optimisation trusted only when it fits
the log (see ``_state_from``)."""
from __future__ import annotations

import functools
import hashlib
import json
import logging
from typing import Any, Iterable

from sqlalchemy import and_, bindparam
from sqlmodel import Session, select

from app import deadlines as dl
from app import engine, store, tokens, warm_states
from app.db import after_commit
from app.loaded import Stored
from app.mail import notify
from app.mail.models import AddressMail, SeatMail
from app.services.errors import Forbidden, NotFound
from app.services.results import SeatInfo, GameInfo, SeatAccess

log = logging.getLogger("app.services")


#: Keys of a game's options that the engine takes; the others (deadlines,
#: reminders...) belong to the clock and are kept for it untouched.
ENGINE_OPTION_KEYS = ("memory", "simon")


def commitment_of(seed: str) -> str:
    """The public commitment to a secret seed: sha256 hex of ``str(seed)``."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def engine_seed(seed: str) -> int | str:
    """The value handed to the engine for a stored seed (decimal digits → int)."""
    return int(seed) if seed.isdigit() else seed


def engine_options(options: dict[str, Any]) -> dict[str, Any]:
    return {key: options[key] for key in ENGINE_OPTION_KEYS if key in options}


def _same_action(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _config(key: str, default: Any) -> Any:
    try:
        from flask import current_app
        return current_app.config.get(key, default)
    except RuntimeError:  # outside an app context (plain scripts)
        return default


def _game_info(game: store.Game, seats: Iterable[store.Seat | store.SeatRow],
               seq: int) -> GameInfo:
    return GameInfo(
        id=game.id, name=game.name, status=game.status, created=game.created,
        options=dict(game.options or {}),
        seats=tuple(SeatInfo(s.index, s.name, s.kind) for s in seats),
        commitment=game.commitment,
        seed=game.seed if game.status == "over" else None,
        seq=seq, rules=game.rules_version,
    )


def _get_game(session: Session, game_id: str) -> store.Game:
    game = session.get(store.Game, str(game_id))
    if game is None:
        raise NotFound("There is no game with this id.")
    return game


def _fresh_state(game: store.Game) -> Any:
    return engine.new_game(game.seats, engine_seed(game.seed),
                           options=engine_options(game.options or {}), rules=game.rules_version)


def _load_state(session: Session, game: store.Game) -> tuple[int, Any]:
    """``(seq, state)`` of a game: the cached state plus any newer actions.

    The cache is trusted only if the log still holds its ``seq`` and nothing
    is missing after it; otherwise the state is rebuilt by replaying the log.
    Either way the cost is one indexed query plus the actions after the cache.
    """
    cached = store.read_cache(session, game.id)
    rows = store.load_actions(session, game.id, after_seq=cached[0] - 1) if cached else []
    return _state_from(session, game, cached, rows)


def _load_seats(session: Session, game_id: str,
                with_rows: bool = False) -> list[store.Seat] | list[store.SeatRow]:
    """The game's seats; ``with_rows``: as plain rows, with, in the same query, their
    mail and clock rows and their address's preferences, which the hooks of a move
    read for every seat (``deadlines.remembered``, ``notify.remember_addresses``);
    all of them kept as read (``app.loaded.Stored``), made ORM objects only for code
    that changes them through the session."""
    if not with_rows:
        return store.load_seats(session, game_id)
    warm = warm_states.get(game_id)
    read = _move_read(warm is not None)
    rows = session.connection().execute(read.query, {
        "game_id": game_id, "from_seq": warm.seq if warm is not None else 0}).all()
    seats = read.seats(rows)
    if warm is not None:  # the game and the log after the held state came along
        _keep_game_read(session, game_id, warm, read, rows)
    for table, model in ((_mail, SeatMail), (_clock, dl.SeatClock)):
        dl.remember_all(session, model, game_id, read.rows_of(table(), rows))
    notify.remember_seats(session, game_id, seats)
    notify.remember_addresses(session, {
        seat.email: values for seat, values in zip(seats, read.rows_of(_address(), rows, every=True))
        if seat.email})
    return seats


def _keep_game_read(session: Session, game_id: str, warm: warm_states.Warm,
                    read: "_MoveRead", rows: list[Any]) -> None:
    """Keep what the seats query read of the game for ``_load_game`` in this transaction."""
    if not rows:
        return
    game = Stored(store.Game, read.values(_game(), rows[0]))
    logged = read.logged(rows)
    held = store.held_state(warm, game, logged)
    if held is not None:
        dl.transaction_memo(session)[(GAME_READ, game_id)] = (game, held, logged)


#: ``transaction_memo`` key of a game read with its seats (``_keep_game_read``).
GAME_READ = "game read with the seats"


def _mail() -> Any:
    return SeatMail.__table__  # type: ignore[attr-defined]


def _clock() -> Any:
    return dl.SeatClock.__table__  # type: ignore[attr-defined]


def _address() -> Any:
    return AddressMail.__table__  # type: ignore[attr-defined]


def _game() -> Any:
    return store.Game.__table__  # type: ignore[attr-defined]


#: What a move needs of a seat itself (``store.SeatRow``'s fields, in order).
SEAT_COLUMNS = ("index", "name", "kind", "token_version", "email")
LOG_COLUMNS = ("seq", "seat", "action", "created")


class _MoveRead:
    """The query of ``_load_seats(with_rows=True)`` as plain columns, and where each
    table's columns sit in its rows: the seat's own, then every column of its mail,
    clock and address rows, then (``with_game``) the game's and the log's. The log
    rows go with seat 0's row only (every game has a seat 0), so seats + log rows
    come back, not seats × log rows; a game without a seat 0 gets none, and its held
    state does not fit, so the move reads the game the other way (``_load_game``)."""

    def __init__(self, with_game: bool) -> None:
        seat, action = store.Seat.__table__, store.Action.__table__  # type: ignore[attr-defined]
        tables = [_mail(), _clock(), _address(), *([_game()] if with_game else [])]
        columns = [seat.c[name] for name in SEAT_COLUMNS]
        self.where: dict[Any, int] = {}
        for table in tables:
            self.where[table] = len(columns)
            columns += list(table.columns)
        self.log_at = len(columns)
        query = (select(*columns).select_from(seat)
                 .outerjoin(_mail(), and_(_mail().c.game_id == seat.c.game_id,
                                          _mail().c.seat == seat.c.index))
                 .outerjoin(_clock(), and_(_clock().c.game_id == seat.c.game_id,
                                           _clock().c.seat == seat.c.index))
                 .outerjoin(_address(), _address().c.address == seat.c.email))
        order = [seat.c.index]
        if with_game:
            query = (query.add_columns(*(action.c[name] for name in LOG_COLUMNS))
                     .join(_game(), _game().c.id == seat.c.game_id)
                     .outerjoin(action, and_(action.c.game_id == seat.c.game_id,
                                             seat.c.index == 0,
                                             action.c.seq >= bindparam("from_seq"))))
            order.append(action.c.seq)
        self.query = query.where(seat.c.game_id == bindparam("game_id")).order_by(*order)

    def seats(self, rows: list[Any]) -> list[store.SeatRow]:
        return list({row[0]: store.SeatRow(*row[:len(SEAT_COLUMNS)]) for row in rows}.values())

    def values(self, table: Any, row: Any) -> dict[str, Any] | None:
        """``table``'s columns in ``row`` by name; None when the outer join found none."""
        at = self.where[table]
        part = row[at:at + len(table.columns)]
        return None if part[0] is None else dict(zip(table.columns.keys(), part))

    def rows_of(self, table: Any, rows: list[Any], every: bool = False) -> list[Any]:
        """Each seat's row of ``table`` as values (``every``: None where it has none)."""
        found = [self.values(table, row) for row in {row[0]: row for row in rows}.values()]
        return found if every else [values for values in found if values is not None]

    def logged(self, rows: list[Any]) -> list[store.Logged]:
        at = self.log_at
        return list({row[at]: store.Logged(*row[at:at + len(LOG_COLUMNS)])
                     for row in rows if row[at] is not None}.values())


@functools.cache
def _move_read(with_game: bool) -> _MoveRead:
    """Built once of each kind (every move asks one)."""
    return _MoveRead(with_game)


def _load_game(session: Session, game_id: str) -> tuple[store.Game, int, Any]:
    """The game, its step and its state: as the seats query of this transaction read
    them (``_keep_game_read``), or from one query (``store.read_game``: the game
    and the log after the held state, or the cache and the log after it)."""
    read = dl.transaction_memo(session).pop((GAME_READ, str(game_id)), None)
    if read is not None:
        game, held, rows = read
        return (game, *_state_from(session, game, held, rows))
    game, cached, rows = store.read_game(session, str(game_id))
    if game is None:
        raise NotFound("There is no game with this id.")
    seq, state = _state_from(session, game, cached, rows)
    return game, seq, state


def _state_from(session: Session, game: store.Game, cached: tuple[int, Any] | None,
                rows: list[store.Logged] | list[store.Action]) -> tuple[int, Any]:
    """The state after the cache's ``seq`` plus ``rows`` (the log from that ``seq``
    on), or, when they do not fit together, the whole log replayed."""
    if cached is not None:
        cache_seq, state = cached
        if cache_seq == 0 or (rows and rows[0].seq == cache_seq):
            newer = [row for row in rows if row.seq > cache_seq]
            if all(row.seq == cache_seq + i + 1 for i, row in enumerate(newer)):
                for row in newer:
                    state, _ = engine.apply_action(state, row.seat, dict(row.action))
                last = newer[-1] if newer else (rows[0] if cache_seq else None)
                return _hold(game, cache_seq + len(newer), state, last)
        log.warning("state cache of game %s is stale; replaying the log", game.id)
    session.info.setdefault(CACHE_UNUSABLE, set()).add(game.id)  # a write renews it (games._finish)
    rows = store.load_actions(session, game.id)
    state = engine.replay(game.seats, engine_seed(game.seed), store.as_pairs(rows),
                          options=engine_options(game.options or {}), rules=game.rules_version)
    # not held: the next request finds the cache unusable too, and the next move,
    # seeing that, writes a new one (``games._finish``)
    return (rows[-1].seq if rows else 0), state


#: ``session.info`` key: the games whose state cache this session found missing,
#: stale, unreadable or pickled by other engine code.
CACHE_UNUSABLE = "silver_eye_cache_unusable"


def cache_unusable(session: Session, game_id: str) -> bool:
    """Whether this session had to replay the game's log for want of a usable cache."""
    return game_id in session.info.get(CACHE_UNUSABLE, ())


def _hold(game: store.Game, seq: int, state: Any, last: Any) -> tuple[int, Any]:
    """Keep a state read from committed rows for this process's next request
    (``warm_states``); ``last`` is the log row ``seq`` (None at seq 0)."""
    warm_states.put(game.id, store.warm_state(game, seq, state,
                                                None if last is None else last.created))
    return seq, state


def hold_after_commit(session: Session, game: store.Game, seq: int, state: Any,
                      logged_at: Any) -> None:
    """Keep the state a write computed, once (and only if) its transaction commits."""
    warm = store.warm_state(game, seq, state, logged_at)
    after_commit(session, lambda: warm_states.put(game.id, warm))


def _phase(state: Any) -> dict[str, Any]:
    return engine.status(state)


def _seat_access(session: Session, token: str) -> SeatAccess:
    """The checks of ``open_seat``, on a session the caller already holds."""
    return _open_seat(session, token)[0]


def _open_seat(session: Session, token: str,
               with_rows: bool = False) -> tuple[SeatAccess, list[Any]]:
    """The checks of ``open_seat``, and every seat of the link's game (one query:
    the callers need the seats anyway, and the link's seat is among them).
    ``with_rows``: a move follows, so the seats' mail and clock rows come along."""
    ref = _signed_seat(token)
    # a move reads the seats as objects with their mail and clock rows; a
    # read-only request needs four columns of each
    seats: list[Any] = (_load_seats(session, str(ref.game), with_rows=True) if with_rows
                        else store.seat_rows(session, str(ref.game)))
    return _checked_seat(ref, token, seats), seats


def _open_seat_and_game(session: Session, token: str) -> tuple[SeatAccess, list[Any],
                                                              store.Game, int, Any]:
    """A read-only request's link check and its game: ``(access, seats, game, seq,
    state)``, in one query when this process holds the game's state, else two."""
    ref = _signed_seat(token)
    read = store.read_seats_and_game(session, str(ref.game))
    if read is None:
        access, seats = _open_seat(session, token)
        return (access, seats, *_load_game(session, access.game_id))
    seats, game, held, rows = read
    access = _checked_seat(ref, token, seats)
    assert game is not None  # the link's seat exists, so its game does
    return (access, seats, game, *_state_from(session, game, held, rows))


def _signed_seat(token: str) -> tokens.SeatRef:
    """What a seat link says, if its signature holds (no database needed)."""
    try:
        return tokens.read_seat_token(token)
    except tokens.BadToken:
        raise Forbidden("This link is not valid: it may have been cut short or changed. "
                        "Use the link from your most recent email.", reason="invalid")


def _checked_seat(ref: tokens.SeatRef, token: str, seats: list[Any]) -> SeatAccess:
    """The link's seat among the game's ``seats``, if the link is still its current one."""
    seat = next((row for row in seats if row.index == ref.seat), None)
    if seat is None:
        raise Forbidden("This link does not open any seat here.", reason="unknown")
    if seat.token_version != ref.version:
        raise Forbidden("This link was replaced by a newer one and no longer opens your "
                        "seat. We can email the current link to the seat's address.",
                        reason="revoked", game_id=ref.game, seat=ref.seat)
    return SeatAccess(ref.game, ref.seat, ref.version, token)
