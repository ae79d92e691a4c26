"""A person's settings, the same in every game of their address (issue 32 item 2).

Zone, quiet hours, how mail comes across games, whether notices also come by mail, and
whether strangers may invite the address: set once, on the person's settings page
(reached from any seat page and from the games page), and read from the ``person`` row
wherever a seat's time is counted or shown (``app.mail.notify``: ``Context.calendar``,
``calendar_of``, ``quiet_calendars``). A game created later for the address, or a
rematch, uses them from its invitation on. What means "this game" stays with the seat
(``app.services.seat_settings``: its mail mode, its table talk).

Changing the zone or the quiet hours moves each open decision of the person's running
games out of the new quiet hours (and off the days a game's clock does not run), later
only: nobody loses time. The person is named by their address; the web proves it with a
seat link (the seat's address) or a games-page link.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from sqlalchemy import func
from sqlmodel import Session, col, select

from app import services
from app.clock import deadlines as dl
from app.clock.calendar import Quiet
from app.db import read_session, write_session
from app.gamelog import store
from app.mail import invitations
from app.mail import seat_prefs
from app.mail.addresses import checked_or_none
from app.mail.models import ADDRESS_MODES, DAILY, NONE, PER_GAME
from app.access.masking import shown_address
from app.people import keys
from app.people.models import Person
from app.services import settings_keys

ADDRESS_MODE_WORDS = {
    PER_GAME: "as chosen in each game",
    DAILY: "one digest a day across all my games",
    NONE: "no mail about any of my games, except links I ask for",
}
#: Quiet hours may not take more of a day than this: a person must be reachable.
QUIET_MAX_HOURS = 16
#: A game's clock that runs every day: the person's page shows their own hours alone.
EVERY_DAY = dl.ClockSettings.from_options({})
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
        raise services.NotFound("There is no such seat in this game.")
    address = checked_or_none(row.email) if row.kind == "human" else None
    if address is None:
        raise services.BadRequest(NO_ADDRESS)
    return address


def check_zone(name: str) -> str:
    """An IANA time zone name as ``zoneinfo`` knows it, or ``BadRequest``."""
    name = str(name or "").strip()
    if not name or len(name) > 64 or name not in available_timezones() and name != "UTC":
        raise services.BadRequest("Choose a time zone from the list, such as Europe/Paris "
                                  "or America/New_York.")
    ZoneInfo(name)
    return name


def check_quiet(start: str | None, end: str | None) -> tuple[int, int] | None:
    """Quiet hours as ``"22:00"``, ``"08:00"`` (local, may wrap midnight), checked:
    ``(start, end)`` in minutes after midnight, or None for none (both empty)."""
    start, end = (str(start or "").strip(), str(end or "").strip())
    if not start and not end:
        return None
    if not start or not end:
        raise services.BadRequest("Give both ends of your quiet hours (like 22:00 and "
                                  "08:00), or neither for none.")
    try:
        quiet = Quiet.parse(start, end)
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None
    if quiet.hours() > QUIET_MAX_HOURS:
        raise services.BadRequest(f"Quiet hours can last at most {QUIET_MAX_HOURS} hours a "
                                  f"day ({quiet.words()} is {quiet.hours():g}); the game "
                                  "needs some of your day.")
    return (quiet.start.hour * 60 + quiet.start.minute, quiet.end.hour * 60 + quiet.end.minute)


def person_row(session: Session, address: str) -> Person:
    """The person's row, to change in this transaction (made on first need)."""
    return seat_prefs.address_mail(session, stored_address(session, address))


def set_time_zone(address: str, name: str, now: datetime | None = None) -> str:
    """Store the person's time zone (no door, no mail: the operator's and the tests'
    setter; a person changes it through ``save``, which tells them)."""
    name = check_zone(name)
    with write_session() as session:
        store_clock(session, person_row(session, address), dl.as_utc(now or dl.now()),
                     time_zone=name)
    return name


def set_quiet(address: str, start: str | None, end: str | None,
              now: datetime | None = None) -> tuple[int, int] | None:
    """Store the person's quiet hours (issue 21 item 1; None: none), as ``set_time_zone``
    does the zone: no mail or notice leaves in them (held, collapsed, sent at their end)
    and no deadline of theirs falls in them, in any game. A decision already waiting
    keeps its deadline unless it now falls in them: then it moves to their end (never
    earlier: nobody loses time)."""
    quiet = check_quiet(start, end)
    with write_session() as session:
        store_clock(session, person_row(session, address), dl.as_utc(now or dl.now()),
                     quiet_start=quiet[0] if quiet else None,
                     quiet_end=quiet[1] if quiet else None)
    return quiet


def store_clock(session: Session, row: Person, now: datetime, **values: Any) -> None:
    """Change the person's zone or quiet hours, then settle every open decision of theirs
    (in the caller's transaction)."""
    for name, value in values.items():
        setattr(row, name, value)
    row.settings_at = row.updated_at = now
    session.add(row)
    session.flush()
    for game_id, seat in _running_seats(session, row.address):
        _settle_open(session, game_id, seat, now)


def _running_seats(session: Session, address: str) -> list[tuple[str, int]]:
    """The seats the address holds in running games (one statement)."""
    return [(game_id, int(index)) for game_id, index in session.exec(
        select(store.Seat.game_id, store.Seat.index)
        .join(store.Game, col(store.Game.id) == col(store.Seat.game_id))
        .where(col(store.Seat.email) == address, col(store.Seat.kind) == "human",
               col(store.Game.status) == "running")).all()]


def _settle_open(session: Session, game_id: str, seat: int, now: datetime) -> None:
    """Move the seat's waiting decision out of its person's quiet hours and off the days
    the clock does not run, after a change of their hours or zone (later only)."""
    game = session.get(store.Game, game_id)
    if game is None or game.status != "running":
        return
    settings = dl.ClockSettings.from_options(game.options)
    calendar = seat_prefs.calendar_of(session, game_id, seat, settings)
    for deadline in dl.open_rows(session, game_id, seat, dl.DECISION):
        due = dl.as_utc(deadline.due_at)
        settled = calendar.settle(due)
        if settled > due:
            try:
                dl.move_decision(session, deadline, settled, now, settings, calendar,
                                 credit=calendar.used(due, settled))
            except dl.Busy:
                pass  # the clock is firing it right now: it is too late to move it


def set_address_mode(address: str, mode: str) -> str:
    """How the person's mail comes across all their games (the operator's and the
    tests' setter; a person's door is ``save``)."""
    if mode not in ADDRESS_MODES:
        raise services.BadRequest("Choose one of: as chosen in each game, or one digest a day.")
    with write_session() as session:
        row = person_row(session, address)
        row.mode = mode
        row.updated_at = dl.now()
        session.add(row)
    return mode


def set_by_mail(session: Session, address: str, by_mail: bool) -> None:
    """Whether the notices of all the person's games also come by mail while one of their
    targets works (``Person.by_mail``), in the caller's transaction."""
    row = person_row(session, address)
    row.by_mail = bool(by_mail)
    row.updated_at = dl.now()
    session.add(row)


def status(address: str, session: Session | None = None) -> dict[str, Any]:
    """What the person's settings page shows (read only)."""
    if session is None:
        with read_session() as own:
            return status(address, own)
    row = find(session, address)
    zone = (row.time_zone if row is not None else None) or "UTC"
    quiet = seat_prefs.quiet_of(row) if row is not None else None
    return {"address": address, "time_zone": zone,
            "chosen": row is not None and row.settings_at is not None,
            "zones": common_zones(zone),
            "quiet_start": hhmm(quiet[0]) if quiet else "",
            "quiet_end": hhmm(quiet[1]) if quiet else "",
            "calendar_words": seat_prefs.seat_calendar(row, EVERY_DAY).describe(),
            "address_mode": row.mode if row is not None else PER_GAME,
            "address_modes": ADDRESS_MODE_WORDS,
            "by_mail": bool(row.by_mail) if row is not None else True,
            "invitations_refused_at": invitations.refused_at(session, address)}


def find(session: Session, address: str) -> Person | None:
    """The person's row as stored (None: every default), one statement."""
    return session.exec(select(Person).where(
        Person.address == stored_address(session, address))).first() if address else None


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def common_zones(current: str) -> list[str]:
    """Every zone ``zoneinfo`` knows, sorted (the form's list), current one included."""
    zones = sorted(z for z in available_timezones() if "/" in z or z == "UTC")
    return zones if current in zones else [current, *zones]


# -- invitations (issue 17 item 7): the address's own choice ------------------------------

def allow_invitations(session: Session, address: str) -> None:
    """Creators may invite this address again (in the caller's transaction)."""
    rows = session.exec(select(Person).where(
        func.lower(col(Person.address)) == address.lower(),
        col(Person.no_invitations_at).is_not(None))).all()
    for row in rows:
        row.no_invitations_at = None
        row.updated_at = dl.now()
        session.add(row)


def refuse_invitations(session: Session, address: str) -> None:
    """Note that ``address`` refuses invitations (the first moment it asked is kept)."""
    row = person_row(session, address)
    if row.no_invitations_at is None:
        row.no_invitations_at = dl.now()
        row.updated_at = dl.now()
        session.add(row)


def set_invitations(address: str, allowed: bool) -> None:
    """From the games page or the settings page: invitations welcome, or none."""
    with write_session() as session:
        (allow_invitations if allowed else refuse_invitations)(session, address)


def invitations_refused_at(address: str) -> datetime | None:
    """When ``address`` refused invitations (None: they are welcome); read only."""
    with read_session() as session:
        return invitations.refused_at(session, address)


def stored_address(session: Session, address: str) -> str:
    """The address as the seats store it (``addresses.normalise`` keeps the case of the
    local part; the games page's address is folded), so its row is the one the mail
    code reads; the address itself when no seat has it."""
    seat = session.exec(select(store.Seat.email).where(
        func.lower(col(store.Seat.email)) == address.lower())).first()
    return seat or address


# -- the keys to these settings (issue 45: one key, one door) ---------------------------

def link_minutes() -> int:
    return max(1, round(settings_keys.window().total_seconds() / 60))


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
        except services.BadRequest:
            return {"has_address": False, "words": NO_ADDRESS}
        return {"has_address": True, "shown": shown_address(address),
                "last_mailed": keys.last_mailed(session, address)}


def mail_settings_link_for_seat(game_id: str, seat: int) -> str:
    """Mail the settings link to the seat's address (at most one every
    ``SETTINGS_LINK_MINUTES``); the address as the page may show it."""
    with write_session() as session:
        address = address_of_seat(game_id, seat, session)
        person = find(session, address)
        held = session.get(store.Seat, (str(game_id), int(seat)))
        name = (person.name if person is not None else None) or (held.name if held else None)
        settings_keys.mail_link(session, stored_address(session, address),
                                keys.ASKED_ON_SEAT, name=name)
    return shown_address(address)


def mail_settings_link_to(address: str) -> None:
    """The lobby's form: mail the settings link to any address, one with no seat yet
    included, within the stranger's bound; silent either way (no probing), but a string
    that is no address at all is refused in words."""
    from app.mail.addresses import BadAddress, normalise
    try:
        wanted = normalise(address)
    except BadAddress as exc:
        raise services.BadRequest(f"That does not look like an email address: {exc}") from None
    with write_session() as session:
        settings_keys.mail_link(session, stored_address(session, wanted), keys.ASKED_IN_LOBBY)


def open_settings_key(token: str) -> keys.Opened:
    """The settings link's address, if it opens the page now; ``Forbidden`` with words."""
    with read_session() as session:
        try:
            return keys.open_key(session, token, dl.now())
        except keys.KeyRefused as exc:
            raise services.Forbidden(exc.words, reason=exc.reason) from None
