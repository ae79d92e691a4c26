"""The game log's repository: what a move reads and what it writes, each in one place.

Reading: a game, its seats (with their mail, clock and address rows and their unsent
mail when a move follows: ``move_seats``), the cached state and the actions after it,
in as few queries as possible; and the checks of a seat link on the same session.
Writing: ``write_move``, every write of a move, queued on its unit of work
(``app.db.unit``) by the reactions and sent together.

The log is the truth; the cache is an optimisation trusted only when it fits
the log (see ``_state_from``); ``warm_states`` keeps the states this process
computed, as eventsourcing's ``Repository`` keeps its aggregates' (checked against
the log on every read)."""
from __future__ import annotations

import json
import logging
from typing import Any, Iterable

from sqlmodel import Session

from app.clock import deadlines as dl
from app import i18n
from app import engine
from app.gamelog import states, store
from app.access import tokens
from app.gamelog import warm_states
from app.db.statements import table_of
from app.db.unit import Row, Unit
from app.mail import seat_prefs
from app.mail.models import Outbox, SeatMail
from app.people.models import Person
from app.services import move_read
from app.plans.models import Plan
from app.services.errors import Forbidden, NotFound
from app.services.results import SeatInfo, GameInfo, SeatAccess
from app.gamelog.states import (  # noqa: F401 - how a stored game is handed to the engine
    ENGINE_OPTION_KEYS, commitment_of, engine_int_seed, engine_options, engine_seed,
)

log = logging.getLogger("app.services")


def _same_action(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _game_info(game: store.Game | Row, seats: Iterable[store.Seat | store.SeatRow],
               seq: int) -> GameInfo:
    return GameInfo(
        id=game.id, name=game.name, status=game.status, created=game.created,
        options=dict(game.options or {}),
        seats=tuple(SeatInfo(s.index, s.name, s.kind) for s in seats),
        commitment=game.commitment,
        seed=game.seed if game.status != "running" else None,
        seq=seq, rules=game.rules_version,
        end_reason=getattr(game, "end_reason", None),
        series_id=getattr(game, "series_id", None),
        rematch_of=getattr(game, "rematch_of", None),
        series_no=int(getattr(game, "series_no", 1) or 1),
    )


def _get_game(session: Session, game_id: str) -> store.Game:
    game = session.get(store.Game, str(game_id))
    if game is None:
        raise NotFound(i18n._("There is no game with this id."))
    return game


def _fresh_state(game: store.Game) -> Any:
    return engine.new_game(game.seats, engine_int_seed(game.seed),
                           options=engine_options(game.options or {}), rules=game.rules_version)


def _load_state(session: Session, game: store.Game) -> tuple[int, Any]:
    """``(seq, state)`` of a game: the cached state plus any newer actions.

    The cache is trusted only if the log still holds its ``seq`` and nothing
    is missing after it; otherwise the state is rebuilt by replaying the log.
    Either way the cost is one indexed query plus the actions after the cache.
    """
    cached = states.read_cache(session, game.id)
    rows = store.load_actions(session, game.id, after_seq=cached[0] - 1) if cached else []
    return _state_from(session, game, cached, rows)


#: ``transaction_memo`` key of a game read with its seats (``_load_seats``).
GAME_READ = "game read with the seats"


def _load_game(where: Session | Unit, game_id: str) -> tuple[store.Game | Row, int, Any]:
    """The game, its step and its state: as the seats query of this move read them
    (``move_seats``), or from one query (``states.read_game``: the game and the log
    after the held state, or the cache and the log after it)."""
    unit = where if isinstance(where, Unit) else None
    session = unit.session if unit is not None else where
    assert isinstance(session, Session)
    read = unit.facts.pop((GAME_READ, str(game_id)), None) if unit is not None else None
    if read is not None:
        game, held, rows = read
        return (game, *_state_from(session, game, held, rows, unit))
    found, cached, logged = states.read_game(session, str(game_id))
    if found is None:
        raise NotFound(i18n._("There is no game with this id."))
    seq, state = _state_from(session, found, cached, logged, unit)
    return found, seq, state


def _state_from(session: Session, game: store.Game | Row, cached: tuple[int, Any] | None,
                rows: list[states.Logged] | list[store.Action],
                unit: Unit | None = None) -> tuple[int, Any]:
    """The state after the cache's ``seq`` plus ``rows`` (the log from that ``seq``
    on), or, when they do not fit together, the whole log replayed (noted on the
    move's ``unit``: its write renews the cache, ``games._finish``)."""
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
    if unit is not None:
        unit.facts.setdefault(CACHE_UNUSABLE, set()).add(game.id)
    actions = store.load_actions(session, game.id)
    state = engine.replay(game.seats, engine_int_seed(game.seed), store.as_pairs(actions),
                          options=engine_options(game.options or {}), rules=game.rules_version)
    # not held: the next request finds the cache unusable too, and the next move,
    # seeing that, writes a new one (``games._finish``)
    return (actions[-1].seq if actions else 0), state


#: ``Unit.facts`` key: the games whose state cache this move found missing, stale,
#: unreadable or pickled by other engine code.
CACHE_UNUSABLE = "state cache unusable"


def cache_unusable(unit: Unit, game_id: str) -> bool:
    """Whether this move had to replay the game's log for want of a usable cache."""
    return game_id in unit.facts.get(CACHE_UNUSABLE, ())


def _hold(game: store.Game | Row, seq: int, state: Any, last: Any) -> tuple[int, Any]:
    """Keep a state read from committed rows for this process's next request
    (``warm_states``); ``last`` is the log row ``seq`` (None at seq 0)."""
    warm_states.put(game.id, states.warm_state(game, seq, state,
                                                None if last is None else last.created))
    return seq, state


def hold_after_commit(unit: Unit, game: store.Game | Row, seq: int, state: Any,
                      logged_at: Any) -> None:
    """Keep the state a write computed, once (and only if) its transaction commits."""
    warm = states.warm_state(game, seq, state, logged_at)
    unit.after_commit(lambda: warm_states.put(game.id, warm))


def _seat_access(session: Session, token: str) -> SeatAccess:
    """The checks of ``open_seat``, on a session the caller already holds."""
    return _open_seat(session, token)[0]


def _open_seat(session: Session, token: str) -> tuple[SeatAccess, list[store.SeatRow]]:
    """The checks of ``open_seat``, and every seat of the link's game (one query:
    the callers need the seats anyway, and the link's seat is among them)."""
    ref = _signed_seat(token)
    seats = store.seat_rows(session, str(ref.game))
    return _checked_seat(ref, token, seats), seats


def _open_seat_and_game(session: Session, token: str) -> tuple[SeatAccess, list[Any],
                                                              store.Game | Row, int, Any]:
    """A read-only request's link check and its game: ``(access, seats, game, seq,
    state)``, in one query when this process holds the game's state, else two."""
    ref = _signed_seat(token)
    read = states.read_seats_and_game(session, str(ref.game))
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
        raise Forbidden(i18n._("This link is not valid: it may have been cut short or changed. "
                        "Use the link from your most recent email."), reason="invalid")


def _checked_seat(ref: tokens.SeatRef, token: str, seats: list[Any]) -> SeatAccess:
    """The link's seat among the game's ``seats``, if the link is still its current one."""
    seat = next((row for row in seats if row.index == ref.seat), None)
    if seat is None:
        raise Forbidden(i18n._("This link does not open any seat here."), reason="unknown")
    if seat.token_version != ref.version:
        raise Forbidden(i18n._("This link was replaced by a newer one and no longer opens your "
                        "seat. We can email the current link to the seat's address."),
                        reason="revoked", game_id=ref.game, seat=ref.seat)
    return SeatAccess(ref.game, ref.seat, ref.version, token)


def move_seats(unit: Unit, game_id: str) -> list[store.SeatRow]:
    """The game's seats for a move, read with every seat's mail, clock and address
    rows and its unsent mail (which the reactions of a move read for every seat), in
    one query (``move_read``), with the game and the newest log rows when this worker
    holds the game's state. All of it is registered on the move's unit of work."""
    warm = warm_states.get(game_id)
    read = move_read.read(unit.session, game_id, warm.seq if warm is not None else None)
    if warm is not None and read.game is not None:
        game = Row(_GAMES, read.game)
        held = states.held_state(warm, game, read.logged)
        if held is not None:  # for ``_load_game``, later in this transaction
            unit.facts[(GAME_READ, game_id)] = (game, held, read.logged)
    for model in (SeatMail, dl.SeatClock, Plan):
        unit.remember(table_of(model), game_id,
                      [values for values in read.per_seat[model] if values is not None])
    for unsent in read.unsent:
        if unsent is not None:
            unit.rows[(_OUTBOX.name, unsent["id"])] = Row(_OUTBOX, unsent)
    seat_prefs.remember_seats(unit, game_id, read.seats)
    seat_prefs.remember_addresses(unit, {
        seat.email: values for seat, values in zip(read.seats, read.per_seat[Person])
        if seat.email})
    return read.seats


def open_seat_for_move(unit: Unit, token: str) -> tuple[SeatAccess, list[store.SeatRow]]:
    """A move's link check: the seats read with the rows the move needs (``move_seats``)."""
    ref = _signed_seat(token)
    seats = move_seats(unit, str(ref.game))
    return _checked_seat(ref, token, seats), seats


def write_move(unit: Unit) -> int:
    """Every write of a move, in one place; returns how many statements sent them.

    What a move queued on its unit of work, by owner:

    - the action rows (``store.append_action``), the game's status when it ended
      (``store.set_status``) and, every ``games.CACHE_EVERY`` steps, the state cache
      (``states.write_cache``);
    - the seats' mail rows: the step each seat last played, its unsent mail
      (``unsent.seat_acted``, ``unsent.queue``); the outbox: the turn mail, round and
      result mails queued (``unsent.queue``), unsent mail superseded or re-aimed
      (``unsent.supersede_unsent``, ``unsent._aim``);
    - deadlines: the closes of the decisions that ended and the rows of those that
      opened, netted (``clock.deadlines.Changes``);
    - the seats' clock rows (R29: ``presence.absence.record_action``, ``went_away``).

    On PostgreSQL all of it is one statement (each write a CTE); on SQLite one
    statement per write. A few rare writes are sent when they happen instead (a seat's
    first clock or mail row; see ``app.db.unit``)."""
    return unit.write(dl.Changes)


_GAMES = table_of(store.Game)
_OUTBOX = table_of(Outbox)
