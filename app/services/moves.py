"""Moves: a seat's action(s) decided on step ``expected_seq``, checked, applied,
appended and hooked in one transaction; a stale or repeated one gets a 409."""
from __future__ import annotations

import json
import logging
from dataclasses import replace
from datetime import timedelta, tzinfo
from typing import Any

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session

from app import engine
from app import i18n
from app.services.status_words import status_word
from app import i18n
from app.gamelog import store
from app.engine import action_schema
from app.config import DEFAULTS, setting
from app.db import read_session
from app.db.unit import Unit, unit_of_work
from app.services.errors import (
    BadRequest, NotFound, Conflict, TooMany, Illegal, MOVED_ON, ALREADY_APPLIED,
)
from app.services.results import Snapshot, SeatAccess, AppliedAction, Submitted
from app.services.repository import (
    _same_action, _game_info, _load_game, move_seats, open_seat_for_move,
)
from app.services.games import _append, _play_automatic, _finish
from app.mail import seat_prefs
from app.services import plan_steps

log = logging.getLogger("app.services")


#: Steps one form may carry (a whole Twister or Underminer is a handful).
MAX_STEPS_PER_POST = 16


#: A seat may say "away" or "back" this many times an hour (each tells every
#: other player): beyond it, 429 and nothing is stored.
PRESENCE_PER_HOUR = int(DEFAULTS["PRESENCE_PER_HOUR"])


def _conflict_for(session: Session, game_id: str, seat: int, action: dict[str, Any],
                  expected_seq: int, seq: int) -> Conflict:
    """Tell "already applied" (this very move is in the log) from "the game moved on"."""
    row = store.action_at(session, game_id, expected_seq + 1)
    if row is not None and row.seat == seat and _same_action(row.action, action):
        return Conflict(i18n._("Already applied: this move was made at step %(step)s. Nothing "
                               "was changed.", step=row.seq), reason="already_applied",
                        seq=seq)
    # (MOVED_ON's words, as one sentence a translator can order)
    return Conflict(i18n._("The game moved on: another move was made since this page was "
                           "loaded (it is now at step %(seq)s). Nothing was changed; reload "
                           "to see the current position.", seq=seq),
                    reason="moved_on", seq=seq)


def _check_presence_rate(session: Session, game_id: str, seat: int) -> None:
    """Refuse a seat's "away"/"back" beyond ``PRESENCE_PER_HOUR`` (config of the same name)."""
    limit = int(setting("PRESENCE_PER_HOUR"))
    since = store.utcnow() - timedelta(hours=1)
    recent = [row for row in store.actions_since(session, game_id, seat, since)
              if row.action.get("type") in action_schema.PRESENCE]
    if len(recent) >= limit:
        oldest = store.as_utc(recent[len(recent) - limit].created)  # the one to age out
        wait = max(1, int((oldest + timedelta(hours=1) - store.utcnow()).total_seconds() // 60) + 1)
        raise TooMany(i18n._("You said you were away or back %(num)s times in the last hour, "
                             "and each time every other player is told. Please wait %(wait)s "
                             "minutes before saying it again. Nothing was changed.",
                             num=len(recent), wait=wait), reason="presence")


def submit_action(game_id: str, seat: int, action: dict[str, Any], expected_seq: int,
                  source: str = "player", plan: dict[str, Any] | None = None) -> Submitted:
    """Apply one seat's action decided on position ``expected_seq``.

    Raises ``Conflict`` when the game is no longer at ``expected_seq`` (or the
    same move is already in the log), ``Illegal`` with the engine's words when
    the rules forbid it, ``NotFound``/``BadRequest`` for nonsense. On any error
    nothing is written. ``plan``: what the seat decided ahead with this move (issue 35,
    ``services.plan_steps.attach``), stored in its transaction and played right after it.
    """
    return submit_actions(game_id, seat, [action], expected_seq, source, plan)


def submit_actions(game_id: str, seat: int, actions: list[dict[str, Any]], expected_seq: int,
                   source: str = "player", plan: dict[str, Any] | None = None) -> Submitted:
    """Apply several steps of one seat in a row, all or nothing (one form, one Twister).

    The steps are appended at ``expected_seq + 1``, ``+ 2``...; if the engine
    refuses any of them, nothing at all is written and ``Illegal`` says which
    step failed. Bots and absent seats act only after the last step.
    """
    checked = _checked_actions(actions, expected_seq, source)
    return _submit(lambda unit: (str(game_id), seat, None, checked, expected_seq), source, plan)


def submit_now(game_id: str, seat: int, action: dict[str, Any],
               source: str = "player") -> Submitted:
    """Log ``action`` for ``seat`` at the game's current step: an entry that means the
    same whatever the position (R29 "I'm back", R48 a resignation), so when another move
    lands first it is tried again at the new step, never refused as "the game moved on".
    Anything else (the rules refuse it, the game is over) is raised as it is."""
    last: Conflict | None = None
    for _ in range(MAX_RETRIES):
        with read_session() as session:
            seq = store.last_seq(session, str(game_id))
        try:
            return submit_action(game_id, seat, action, seq, source=source)
        except Conflict as exc:
            if exc.details.get("reason") not in ("moved_on", "busy"):
                raise
            last = exc
    assert last is not None
    raise last


#: How often ``submit_now`` tries again when other moves keep landing first.
MAX_RETRIES = 5


def submit_by_link(token: str, read_move: Any,
                   source: str = "player") -> tuple[SeatAccess, Submitted]:
    """A move sent with a seat link: the link checked and the move applied in one
    transaction (one session, the link's seats read once).

    ``read_move(access)`` is called once the link is accepted (so a bad link
    is refused before a bad body is; a form checks its CSRF token there) and
    returns ``(actions, expected_seq)``; the rest is ``submit_actions``.
    """
    opened: list[SeatAccess] = []
    zones: list[tzinfo] = []

    def move_of(unit: Unit) -> tuple[str, int, list[store.SeatRow], list[dict[str, Any]], int]:
        access, seats = open_seat_for_move(unit, token)
        opened.append(access)
        actions, expected_seq = read_move(access)
        zones.append(seat_prefs.zone_in(unit, seats[access.seat].email))  # (read with the seats)
        return (access.game_id, access.seat, seats,
                _checked_actions(actions, expected_seq, source), expected_seq)

    result = _submit(move_of, source)
    return opened[0], replace(result, zone=zones[0])


def _checked_actions(actions: Any, expected_seq: Any, source: str) -> list[dict[str, Any]]:
    """The steps of a submission as they will be stored, or the error that refuses them."""
    if not isinstance(actions, list) or not actions:
        raise BadRequest(i18n._('Send at least one action, like {"type": "draw"}.'))
    if len(actions) > MAX_STEPS_PER_POST:
        raise BadRequest(i18n._("One form carries at most %(most)s steps.",
                                most=MAX_STEPS_PER_POST))
    for action in actions:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise BadRequest(i18n._('An action must be an object with a "type", like {"type": "draw"}.'))
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
        raise BadRequest(i18n._("expected_seq must be the step number the move was decided on."))
    if source not in store.ACTION_SOURCES:
        raise BadRequest(f"unknown source {source!r}")
    checked = []
    for step in actions:
        try:
            checked.append(action_schema.check(step))  # the schema decides what the log may hold
        except action_schema.ActionRefused as exc:
            raise Illegal(str(exc), reason="schema") from None
    return json.loads(json.dumps(checked))  # plain JSON copies: what will be stored


def _submit(move_of: Any, source: str, plan: dict[str, Any] | None = None) -> Submitted:
    """The transaction of a submission, one unit of work. ``move_of(unit)`` gives
    ``(game_id, seat, seats or None, checked steps, expected_seq)``: a seat link's
    check reads the seats itself, a caller that names the seat leaves them to be
    read here. The move's writes are queued on the unit by the engine's events'
    reactions and sent by ``repository.write_move`` (in ``games._finish``)."""
    where: dict[str, Any] = {}
    try:
        with unit_of_work() as unit:
            session = unit.session
            game_id, seat, seats, actions, expected_seq = move_of(unit)
            action = actions[0]
            where.update(game_id=game_id, seat=seat, action=action, expected_seq=expected_seq)
            if seats is None:
                seats = move_seats(unit, str(game_id))
                if not isinstance(seat, int) or not 0 <= seat < len(seats):
                    _load_game(unit, game_id)  # (no such game: its words first)
                    raise NotFound(i18n._("There is no such seat in this game."))
            game, seq, state = _load_game(unit, game_id)
            if expected_seq != seq:
                if expected_seq > seq:
                    raise Conflict(i18n._("This page is ahead of the game: step %(step)s has "
                                          "not happened (the game is at step %(seq)s).",
                                          step=expected_seq, seq=seq),
                                   reason="ahead", seq=seq)
                raise _conflict_for(session, game.id, seat, action, expected_seq, seq)
            if game.status != "running":
                raise Conflict(i18n._("The game is %(status)s: no more moves can be made.",
                                     status=status_word(game.status)),
                               reason=game.status, seq=seq)
            if source == "player" and any(step["type"] in action_schema.PRESENCE
                                          for step in actions):
                _check_presence_rate(session, game.id, seat)
            mine: list[AppliedAction] = []
            for number, step in enumerate(actions):
                try:
                    state, item = _append(unit, game, seq, seat, step, source, state)
                except engine.IllegalAction as exc:
                    said = str(exc) or "That move is not allowed now."
                    if len(actions) > 1:
                        said = f"Step {number + 1} of {len(actions)}: {said} Nothing was changed."
                    raise Illegal(said) from exc
                except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                    log.warning("engine rejected a malformed action %r: %r", step, exc)
                    raise Illegal(i18n._("That move is not understood: some of its fields are "
                                  "missing or out of range.")) from exc
                seq += 1
                mine.append(item)
            if plan is not None:
                plan_steps.attach(unit, game, seat, plan, source, state, seq)
            seq, state, more = _play_automatic(unit, game, seq, state, seats)
            _finish(unit, game, expected_seq, seq, state, [*mine, *more])
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
            raise Conflict(i18n._("The game is busy with another move; please try again."),
                           reason="busy") from None
        raise
