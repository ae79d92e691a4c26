"""The read-only use cases: pages, the API's GETs, replays. Each opens one read
session, which is always rolled back: reading never writes, not even the cache.

Long because: every read a page or mail of a seat needs is here, once, with the
words of what a person is told when a link no longer opens (whole translatable
sentences, issue 50)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from sqlalchemy import and_, func, select
from sqlmodel import Session, col

from app import engine
from app import i18n
from app.gamelog import store
from app.access import tokens
from app.db import read_session
from app.db.unit import Unit
from app.engine.names import SeatNames
from app.mail.models import SeatMail
from app.people.models import Person
from app.standing.models import Standing
from app.people import tenures
from app.services.errors import Forbidden, NotFound
from app.services.results import GameInfo, Snapshot, SeatAccess, StepLine
from app.services.repository import (
    engine_seed, engine_options, _game_info, _get_game, _fresh_state, _load_game,
    _seat_access, _open_seat_and_game, move_seats,
)


def _holders(session: Session, info: GameInfo, seats: Sequence[Any]) -> GameInfo:
    """``info`` whose ``names`` also name who held each seat before (issue 32, R49): read
    once per request (``tenures.of_game``, one statement) and only for a game whose seat
    changed hands (``tenures.handed_over``: its link's version moved), so the pages and
    JSON of every other game read what they read before."""
    return replace(info, earlier=tenures.names_of(session, info.id, seats, info.names))


def snapshot(game_id: str) -> Snapshot:
    """The game and its current state (read only: never writes, not even the cache)."""
    with read_session() as session:
        game, seq, state = _load_game(session, game_id)
        seats = store.load_seats(session, game.id)
        return Snapshot(_holders(session, _game_info(game, seats, seq), seats), state)


def game_and_state(session: Session, game_id: str) -> tuple[Any, int, Any]:
    """The game row, its step and its state, read on the caller's ``session`` in one
    statement when this process holds the game's state (``states.read_game``): for a
    runner that reads more of the game in the same session (the sender's check and
    composition of a waiting turn mail, issue 30) and needs neither the seats nor the
    names a ``Snapshot`` carries."""
    return _load_game(session, game_id)


def game_with_seats(unit: Unit, game_id: str) -> tuple[Any, int, Any]:
    """``game_and_state`` with every seat's rows (mail, clock, address, plan) read in the
    same statement as the game, as a move reads them (``move_seats``), and registered on
    ``unit``: what composing a seat's mail reads after it (``notify.Context.load``) is
    already there. The sender composes a waiting turn mail with it: read seat by seat,
    that mail cost a dozen statements (issue 30)."""
    move_seats(unit, game_id)
    return _load_game(unit, game_id)


def load_state(game_id: str) -> Any:
    """The current engine state of a game (opaque: pass it to ``engine.view``)."""
    return snapshot(game_id).state


def open_seat(token: str) -> SeatAccess:
    """Check a seat link: it must be ours, name an existing seat, and be current.

    A replaced (revoked) link raises ``Forbidden`` with ``game_id`` and
    ``seat`` in its details, so the 403 page can offer to mail a fresh link.
    """
    with read_session() as session:
        return _seat_access(session, token)


def seat_snapshot(token: str) -> tuple[SeatAccess, Snapshot]:
    """A checked seat link and its game, read in one session."""
    with read_session() as session:
        access, seats, game, seq, state = _open_seat_and_game(session, token)
        return access, Snapshot(_holders(session, _game_info(game, seats, seq), seats), state)


def seat_page(token: str, read: Any = None) -> tuple[SeatAccess, Snapshot, Any]:
    """A seat page's reading in one read session: the link checked once, the game, and
    whatever ``read(session, access, snap)`` adds (the table's clocks, the mail box)."""
    with read_session() as session:
        access, seats, game, seq, state = _open_seat_and_game(session, token)
        snap = Snapshot(_holders(session, _game_info(game, seats, seq), seats), state)
        return access, snap, read(session, access, snap) if read is not None else None


@dataclass(frozen=True)
class Holder:
    """One seat of a game as its page's presenter needs it (issue 33): its address, the
    lobby's mail choice, the person holding it (None: a bot, or no settings yet) and its
    mail row (None: none written yet)."""

    index: int
    kind: str
    email: str | None
    lobby_mail: str | None
    person: Any
    mail: Any
    standing: Any = None  # their standing row (issue 47; None: no game of theirs ended)


def holders(session: Session, game_id: str) -> tuple[list[Holder], bool]:
    """Every seat of the game with its person, mail row and standing (issue 47), and
    whether spectators read the talk: one statement (the four tables joined)."""
    seat = store.Seat
    query: Any = select(col(seat.index), col(seat.kind), col(seat.email), col(seat.preferences),
                        col(store.Game.talk_spectators), Person, SeatMail, Standing)
    found = session.execute(
        query
        .join(store.Game, col(store.Game.id) == col(seat.game_id))
        .outerjoin(Person, (func.lower(col(Person.address)) == func.lower(col(seat.email)))
                   & (col(seat.kind) == "human"))
        .outerjoin(SeatMail, and_(col(SeatMail.game_id) == col(seat.game_id),
                                  col(SeatMail.seat) == col(seat.index)))
        .outerjoin(Standing, col(Standing.person_id) == col(Person.id))
        .where(seat.game_id == str(game_id)).order_by(col(seat.index))).all()
    rows = [Holder(int(index), str(kind), email, (preferences or {}).get("mail"), person, mail,
                   standing)
            for index, kind, email, preferences, _, person, mail, standing in found]
    return rows, bool(found and found[0][4])


def game_page(game_id: str, read: Any = None) -> tuple[Snapshot, Any]:
    """The public page's reading in one read session: the game and ``read(session, snap)``."""
    with read_session() as session:
        game, seq, state = _load_game(session, game_id)
        seats = store.load_seats(session, game.id)
        snap = Snapshot(_holders(session, _game_info(game, seats, seq), seats), state)
        return snap, read(session, snap) if read is not None else None


def current_seq(game_id: str) -> int:
    """How far a game is (its last step), for pages that poll for news: one small query."""
    with read_session() as session:
        step = store.game_seq(session, str(game_id))
    if step is None:
        raise NotFound(i18n._("There is no game with this id."))
    return step


def game_info(game_id: str) -> GameInfo:
    """The public facts of a game, without computing its state."""
    with read_session() as session:
        game = _get_game(session, game_id)
        seats = store.load_seats(session, game.id)
        return _holders(session, _game_info(game, seats, store.last_seq(session, game.id)),
                        seats)


def seat_tokens(game_id: str) -> list[str]:
    """The current link token of every seat (for the lobby's result page and the CLI)."""
    with read_session() as session:
        _get_game(session, game_id)
        return [tokens.seat_token(s.game_id, s.index, s.token_version)
                for s in store.load_seats(session, game_id)]


@dataclass(frozen=True)
class _Log:
    """A whole game log as read for replaying it, plain data (the session is gone)."""

    info: GameInfo
    seed: str
    seats: int
    options: dict[str, Any]
    rules: int
    steps: list[tuple[int, int, dict[str, Any], str]]  # seq, seat, action, source
    dealt: Any  # the state before the first action


def _read_log(session: Any, game_id: str) -> _Log:
    game = _get_game(session, game_id)
    seats = store.load_seats(session, game.id)
    rows = store.load_actions(session, game.id)
    steps = [(row.seq, row.seat, dict(row.action), row.source) for row in rows]
    info = _game_info(game, seats, rows[-1].seq if rows else 0)
    # the log itself says who held each seat when (its take_over entries, R49)
    info = replace(info, earlier=log_names(info.names, steps))
    return _Log(info, game.seed, game.seats, engine_options(game.options or {}),
                game.rules_version, steps, _fresh_state(game))


def replay_frames(game_id: str, seat: int | None = None, reveal: bool = False,
                  first: int = 0, last: int | None = None) -> dict[str, Any]:
    """The game step by step: one frame per action, each built from a view.

    ``seat`` given: every frame is that seat's view at that step, so a
    running game's replay shows only what the seat could see then. ``seat``
    None: the spectator's view. ``reveal`` (only once the game is over): all
    cards open, and the seed and the full log so anyone can re-derive the deal.
    ``first``..``last`` (inclusive step numbers) limit the frames returned:
    a whole four-round game is a few hundred frames of full views.
    """
    with read_session() as session:
        log = _read_log(session, game_id)
    return _frames(log, seat, reveal, first, last)


#: Why a game ended early, in words for its replay and pages (``Game.end_reason``).
ENDED_WORDS = {
    "agreement": i18n.N_("The game was abandoned by agreement: everyone still playing agreed "
                         "to end it."),
    "away": i18n.N_("The game was abandoned: every player was away."),
    "resigned": i18n.N_("The game was abandoned: every player resigned."),
    "operator": i18n.N_("The game was stopped by the server's operator."),
}


def ended_words(info: GameInfo) -> str | None:
    """How a game that stopped before its end stopped, in a sentence (None: it runs, or
    it was played to its end)."""
    if info.status != "abandoned":
        return None
    return i18n._(ENDED_WORDS.get(info.end_reason or "away", ENDED_WORDS["away"]))


def names_by_step(names: list[str], steps: list[tuple[int, int, dict[str, Any], str]]
                  ) -> dict[int, list[str]]:
    """The players' names as they were after each step at which they changed (R49: a
    substitute took a seat over), and at step 0: the log's ``take_over`` entries say who
    had each seat before (``was``), so the names of earlier steps are not today's."""
    first = list(names)
    for _, actor, action, _ in reversed(steps):
        if action.get("type") == "take_over" and 0 <= actor < len(first):
            first[actor] = str(action.get("was") or first[actor])
    changes = {0: first}
    current = list(first)
    for seq, actor, action, _ in steps:
        if action.get("type") == "take_over" and 0 <= actor < len(current):
            current = list(current)
            current[actor] = str(action.get("name") or current[actor])
            changes[seq] = current
    return changes


def log_names(names: list[str], steps: list[tuple[int, int, dict[str, Any], str]]
              ) -> SeatNames:
    """``names_by_step`` as the ``SeatNames`` every reader of the past takes (the
    replay's talk, its words): the same eras as the tenures the hand-overs wrote."""
    changes = names_by_step(names, steps)
    since = [0] * len(names)
    for seq, actor, action, _ in steps:
        if action.get("type") == "take_over" and 0 <= actor < len(since):
            since[actor] = seq
    return SeatNames(names, changes, since)


def step_names(names: Sequence[str], step: int) -> list[str]:
    """The names of a replay frame at ``step``: its holders then, and before (R49)."""
    return names.as_of(step) if isinstance(names, SeatNames) else list(names)


def _frames(log: _Log, seat: int | None, reveal: bool, first: int,
            last: int | None) -> dict[str, Any]:
    info = log.info
    over = info.status != "running"  # over, or ended: nothing more can be played
    if reveal and not over:
        raise Forbidden(i18n._("All cards are shown only once the game is over."), reason="running")
    if seat is not None and not 0 <= seat < len(info.seats):
        raise NotFound(i18n._("There is no such seat in this game."))

    def look(state: Any) -> dict[str, Any]:
        if reveal:
            return engine.view(state, None, reveal=True)
        return engine.view(state, seat)

    last = info.seq if last is None else min(last, info.seq)
    first = max(0, first)
    state = log.dealt
    named = names_by_step(info.names, log.steps)
    names = named[0]
    frames: list[dict[str, Any]] = []
    if first == 0:
        frames.append({"step": 0, "seat": None, "source": None, "action": None,
                       "events": [], "text": [], "view": look(state)})
    for seq, actor, action, source in log.steps:
        if seq > last:
            break
        state, events = engine.apply_action(state, actor, action)
        names = named.get(seq, names)
        if seq < first:
            continue
        shown = over or (seat is not None and actor == seat)
        frames.append({
            "step": seq, "seat": actor, "source": source,
            "action": action if shown else None,
            "events": events,
            "text": [engine.describe(event, names) for event in events],
            "names": names,
            "view": look(state),
        })
    result: dict[str, Any] = {"game": info.public(), "seat": seat, "reveal": reveal,
                              "steps": info.seq, "frames": frames,
                              "ended": ended_words(info)}
    if over:
        result["log"] = [[actor, action] for _, actor, action, _ in log.steps]
        result["how_to_verify"] = (
            f"sha256('{log.seed}') is {info.commitment}, the commitment shown since the game "
            f"began. engine.replay({log.seats}, {engine_seed(log.seed)!r}, log, "
            f"options={log.options!r}, rules={log.rules}) rebuilds every deal and every move "
            f"(under rules version {log.rules}, the one the game was created with).")
    return result


def state_and_log_after(game_id: str, step: int) -> tuple[Any, list[tuple[int, int, dict[str, Any], str]]]:
    """The state at ``step`` and the log rows after it (seq, seat, action, source).

    For a reply to a mail written at ``step`` (issue 17 item 4): the engine
    compares the seat's position then with its position now
    (``engine.still_means``), and the rows say who moved in between.
    """
    with read_session() as session:
        log = _read_log(session, game_id)
    state = log.dealt
    later = []
    for seq, actor, action, source in log.steps:
        if seq <= step:
            state, _ = engine.apply_action(state, actor, action)
        else:
            later.append((seq, actor, action, source))
    return state, later


def replay_index(game_id: str) -> tuple[GameInfo, list[StepLine]]:
    """Every step of a game in one line, without building a single view.

    The replay viewer needs the whole list (rounds, the moves of a round, the
    last step) but shows one frame; ``replay_frames(first=n, last=n)`` builds
    that frame. This replays the log once and only describes the public
    events, which is what every viewer (seat or spectator) is told anyway.
    Step 0 is the deal of round 1; a step's round is the round the table is
    in after it (a step that deals the next round belongs to that round).
    """
    with read_session() as session:
        log = _read_log(session, game_id)
    return log.info, _index(log)


def _index(log: _Log) -> list[StepLine]:
    state = log.dealt
    lines = [StepLine(0, 1, None, "The cards are dealt.", False)]
    round_no, over = 1, False
    named = names_by_step(log.info.names, log.steps)
    names = named[0]
    for seq, actor, action, _ in log.steps:
        state, events = engine.apply_action(state, actor, action)
        names = named.get(seq, names)
        for event in events:
            if event.get("type") == "round_start" and isinstance(event.get("round"), int):
                round_no = event["round"]
            elif event.get("type") == "game_over":
                over = True
        text = " ".join(engine.describe(event, names) for event in events)
        lines.append(StepLine(seq, round_no, actor, text, over))
    return lines


@dataclass(frozen=True)
class ReplayPage:
    """What the replay viewer shows: the step list, and the one frame asked for."""

    info: GameInfo
    lines: list[StepLine]
    step: int
    reveal: bool
    seat: int | None
    frames: dict[str, Any]  # ``replay_frames`` of the one step
    also: Any = None  # what the caller's ``also`` read on the same session


def replay_page(game_id: str, token: str | None, step_of: Callable[[int], int],
                reveal_asked: bool,
                also: Callable[[Session, GameInfo, int | None, int], Any] | None = None,
                ) -> ReplayPage:
    """The replay viewer's reading, in one read session: the seat link (when
    given) checked, the log read once; then the step list and the frame of
    ``step_of(last step)``, with every card open only once the game is over.
    ``also(session, info, seat, step)``: what else the page shows of that frame, read
    on the same session (the table talk said up to it, issue 20)."""
    seat = None
    with read_session() as session:
        if token:
            access = _seat_access(session, token)
            if access.game_id != game_id:
                raise Forbidden(i18n._("This link belongs to another game."), reason="foreign")
            seat = access.seat
        log = _read_log(session, game_id)
        lines = _index(log)
        step = step_of(lines[-1].step)
        extra = also(session, log.info, seat, step) if also is not None else None
    reveal = reveal_asked and log.info.status != "running"
    return ReplayPage(log.info, lines, step, reveal, seat, _frames(log, seat, reveal, step, step),
                      extra)
