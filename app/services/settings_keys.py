"""The keys to a person's settings, mailed to their address (issue 45, "one key, one
door"), and the mail that tells of every person-wide change.

A seat link opens one seat; the settings that hold in all of a person's games open only
with a link mailed to the address (``app.people.keys``). Here:

- ``mail_link``: a settings link on its way to an address, asked for on a seat page, on
  the lobby (an address with no seat yet) or the games page; at most one every
  ``SETTINGS_LINK_MINUTES`` per address, and an address that never played counts it
  under the stranger's bound (``trust.STRANGER_MAILS_PER_DAY`` mails a day), so nobody
  can flood an inbox with it. The answer never says whether a mail went (no probing).
- ``told``: the mail of one person-wide change, in words, with a link that undoes it;
  it leaves at once, whatever the person's mail settings, quiet hours or digest say
  (kind ``settings_changed``, asked for like a link: ``app.mail.holds``);
- the doors' reads and the link's own transactions: whose address a seat link speaks
  for (``address_of_seat``), what a seat's settings door shows (``ask_status``), the
  link mailed from a seat page or the lobby (``mail_settings_link_for_seat``,
  ``mail_settings_link_to``: each one unit of work), the link opened
  (``open_settings_key``), and where a created game's links went (``mailed_seats``).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.access.masking import shown_address
from app import i18n
from app.clock import deadlines as dl
from app.config import setting
from app.db import read_session
from app.db.unit import Unit, unit_of_work
from app.gamelog import store
from app.i18n import forms
from app.mail import compose, notify, trust, unsent
from app.mail.addresses import checked_or_none
from app.mail.headers import mail_domain
from app.people import keys
from app.people.models import Person
from app.services.errors import BadRequest, Forbidden, NotFound

#: The outbox kinds of the two mails (``app.mail.holds`` lets both leave in quiet hours).
LINK_KIND, CHANGED_KIND = "settings_link", "settings_changed"
#: How each door asked for the link, in the mail's words.
ASKED_WORDS = {
    keys.ASKED_ON_SEAT: i18n.N_("asked for on one of your seat pages"),
    keys.ASKED_IN_LOBBY: i18n.N_("asked for on the lobby"),
    keys.GAMES_PAGE: i18n.N_("asked for on your games page"),
    keys.INVITATION: i18n.N_("part of your invitation"),
}


def base_url() -> str:
    return str(setting("BASE_URL")).rstrip("/")


def settings_url(key: keys.PersonKey | str) -> str:
    return f"{base_url()}/settings/{keys.token_of(key)}"


def undo_url(change: keys.PersonChange | str) -> str:
    return f"{base_url()}/settings/undo/{keys.undo_token(change)}"


def window() -> timedelta:
    return timedelta(minutes=max(0.0, float(setting("SETTINGS_LINK_MINUTES"))))


def mail_link(unit: Unit, address: str, made_for: str, *, name: str | None = None,
              now: datetime | None = None) -> bool:
    """Queue a settings link for ``address`` on the caller's unit of work; whether one
    was queued (False: one left within the window, or the address never played and had
    its day's mails). The caller answers the same either way."""
    now = dl.as_utc(now or dl.now())
    session = unit.session
    last = keys.last_mailed(session, address)
    if last is not None and now - last < window():
        return False
    if not trust.has_acted(session, address) and \
            trust.mails_in_day(session, address, now) >= trust.STRANGER_MAILS_PER_DAY:
        return False
    key = keys.issue(unit, address, made_for, now)
    with notify.writing_to(unit, address):  # in the language its person reads (issue 50)
        mail = compose.render(
            LINK_KIND, i18n._("Silver Eye · your settings"),
            lead=i18n._("The link to your settings, as asked"), name=name,
            link=settings_url(key), asked=i18n._(ASKED_WORDS.get(made_for, "asked")),
            hours=keys.SETTINGS_LINK_HOURS, sitting=keys.SITTING_MINUTES)
    _queue(unit, address, name, LINK_KIND, mail, f"settings-link:{key}", now)
    return True


def told(unit: Unit, change_id: str, address: str, at: datetime, via: str, lines: list[str],
         *, name: str | None = None, undo: bool = True) -> None:
    """Queue the mail of one person-wide change to its address, with its undo link."""
    at = dl.as_utc(at)
    # (in the language of the moment: ``person_settings.save_in`` writes it in the
    # language the person reads after the change, which tells a new language in it)
    mail = compose.render(
        CHANGED_KIND, i18n._("Silver Eye · your settings were changed"),
        lead=i18n._("Your settings for all your games were changed"), name=name,
        lines=lines, when=forms.long_when(at), via=i18n._(keys.VIA_WORDS.get(via, via)),
        undo=undo_url(change_id) if undo else None, undo_days=keys.UNDO_DAYS)
    _queue(unit, address, name, CHANGED_KIND, mail, f"settings-changed:{change_id}", at)


def _queue(unit: Unit, to: str, name: str | None, kind: str, mail: Any,
           idempotency: str, now: datetime) -> None:
    # conversation: asked for (or about who may change what), so the hourly cap neither
    # holds nor counts it; the stranger's day still does (``mail_link`` checks it first)
    unsent.queue(unit, game_id=None, seat=None, kind=kind, to=to, to_name=name or "",
                 mail=mail, idempotency=idempotency,
                 domain=mail_domain(str(setting("MAIL_FROM"))), now=now, conversation=True)


# -- the doors to the settings link ------------------------------------------------

NO_ADDRESS = ("This seat has no email address, so it has no settings across games: its "
              "times are shown in UTC.")


def address_of_seat(game_id: str, seat: int, session: Session | None = None) -> str:
    """The address a seat link speaks for (the person holding the seat now); ``NotFound``
    for no such seat, ``BadRequest`` for a seat without an address."""
    if session is None:
        with read_session() as own:
            return address_of_seat(game_id, seat, own)
    row = session.get(store.Seat, (str(game_id), int(seat)))
    if row is None:
        raise NotFound(i18n._("There is no such seat in this game."))
    address = checked_or_none(row.email) if row.kind == "human" else None
    if address is None:
        raise BadRequest(NO_ADDRESS)
    return address


def stored_address(session: Session, address: str) -> str:
    """The address as the seats store it (``addresses.normalise`` keeps the case of the
    local part; the games page's address is folded), so its row is the one the mail
    code reads; the address itself when no seat has it."""
    seat = session.exec(select(store.Seat.email).where(
        sa.func.lower(col(store.Seat.email)) == address.lower())).first()
    return seat or address


def link_minutes() -> int:
    return max(1, round(window().total_seconds() / 60))


def mailed_seats(game_id: str) -> dict[int, str]:
    """The seats of a game whose links go to an address, with that address as a page
    may show it to the game's creator (``v•••@example.org``: issue 45); read only."""
    with read_session() as session:
        return {row.index: shown_address(row.email) for row in store.load_seats(session, game_id)
                if row.kind == "human" and (row.email or "").strip()}


def ask_status(game_id: str, seat: int) -> dict[str, Any]:
    """What a seat's settings door shows: where the link goes (masked), or that the seat
    has no address and so no settings across games (read only)."""
    with read_session() as session:
        try:
            address = address_of_seat(game_id, seat, session)
        except BadRequest:
            return {"has_address": False, "words": NO_ADDRESS}
        return {"has_address": True, "shown": shown_address(address),
                "last_mailed": keys.last_mailed(session, address)}


def mail_settings_link_for_seat(game_id: str, seat: int) -> str:
    """Mail the settings link to the seat's address (at most one every
    ``SETTINGS_LINK_MINUTES``); the address as the page may show it."""
    with unit_of_work() as unit:
        address = address_of_seat(game_id, seat, unit.session)
        person = _find(unit.session, address)
        held = unit.session.get(store.Seat, (str(game_id), int(seat)))
        name = (person.name if person is not None else None) or (held.name if held else None)
        mail_link(unit, stored_address(unit.session, address),
                                keys.ASKED_ON_SEAT, name=name)
        unit.write()
    return shown_address(address)


def mail_settings_link_to(address: str) -> None:
    """The lobby's form: mail the settings link to any address, one with no seat yet
    included, within the stranger's bound; silent either way (no probing), but a string
    that is no address at all is refused in words."""
    from app.mail.addresses import BadAddress, normalise
    try:
        wanted_address = normalise(address)
    except BadAddress as exc:
        raise BadRequest(i18n._("That does not look like an email address: %(why)s",
                                 why=exc)) from None
    with unit_of_work() as unit:
        mail_link(unit, stored_address(unit.session, wanted_address),
                                keys.ASKED_IN_LOBBY)
        unit.write()


def open_settings_key(token: str) -> keys.Opened:
    """The settings link's address, if it opens the page now; ``Forbidden`` with words."""
    with read_session() as session:
        try:
            return keys.open_key(session, token, dl.now())
        except keys.KeyRefused as exc:
            raise Forbidden(exc.words, reason=exc.reason) from None



def _find(session: Session, address: str) -> Any:
    """The person's row as stored (None: none), for their name in the link's mail."""
    return session.exec(select(Person).where(
        sa.func.lower(col(Person.address)) == address.strip().lower())).first()
