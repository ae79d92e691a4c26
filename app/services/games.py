"""Games as a whole: creating one (seats, secret seed, public commitment), the
automatic moves of bots and absent seats, links, abandoning. Every write runs
in one transaction with the hooks (mail, deadlines).

Long because: creating a game, its guards and their refusals, each refusal one whole
translatable sentence (issue 50), stay beside the rules they word."""
from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlmodel import Session

from app.clock import deadlines as dl
from app import i18n
from app import engine
from app.services import reactions as hooks
from app.gamelog import states, store
from app.access import tokens
from app.services import options as game_options
from app.services import plan_steps
from app.config import setting
from app.db import write_session
from app.db.unit import Row, Unit, unit_of_work
from app.mail import addresses, invitations, trust
from app.mail.compose import BRAND
from app.people import tenures
from app.services.errors import BadRequest, NotFound, TooMany, FORM_USED
from app.services.results import Snapshot, AppliedAction, Created
from app.services.repository import (
    commitment_of, engine_int_seed, engine_options, _game_info, _get_game,
    cache_unusable, hold_after_commit, write_move,
)

log = logging.getLogger("app.services")


MIN_SEATS, MAX_SEATS = engine.MIN_SEATS, engine.MAX_SEATS


MAX_NAME_LENGTH = 60


def _has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (PostgreSQL text cannot even hold NUL)."""
    return any(ord(char) < 32 or ord(char) == 127 for char in text)


def _clean_players(players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The players as seat columns: ``name``, ``email``, ``kind`` (text) and
    ``preferences`` (a dict)."""
    if not isinstance(players, list) or not MIN_SEATS <= len(players) <= MAX_SEATS:
        raise BadRequest(i18n._("A game needs %(least)s to %(most)s players.",
                                least=MIN_SEATS, most=MAX_SEATS))
    cleaned: list[dict[str, Any]] = []
    for index, player in enumerate(players):
        if not isinstance(player, dict):
            raise BadRequest(i18n._("Player %(num)s is not described properly.",
                                    num=index + 1))
        kind = str(player.get("kind") or "human").strip().lower()
        if kind not in store.SEAT_KINDS:
            raise BadRequest(i18n._("Player %(num)s must be a person or a bot.",
                                    num=index + 1))
        name = " ".join(str(player.get("name") or "").split())
        if not name and kind == "bot":
            name = f"Bot {index + 1}"
        if not name:
            raise BadRequest(i18n._("Player %(num)s needs a name.", num=index + 1))
        if len(name) > MAX_NAME_LENGTH:
            raise BadRequest(i18n._("The name of player %(num)s is longer than "
                                    "%(most)s characters.", num=index + 1,
                                    most=MAX_NAME_LENGTH))
        email = str(player.get("email") or "").strip() if kind == "human" else ""
        if _has_control(name):  # an address gets its own words from addresses.normalise
            raise BadRequest(i18n._("The name of player %(num)s holds a control "
                                    "character (such as NUL); please type it plainly.",
                                    num=index + 1))
        if email:
            try:  # one check for lobby, API, CLI and mailer (issue 7 item 4)
                email = addresses.normalise(email)
            except addresses.BadAddress as exc:
                raise BadRequest(i18n._("The email address of %(name)s does not look right: "
                                        "%(why)s", name=name, why=exc)) from None
        prefs = player.get("preferences") or {}
        if not isinstance(prefs, dict):
            raise BadRequest(i18n._("The preferences of %(name)s are not understood.",
                                    name=name))
        cleaned.append({"name": name, "email": email, "kind": kind, "preferences": prefs})
    if len({p["name"].casefold() for p in cleaned}) != len(cleaned):
        raise BadRequest(i18n._("Two players have the same name; please tell them apart."))
    _one_seat_per_address(cleaned)
    return cleaned


def _one_seat_per_address(cleaned: list[dict[str, Any]]) -> None:
    """One address holds at most one seat of a game (issue 17 item 7): seated three times,
    it got every mail thrice. Compared by ``addresses.person_key`` as a substitute's is
    (issue 45: ``ANN@example.org`` and ``ann+2@example.org`` reach ann@'s inbox)."""
    first: dict[str, int] = {}
    for index, player in enumerate(cleaned):
        if not player["email"]:
            continue
        key = addresses.person_key(player["email"])
        if key in first:
            earlier = first[key]
            other = cleaned[earlier]["email"]
            tagged = ("" if other.casefold() == player["email"].casefold() else
                      f" (as {other} is: a +tag reaches the same inbox)")
            raise BadRequest(
                f"Seats {earlier + 1} and {index + 1} ({cleaned[earlier]['name']} and "
                f"{player['name']}) have the same address, {player['email']}{tagged}: one "
                "address holds one seat of a game. Give each player their own address, or "
                "leave one empty and hand that seat's link over yourself.")
        first[key] = index


def create_game(players: list[dict[str, Any]], options: dict[str, Any] | None = None,
                name: str = "", seed: str | None = None, creator: str | None = None,
                per_hour: int | None = None, form_token_id: str | None = None,
                form_max_age: int = 6 * 3600, talk_spectators: bool = True) -> Created:
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
    ``talk_spectators``: whether spectators read the table talk (issue 20 item 1).
    Options outside ``app.services.options``' ranges raise ``BadRequest``; so do, with words
    naming the seat (issue 17 item 7), one address on two seats, an address that
    asked for no more invitations, and a game that would take an address that never
    played over ``trust.STRANGER_MAILS_PER_DAY`` mails in a day.
    """
    with unit_of_work() as unit:
        return create_in(unit, players, options, name, seed, creator, per_hour, form_token_id,
                         form_max_age, talk_spectators)


@dataclass(frozen=True)
class Series:
    """Where a new game stands in a series of rematches (issue 21 item 6)."""

    series_id: str
    rematch_of: str
    number: int


def create_in(unit: Unit, players: list[dict[str, Any]], options: dict[str, Any] | None = None,
              name: str = "", seed: str | None = None, creator: str | None = None,
              per_hour: int | None = None, form_token_id: str | None = None,
              form_max_age: int = 6 * 3600, talk_spectators: bool = True,
              series: Series | None = None) -> Created:
    """``create_game`` in the caller's unit of work (a rematch starts in the transaction
    that closes its vote: ``app.services.votes``); ``series``: the rematch's place."""
    cleaned = _clean_players(players)
    try:
        options = game_options.validate(options, len(cleaned))
    except game_options.OptionError as exc:
        raise BadRequest(str(exc)) from None
    name = " ".join(str(name or "").split())[:200]
    if _has_control(name):
        raise BadRequest(i18n._("The game's name holds a control character (such as NUL); please "
                         "type it plainly."))
    seed = str(seed) if seed is not None else str(secrets.randbits(63))
    try:
        state = engine.new_game(len(cleaned), engine_int_seed(seed), options=engine_options(options))
    except (engine.IllegalAction, TypeError, ValueError) as exc:
        raise BadRequest(i18n._("These game options cannot be used: %(why)s",
                                why=exc)) from exc
    session = unit.session
    if creator and per_hour is not None:
        if not store.lock_key(session, creator):
            raise TooMany(i18n._("The server is busy starting other games; please try again in "
                          "a minute."))
        since = store.utcnow() - timedelta(hours=1)
        if store.games_created_by(session, creator, since) >= per_hour:
            raise TooMany(i18n._("Too many games were started from your address in the last "
                                 "hour (at most %(most)s). Please try again later.",
                                 most=per_hour))
    if form_token_id is not None and not store.use_form_token(
            session, form_token_id, store.utcnow() - timedelta(seconds=form_max_age)):
        raise BadRequest(i18n._(FORM_USED))
    strangers = _guard_invitees(session, cleaned)
    tenures.as_chosen(session, cleaned)  # (issue 46: the names people chose for themselves)
    game = store.Game(name=name or BRAND, options=options, seed=seed,
                      commitment=commitment_of(seed), seats=len(cleaned),
                      created_by=creator or None, rules_version=state.rules,
                      talk_spectators=bool(talk_spectators))  # issue 20 item 1
    if series is not None:  # issue 21 item 6
        game.series_id, game.rematch_of = series.series_id, series.rematch_of
        game.series_no = series.number
    # not a unit write: a new game is the one row the ORM inserts first (its seats and
    # every queued write of the unit name it); nothing of it is there to merge with
    session.add(game)
    session.flush()
    for index, player in enumerate(cleaned):  # (not a unit write: its seats, likewise)
        session.add(store.Seat(game_id=game.id, index=index, **player))
    session.flush()
    tenures.begin(unit, game.id, [(p["name"], p["email"] if p["kind"] == "human" else "")
                                  for p in cleaned], game.created)
    hooks.after_create(unit, game, state)
    seats = store.load_seats(session, game.id)
    seq, state, applied = _play_automatic(unit, game, 0, state, seats)
    _finish(unit, game, None, seq, state, applied)
    _within_stranger_mail(session, cleaned, strangers)
    created = Created(Snapshot(_game_info(game, seats, seq), state),
                      [tokens.seat_token(game.id, s.index, s.token_version) for s in seats])
    return created


def _guard_invitees(session: Session, cleaned: list[dict[str, Any]]) -> dict[int, int]:
    """Refuse a seat whose address asked for no more invitations; note each stranger's
    mail so far today (issue 17 item 7). Returns ``{seat index: mails in the last day}``
    for the seats whose address never played (``trust.has_acted``).

    Each address is locked first (sorted, so two creations never wait on each other in
    a circle), so two games created at once for one stranger cannot both see room for
    one more mail. The whole game is refused, not created without that seat: the
    creator gets the form back as typed, with the seat named, and decides (a game
    quietly short of a player, or with a seat nobody was told of, would surprise them).
    """
    seated = [(index, player) for index, player in enumerate(cleaned) if player["email"]]
    for key in sorted({player["email"].lower() for _, player in seated}):
        if not store.lock_key(session, f"invitee:{key}"):
            raise TooMany(i18n._("The server is busy starting other games; please try again in "
                          "a minute."))
    now = dl.now()
    strangers: dict[int, int] = {}
    for index, player in seated:
        if invitations.refused_at(session, player["email"]) is not None:
            raise BadRequest(invitations.refused_words(player["name"], index, player["email"]))
        if not trust.has_acted(session, player["email"]):
            strangers[index] = trust.mails_in_day(session, player["email"], now)
    for index, had in strangers.items():
        if had >= trust.STRANGER_MAILS_PER_DAY:
            player = cleaned[index]
            raise BadRequest(invitations.too_many_words(
                player["name"], index, player["email"], had, 0, trust.STRANGER_MAILS_PER_DAY))
    if (over := invitations.over_strangers_bound(session, seated, now)) is not None:
        raise BadRequest(over)  # (issue 34 item 2: the day's games seated by strangers)
    return strangers


def _within_stranger_mail(session: Session, cleaned: list[dict[str, Any]],
                          strangers: dict[int, int]) -> None:
    """After the new game wrote its mail (invitations, a first turn mail, what bots
    caused): refuse it if a stranger would now have more than a day's mail. Counted
    from what was queued rather than guessed: a round opens with every seat's peek, so
    a new game usually queues two (the invitation and that first turn mail)."""
    if not strangers:
        return
    now = dl.now()
    for index, had in strangers.items():
        player = cleaned[index]
        total = trust.mails_in_day(session, player["email"], now)
        if total > trust.STRANGER_MAILS_PER_DAY:
            raise BadRequest(invitations.too_many_words(
                player["name"], index, player["email"], had, total - had,
                trust.STRANGER_MAILS_PER_DAY))


def _append(unit: Unit, game: store.Game | Row, seq: int, seat: int, action: dict[str, Any],
            source: str, before: Any) -> tuple[Any, AppliedAction]:
    """Apply and queue one action at ``seq + 1``; the reactions queue theirs on the same
    unit of work."""
    after, events = engine.apply_action(before, seat, action)
    logged_at = store.append_action(unit, game.id, seq + 1, seat, action, source)
    hooks.after_action(unit, game, seq + 1, seat, action, source, before, after, events)
    return after, AppliedAction(seq + 1, seat, action, source, list(events), logged_at)


def _play_automatic(unit: Unit, game: store.Game | Row, seq: int, state: Any,
                    seats: list[store.Seat] | list[store.SeatRow]
                    ) -> tuple[int, Any, list[AppliedAction]]:
    """Let bots and absent seats act until a present human has to decide.

    Bots choose with the engine's greedy bot, from an RNG seeded by the game's
    seed and the step, so the log does not depend on timing. Absent seats
    (R29, decided by ``hooks.is_absent``) and resigned ones (R48) get the engine's
    default action.
    """
    from app.engine import bots

    strategy = str(setting("BOT_STRATEGY"))
    limit = int(setting("MAX_AUTOMATIC_ACTIONS"))
    kinds = {s.index: s.kind for s in seats}
    applied: list[AppliedAction] = []
    for _ in range(limit):
        view = engine.status(state)
        if view.get("phase") == "over" or game.status != "running":
            break  # (a hook may have abandoned the game: R29, nobody plays it)
        chosen: tuple[int, dict[str, Any], str] | None = None
        for seat in view.get("to_act") or []:
            if kinds.get(seat) == "bot":
                rng = random.Random(f"{game.seed}:{seq + 1}")
                chosen = (seat, bots.choose(strategy, state, seat, rng), "system")
                break
            if seat in (view.get("resigned") or ()) or hooks.is_absent(unit, game, seat):
                default = engine.default_action(state, seat)
                if default is not None:
                    chosen = (seat, default, "timeout")
                    break
        # issue 35: a plan or standing order plays once no bot or absent seat can, so
        # the log is the one the seat's own moves, made one by one, would give
        for seat in (view.get("to_act") or []) if chosen is None else ():
            planned = plan_steps.step_for(unit, game, seat, state, seq)
            if planned is not None:
                chosen = (seat, planned[0], planned[1])
                break
        if chosen is None:
            break
        seat, action, source = chosen
        if source != "system" and source != "timeout":  # a plan's step: the seat's own move
            before = state
            try:
                state, item = _append(unit, game, seq, seat, action, source, state)
            except engine.IllegalAction as exc:
                plan_steps.refused(unit, game, seat, action, str(exc), state, seq)
                continue
            plan_steps.applied(unit, game, seat, action, before, state, seq + 1)
            seq += 1
            applied.append(item)
            continue
        try:
            state, item = _append(unit, game, seq, seat, action, source, state)
        except engine.IllegalAction:
            # A bot bug must not block the humans: log it, play the first legal move.
            log.exception("game %s: seat %s chose an illegal %r", game.id, seat, action)
            fallback = engine.legal_actions(state, seat)[0]
            state, item = _append(unit, game, seq, seat, fallback, source, state)
        seq += 1
        applied.append(item)
    else:
        log.error("game %s: %d automatic actions in a row; stopping", game.id, limit)
    plan_steps.settle(unit, game, len(kinds), state, seq)
    return seq, state, applied


#: The state cache is written when a write reaches a multiple of this many steps, and
#: when a game is created or ends or the move found the cache unusable. A worker keeps
#: the states it computed (``warm_states``), so the cache serves only a process that
#: holds none, which then replays at most this many rows after it (about 10 µs
#: each); writing the blob every move cost more than the rest of the move's writes.
CACHE_EVERY = 16


def _finish(unit: Unit, game: store.Game | Row, from_seq: int | None, seq: int, state: Any,
            applied: list[AppliedAction]) -> None:
    """After a write that took the game from step ``from_seq`` (None: a new game) to
    ``seq`` (``applied``): mark a finished game over, write the cache when it is due,
    write the move (``write_move``), and keep the state for this process's next
    request once the transaction commits."""
    over = game.status == "running" and engine.status(state).get("phase") == "over"
    if over:
        store.set_status(unit, game, "over")
    if (over or from_seq is None or seq // CACHE_EVERY != from_seq // CACHE_EVERY
            or cache_unusable(unit, game.id)):
        states.write_cache(unit, game.id, seq, state)
    write_move(unit)
    if applied:
        hold_after_commit(unit, game, seq, state, applied[-1].logged_at)
    elif seq == 0:
        hold_after_commit(unit, game, seq, state, None)


def rotate_link(game_id: str, seat: int) -> str:
    """Revoke every link of a seat and return its new token."""
    with write_session() as session:
        _get_game(session, game_id)
        row = session.get(store.Seat, (str(game_id), seat))
        if row is None:
            raise NotFound(i18n._("There is no such seat in this game."))
        row.token_version += 1
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
            game.end_reason = "operator"
