"""Invitations an address may refuse, and how many a stranger may be sent (issue 17 item 7).

Anybody may type any address into the lobby, so without these guards an
inbox could be rented out: 40 creators from 40 source addresses once queued
2,340 mails for one victim. Three rules, each checked when a game is created
(``app.services.games.create_game``, the one way every caller makes a game)
and refused there with words to the creator, so nothing is created that
could not be sent:

- one address holds at most one seat of a game (``app.services.games``);
- an address that never played (``app.mail.trust``) gets at most
  ``trust.STRANGER_MAILS_PER_DAY`` mails a day across all games (``too_many_words``);
- an address that asked for no more invitations gets none, whoever creates
  the game (``refused_at``): every invitation carries a one-click
  ``List-Unsubscribe`` (RFC 8058) to ``/invitations/<token>``, whose token
  names the address and the invitation's seat (``guard_token``).

The address can undo its refusal from its games page (``app.services.seat_settings``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from app.access import tokens
from app.gamelog import store
from app.i18n import _, ngettext
from app.people.models import Person

#: The first field of an invitation guard token (the unsubscribe salt is shared
#: with the seat and digest links; the field keeps the three apart).
KIND = "invitations"


@dataclass(frozen=True)
class GuardRef:
    """What an invitation's "no more invitations" link names: the address it was
    sent to, and the seat it invited (whose game's mail the one click stops too)."""

    address: str
    game_id: str
    seat: int


def guard_token(address: str, game_id: str, seat: int, secret: str | None = None) -> str:
    """The signed token of an invitation's "no more invitations to this address" link."""
    return tokens.sign(tokens.UNSUBSCRIBE, [KIND, str(address), str(game_id), int(seat)],
                       secret or None)


def guard_url(base_url: str, address: str, game_id: str, seat: int,
              secret: str | None = None) -> str:
    """The link itself (``GET`` asks, ``POST`` does: RFC 8058 one-click)."""
    return f"{base_url.rstrip('/')}/invitations/{guard_token(address, game_id, seat, secret)}"


def read_guard_token(token: str) -> GuardRef:
    """The address and seat of a guard token; ``tokens.BadToken`` if not one of ours."""
    payload = tokens.unsign(tokens.UNSUBSCRIBE, token)
    if (not isinstance(payload, list) or len(payload) != 4 or payload[0] != KIND
            or not isinstance(payload[1], str) or not isinstance(payload[2], str)
            or not isinstance(payload[3], int) or isinstance(payload[3], bool)):
        raise tokens.BadToken(_("this link is not valid"))
    return GuardRef(payload[1], payload[2], payload[3])


def refused_at(session: Session, address: str) -> datetime | None:
    """When ``address`` asked for no more invitations (None: it did not).

    Compared without regard to case: ``ANN@example.org`` reaches the same inbox
    as ``ann@example.org``, and typing it so must not get round a refusal. The
    table holds one row per address that chose a preference, so this reads few.
    """
    if not address:
        return None
    return session.exec(
        select(Person.no_invitations_at)
        .where(or_(col(Person.address) == address,
                   func.lower(col(Person.address)) == address.lower()),
               col(Person.no_invitations_at).is_not(None))
        .order_by(col(Person.no_invitations_at))).first()


#: What the ``last_error`` of a mail superseded because its address refused begins with
#: (issue 34 item 3): the creator's page finds these rows by it (``app.services.seat_lines``).
REFUSED_AT_SEND = "refused:"
#: Mail that leaves all the same: what the person asked for just now (a fresh link, an
#: answer to their reply) and what tells the old holder of a seat it changed hands.
ASKED_FOR_KINDS = frozenset({"link", "answer", "handed_over"})


REFUSED, STRANGER_DAY = "refused", "stranger_day"


def why_not_mailed(session: Session, address: str, now: datetime,
                   also: int = 0) -> str | None:
    """Why ``address`` may not be mailed an invitation now: ``REFUSED`` (it asked for no
    invitations), ``STRANGER_DAY`` (it never played and had a stranger's day of mail),
    or None. One home for the two checks made before any mail that hands an address a
    seat (a substitute, an open table's seat); each caller says it in its own words.
    ``also``: mails of the last day that reached the same inbox at another spelling of
    the address (its ``+tag``s), which the outbox's count of ``address`` cannot see."""
    from app.mail import trust

    if refused_at(session, address) is not None:
        return REFUSED
    if not trust.has_acted(session, address) and \
            trust.mails_in_day(session, address, now) + also >= trust.STRANGER_MAILS_PER_DAY:
        return STRANGER_DAY
    return None


def strangers_per_day() -> int:
    """``INVITATIONS_FROM_STRANGERS_PER_DAY`` (0: no bound)."""
    from app.config import setting

    return max(0, int(float(setting("INVITATIONS_FROM_STRANGERS_PER_DAY"))))


def from_strangers_today(session: Session, address: str, now: datetime) -> int:
    """How many games created in the 24 hours before ``now`` seat ``address`` with nobody
    it ever played with (issue 34 item 2: a person is bounded by people, not by its
    history). Measured before: once the victim had made one move anywhere, the
    stranger's bound of mails no longer applied, and 40 source addresses made 390 games
    naming it in 143 s. A game with someone it played with (a friend's rematch, a
    club's table) is not counted. Its games of the day (``ix_seat_email``), their other
    seats, and which of those it played with (``trust.played_with``)."""
    from app.mail import trust

    since = now - trust.DAY
    key = address.lower()
    recent = [game_id for game_id in session.exec(
        select(store.Seat.game_id).join(store.Game, col(store.Game.id) == col(store.Seat.game_id))
        .where(func.lower(col(store.Seat.email)) == key, col(store.Game.created) > since)).all()]
    if not recent:
        return 0
    seated: dict[str, set[str]] = {game_id: set() for game_id in recent}
    for game_id, other in session.exec(
            select(store.Seat.game_id, func.lower(col(store.Seat.email)))
            .where(col(store.Seat.game_id).in_(recent), col(store.Seat.email) != "",
                   func.lower(col(store.Seat.email)) != key)).all():
        seated[game_id].add(other)
    friends = trust.played_with(session, address, sorted(set().union(*seated.values())))
    return sum(1 for others in seated.values() if not others & friends)


def over_strangers_bound(session: Session, seated: list[tuple[int, dict[str, Any]]],
                         now: datetime) -> str | None:
    """The words refusing a new game (None: none) that seats an address with nobody it
    ever played with when it was seated so in ``strangers_per_day`` games today already
    (issue 34 item 2). ``seated``: the new game's ``(index, player)`` with an address;
    asked by ``app.services.games`` under the same lock on each address as the
    stranger's mail, so two games created at once cannot both see room for one more."""
    from app.mail import trust

    limit = strangers_per_day()
    if not limit:
        return None
    for index, player in seated:
        others = [other["email"] for number, other in seated if number != index]
        if trust.played_with(session, player["email"], others):
            continue
        had = from_strangers_today(session, player["email"], now)
        if had >= limit:
            return too_many_invitations_words(player["name"], index, player["email"], had,
                                              limit)
    return None


def too_many_invitations_words(name: str, index: int, address: str, had: int,
                               limit: int) -> str:
    """What the creator reads when ``address`` had the day's invitations from strangers."""
    return ngettext(
        "%(address)s (seat %(seat)d, %(name)s) was invited to %(num)d game here in the last "
        "24 hours by people they have never played with; we invite an address to at most "
        "%(limit)d such games a day, so no game was created. If you know them, ask them "
        "to join a game of yours they can see first, or invite them again tomorrow.",
        "%(address)s (seat %(seat)d, %(name)s) was invited to %(num)d games here in the last "
        "24 hours by people they have never played with; we invite an address to at most "
        "%(limit)d such games a day, so no game was created. If you know them, ask them "
        "to join a game of yours they can see first, or invite them again tomorrow.",
        had, address=address, seat=index + 1, name=name, limit=limit)


def refused_words(name: str, index: int, address: str) -> str:
    """What the creator reads when a seat's address refused invitations."""
    return _("%(address)s (seat %(seat)d, %(name)s) asked not to be invited to games here, so "
             "no game was created. Leave that seat's address empty and give them the seat's "
             "link yourself if they agreed to play, or invite someone else. (They can allow "
             "invitations again from their “All my games” page.)",
             address=address, seat=index + 1, name=name)


def too_many_words(name: str, index: int, address: str, had: int, adds: int,
                   limit: int) -> str:
    """What the creator reads when a stranger's mail for the day would go over ``limit``."""
    values = dict(address=address, seat=index + 1, name=name, had=had, adds=adds, limit=limit)
    if had >= limit:
        return _("%(address)s (seat %(seat)d, %(name)s) has had %(had)d mails from games here "
                 "in the last 24 hours without ever playing one; we send at most %(limit)d a "
                 "day to an address that has not played yet, so no game was created. Invite "
                 "them again tomorrow, or ask them to play a game they were invited to first.",
                 **values)
    return _("%(address)s (seat %(seat)d, %(name)s) has had %(had)d mails from games here in "
             "the last 24 hours without ever playing one and this game would send %(adds)d "
             "more; we send at most %(limit)d a day to an address that has not played yet, so "
             "no game was created. Invite them again tomorrow, or ask them to play a game they "
             "were invited to first.", **values)


@dataclass(frozen=True)
class YourSettings:
    """What an invitation says of the invited person's settings (issue 32 item 2): a
    known person's zone and quiet hours, which hold in this game from the invitation on;
    a newcomer's how-to, with the link to their settings page and how long their first
    turn mail waits so they can set them first."""

    known: bool
    zone: str
    quiet: str | None
    link: str
    wait_minutes: int


def your_settings(person: Any, seat_link: str, wait: timedelta) -> YourSettings:
    """``person``: the invited address's row (None: never seen); ``seat_link``: the
    invitation's seat link (the settings page is under it)."""
    from app.clock.calendar import Quiet

    start, end = (getattr(person, "quiet_start", None), getattr(person, "quiet_end", None))
    quiet = (Quiet.of_minutes(int(start), int(end)).words()
             if start is not None and end is not None and start != end else None)
    zone = getattr(person, "time_zone", None)
    known = bool(zone is not None or quiet is not None
                 or getattr(person, "settings_at", None) is not None)
    return YourSettings(known=known, zone=zone or "UTC", quiet=quiet,
                        link=f"{seat_link}/settings",
                        wait_minutes=max(1, round(wait.total_seconds() / 60)))
