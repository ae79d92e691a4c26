"""A seat's notice targets, by its link (issue 20 items 3 and 4): list, add, test,
resume, remove, and whether mail still comes beside them.

Targets of "this game" belong to the seat; targets of "all my games" to its address
(every game that seats it). A seat link opens the seat's own alone (issue 45, one key,
one door): the address's are the person's settings (``app.services.person_settings``,
opened by a link mailed to the address); the seat page only counts them. The web checks
the link (and a form's CSRF token) and hands the ``SeatAccess`` here; every refusal is a
``BadRequest``/``NotFound``/``Forbidden`` with words, and changes nothing. A target's URL
is a secret: what leaves here is ``targets.described`` (masked), never the URL.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app import services
from app.i18n import N_, _
from app.channels import deliveries, push, targets
from app.channels.models import NoticeTarget
from app.clock import deadlines as dl
from app.db import read_session, write_session
from app.gamelog import store
from app.mail import seat_prefs
from app.mail.models import SeatMail
from app.people.models import Person

#: The add form's scopes.
SEAT, ADDRESS = "seat", "address"
SCOPES = {SEAT: "this game", ADDRESS: "all my games"}


def seat_address(session: Session, game_id: str, seat: int) -> str | None:
    """The seat's address (lower case), if it is a person's seat with one."""
    row = session.get(store.Seat, (game_id, seat))
    if row is None or row.kind != "human" or not (row.email or "").strip():
        return None
    return row.email.strip().lower()


def _by_mail(session: Session, game_id: str, seat: int) -> bool:
    row = session.exec(select(SeatMail).where(SeatMail.game_id == game_id,
                                              SeatMail.seat == seat)).first()
    return True if row is None else bool(row.by_mail)


def takes_mail(session: Session, game_id: str, seat: int, address: str | None,
               kind: str | None = None) -> bool:
    """Whether the seat's notices still go by mail beside its targets: only where both the
    seat and its address want it (the sender asks this as a mail leaves, the page shows it).
    ``kind``: the mail's (the sender's question): a person who takes push instead of mail
    (issue 49 item 4) gets no mail of a kind a browser is pushed (``push.KINDS``: their
    turns; never the digest) while a push target of theirs is active (mail stands in for
    a push that fails: ``runners.notices``)."""
    if not (_by_mail(session, game_id, seat) and _address_by_mail(session, address)):
        return False
    return kind not in push.KINDS or not _push_instead(session, game_id, seat, address)


def _push_instead(session: Session, game_id: str, seat: int, address: str | None) -> bool:
    """The person chose "mail only when push fails or for the digest" and has a working
    (not paused) push subscription for this seat or all their games."""
    if address is None:
        return False
    row = session.exec(select(Person).where(func.lower(col(Person.address)) == address)).first()
    if row is None or not row.push_instead:
        return False
    return any(t.service == targets.PUSH_SERVICE
               for t in targets.active(targets.of_seat(session, game_id, seat, address)))


def _address_by_mail(session: Session, address: str | None) -> bool:
    """Whether the address still takes mail beside its targets in all its games."""
    if address is None:
        return True
    row = session.exec(select(Person).where(
        func.lower(col(Person.address)) == address)).first()
    return True if row is None else bool(row.by_mail)


def when_words(at: datetime | None) -> str:
    return dl.as_utc(at).strftime("%d %B %Y, %H:%M UTC") if at is not None else ""


def trouble_lines(found: list[Any]) -> list[str]:
    """Sentences for the top of the seat page: each paused target, and that mail stands in."""
    lines = []
    for target in found:
        if target.paused_at is None:
            continue
        why = target.last_error or _("its notices did not arrive")
        lines.append(_("Your notices to %(target)s are paused since %(when)s: %(why)s. Mail "
                       "comes instead until you resume it (under \"Notices elsewhere\").",
                       target=targets.mask(target.url), when=when_words(target.paused_at),
                       why=why))
    return lines


def status(session: Session, access: services.SeatAccess) -> dict[str, Any]:
    """What the page's "Notices elsewhere" box and ``GET /api/play/<token>/targets`` show,
    read on the caller's session (a GET never writes)."""
    address = seat_address(session, access.game_id, access.seat)
    found = targets.of_seat(session, access.game_id, access.seat, address)
    return status_of(found, address, _by_mail(session, access.game_id, access.seat),
                     _address_by_mail(session, address))


def status_of(found: list[Any], address: str | None, seat_by_mail: bool,
              address_by_mail: bool) -> dict[str, Any]:
    """``status`` from rows read already (the seat page's presenter reads the seat's mail
    row and its person with the rest of the page: issue 33). ``found``: the seat's
    targets and its address's; only the seat's are listed (the others are the person's
    settings: counted, never shown or touched through a seat link)."""
    own = [t for t in found if t.address is None]
    return {"targets": [targets.described(t) for t in own],
            "elsewhere": len(found) - len(own),
            "by_mail": seat_by_mail and address_by_mail,
            "address_by_mail": address_by_mail,
            "has_address": address is not None,
            "limit": targets.per_seat_limit(), "examples": list(targets.EXAMPLES),
            "scopes": SCOPES, "trouble": trouble_lines(found)}


def read_status(access: services.SeatAccess) -> dict[str, Any]:
    with read_session() as session:
        return status(session, access)


#: What a seat link says when asked for a person-wide choice (issue 45).
PERSON_KEY_NEEDED = N_("Targets and mail for all your games are your settings across games: "
                       "they open only with the link we mail to your address (\"Your settings\" "
                       "on your seat page sends it), not with a seat link. Nothing was changed.")


def add(access: services.SeatAccess, url: Any, scope: Any = SEAT) -> dict[str, Any]:
    """Add a target for the seat (``scope`` ``seat``: this game only). ``address`` (every
    game of the person) is refused with words: a seat link opens one seat (issue 45)."""
    scope = str(scope or SEAT).strip().lower()
    if scope not in SCOPES:
        raise services.BadRequest(_("Choose whether the target is for this game or for all "
                                  "your games."))
    if scope == ADDRESS:
        raise services.Forbidden(_(PERSON_KEY_NEEDED), reason="person_key_needed")
    normalised, service = _checked(url)
    with write_session() as session:
        return _add(session, normalised, service, game_id=access.game_id, seat=access.seat)


def _checked(url: Any) -> tuple[str, str]:
    try:
        return targets.validate(url)
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None


def _add(session: Session, url: str, service: str, **owner: Any) -> dict[str, Any]:
    try:
        target = targets.add(session, url=url, service=service, now=dl.now(), **owner)
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None
    return targets.described(target)


def of_address(address: str) -> list[dict[str, Any]]:
    """The targets of every game of ``address``, masked (the person's settings page)."""
    with read_session() as session:
        return [targets.described(t) for t in session.exec(
            select(NoticeTarget).where(func.lower(col(NoticeTarget.address)) == address.lower())
            .order_by(col(NoticeTarget.id)))]


def _target(session: Session, access: services.SeatAccess, target_id: Any) -> Any:
    try:
        number = int(str(target_id))
    except ValueError:
        number = -1
    # the seat's own only: its address's are the person's (issue 45)
    target = targets.find(session, number, access.game_id, access.seat, None) \
        if number > 0 else None
    if target is None:
        raise services.NotFound(_("There is no such notice target on this seat."))
    return target


def remove(access: services.SeatAccess, target_id: Any) -> str:
    """Remove one of the seat's targets; returns what it was, masked."""
    with write_session() as session:
        target = _target(session, access, target_id)
        shown = targets.mask(target.url)
        targets.remove(session, target)
    return shown


def resume(access: services.SeatAccess, target_id: Any) -> dict[str, Any]:
    """A paused target is tried again from the next notice."""
    with write_session() as session:
        target = _target(session, access, target_id)
        targets.resume(target)
        session.flush()
        return targets.described(target)


def test(access: services.SeatAccess, target_id: Any) -> dict[str, Any]:
    """Queue a test notice to the target: the notice runner sends it within seconds."""
    with write_session() as session:
        target = _target(session, access, target_id)
        delivery = deliveries.test_notice(session, target, access.game_id, access.seat,
                                          dl.now())
        return {"id": delivery.id, "target_id": target.id, "status": delivery.status}


def set_by_mail(access: services.SeatAccess, by_mail: bool, *,
                everywhere: bool = False) -> bool:
    """Whether the seat's mail still comes beside its targets in this game (while one is
    active). Mail comes only where both the seat and its address want it (``takes_mail``);
    the page says when the address's choice is what keeps it away. ``everywhere`` (every
    game of the address: ``Person.by_mail``) is the person's setting, refused here with
    words (issue 45)."""
    if everywhere:
        raise services.Forbidden(_(PERSON_KEY_NEEDED), reason="person_key_needed")
    with write_session() as session:
        row = seat_prefs.seat_mail(session, access.game_id, access.seat)
        row.by_mail = bool(by_mail)
        row.updated_at = dl.now()
    return bool(by_mail)
