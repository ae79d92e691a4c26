"""A seat's (or an address's) notice targets: checked, stored, listed masked (issue 20
item 3).

A target is an apprise URL (``discord://id/token``, ``ntfy://ntfy.sh/topic``...). It
is a secret: whoever holds a webhook's URL can post to that channel, so it is never
logged and never shown whole; the page shows the service, the host and the last four
characters (``mask``).

Why the checks (``validate``): the server, not the player, contacts the URL, so a URL
is a way to make the server send requests. Only services that talk HTTP(S) to a host
are taken (no mail, files, syslog or desktop notices on the server's own machine), and
the host the service will contact must resolve to public addresses only — never
loopback, private, link-local, multicast, reserved or unspecified ones — unless the
operator allows it (``NOTICE_ALLOW_PRIVATE``, set by the tests' local sink). The
runner asks again before every send (``check_host``): DNS may change in between.
"""
from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, Sequence

import apprise
from sqlalchemy import delete, func, or_, update
from sqlmodel import Session, col, select

from app.channels.models import (PENDING, SUPERSEDED, NoticeDelivery, NoticeTarget,
                                 PushSubscription)
from app.config import setting
from app.i18n import N_, _

#: apprise logs URLs (with their tokens) at several levels: nothing of it reaches the
#: app's handlers. ``deliveries`` reads what went wrong through ``apprise.LogCapture``.
logging.getLogger("apprise").propagate = False
#: urllib3 logs each request's path (a webhook's token) at DEBUG.
if logging.getLogger("urllib3").level == logging.NOTSET:
    logging.getLogger("urllib3").setLevel(logging.WARNING)

#: The apprise plugins taken, by class name: the service in words, and the fixed host
#: the service contacts (None: the URL's own host).
SERVICES: dict[str, tuple[str, str | None]] = {
    "NotifyDiscord": ("Discord", "discord.com"),
    "NotifySlack": ("Slack", "hooks.slack.com"),
    "NotifyTelegram": ("Telegram", "api.telegram.org"),
    "NotifyMatrix": ("Matrix", None),
    "NotifyNtfy": ("ntfy", None),
    "NotifyJSON": ("JSON webhook", None),
    "NotifyForm": ("Form webhook", None),
    "NotifyXML": ("XML webhook", None),
    "NotifyMattermost": ("Mattermost", None),
    "NotifyRocketChat": ("Rocket.Chat", None),
    "NotifyGotify": ("Gotify", None),
}

#: What the add form says may be pasted.
EXAMPLES = ("discord://webhook_id/webhook_token", "ntfy://ntfy.sh/my-topic",
            "slack://TokenA/TokenB/TokenC", "tgram://bot_token/chat_id",
            "jsons://example.org/my-hook")

MAX_URL = 2000
#: The service of a browser's Web Push subscription (issue 49: ``app.channels.push``):
#: its ``url`` is the push service's endpoint, not an apprise URL.
PUSH_SERVICE = "Web Push"


@dataclass(frozen=True)
class Checked:
    """A URL apprise understands, of a service we take, with the host it contacts."""

    url: str
    service: str
    host: str
    port: int | None


def understood(url: str) -> Any:
    """apprise's plugin object for ``url`` (None: apprise does not understand it)."""
    try:
        return apprise.Apprise.instantiate(url, suppress_exceptions=True)
    except Exception:  # noqa: BLE001 - a URL apprise chokes on is one it does not take
        return None


def parse(url: Any) -> Checked:
    """Which service ``url`` is and which host it contacts, without any DNS; raises
    ``ValueError`` with words a person understands."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError(_("Paste the address of your notice channel, for example "
                           "discord://webhook_id/webhook_token or ntfy://ntfy.sh/my-topic."))
    url = url.strip()
    if len(url) > MAX_URL or any(ord(c) < 32 or c.isspace() for c in url):
        raise ValueError(_("That address is too long or has spaces in it: paste it as the "
                           "service gave it to you."))
    if "://" not in url:
        raise ValueError(_("That is not an address we understand: it should start with the "
                           "service, like discord://, slack://, ntfy:// or jsons://."))
    plugin = understood(url)
    if plugin is None:
        raise ValueError(_("We could not read that address as a Discord, Slack, Matrix, "
                           "ntfy, Telegram or webhook address. Check it, or use a json:// or "
                           "jsons:// address for a plain webhook."))
    kind = type(plugin).__name__
    if kind not in SERVICES:
        raise ValueError(_("Notices go only to chat and web services (Discord, Slack, "
                           "Matrix, ntfy, Telegram, Mattermost, Rocket.Chat, Gotify, "
                           "JSON/form/XML webhooks) over http(s); mail, files and desktop "
                           "notices are not taken here (mail has its own settings)."))
    service, fixed = SERVICES[kind]
    host, port = fixed, None
    if kind == "NotifyNtfy" and str(getattr(plugin, "mode", "")) == "cloud":
        host = "ntfy.sh"
    elif kind == "NotifyMatrix" and str(getattr(plugin, "mode", "")) == "t2bot":
        host = "webhooks.t2bot.io"
    elif kind == "NotifySlack" and str(getattr(plugin, "mode", "hook")) != "hook":
        host = "slack.com"
    if host is None:
        host = str(getattr(plugin, "host", "") or "")
        port = getattr(plugin, "port", None)
    if not host:
        raise ValueError(_("That address names no host to send the notices to."))
    return Checked(url=url, service=service, host=host.strip("[]"),
                   port=int(port) if port else None)


#: ``socket.getaddrinfo``, replaceable in tests that have no network.
Resolve = Callable[[str, int | None], Sequence[str]]


def resolve(host: str, port: int | None) -> list[str]:
    """The IP addresses ``host`` resolves to now."""
    infos = socket.getaddrinfo(host, port or 443, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def refused_address(address: str) -> str | None:
    """Why the server does not send to ``address`` (None: a public address)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    mapped = getattr(ip, "ipv4_mapped", None)
    if mapped is not None:
        ip = mapped
    for test, words in ((ip.is_loopback, "this server itself (loopback)"),
                        (ip.is_unspecified, "an unspecified address"),
                        (ip.is_link_local, "a link-local address"),
                        (ip.is_multicast, "a multicast address"),
                        (ip.is_private, "a private network"),
                        (ip.is_reserved, "a reserved address"),
                        (not ip.is_global, "an address that is not public")):
        if test:
            return words
    return None


#: Why a host is refused (``refused_address``), as the whole sentence a person reads.
REFUSED_HOST = {
    "this server itself (loopback)": N_("%(host)s is this server itself (loopback): notices "
                                        "go only to public services on the internet."),
    "an unspecified address": N_("%(host)s is an unspecified address: notices go only to "
                                 "public services on the internet."),
    "a link-local address": N_("%(host)s is a link-local address: notices go only to public "
                               "services on the internet."),
    "a multicast address": N_("%(host)s is a multicast address: notices go only to public "
                              "services on the internet."),
    "a private network": N_("%(host)s is a private network: notices go only to public "
                            "services on the internet."),
    "a reserved address": N_("%(host)s is a reserved address: notices go only to public "
                             "services on the internet."),
    "an address that is not public": N_("%(host)s is an address that is not public: notices "
                                        "go only to public services on the internet."),
    "an address we cannot read": N_("%(host)s is an address we cannot read: notices go only "
                                    "to public services on the internet."),
}


def allow_private() -> bool:
    return str(setting("NOTICE_ALLOW_PRIVATE")).strip().lower() in ("1", "true", "yes", "on")


def check_host(checked: Checked, resolver: Resolve | None = None) -> None:
    """Refuse (``ValueError``, in words) a host that resolves to a loopback, private,
    link-local, multicast, reserved or unspecified address, or not at all."""
    if allow_private():
        return
    try:
        addresses = list((resolver or resolve)(checked.host, checked.port))
    except (OSError, UnicodeError) as exc:
        raise ValueError(_("We could not find the host %(host)s: check the address.",
                           host=checked.host)) from exc
    if not addresses:
        raise ValueError(_("We could not find the host %(host)s: check the address.",
                           host=checked.host))
    for address in addresses:
        try:
            why = refused_address(address)
        except ValueError:
            why = "an address we cannot read"
        if why is not None:
            sentence = REFUSED_HOST.get(why) or REFUSED_HOST["an address that is not public"]
            raise ValueError(_(sentence, host=checked.host))


def validate(url: Any, resolver: Resolve | None = None) -> tuple[str, str]:
    """``(normalised url, service words)`` of a URL a target may hold, or ``ValueError``
    with words: apprise must understand it, its service must talk HTTP(S), and the host
    it contacts must be public (unless ``NOTICE_ALLOW_PRIVATE``)."""
    checked = parse(url)
    check_host(checked, resolver)
    return checked.url, checked.service


def mask(url: str) -> str:
    """What the page shows of a target: the service, the host, the last four characters
    ("Discord · discord.com · …k3Xz"), never the whole URL. A push endpoint is an
    https URL, which no apprise URL is: "Web Push · fcm.googleapis.com · …"."""
    if url.startswith(("https://", "http://")):
        service, host = PUSH_SERVICE, url.split("/")[2].rsplit("@", 1)[-1] or "?"
    else:
        try:
            checked = parse(url)
            service, host = checked.service, checked.host
        except ValueError:
            service, host = "Target", "?"
    tail = url.rstrip("/")[-4:] if len(url) > 12 else ""
    return f"{service} · {host}" + (f" · …{tail}" if tail else "")


# -- the rows ---------------------------------------------------------------------------

def per_seat_limit() -> int:
    return max(1, int(float(setting("NOTICE_TARGETS_PER_SEAT"))))


def of_seat(session: Session, game_id: str, seat: int, address: str | None) -> list[NoticeTarget]:
    """The seat's own targets and its address's (every game), oldest first."""
    where: list[Any] = [(col(NoticeTarget.game_id) == game_id) & (col(NoticeTarget.seat) == seat)]
    if address:
        where.append(func.lower(col(NoticeTarget.address)) == address.lower())
    return list(session.exec(select(NoticeTarget).where(or_(*where))
                             .order_by(col(NoticeTarget.id))).all())


def active(targets: Iterable[NoticeTarget]) -> list[NoticeTarget]:
    return [t for t in targets if t.paused_at is None]


def add(session: Session, *, url: str, service: str, now: datetime, game_id: str | None = None,
        seat: int | None = None, address: str | None = None) -> NoticeTarget:
    """Store a validated target for a seat (``game_id`` + ``seat``) or an ``address``;
    ``ValueError`` with words when that scope has ``NOTICE_TARGETS_PER_SEAT`` already or
    the same URL. The caller commits."""
    if address is not None:
        address = address.strip().lower()
        scope = [func.lower(col(NoticeTarget.address)) == address]
    else:
        scope = [col(NoticeTarget.game_id) == game_id, col(NoticeTarget.seat) == seat]
    existing = list(session.exec(select(NoticeTarget).where(*scope)).all())
    limit = per_seat_limit()
    if len(existing) >= limit:
        raise ValueError(_("You have %(count)s notice targets there already, the most we "
                           "keep (%(limit)s). Remove one first.", count=len(existing),
                           limit=limit))
    if any(t.url == url for t in existing):
        raise ValueError(_("That target is on your list already."))
    target = NoticeTarget(game_id=None if address is not None else game_id,
                          seat=None if address is not None else seat, address=address,
                          url=url, service=service[:40], created_at=now)
    # not a unit write: a notice target belongs to a seat or an address, outside any
    # move; one row, checked against the others in this same session
    session.add(target)
    session.flush()
    return target


def find(session: Session, target_id: int, game_id: str, seat: int,
         address: str | None) -> NoticeTarget | None:
    """The target ``target_id`` if it belongs to this seat or its address (else None)."""
    target = session.get(NoticeTarget, target_id)
    if target is None:
        return None
    if target.game_id == game_id and target.seat == seat:
        return target
    if target.address is not None and address and target.address.lower() == address.lower():
        return target
    return None


def pause(target: NoticeTarget, now: datetime, why: str) -> None:
    target.paused_at = now
    target.last_error = why[:300]


def resume(target: NoticeTarget) -> None:
    """Active again: the next notice is tried (a test notice right away tells)."""
    target.paused_at = None
    target.failures = 0


def remove(session: Session, target: NoticeTarget) -> None:
    """Gone, with its deliveries still waiting (they could go nowhere)."""
    session.execute(update(NoticeDelivery)
                    .where(col(NoticeDelivery.target_id) == target.id,
                           col(NoticeDelivery.status) == PENDING)
                    .values(status=SUPERSEDED, last_error="the target was removed")
                    .execution_options(synchronize_session=False))
    session.execute(delete(PushSubscription).where(  # a push target's keys (issue 49)
        col(PushSubscription.target_id) == target.id))
    session.delete(target)


def described(target: NoticeTarget) -> dict[str, Any]:
    """A target as the page and the JSON API show it: masked, with its state."""
    return {"id": target.id, "service": target.service, "shown": mask(target.url),
            "scope": "address" if target.address is not None else "seat",
            "state": "paused" if target.paused_at is not None else "active",
            "paused_at": target.paused_at, "last_error": target.last_error,
            "last_ok_at": target.last_ok_at, "failures": target.failures,
            "created_at": target.created_at}
