"""Use cases of the server, and its one transaction boundary.

Every change to a game goes through here: load the log (through the state
cache), check ``expected_seq``, let the engine apply the action, append it,
call the hooks (mail, deadlines) in the same transaction, let bots and absent
seats act, commit. The web layer, the CLI and the clock all call these
functions; none of them opens a write transaction of its own.

Errors are ``ServiceError`` subclasses carrying an HTTP-like status and a
sentence a player understands; nothing here ever turns a race into a 500.
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Iterable

from sqlalchemy import and_
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, select

from app import deadlines as dl
from app import engine, hooks, store, tokens
from app import options as game_options
from app.engine import action_schema
from app.db import read_session, write_session
from app.mail import addresses
from app.mail.models import SeatMail

log = logging.getLogger(__name__)

MIN_SEATS, MAX_SEATS = 2, 4
MAX_NAME_LENGTH = 60
#: Steps one form may carry (a whole Twister or Underminer is a handful).
MAX_STEPS_PER_POST = 16
#: Keys of a game's options that the engine takes; the others (deadlines,
#: reminders...) belong to the clock and are kept for it untouched.
ENGINE_OPTION_KEYS = ("memory", "simon")


# -- errors -------------------------------------------------------------------

class ServiceError(Exception):
    """A request that cannot be carried out, with words for the person who made it."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class BadRequest(ServiceError):
    status, code = 400, "bad_request"


class Forbidden(ServiceError):
    """A link that does not open a seat (forged, foreign or replaced)."""

    status, code = 403, "forbidden"


class NotFound(ServiceError):
    status, code = 404, "not_found"


class Conflict(ServiceError):
    """The request was decided on an old state: "the game moved on" or "already applied"."""

    status, code = 409, "conflict"


class TooMany(ServiceError):
    """Too many requests of one kind from one place for now: try again later."""

    status, code = 429, "too_many"


class Illegal(ServiceError):
    """The engine refused the action; the message is the engine's."""

    status, code = 422, "illegal_action"


MOVED_ON = "The game moved on: {what} since this page was loaded (it is now at step {seq}). Nothing was changed; reload to see the current position."
ALREADY_APPLIED = "Already applied: this move was made at step {step}. Nothing was changed."
FORM_USED = ("This form already created a game, so it was not used again. Check the "
             "details below and press “Create the game” to start another.")


# -- what callers get back ------------------------------------------------------

@dataclass(frozen=True)
class SeatInfo:
    """The public side of a seat: never the email, never the token."""

    index: int
    name: str
    kind: str


@dataclass(frozen=True)
class GameInfo:
    """A game as anyone may see it. ``seed`` is None until the game is over."""

    id: str
    name: str
    status: str
    created: datetime
    options: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    commitment: str
    seed: str | None
    seq: int
    #: The rules version the game is played under (docs/rules.md, "Rules versions").
    rules: int = 1

    @property
    def names(self) -> list[str]:
        return [seat.name for seat in self.seats]

    def public(self) -> dict[str, Any]:
        """JSON-safe summary for pages and the API."""
        return {
            "id": self.id, "name": self.name, "status": self.status,
            "created": self.created.isoformat(), "options": self.options,
            "seats": [{"index": s.index, "name": s.name, "kind": s.kind} for s in self.seats],
            "names": self.names, "commitment": self.commitment, "seed": self.seed,
            "seq": self.seq, "rules": self.rules,
        }


@dataclass
class Snapshot:
    """A game and its current (server-side, opaque) state."""

    game: GameInfo
    state: Any

    @property
    def seq(self) -> int:
        return self.game.seq

    def view(self, seat: int | None) -> dict[str, Any]:
        """The only way out of the state: the engine's view for ``seat``."""
        return engine.view(self.state, seat)


@dataclass(frozen=True)
class SeatAccess:
    """A checked seat link: this token opens this seat of this game."""

    game_id: str
    seat: int
    version: int
    token: str

    @property
    def csrf(self) -> str:
        return tokens.csrf_token(self.game_id, self.seat, self.version)


@dataclass(frozen=True)
class AppliedAction:
    """One action appended by a call, with the events it caused."""

    seq: int
    seat: int
    action: dict[str, Any]
    source: str
    events: list[dict[str, Any]]


@dataclass
class Submitted:
    """The outcome of ``submit_action``: what was appended and the position after it."""

    snapshot: Snapshot
    applied: list[AppliedAction] = field(default_factory=list)

    @property
    def seq(self) -> int:
        return self.snapshot.seq

    @property
    def events(self) -> list[dict[str, Any]]:
        return [event for item in self.applied for event in item.events]


@dataclass
class Created:
    """A new game and the token of each seat (bots get one too, unused)."""

    snapshot: Snapshot
    tokens: list[str]

    @property
    def game_id(self) -> str:
        return self.snapshot.game.id


# -- helpers ----------------------------------------------------------------------

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


def _game_info(game: store.Game, seats: Iterable[store.Seat], seq: int) -> GameInfo:
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


def _load_seats(session: Session, game_id: str, with_rows: bool = False) -> list[store.Seat]:
    """The game's seats; ``with_rows``: in the same query their mail and clock rows,
    which the hooks of a move read for every seat (``deadlines.remembered``)."""
    if not with_rows:
        return store.load_seats(session, game_id)
    query = (select(store.Seat, SeatMail, dl.SeatClock)
             .outerjoin(SeatMail, and_(SeatMail.game_id == store.Seat.game_id,
                                       SeatMail.seat == store.Seat.index))
             .outerjoin(dl.SeatClock, and_(dl.SeatClock.game_id == store.Seat.game_id,
                                           dl.SeatClock.seat == store.Seat.index))
             .where(store.Seat.game_id == game_id).order_by(store.Seat.index))
    rows = list(session.exec(query))
    dl.remember_all(session, SeatMail, game_id, [row[1] for row in rows if row[1] is not None])
    dl.remember_all(session, dl.SeatClock, game_id,
                    [row[2] for row in rows if row[2] is not None])
    return [row[0] for row in rows]


def _load_game(session: Session, game_id: str) -> tuple[store.Game, int, Any]:
    """The game, its step and its state, from one query when the cache is usable
    (``store.read_game``: game, cache and the actions since, joined)."""
    game, cached, rows = store.read_game(session, str(game_id))
    if game is None:
        raise NotFound("There is no game with this id.")
    seq, state = _state_from(session, game, cached, rows)
    return game, seq, state


def _state_from(session: Session, game: store.Game, cached: tuple[int, Any] | None,
                rows: list[store.Action]) -> tuple[int, Any]:
    """The state after the cache's ``seq`` plus ``rows`` (the log from that ``seq``
    on), or, when they do not fit together, the whole log replayed."""
    if cached is not None:
        cache_seq, state = cached
        if cache_seq == 0 or (rows and rows[0].seq == cache_seq):
            newer = [row for row in rows if row.seq > cache_seq]
            if all(row.seq == cache_seq + i + 1 for i, row in enumerate(newer)):
                for row in newer:
                    state, _ = engine.apply_action(state, row.seat, dict(row.action))
                return (newer[-1].seq if newer else cache_seq), state
        log.warning("state cache of game %s is stale; replaying the log", game.id)
    rows = store.load_actions(session, game.id)
    state = engine.replay(game.seats, engine_seed(game.seed), store.as_pairs(rows),
                          options=engine_options(game.options or {}), rules=game.rules_version)
    return (rows[-1].seq if rows else 0), state


def _phase(state: Any) -> dict[str, Any]:
    return engine.status(state)


# -- reading ----------------------------------------------------------------------

def snapshot(game_id: str) -> Snapshot:
    """The game and its current state (read only: never writes, not even the cache)."""
    with read_session() as session:
        game, seq, state = _load_game(session, game_id)
        return Snapshot(_game_info(game, store.load_seats(session, game.id), seq), state)


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


def _seat_access(session: Session, token: str) -> SeatAccess:
    """The checks of ``open_seat``, on a session the caller already holds."""
    return _open_seat(session, token)[0]


def _open_seat(session: Session, token: str,
               with_rows: bool = False) -> tuple[SeatAccess, list[store.Seat]]:
    """The checks of ``open_seat``, and every seat of the link's game (one query:
    the callers need the seats anyway, and the link's seat is among them).
    ``with_rows``: a move follows, so the seats' mail and clock rows come along."""
    try:
        ref = tokens.read_seat_token(token)
    except tokens.BadToken:
        raise Forbidden("This link is not valid: it may have been cut short or changed. "
                        "Use the link from your most recent email.", reason="invalid")
    seats = _load_seats(session, str(ref.game), with_rows)
    seat = next((row for row in seats if row.index == ref.seat), None)
    if seat is None:
        raise Forbidden("This link does not open any seat here.", reason="unknown")
    if seat.token_version != ref.version:
        raise Forbidden("This link was replaced by a newer one and no longer opens your "
                        "seat. We can email the current link to the seat's address.",
                        reason="revoked", game_id=ref.game, seat=ref.seat)
    return SeatAccess(ref.game, ref.seat, ref.version, token), seats


def seat_snapshot(token: str) -> tuple[SeatAccess, Snapshot]:
    """A checked seat link and its game, read in one session."""
    with read_session() as session:
        access, seats = _open_seat(session, token)
        game, seq, state = _load_game(session, access.game_id)
        return access, Snapshot(_game_info(game, seats, seq), state)


def seat_page(token: str, read: Any = None) -> tuple[SeatAccess, Snapshot, Any]:
    """A seat page's reading in one read session: the link checked once, the game, and
    whatever ``read(session, access)`` adds (the table's clocks, the mail box)."""
    with read_session() as session:
        access, seats = _open_seat(session, token)
        game, seq, state = _load_game(session, access.game_id)
        snap = Snapshot(_game_info(game, seats, seq), state)
        return access, snap, read(session, access) if read is not None else None


def game_page(game_id: str, read: Any = None) -> tuple[Snapshot, Any]:
    """The public page's reading in one read session: the game and ``read(session, game_id)``."""
    with read_session() as session:
        game, seq, state = _load_game(session, game_id)
        snap = Snapshot(_game_info(game, store.load_seats(session, game.id), seq), state)
        return snap, read(session, game.id) if read is not None else None


def current_seq(game_id: str) -> int:
    """How far a game is (its last step), for pages that poll for news: one small query."""
    with read_session() as session:
        step = store.game_seq(session, str(game_id))
    if step is None:
        raise NotFound("There is no game with this id.")
    return step


def game_info(game_id: str) -> GameInfo:
    """The public facts of a game, without computing its state."""
    with read_session() as session:
        game = _get_game(session, game_id)
        return _game_info(game, store.load_seats(session, game.id),
                          store.last_seq(session, game.id))


def seat_tokens(game_id: str) -> list[str]:
    """The current link token of every seat (for the lobby's result page and the CLI)."""
    with read_session() as session:
        _get_game(session, game_id)
        return [tokens.seat_token(s.game_id, s.index, s.token_version)
                for s in store.load_seats(session, game_id)]


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
        game = _get_game(session, game_id)
        seats = store.load_seats(session, game.id)
        rows = store.load_actions(session, game.id)
        info = _game_info(game, seats, rows[-1].seq if rows else 0)
        state = _fresh_state(game)
        seed, seat_count, options = game.seed, game.seats, engine_options(game.options or {})
        rules = game.rules_version
        log_pairs = [(row.seq, row.seat, dict(row.action), row.source) for row in rows]
    over = info.status == "over"
    if reveal and not over:
        raise Forbidden("All cards are shown only once the game is over.", reason="running")
    if seat is not None and not 0 <= seat < len(info.seats):
        raise NotFound("There is no such seat in this game.")

    def look(state: Any) -> dict[str, Any]:
        if reveal:
            return engine.view(state, None, reveal=True)
        return engine.view(state, seat)

    last = info.seq if last is None else min(last, info.seq)
    first = max(0, first)
    frames = []
    if first == 0:
        frames.append({"step": 0, "seat": None, "source": None, "action": None,
                       "events": [], "text": [], "view": look(state)})
    for seq, actor, action, source in log_pairs:
        if seq > last:
            break
        state, events = engine.apply_action(state, actor, action)
        if seq < first:
            continue
        shown = over or (seat is not None and actor == seat)
        frames.append({
            "step": seq, "seat": actor, "source": source,
            "action": action if shown else None,
            "events": events,
            "text": [engine.describe(event, info.names) for event in events],
            "view": look(state),
        })
    result: dict[str, Any] = {"game": info.public(), "seat": seat, "reveal": reveal,
                              "steps": info.seq, "frames": frames}
    if over:
        result["log"] = [[actor, action] for _, actor, action, _ in log_pairs]
        result["how_to_verify"] = (
            f"sha256('{seed}') is {info.commitment}, the commitment shown since the game "
            f"began. engine.replay({seat_count}, {engine_seed(seed)!r}, log, "
            f"options={options!r}, rules={rules}) rebuilds every deal and every move "
            f"(under rules version {rules}, the one the game was created with).")
    return result


@dataclass(frozen=True)
class StepLine:
    """One step of a game for a replay's navigation: its round and its events in words."""

    step: int
    round: int
    seat: int | None
    text: str
    over: bool


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
        game = _get_game(session, game_id)
        seats = store.load_seats(session, game.id)
        rows = store.load_actions(session, game.id)
        info = _game_info(game, seats, rows[-1].seq if rows else 0)
        state = _fresh_state(game)
        pairs = [(row.seq, row.seat, dict(row.action)) for row in rows]
    lines = [StepLine(0, 1, None, "The cards are dealt.", False)]
    round_no, over = 1, False
    for seq, actor, action in pairs:
        state, events = engine.apply_action(state, actor, action)
        for event in events:
            if event.get("type") == "round_start" and isinstance(event.get("round"), int):
                round_no = event["round"]
            elif event.get("type") == "game_over":
                over = True
        text = " ".join(engine.describe(event, info.names) for event in events)
        lines.append(StepLine(seq, round_no, actor, text, over))
    return info, lines


# -- writing --------------------------------------------------------------------

def _has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (PostgreSQL text cannot even hold NUL)."""
    return any(ord(char) < 32 or ord(char) == 127 for char in text)


def _clean_players(players: list[dict[str, Any]]) -> list[dict[str, str]]:
    if not isinstance(players, list) or not MIN_SEATS <= len(players) <= MAX_SEATS:
        raise BadRequest(f"A game needs {MIN_SEATS} to {MAX_SEATS} players.")
    cleaned = []
    for index, player in enumerate(players):
        if not isinstance(player, dict):
            raise BadRequest(f"Player {index + 1} is not described properly.")
        kind = str(player.get("kind") or "human").strip().lower()
        if kind not in store.SEAT_KINDS:
            raise BadRequest(f"Player {index + 1} must be a person or a bot.")
        name = " ".join(str(player.get("name") or "").split())
        if not name and kind == "bot":
            name = f"Bot {index + 1}"
        if not name:
            raise BadRequest(f"Player {index + 1} needs a name.")
        if len(name) > MAX_NAME_LENGTH:
            raise BadRequest(f"The name of player {index + 1} is longer than "
                             f"{MAX_NAME_LENGTH} characters.")
        email = str(player.get("email") or "").strip() if kind == "human" else ""
        if _has_control(name):  # an address gets its own words from addresses.normalise
            raise BadRequest(f"The name of player {index + 1} holds a control "
                             "character (such as NUL); please type it plainly.")
        if email:
            try:  # one check for lobby, API, CLI and mailer (issue 7 item 4)
                email = addresses.normalise(email)
            except addresses.BadAddress as exc:
                raise BadRequest(f"The email address of {name} does not look right: {exc}") from None
        prefs = player.get("preferences") or {}
        if not isinstance(prefs, dict):
            raise BadRequest(f"The preferences of {name} are not understood.")
        cleaned.append({"name": name, "email": email, "kind": kind, "preferences": prefs})
    if len({p["name"].casefold() for p in cleaned}) != len(cleaned):
        raise BadRequest("Two players have the same name; please tell them apart.")
    return cleaned


def create_game(players: list[dict[str, Any]], options: dict[str, Any] | None = None,
                name: str = "", seed: str | None = None, creator: str | None = None,
                per_hour: int | None = None, form_token_id: str | None = None,
                form_max_age: int = 6 * 3600) -> Created:
    """Start a game: seats, secret seed and its public commitment; bots may move at once.

    ``players``: 2-4 dicts with ``name``, ``email`` (may be empty: the links
    are also shown), ``kind`` ("human" or "bot"), optional ``preferences``.
    ``options``: the engine's (``memory``, ``simon``) and the clock's
    (deadlines, reminders...), stored as given. ``creator`` (an opaque key,
    such as the lobby's hash of an address) is stored with the game; with
    ``per_hour``, ``TooMany`` is raised when that creator already started that
    many games in the last hour (counted in the same transaction, under a lock
    on the creator key, so racing workers cannot all see "one more is fine").
    ``form_token_id``: the lobby form's token, good for one game only.
    Options outside ``app.options``' ranges raise ``BadRequest``.
    """
    cleaned = _clean_players(players)
    try:
        options = game_options.validate(options, len(cleaned))
    except game_options.OptionError as exc:
        raise BadRequest(str(exc)) from None
    name = " ".join(str(name or "").split())[:200]
    if _has_control(name):
        raise BadRequest("The game's name holds a control character (such as NUL); please "
                         "type it plainly.")
    seed = str(seed) if seed is not None else str(secrets.randbits(63))
    try:
        state = engine.new_game(len(cleaned), engine_seed(seed), options=engine_options(options))
    except (engine.IllegalAction, TypeError, ValueError) as exc:
        raise BadRequest(f"These game options cannot be used: {exc}") from exc
    with write_session() as session:
        if creator and per_hour is not None:
            if not store.lock_creator(session, creator):
                raise TooMany("The server is busy starting other games; please try again in "
                              "a minute.")
            since = store.utcnow() - timedelta(hours=1)
            if store.games_created_by(session, creator, since) >= per_hour:
                raise TooMany(f"Too many games were started from your address in the last "
                              f"hour (at most {per_hour}). Please try again later.")
        if form_token_id is not None and not store.use_form_token(
                session, form_token_id, store.utcnow() - timedelta(seconds=form_max_age)):
            raise BadRequest(FORM_USED)
        game = store.Game(name=name or "Silver Eye", options=options, seed=seed,
                          commitment=commitment_of(seed), seats=len(cleaned),
                          created_by=creator or None, rules_version=state.rules)
        session.add(game)
        session.flush()
        for index, player in enumerate(cleaned):
            session.add(store.Seat(game_id=game.id, index=index, **player))
        session.flush()
        hooks.after_create(session, game, state)
        seats = store.load_seats(session, game.id)
        seq, state, applied = _play_automatic(session, game, 0, state, seats)
        _finish(session, game, seq, state)
        created = Created(Snapshot(_game_info(game, seats, seq), state),
                          [tokens.seat_token(game.id, s.index, s.token_version) for s in seats])
    return created


def _append(session: Session, game: store.Game, seq: int, seat: int, action: dict[str, Any],
            source: str, before: Any) -> tuple[Any, AppliedAction]:
    """Apply and append one action at ``seq + 1``; hooks run in the same transaction."""
    after, events = engine.apply_action(before, seat, action)
    store.append_action(session, game.id, seq + 1, seat, action, source)
    hooks.after_action(session, game, seq + 1, seat, action, source, before, after, events)
    return after, AppliedAction(seq + 1, seat, action, source, list(events))


def _play_automatic(session: Session, game: store.Game, seq: int, state: Any,
                    seats: list[store.Seat]) -> tuple[int, Any, list[AppliedAction]]:
    """Let bots and absent seats act until a present human has to decide.

    Bots choose with the engine's greedy bot, from an RNG seeded by the game's
    seed and the step, so the log does not depend on timing. Absent seats
    (R29, decided by ``hooks.is_absent``) get the engine's default action.
    """
    from app.engine import bots

    strategy = _config("BOT_STRATEGY", "greedy")
    limit = int(_config("MAX_AUTOMATIC_ACTIONS", 5000))
    kinds = {s.index: s.kind for s in seats}
    applied: list[AppliedAction] = []
    for _ in range(limit):
        view = _phase(state)
        if view.get("phase") == "over" or game.status != "running":
            break  # (a hook may have abandoned the game: R29, nobody plays it)
        chosen: tuple[int, dict[str, Any], str] | None = None
        for seat in view.get("to_act") or []:
            if kinds.get(seat) == "bot":
                rng = random.Random(f"{game.seed}:{seq + 1}")
                chosen = (seat, bots.choose(strategy, state, seat, rng), "system")
                break
            if hooks.is_absent(session, game, seat):
                default = engine.default_action(state, seat)
                if default is not None:
                    chosen = (seat, default, "timeout")
                    break
        if chosen is None:
            break
        seat, action, source = chosen
        try:
            state, item = _append(session, game, seq, seat, action, source, state)
        except engine.IllegalAction:
            # A bot bug must not block the humans: log it, play the first legal move.
            log.exception("game %s: seat %s chose an illegal %r", game.id, seat, action)
            fallback = engine.legal_actions(state, seat)[0]
            state, item = _append(session, game, seq, seat, fallback, source, state)
        seq += 1
        applied.append(item)
    else:
        log.error("game %s: %d automatic actions in a row; stopping", game.id, limit)
    return seq, state, applied


def _finish(session: Session, game: store.Game, seq: int, state: Any) -> None:
    """Mark a finished game over and remember the state for the next request."""
    if game.status == "running" and _phase(state).get("phase") == "over":
        game.status = "over"
        session.add(game)
    store.write_cache(session, game.id, seq, state)


def _conflict_for(session: Session, game_id: str, seat: int, action: dict[str, Any],
                  expected_seq: int, seq: int) -> Conflict:
    """Tell "already applied" (this very move is in the log) from "the game moved on"."""
    row = store.action_at(session, game_id, expected_seq + 1)
    if row is not None and row.seat == seat and _same_action(row.action, action):
        return Conflict(ALREADY_APPLIED.format(step=row.seq), reason="already_applied",
                        seq=seq)
    return Conflict(MOVED_ON.format(what="another move was made", seq=seq),
                    reason="moved_on", seq=seq)


#: A seat may say "away" or "back" this many times an hour (each tells every
#: other player): beyond it, 429 and nothing is stored.
PRESENCE_PER_HOUR = 4


def _check_presence_rate(session: Session, game_id: str, seat: int) -> None:
    """Refuse a seat's "away"/"back" beyond ``PRESENCE_PER_HOUR`` (config of the same name)."""
    limit = int(_config("PRESENCE_PER_HOUR", PRESENCE_PER_HOUR))
    since = store.utcnow() - timedelta(hours=1)
    recent = [row for row in store.actions_since(session, game_id, seat, since)
              if row.action.get("type") in action_schema.PRESENCE]
    if len(recent) >= limit:
        oldest = store.as_utc(recent[len(recent) - limit].created)  # the one to age out
        wait = max(1, int((oldest + timedelta(hours=1) - store.utcnow()).total_seconds() // 60) + 1)
        raise TooMany(f"You said you were away or back {len(recent)} times in the last hour, "
                      f"and each time every other player is told. Please wait {wait} minutes "
                      "before saying it again. Nothing was changed.", reason="presence")


def submit_action(game_id: str, seat: int, action: dict[str, Any], expected_seq: int,
                  source: str = "player") -> Submitted:
    """Apply one seat's action decided on position ``expected_seq``.

    Raises ``Conflict`` when the game is no longer at ``expected_seq`` (or the
    same move is already in the log), ``Illegal`` with the engine's words when
    the rules forbid it, ``NotFound``/``BadRequest`` for nonsense. On any error
    nothing is written.
    """
    return submit_actions(game_id, seat, [action], expected_seq, source)


def submit_actions(game_id: str, seat: int, actions: list[dict[str, Any]], expected_seq: int,
                   source: str = "player") -> Submitted:
    """Apply several steps of one seat in a row, all or nothing (one form, one Twister).

    The steps are appended at ``expected_seq + 1``, ``+ 2``...; if the engine
    refuses any of them, nothing at all is written and ``Illegal`` says which
    step failed. Bots and absent seats act only after the last step.
    """
    checked = _checked_actions(actions, expected_seq, source)
    return _submit(lambda session: (str(game_id), seat, None, checked, expected_seq), source)


def submit_by_link(token: str, read_move: Any,
                   source: str = "player") -> tuple[SeatAccess, Submitted]:
    """A move sent with a seat link: the link checked and the move applied in one
    transaction (one session, the link's seats read once).

    ``read_move()`` is called once the link is accepted (so a bad link is
    refused before a bad body is) and returns ``(actions, expected_seq)``;
    the rest is ``submit_actions``.
    """
    opened: list[SeatAccess] = []

    def move_of(session: Session) -> tuple[str, int, list[store.Seat], list[dict[str, Any]], int]:
        access, seats = _open_seat(session, token, with_rows=True)
        opened.append(access)
        actions, expected_seq = read_move()
        return (access.game_id, access.seat, seats,
                _checked_actions(actions, expected_seq, source), expected_seq)

    result = _submit(move_of, source)
    return opened[0], result


def _checked_actions(actions: Any, expected_seq: Any, source: str) -> list[dict[str, Any]]:
    """The steps of a submission as they will be stored, or the error that refuses them."""
    if not isinstance(actions, list) or not actions:
        raise BadRequest('Send at least one action, like {"type": "draw"}.')
    if len(actions) > MAX_STEPS_PER_POST:
        raise BadRequest(f"One form carries at most {MAX_STEPS_PER_POST} steps.")
    for action in actions:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise BadRequest('An action must be an object with a "type", like {"type": "draw"}.')
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
        raise BadRequest("expected_seq must be the step number the move was decided on.")
    if source not in store.ACTION_SOURCES:
        raise BadRequest(f"unknown source {source!r}")
    checked = []
    for step in actions:
        try:
            checked.append(action_schema.check(step))  # the schema decides what the log may hold
        except action_schema.ActionRefused as exc:
            raise Illegal(str(exc), reason="schema") from None
    return json.loads(json.dumps(checked))  # plain JSON copies: what will be stored


def _submit(move_of: Any, source: str) -> Submitted:
    """The transaction of a submission. ``move_of(session)`` gives ``(game_id, seat,
    seats or None, checked steps, expected_seq)``: a seat link's check reads the
    seats itself, a caller that names the seat leaves them to be read here."""
    where: dict[str, Any] = {}
    try:
        with write_session() as session:
            game_id, seat, seats, actions, expected_seq = move_of(session)
            action = actions[0]
            where.update(game_id=game_id, seat=seat, action=action, expected_seq=expected_seq)
            game, seq, state = _load_game(session, game_id)
            if seats is None:
                if not isinstance(seat, int) or not 0 <= seat < game.seats:
                    raise NotFound("There is no such seat in this game.")
                seats = _load_seats(session, game.id, with_rows=True)
            if expected_seq != seq:
                if expected_seq > seq:
                    raise Conflict(f"This page is ahead of the game: step {expected_seq} has "
                                   f"not happened (the game is at step {seq}).",
                                   reason="ahead", seq=seq)
                raise _conflict_for(session, game.id, seat, action, expected_seq, seq)
            if game.status != "running":
                raise Conflict(f"The game is {game.status}: no more moves can be made.",
                               reason=game.status, seq=seq)
            if source == "player" and any(step["type"] in action_schema.PRESENCE
                                          for step in actions):
                _check_presence_rate(session, game.id, seat)
            mine: list[AppliedAction] = []
            for number, step in enumerate(actions):
                try:
                    state, item = _append(session, game, seq, seat, step, source, state)
                except engine.IllegalAction as exc:
                    said = str(exc) or "That move is not allowed now."
                    if len(actions) > 1:
                        said = f"Step {number + 1} of {len(actions)}: {said} Nothing was changed."
                    raise Illegal(said) from exc
                except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                    log.warning("engine rejected a malformed action %r: %r", step, exc)
                    raise Illegal("That move is not understood: some of its fields are "
                                  "missing or out of range.") from exc
                seq += 1
                mine.append(item)
            seq, state, more = _play_automatic(session, game, seq, state, seats)
            _finish(session, game, seq, state)
            info = _game_info(game, seats, seq)
        return Submitted(Snapshot(info, state), [*mine, *more])
    except IntegrityError:
        if not where:
            raise
        # Someone else appended the same step first: one row, and this answer.
        with read_session() as session:
            now = store.last_seq(session, where["game_id"])
            if now <= where["expected_seq"]:  # not a race on the log: a real fault, say so
                raise
            raise _conflict_for(session, where["game_id"], where["seat"], where["action"],
                                where["expected_seq"], now) from None
    except OperationalError as exc:
        if "locked" in str(exc).lower():  # SQLite's busy timeout ran out
            raise Conflict("The game is busy with another move; please try again.",
                           reason="busy") from None
        raise


def auto_pass(game_id: str, seat: int, expected_seq: int) -> Submitted | None:
    """A deadline passed: apply the seat's default action (R29) decided on ``expected_seq``.

    Returns None when the seat has nothing pending any more. A stale call
    raises ``Conflict`` like any other late submission.
    """
    state = load_state(game_id)
    default = engine.default_action(state, seat)
    if default is None:
        return None
    return submit_action(game_id, seat, default, expected_seq, source="timeout")


def rotate_link(game_id: str, seat: int) -> str:
    """Revoke every link of a seat and return its new token."""
    with write_session() as session:
        _get_game(session, game_id)
        row = session.get(store.Seat, (str(game_id), seat))
        if row is None:
            raise NotFound("There is no such seat in this game.")
        row.token_version += 1
        session.add(row)
        session.flush()
        return tokens.seat_token(row.game_id, row.index, row.token_version)


def request_fresh_link(game_id: str, seat: int | None = None, email: str | None = None) -> None:
    """Someone asked for a seat's current link to be mailed to the seat's address.

    The link goes only to the address on record, so asking reveals nothing
    and cannot take a seat from anyone. The answer never says whether a seat
    matched (no probing for addresses).
    """
    with write_session() as session:
        game = session.get(store.Game, str(game_id))
        if game is None:
            return
        seats = store.load_seats(session, game.id)
        wanted = (email or "").strip().casefold()
        for row in seats:
            if row.kind != "human" or not row.email:
                continue
            if (seat is not None and row.index == seat) or (wanted and row.email.casefold() == wanted):
                hooks.fresh_link_requested(session, game, row.index)
                return


def abandon_game(game_id: str) -> None:
    """Stop a running game for good (its log stays, and so does its replay)."""
    with write_session() as session:
        game = _get_game(session, game_id)
        if game.status == "running":
            game.status = "abandoned"
            session.add(game)
