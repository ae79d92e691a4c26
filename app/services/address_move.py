"""Moving to a new address, by oneself (issue 47 item 5): the use cases behind the doors
of ``app.web.address_move``.

Both addresses prove themselves (``app.people.moves`` keeps the rows):

- ``ask``: the settings page, opened by a key mailed to the old address (a settings link
  or the games page's link), asks to move to a new one. Refused in words: the same
  address, an address with a history here (a seat or a tenure in any game: merging two
  people is not done), more than ``moves.ASKS_PER_DAY`` a day, or a never-played address
  past its day's mails. One unit of work: the move's row, the **move link** mailed to
  the new address and the **move cancel link** mailed to the old one. A bouncing new
  address is allowed but warned (its confirmation mail is tried all the same:
  ``bounces.TRIED_ANYWAY``).
- ``page`` / ``confirm``: the move link's GET shows what would move; its POST does it,
  once, in one unit of work: the person's row keeps its id and takes the new address
  (zone, quiet hours, mail mode, name, invitations... follow; the bounce state is
  cleared: the new address just proved it reads its mail), every seat of theirs in a
  running game takes the new address with a new link version, their open tenures follow
  (``tenures.follow``), their notice targets for all games follow, the old address's
  unsent mail of those seats is superseded, the old settings links and games links are
  revoked, and one mail to the new address lists its games with their fresh links (one
  more tells the old address it is done). A row the new address had with no seat and
  no tenure (settings set from the lobby's link) gives way: it is deleted in the same
  unit. Finished games keep the old address (their history, closed tenures).
- ``cancel_page`` / ``cancel``: the old address's cancel link ends a move not confirmed
  yet; after, it only says so (a lost address is the operator's ``change-address``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from app.access import tokens
from app import i18n
from app.access.masking import shown_address
from app.channels.models import NoticeTarget
from app.clock import deadlines as dl
from app.config import setting
from app.db import read_session
from app.db.statements import dialect_insert, table_of
from app.db.unit import Row, Unit, unit_of_work
from app.gamelog import store
from app.mail import bounces, compose, notify, trust, unsent
from app.mail.addresses import BadAddress, normalise
from app.mail.headers import mail_domain
from app.mail.models import PENDING, SUPERSEDED, Outbox
from app.mail.outbox import never_sent
from app.people import keys, moves, tenures
from app.people.models import Person
from app.services import my_games
from app.services.errors import BadRequest, Forbidden
from app.services.person_settings import person_row
from app.services.settings_keys import base_url, stored_address

#: Outbox kinds: the move link (to the new address), the old address's notice (asked,
#: with its cancel link; done), and the new address's list of its games.
CONFIRM_KIND, OLD_KIND, DONE_KIND = bounces.TRIED_ANYWAY[0], "move_old", "move_done"

_PERSONS = table_of(Person)
_SEATS = table_of(store.Seat)
_GAMES = table_of(store.Game)
_OUTBOX = table_of(Outbox)
_TARGETS = table_of(NoticeTarget)
_KEYS = table_of(keys.PersonKey)
_LINKS = table_of(my_games.AddressLink)


def _now(now: datetime | None) -> datetime:
    return dl.as_utc(now or dl.now())


def _refused(exc: moves.MoveRefused) -> Forbidden:
    return Forbidden(exc.words, reason=exc.reason)


def _has_history(session: Session, address: str) -> bool:
    """Whether ``address`` holds or held a seat here (any game, running or not)."""
    seat = session.connection().execute(sa.select(_SEATS.c.game_id).where(
        sa.func.lower(_SEATS.c.email) == address.lower()).limit(1)).first()
    return seat is not None or tenures.has_history(session, address)


TAKEN = i18n.N_("%(new)s already plays here (it holds or held a seat), so it cannot take another "
                "person's games: merging two people's games and histories is not done "
                "here. Choose an address that never played here, or write to the server's "
                "operator.")


# -- asking, with the old address's key ------------------------------------------------

@dataclass(frozen=True)
class Asked:
    """What the settings page tells after asking: where the link went, and a warning."""

    new_address: str
    hours: int
    bouncing: str | None


def ask(address: str, new_address: str, via: str, *, key_id: str | None = None,
        now: datetime | None = None) -> Asked:
    """Ask to move ``address``'s person to ``new_address`` (see the module docstring)."""
    now = _now(now)
    try:
        new = normalise(str(new_address or ""))
    except BadAddress as exc:
        raise BadRequest(i18n._("That does not look like an email address: %(why)s",
                                 why=exc)) from None
    with unit_of_work() as unit:
        session = unit.session
        old = stored_address(session, address)
        if new.casefold() == old.casefold():
            raise BadRequest(i18n._("That is the address you have now: nothing to move."))
        if _has_history(session, new):
            raise BadRequest(i18n._(TAKEN, new=new))
        person = person_row(unit, old)
        if moves.asked_today(session, int(person.id), now) >= moves.ASKS_PER_DAY:
            raise BadRequest(i18n._("You asked to move %(num)s times today already: "
                                    "use the newest mail, or ask again tomorrow.",
                                    num=moves.ASKS_PER_DAY))
        if not trust.has_acted(session, new) and \
                trust.mails_in_day(session, new, now) >= trust.STRANGER_MAILS_PER_DAY:
            raise BadRequest(i18n._("We have mailed that address as much as we may today. Ask "
                             "again tomorrow."))
        bouncing = bounces.bouncing_among(session, {new}).get(new)
        move_id = moves.ask(unit, int(person.id), old, new, via, now)
        if key_id is not None:
            keys.mark_used(unit, key_id, now)
        name = person.name
        with notify.writing_to(unit, old):  # the person's language, at both addresses
            _mail(unit, new, name, CONFIRM_KIND, f"move-confirm:{move_id}", now,
                  compose.render(
                      CONFIRM_KIND, i18n._("Silver Eye · confirm your new address"),
                      lead=i18n._("Confirm that your Silver Eye games move to this address"),
                      name=name, old=shown_address(old),
                      link=f"{base_url()}/move/{moves.confirm_token(move_id)}",
                      hours=moves.MOVE_HOURS))
            _mail(unit, old, name, OLD_KIND, f"move-asked:{move_id}", now, compose.render(
                OLD_KIND, i18n._("Silver Eye · moving to a new address"),
                lead=i18n._("You asked to move your Silver Eye games to a new address"),
                name=name, done=False, new=shown_address(new), hours=moves.MOVE_HOURS,
                cancel=f"{base_url()}/move/cancel/{moves.cancel_token(move_id)}"))
        unit.write()
    return Asked(new, moves.MOVE_HOURS, bouncing)


def _mail(unit: Unit, to: str, name: str | None, kind: str, idempotency: str,
          now: datetime, mail: Any) -> None:
    # asked for (like a settings link): neither held by quiet hours nor counted by the cap
    unsent.queue(unit, game_id=None, seat=None, kind=kind, to=to, to_name=name or "",
                 mail=mail, idempotency=idempotency,
                 domain=mail_domain(str(setting("MAIL_FROM"))), now=now, conversation=True)


# -- the new address's link -------------------------------------------------------------

@dataclass(frozen=True)
class MovePage:
    """What the move link's page shows before its button is pressed (a GET only reads)."""

    old: str
    new: str
    games: list[str]
    expires_at: datetime
    takes_over: bool
    bouncing: bool


def _open(session: Session, purpose: str, token: str, now: datetime) -> moves.AddressMove:
    try:
        move = moves.named(session, purpose, token)
        moves.waiting(move, now)
    except moves.MoveRefused as exc:
        raise _refused(exc) from None
    return move


def _running(session: Session, address: str, *, lock: bool = False) -> list[Any]:
    """The address's seats in running games: game id, seat, link version, game name."""
    query = (sa.select(_SEATS.c.game_id, _SEATS.c.index, _SEATS.c.token_version,
                       _GAMES.c.name)
             .select_from(_SEATS.join(_GAMES, _GAMES.c.id == _SEATS.c.game_id))
             .where(sa.func.lower(_SEATS.c.email) == address.lower(),
                    _SEATS.c.kind == "human", _GAMES.c.status == "running")
             .order_by(_GAMES.c.created, _SEATS.c.game_id))
    if lock:
        query = query.with_for_update(of=_SEATS)
    return list(session.connection().execute(query).all())


def _other_row(session: Session, new: str, person_id: int) -> Any:
    return session.connection().execute(sa.select(_PERSONS).where(
        sa.func.lower(_PERSONS.c.address) == new.lower(),
        _PERSONS.c.id != person_id)).mappings().first()


def page(token: str, now: datetime | None = None) -> MovePage:
    now = _now(now)
    with read_session() as session:
        move = _open(session, tokens.MOVE_CONFIRM, token, now)
        other = _other_row(session, move.new_address, move.person_id)
        return MovePage(shown_address(move.old_address), move.new_address,
                        [str(row[3]) for row in _running(session, move.old_address)],
                        dl.as_utc(move.expires_at), other is not None,
                        bool(other is not None and other["bouncing_since"] is not None))


@dataclass
class Done:
    """What the move did, for the page that says so."""

    new: str
    games: list[str] = field(default_factory=list)


def confirm(token: str, now: datetime | None = None) -> Done:
    """Make the move (see the module docstring), once."""
    now = _now(now)
    with unit_of_work() as unit:
        session = unit.session
        move = _open(session, tokens.MOVE_CONFIRM, token, now)
        old, new = move.old_address, move.new_address
        found = session.connection().execute(sa.select(_PERSONS).where(
            _PERSONS.c.id == move.person_id)).mappings().first()
        if found is None or str(found["address"]).casefold() != old.casefold():
            raise Forbidden(i18n._("Your address changed since this move was asked for, so nothing "
                            "moved. Ask again from your settings page."), reason="stale")
        if _has_history(session, new):
            raise BadRequest(i18n._(TAKEN, new=new))
        if not moves.claim(unit, move.id, now, done=True):
            raise Forbidden(i18n._("This move was made or cancelled a moment ago."), reason="done")
        other = _other_row(session, new, move.person_id)
        if other is not None:  # a row with no seat and no tenure: it gives way, now
            session.connection().execute(sa.delete(_PERSONS).where(
                _PERSONS.c.id == other["id"]))
        seats = _running(session, old, lock=True)
        games = sorted({str(row[0]) for row in seats})
        _move_seats(unit, old, new, games, now)
        tenures.follow(unit, old, new, games)
        moves.seats_moved(unit, move.id, [(str(g), int(s), int(v)) for g, s, v, _ in seats])
        _revoke_old_keys(unit, old, new, now)
        person = Row(_PERSONS, found)
        unit.update(person, address=new, bouncing_since=None, bounce_reason=None,
                    soft_bounces=0, updated_at=now)
        name = person.name
        links = [{"game": str(game_name), "link": tokens.seat_url(
            tokens.seat_token(str(game), int(seat), int(version) + 1), base_url())}
            for game, seat, version, game_name in seats]
        with i18n.in_language(person.language):  # the person's, at both addresses
            _mail(unit, new, name, DONE_KIND, f"move-done:{move.id}", now, compose.render(
                DONE_KIND, i18n._("Silver Eye · your games moved here"),
                lead=i18n._("Your Silver Eye games and settings are at this address now"),
                name=name, old=shown_address(old), games=links))
            _mail(unit, old, name, OLD_KIND, f"move-done-old:{move.id}", now,
                  compose.render(OLD_KIND, i18n._("Silver Eye · your games moved"),
                                 lead=i18n._("Your Silver Eye games moved"), name=name,
                                 done=True, new=shown_address(new), hours=moves.MOVE_HOURS,
                                 cancel=None))
        unit.write()
    return Done(new, [entry["game"] for entry in links])


def _move_seats(unit: Unit, old: str, new: str, games: list[str], now: datetime) -> None:
    """Every seat of ``old`` in those games takes ``new`` and a new link version; the old
    address's unsent mail of those games is superseded (it carries dead links)."""
    if not games:
        return
    unit.statement(sa.update(_SEATS).where(
        _SEATS.c.game_id.in_(games), _SEATS.c.kind == "human",
        sa.func.lower(_SEATS.c.email) == old.lower())
        .values(email=new, token_version=_SEATS.c.token_version + 1))
    unit.statement(sa.update(_OUTBOX).where(
        _OUTBOX.c.game_id.in_(games), _OUTBOX.c.status == PENDING,
        sa.func.lower(_OUTBOX.c.to) == old.lower(),
        sa.or_(_OUTBOX.c.lease_until.is_(None), _OUTBOX.c.lease_until < now))
        .values(status=SUPERSEDED, held_until=None, held_untold=False,
                last_error="not sent: its person moved to another address", **never_sent()))


def _revoke_old_keys(unit: Unit, old: str, new: str, now: datetime) -> None:
    """The old address's settings links and games links open nothing from now on; its
    notice targets for all games follow the person."""
    unit.statement(sa.update(_TARGETS).where(
        sa.func.lower(_TARGETS.c.address) == old.lower()).values(address=new))
    unit.statement(sa.update(_KEYS).where(sa.func.lower(_KEYS.c.address) == old.lower(),
                                          _KEYS.c.expires_at > now).values(expires_at=now))
    hashed = my_games.address_hash(old, str(setting("SECRET_KEY")))
    unit.statement(dialect_insert(_LINKS, unit.dialect)
                   .values(address_hash=hashed, version=1)
                   .on_conflict_do_update(index_elements=["address_hash"],
                                          set_={"version": _LINKS.c.version + 1}))


# -- the old address's cancel link --------------------------------------------------------

@dataclass(frozen=True)
class CancelPage:
    new: str
    expires_at: datetime


def cancel_page(token: str, now: datetime | None = None) -> CancelPage:
    now = _now(now)
    with read_session() as session:
        move = _open(session, tokens.MOVE_CANCEL, token, now)
        return CancelPage(shown_address(move.new_address), dl.as_utc(move.expires_at))


def cancel(token: str, now: datetime | None = None) -> str:
    """End a move not confirmed yet; the masked address it would have gone to."""
    now = _now(now)
    with unit_of_work() as unit:
        move = _open(unit.session, tokens.MOVE_CANCEL, token, now)
        if not moves.claim(unit, move.id, now, done=False):
            raise Forbidden(i18n._("This move was confirmed or ended a moment ago: nothing was "
                            "cancelled. If you did not ask for it, write to the server's "
                            "operator."), reason="done")
        unit.write()
    return shown_address(move.new_address)


# -- an old seat link ----------------------------------------------------------------------

SEAT_MOVED = ("This seat moved to another address of its player, who asked for it and "
              "confirmed it from there: the links mailed to this address open nothing any "
              "more. Did you not move? Write to the server's operator.")


def seat_moved(game_id: str, seat: int, version: int) -> bool:
    """Whether a refused seat link (its version) was an old address's, replaced by a move."""
    with read_session() as session:
        return moves.seat_moved(session, str(game_id), int(seat), int(version))
