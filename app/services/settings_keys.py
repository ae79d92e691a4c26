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
  (kind ``settings_changed``, asked for like a link: ``app.mail.holds``).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from app.clock import deadlines as dl
from app.config import setting
from app.mail import compose, outbox, trust
from app.mail.headers import mail_domain
from app.people import keys

#: The outbox kinds of the two mails (``app.mail.holds`` lets both leave in quiet hours).
LINK_KIND, CHANGED_KIND = "settings_link", "settings_changed"
#: How each door asked for the link, in the mail's words.
ASKED_WORDS = {
    keys.ASKED_ON_SEAT: "asked for on one of your seat pages",
    keys.ASKED_IN_LOBBY: "asked for on the lobby",
    keys.GAMES_PAGE: "asked for on your games page",
    keys.INVITATION: "part of your invitation",
}


def base_url() -> str:
    return str(setting("BASE_URL")).rstrip("/")


def settings_url(key: keys.PersonKey | str) -> str:
    return f"{base_url()}/settings/{keys.token_of(key)}"


def undo_url(change: keys.PersonChange | str) -> str:
    return f"{base_url()}/settings/undo/{keys.undo_token(change)}"


def window() -> timedelta:
    return timedelta(minutes=max(0.0, float(setting("SETTINGS_LINK_MINUTES"))))


def mail_link(session: Session, address: str, made_for: str, *, name: str | None = None,
              now: datetime | None = None) -> bool:
    """Queue a settings link for ``address`` in the caller's transaction; whether one
    was queued (False: one left within the window, or the address never played and had
    its day's mails). The caller answers the same either way."""
    now = dl.as_utc(now or dl.now())
    last = keys.last_mailed(session, address)
    if last is not None and now - last < window():
        return False
    if not trust.has_acted(session, address) and \
            trust.mails_in_day(session, address, now) >= trust.STRANGER_MAILS_PER_DAY:
        return False
    key = keys.issue(session, address, made_for, now)
    mail = compose.render(
        LINK_KIND, "Silver Eye · your settings", lead="The link to your settings, as asked",
        name=name, link=settings_url(key), asked=ASKED_WORDS.get(made_for, "asked"),
        hours=keys.SETTINGS_LINK_HOURS, sitting=keys.SITTING_MINUTES)
    _enqueue(session, address, name, LINK_KIND, mail, f"settings-link:{key.id}", now)
    return True


def told(session: Session, change: keys.PersonChange, lines: list[str], *,
         name: str | None = None, undo: bool = True) -> None:
    """Queue the mail of ``change`` to its address, with its undo link, now."""
    at = dl.as_utc(change.at)
    mail = compose.render(
        CHANGED_KIND, "Silver Eye · your settings were changed",
        lead="Your settings for all your games were changed", name=name, lines=lines,
        when=f"{at:%A %d %B %Y at %H:%M} UTC", via=keys.VIA_WORDS.get(change.via, change.via),
        undo=undo_url(change) if undo else None, undo_days=keys.UNDO_DAYS)
    _enqueue(session, change.address, name, CHANGED_KIND, mail,
             f"settings-changed:{change.id}", at)


def _enqueue(session: Session, to: str, name: str | None, kind: str, mail: Any,
             idempotency: str, now: datetime) -> None:
    # conversation: asked for (or about who may change what), so the hourly cap neither
    # holds nor counts it; the stranger's day still does (``mail_link`` checks it first)
    outbox.enqueue(session, game_id=None, seat=None, kind=kind, to=to, to_name=name or "",
                   mail=mail, idempotency=idempotency,
                   domain=mail_domain(str(setting("MAIL_FROM"))), now=now, conversation=True)
