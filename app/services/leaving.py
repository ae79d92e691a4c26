"""A seat that its person leaves (R48, R49): resigning, and a substitute taking the
seat over (issue 21; the votes that decide it are ``app.services.votes``).

- ``resign``: R48, logged like "away" (``submit_action``); from then on the rules'
  defaults play the seat and it ranks last (the reactions: ``app.presence.leaving``).
- ``hand_over``: R49, in the transaction of the substitute vote that passed: the seat
  gets its new person (name, address, a new token version: every old link, reply
  address and unsubscribe link of the seat is refused from now on) and the log says
  so (``take_over``), so the replay names the hand-over; the reactions give the seat a
  clean start (issue 45 item 3).
A rematch and the score of a series are ``app.services.series``; more time given to
another seat is ``app.services.more_time``; what the pages and the JSON show of all of
it is ``app.services.table``.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import update

from app.access import tokens
from app.i18n import _
from app.clock import deadlines as dl
from app.db import read_session
from app.db.statements import table_of
from app.db.unit import Unit
from app.gamelog import store
from app.mail import invitations, notify, seat_prefs
from app.mail import table_news
from app.people import tenures
from app.services.errors import NotFound
from app.services.games import _append, _finish, _play_automatic
from app.services.repository import _load_game
from app.services.results import Submitted

_SEATS = table_of(store.Seat)


def _services() -> Any:
    from app import services
    return services


# -- R48: resign ---------------------------------------------------------------------------

def resign(game_id: str, seat: int) -> Submitted:
    """R48: the seat resigns (logged, source ``player``); the rules' defaults play it from
    now on, it ranks last, the others are told. A second resignation is refused in
    words by the engine."""
    return _services().submit_now(game_id, seat, {"type": "resign"}, source="player")


# -- R49: a substitute takes a seat over ------------------------------------------------------

def hand_over(unit: Unit, game_id: str, seat: int, name: str, email: str,
              now: datetime, *, held: tuple[Any, int, Any, list[store.SeatRow]] | None = None
              ) -> None:
    """R49, in the caller's unit of work (the substitute vote that passed): the seat's
    new person, and ``take_over`` logged; its reactions (``leaving.took_over``) give the
    seat a fresh start and tell everyone. The old address hears of it once. ``held``:
    the game, its step, its state and its seats as the caller's transaction read them
    (else read here). Ends with nothing left queued on the unit."""
    session = unit.session
    seats = held[3] if held is not None else store.seat_rows(session, str(game_id),
                                                             with_email=True)
    row = next((each for each in seats if each.index == int(seat)), None)
    if row is None or row.kind != "human":
        raise NotFound(_("There is no such seat in this game."))
    was, old_address = row.name, row.email
    game, seq, state = held[:3] if held is not None else _load_game(unit, str(game_id))
    version = row.token_version + 1
    # (sent now, not queued: every mail this unit composes from here on, the reactions'
    # included, reads the seat as it is now, with its new holder: ``remember_seats``)
    session.execute(update(_SEATS).where(_SEATS.c.game_id == str(game_id),
                                         _SEATS.c.index == int(seat))
                    .values(name=name, email=email, token_version=version))
    seats = [replace(each, name=name, email=email, token_version=version)
             if each.index == int(seat) else each for each in seats]
    seat_prefs.remember_seats(unit, str(game_id), seats)
    action = {"type": "take_over", "name": name, "was": was}
    from_seq = seq
    with dl.at(now):
        # (the newcomer's stretch begins at the take-over's own seq, written before it is
        # logged: the take-over's reactions name every stretch as it now stands, and the
        # welcome below reads the same tenures: ``tenures.held_in``)
        tenures.hand(unit, str(game_id), int(seat), seq + 1, name, email, now)
        state, item = _append(unit, game, seq, seat, action, "system", state)
        seq, state, more = _play_automatic(unit, game, seq + 1, state, seats)
        _finish(unit, game, from_seq, seq, state, [item, *more])
        ctx = notify.Context.load(unit, game)
        guard = invitations.guard_url(ctx.info.base_url, email, ctx.id, seat, ctx.secret)
        table_news.welcome(unit, ctx, seat, was, now, item.seq, guard)
        if old_address:
            table_news.handed_over(unit, ctx, seat, old_address, was, now, item.seq,
                                   ctx.secret)
        unit.write()


def seat_link(game_id: str, seat: int) -> str | None:
    """The current link token of a seat (the rematch box links a seat to its seat in the
    new game)."""
    with read_session() as session:
        row = session.get(store.Seat, (str(game_id), int(seat)))
        return tokens.seat_token(row.game_id, row.index, row.token_version) if row else None
