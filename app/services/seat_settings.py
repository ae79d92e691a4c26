"""A seat's own mail settings (what means "this game"), and the one-click links.

- per seat: every decision, a digest, or none (but links asked for); table talk by mail;
- the person's settings across games (issue 32: zone, quiet hours, the mode across games,
  invitations) live in ``app.services.person_settings``, where a seat's link speaks for
  its person (``settings_keys.address_of_seat``).

Changing them touches no game state and writes no action. One-click
unsubscribe (RFC 8058) sets the seat's mode to ``none``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, select

from app import services
from app.i18n import N_, _
from app.services import absence, seat_lines
from app.gamelog import store
from app.clock import deadlines as dl
from app.people import away
from app.db.unit import Unit, unit_of_work
from app.db import read_session, write_session
from app.mail import bounces, invitations
from app.mail import seat_prefs
from app.mail import unsent
from app.mail.addresses import checked_or_none
from app.people import settings as fields
from app.people.models import Person
from app.mail.models import (DIGEST, EVERY, MAIL_MODES, NONE, PER_GAME, TALK_EVERY, TALK_HOURLY,
                             TALK_MODES, TALK_NEVER, TALK_TURNS, SeatMail)
from app.access import unsubscribe as unsubscribe_links
from app.services import person_settings as person
from app.services.person_settings import ADDRESS_MODE_WORDS
from app.people.calendar import person_calendar, quiet_of, zone_of

MODE_WORDS = {
    EVERY: N_("a mail for every decision"),
    DIGEST: N_("at most one mail a day with everything since the last one"),
    NONE: N_("no mail from this game, except links you ask for"),
}
#: How table talk reaches a seat by mail (issue 20 item 2), in the seat page's words.
TALK_MODE_WORDS = {
    TALK_EVERY: N_("a mail soon after each message (messages close together come in one "
                   "mail)"),
    TALK_HOURLY: N_("at most one talk mail an hour"),
    TALK_TURNS: N_("only inside the mails I get anyway (my turns, rounds, notices)"),
    TALK_NEVER: N_("never by mail (I read the talk on this page)"),
}


def set_talk_mode(game_id: str, seat: int, mode: str) -> str:
    """Store how the seat gets table talk by mail (issue 20 item 2); returns it. A
    pending talk mail the new choice does not want is superseded when it would leave."""
    if mode not in TALK_MODES:
        raise services.BadRequest(_(TALK_MODE_REFUSAL))
    _store_seat(game_id, seat, talk_mode=mode)
    return mode


TALK_MODE_REFUSAL = N_("Choose how table talk comes by mail: after each message, at most "
                       "hourly, only with the mails you get anyway, or never.")


def set_mode(game_id: str, seat: int, mode: str) -> str:
    """Store a seat's mail preference; returns it. Unknown modes are refused."""
    if mode not in MAIL_MODES:
        raise services.BadRequest(_("Choose one of: every decision, digest, or no mail."))
    with write_session() as session:
        _store_mode(session, game_id, seat, mode)
    return mode


def _store_mode(session: Session, game_id: str, seat: int, mode: str) -> None:
    """``set_mode`` inside the caller's transaction."""
    row = _seat_mail_row(session, game_id, seat)
    row.mode = mode
    row.updated_at = dl.now()
    if mode != DIGEST:  # a pending digest would now mail someone who said no
        dl.close_open(Unit(session, queued=False), str(game_id), dl.now(), "cancelled",
                      seat=int(seat), kinds=(dl.DIGEST,))


def _seat_mail_row(session: Session, game_id: str, seat: int) -> SeatMail:
    """The seat's mail row, to change in this transaction; ``NotFound`` for no such seat."""
    if session.get(store.Seat, (str(game_id), int(seat))) is None:
        raise services.NotFound(_("There is no such seat in this game."))
    return seat_prefs.seat_mail(session, str(game_id), int(seat))


def _store_seat(game_id: str, seat: int, **values: Any) -> None:
    """Change the seat's mail row in a transaction of its own (its time of change too)."""
    with write_session() as session:
        row = _seat_mail_row(session, game_id, seat)
        for name, value in values.items():
            setattr(row, name, value)
        row.updated_at = dl.now()


def mode_of(game_id: str, seat: int) -> str:
    """The seat's preference as stored (``every`` until chosen otherwise)."""
    with read_session() as session:
        row = session.exec(select(SeatMail).where(SeatMail.game_id == str(game_id),
                                                  SeatMail.seat == int(seat))).first()
        if row is not None:
            return row.mode
        seat_row = session.get(store.Seat, (str(game_id), int(seat)))
        wanted = (seat_row.preferences or {}).get("mail") if seat_row is not None else None
        return wanted if wanted in MAIL_MODES else EVERY


def unsubscribe(token: str) -> tuple[str, int] | str:
    """One-click unsubscribe (RFC 8058): a seat's link stops that seat's mail; the
    daily digest's link stops the address's game mail (invitations to new games
    are stopped by the invitation's own link: ``refuse_invitations``)."""
    target = read_token(token)
    if isinstance(target, str):  # the person's mail across games: a change told at once
        with unit_of_work() as unit:
            person.save_in(unit, target, person.wanted(mode=NONE), "digest", dl.now())
            unit.write()
        return target
    game_id, seat = target
    set_mode(game_id, seat, NONE)
    return game_id, seat


def read_token(token: str) -> tuple[str, int] | str:
    """``(game_id, seat)`` of a seat's unsubscribe link, or the address of a digest's.

    A rotation of the seat's link (rotate-link) revokes the unsubscribe links
    of the mails sent before it, like the seat links in them.
    """
    from app.access import tokens

    try:
        game_id, seat, version = unsubscribe_links.unsubscribe_ref(token)
    except tokens.BadToken:
        pass
    else:
        with read_session() as session:
            row = session.get(store.Seat, (game_id, seat))
            current = row.token_version if row is not None else None
        if current != version:
            raise services.Forbidden(_("This unsubscribe link was replaced: the seat's links were "
                                     "renewed since this mail was sent. Use the link from your "
                                     "most recent email."), reason="unsubscribe")
        return game_id, seat
    try:
        return unsubscribe_links.read_address_unsubscribe_token(token)
    except tokens.BadToken:
        raise services.Forbidden(_("This unsubscribe link is not valid: it may have been cut "
                                 "short. Use the link from your most recent email."),
                                 reason="unsubscribe") from None


def describe(mode: str) -> str:
    return _(MODE_WORDS.get(mode, MODE_WORDS[EVERY]))


def status(game_id: str, seat: int, session: Session | None = None,
           view: dict[str, Any] | None = None,
           marks: "unsent.Marks | None" = None) -> dict[str, Any]:
    """What the seat page's mail and clock box shows (read only).

    The seat page reads its box through its own read model (``app.web.seat_page``);
    this is the JSON's and the tests' way to it (``view``: what the clock played for the
    seat is said from it: ``seat_lines``).
    """
    if session is None:
        with read_session() as own:
            return status(game_id, seat, own, view, marks)
    game_id, seat = str(game_id), int(seat)
    game = session.get(store.Game, game_id)
    row = session.exec(select(SeatMail).where(SeatMail.game_id == game_id,
                                              SeatMail.seat == seat)).first()
    seat_row = session.get(store.Seat, (game_id, seat))
    address = checked_or_none(seat_row.email) if seat_row is not None else None
    across = session.exec(select(Person).where(
        Person.address == address)).first() if address else None
    return status_of(
        game.status if game is not None else "", game.options if game is not None else {},
        row, (seat_row.preferences or {}).get("mail") if seat_row is not None else None,
        address, across, _lines(session, game_id, seat, view, marks, across),
        absence.seat_clock_state(game_id, seat, session=session))


def _lines(session: Session, game_id: str, seat: int, view: dict[str, Any] | None,
           marks: "unsent.Marks | None", person: Person | None) -> list[str]:
    seats = store.load_seats(session, game_id)
    return seat_lines.lines(session, game_id, seat, [s.name for s in seats],
                            [s.kind for s in seats], view,
                            unsent.marks_of_game(session if marks is None else marks, game_id),
                            zone_of(person.time_zone if person is not None else None))


def status_of(game_status: str, options: dict[str, Any], row: SeatMail | None,
              lobby_mode: str | None, address: str | None, across: Person | None,
              mail_trouble: list[str], clock: dict[str, Any]) -> dict[str, Any]:
    """``status`` from rows read already: the game's status and options, the seat's mail
    row, the lobby's choice, its address and person, what went wrong with its mail and
    its clock (the seat page's presenter reads each table once: issue 33)."""
    running = game_status == "running"
    if row is not None:
        mode = row.mode
    else:
        mode = lobby_mode if lobby_mode in MAIL_MODES else EVERY
    address_mode = across.mode if across is not None else PER_GAME
    if across is not None and across.bouncing_since is not None and address:
        mail_trouble = [bounces.page_words(address, across.bounce_reason), *mail_trouble]
    # issue 32: zone and quiet hours are the person's, the same in all their games
    zone = (across.time_zone if across is not None else None) or "UTC"
    tz = zone_of(zone)
    # issue 47 item 5: the person away from all their games pauses this seat too
    paused = away.pause_of(across, dl.ClockSettings.from_options(options), dl.now())
    if paused is not None and (clock.get("vacation_until") is None
                               or paused > clock["vacation_until"]):
        clock = {**clock, "vacation_until": paused}
    for key in ("deadline", "vacation_until"):
        if clock.get(key) is not None:
            clock[key] = clock[key].astimezone(tz)
    settings = dl.ClockSettings.from_options(options)
    quiet = quiet_of(across) if across is not None else None
    return {"mode": mode, "mode_words": describe(mode), "modes": {key: _(words) for key, words in MODE_WORDS.items()},
            "running": running, "time_zone": zone,
            "zone_chosen": across is not None and across.settings_at is not None,
            # issue 21 item 1: the person's quiet hours ("22:00", "08:00"), the game's clock
            "quiet_start": fields.hhmm(quiet[0]) if quiet else "",
            "quiet_end": fields.hhmm(quiet[1]) if quiet else "",
            "clock_words": settings.words(),
            "calendar_words": person_calendar(across, settings).describe(),
            "has_address": address is not None,
            "address_mode": address_mode,
            "address_modes": ADDRESS_MODE_WORDS, "mail_trouble": mail_trouble,
            "talk_mode": row.talk_mode if row is not None else TALK_HOURLY,
            "talk_modes": {key: _(words) for key, words in TALK_MODE_WORDS.items()}, **clock}


# -- invitations (issue 17 item 7) -------------------------------------------------------

@dataclass(frozen=True)
class InvitationGuard:
    """What the invitation's "no more invitations" page shows."""

    address: str
    game_name: str
    #: Whether the one click also stopped the invited seat's mail (it does while
    #: that seat is still at this address).
    game_mail_stopped: bool
    refused_at: datetime | None


def read_guard(token: str) -> invitations.GuardRef:
    """The address and seat of an invitation's link; ``Forbidden`` with words if not ours."""
    from app.access import tokens

    try:
        return invitations.read_guard_token(token)
    except tokens.BadToken:
        raise services.Forbidden(_("This link is not valid: it may have been cut short. Use "
                                 "the link at the end of your invitation mail."),
                                 reason="invitations") from None


def guard_status(token: str) -> InvitationGuard:
    """What the link's page says before anything is done (a GET: read only)."""
    ref = read_guard(token)
    with read_session() as session:
        return _guard(session, ref, stopped=False)


def refuse_invitations(token: str) -> InvitationGuard:
    """One click (RFC 8058) of an invitation: no creator here may invite this address
    again, and the invited seat gets no more mail from its game (a person invited by
    a stranger wants neither; a player who wants the game can switch its mail back
    on, or undo both at once: ``allow_invitations``). Pressing it again changes
    nothing more (the first moment is kept)."""
    ref = read_guard(token)
    with unit_of_work() as unit:
        session = unit.session
        person.save_in(unit, ref.address, person.wanted(invitations="refused"), "invitation",
                       dl.now())
        unit.write()
        stopped = _invited_seat(session, ref) is not None
        if stopped:
            _store_mode(session, ref.game_id, ref.seat, NONE)
        return _guard(session, ref, stopped=stopped)


#: How long the "no more invitations" page's own undo button works after the refusal:
#: a slip of the finger. Later, invitations are allowed again only behind a key that
#: proves the address (the settings link, the games page, the refusal's mailed undo):
#: whoever holds a forwarded invitation may take mail away, not bring it back (issue 45).
PAGE_UNDO_MINUTES = 60


def allow_invitations(address: str, ref: invitations.GuardRef | None = None) -> None:
    """Undo ``refuse_invitations`` from the invitation's page (``ref``): creators may
    invite this address again, and the invited seat's mail, stopped by the same click,
    comes back on too; within ``PAGE_UNDO_MINUTES`` of the refusal only."""
    now = dl.now()
    with unit_of_work() as unit:
        session = unit.session
        refused = invitations.refused_at(session, address)
        if refused is not None and now - dl.as_utc(refused) > timedelta(
                minutes=PAGE_UNDO_MINUTES):
            raise services.Forbidden(
                _("This address refused invitations more than %(minutes)s minutes "
                  "ago. To allow them again, use the undo link we mailed then, or your "
                  "settings (ask for their link on the lobby or any of your seat pages).",
                  minutes=PAGE_UNDO_MINUTES),
                reason="person_key_needed")
        person.save_in(unit, address, person.wanted(invitations="allowed"), "invitation", now)
        unit.write()
        if ref is not None and _invited_seat(session, ref) is not None:
            if _seat_mail_row(session, ref.game_id, ref.seat).mode == NONE:
                _store_mode(session, ref.game_id, ref.seat, EVERY)


def _invited_seat(session: Session, ref: invitations.GuardRef) -> store.Seat | None:
    """The seat the invitation invited, while it is still at the link's address."""
    seat = session.get(store.Seat, (ref.game_id, ref.seat))
    if seat is None or (seat.email or "").lower() != ref.address.lower():
        return None
    return seat


def _guard(session: Session, ref: invitations.GuardRef, *, stopped: bool) -> InvitationGuard:
    game = session.get(store.Game, ref.game_id)
    return InvitationGuard(address=ref.address, game_name=game.name if game is not None else "",
                           game_mail_stopped=stopped,
                           refused_at=invitations.refused_at(session, ref.address))
