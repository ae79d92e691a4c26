"""Who held a seat and holds it no more (issue 32 item 3, R49): what their old link, their
old mails and their goodbye's unsubscribe find.

A seat handed over to a substitute (``services.leaving.hand_over``) bumps its link's
version, so every link and reply address of its earlier holder is refused; these say to
that person what happened instead of a bare refusal, and never to the newcomer:

- ``handed_over_link``: the page an old seat link opens (``web.play``): whose seat it was,
  whose it is, since when, and the game to watch. No card, no link of the seat.
- ``handed_over_at``: a reply to a mail of before the hand-over finds its writer's
  stretch at the seat (the reply address names the step), so the answer goes to them
  (``app.inbound.answers``), with no card and no link of the seat.
- ``left_mail``: the goodbye's unsubscribe: this game's mail to that address, nothing
  else (the seat's mail is its new holder's; the address's other games are its own).

Who held the seat when is read from its tenures (``app.people.tenures``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import func, update
from sqlmodel import Session, col

from app import engine
from app import i18n
from app.access import tokens
from app.access.unsubscribe import read_left_token
from app.db import read_session, write_session
from app.gamelog import store
from app.mail.models import PENDING, SUPERSEDED, Outbox
from app.people import tenures
from app.services.errors import Forbidden
from app.services.repository import _game_info, _load_game
from app.services.results import GameInfo

#: The outbox kind of the answer to a reply from an earlier holder's old mail.
LEFT_ANSWER = "left_answer"
#: The kinds of mail a game sends an earlier holder (what ``left_mail`` stops).
LEFT_KINDS = ("handed_over", LEFT_ANSWER)


@dataclass(frozen=True)
class HandedOver:
    """A seat as its earlier holder's link or mail finds it (issue 32 item 3): whose it
    was, whose it is, and when it changed hands. No card, no link of the seat."""

    game: GameInfo
    seat: int
    #: the earlier holder (the link's or the mail's), and who plays the seat now
    was: str
    now: str
    #: when it changed hands, in words (" in round 2", else " at move 31")
    when: str
    #: the earlier holder's address (a reply's answer goes there, never to ``now``'s)
    address: str


def handed_over_link(token: str) -> HandedOver | None:
    """What an old seat link opens when its seat was handed to someone else after it was
    made (R49): the page that says so (``web.play``); None when the link is current,
    not ours, or the seat's holder has held it from the start (a rotated link: the
    usual refusal, with its offer of a fresh link)."""
    try:
        ref = tokens.read_seat_token(token)
    except tokens.BadToken:
        return None
    with read_session() as session:
        seats = store.seat_rows(session, str(ref.game))
        seat = next((row for row in seats if row.index == ref.seat), None)
        if seat is None or seat.kind != "human" or seat.token_version <= ref.version:
            return None
        holders = tenures.of_game(session, str(ref.game))
        before = holders.before(ref.seat)
        if before is None:
            return None
        return _handed_over(session, ref.game, ref.seat, before, seats)


def handed_over_at(game_id: str, seat: int, step: int) -> HandedOver | None:
    """The seat as a mail of step ``step`` finds it, when whoever held it then holds it no
    more (a reply to a mail of before the hand-over: ``app.inbound.answers``); None
    when the seat's holder then is its holder now."""
    with read_session() as session:
        seats = store.seat_rows(session, str(game_id))
        if not tenures.handed_over(seats):
            return None
        then = tenures.of_game(session, str(game_id)).at_step(int(seat), int(step))
        if then is None or then.to_step is None:
            return None
        return _handed_over(session, str(game_id), int(seat), then, seats)


def _handed_over(session: Session, game_id: str, seat: int, then: Any,
                 seats: Sequence[Any]) -> HandedOver:
    game, seq, state = _load_game(session, game_id)
    info = _game_info(game, seats, seq)
    when = when_taken(engine.view(state, None), seat, int(then.to_step or 0))
    return HandedOver(info, seat, then.name, info.names[seat], when, then.address)


def when_taken(view: dict[str, Any], seat: int, step: int) -> str:
    """When ``seat`` changed hands at ``step``, in words: " in round 2" while the view's
    log (this round's and the last) still holds its ``take_over``, else " at move 31"."""
    unit, at = taken_at(view, seat, step)
    return f" in round {at}" if unit == "round" else f" at move {at}"


def taken_at(view: dict[str, Any], seat: int, step: int) -> tuple[str, int]:
    """``when_taken`` as ("round", 2) or ("move", 31), for a whole sentence to say."""
    took = next((event for event in [*(view.get("previous_log") or []),
                                     *(view.get("log") or [])]
                 if event.get("type") == "take_over" and event.get("seat") == seat
                 and int(event.get("step") or 0) == step), None)
    if took is not None and isinstance(took.get("round"), int):
        return "round", took["round"]
    return "move", step


@dataclass(frozen=True)
class LeftMail:
    """What the goodbye's unsubscribe concerns: one game's mail to one address."""

    game: GameInfo
    address: str
    #: who plays the seat now (the address's seat is theirs: its mail is not touched)
    now: str
    #: pending mails of this game to the address that were stopped (``stop``)
    stopped: int = 0


def left_mail(token: str, stop: bool = False) -> LeftMail:
    """The goodbye's unsubscribe (issue 32 item 3): with ``stop`` (its one click), what
    this game still had to send the address (the goodbye, an answer) is superseded. This
    game sends that address nothing else: the address's other games and the seat's mail
    (its new holder's) are not touched. A reply from its old mails is still answered,
    once each, as any reply is (conversation, asked for by the reply itself)."""
    try:
        game_id, seat, address = read_left_token(token)
    except tokens.BadToken:
        raise Forbidden(i18n._("This unsubscribe link is not valid: it may have been cut short. "
                        "Use the link from the mail itself."), reason="unsubscribe") from None
    stopped = 0
    with write_session() if stop else read_session() as session:
        game, seq, _ = _load_game(session, game_id)
        info = _game_info(game, store.seat_rows(session, game_id), seq)
        if stop:
            stopped = int(getattr(session.connection().execute(
                update(Outbox).where(col(Outbox.game_id) == game_id,
                                     func.lower(col(Outbox.to)) == address.lower(),
                                     col(Outbox.kind).in_(LEFT_KINDS),
                                     col(Outbox.status) == PENDING)
                .values(status=SUPERSEDED)), "rowcount", 0) or 0)
    now = info.names[seat] if 0 <= seat < len(info.names) else "another player"
    return LeftMail(info, address, now, stopped)
