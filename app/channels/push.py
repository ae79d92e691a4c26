"""Web Push (issue 49 item 3): a browser's subscription is one more notice target.

Why a target and not a way of its own: a push must obey what every notice obeys — it
is written only when its outbox row leaves the sender (after the still-true check,
quiet hours and the mail caps), asked again whether it still holds before it is tried,
retried with the targets' backoff, and counted under the paused-after-failures rule,
with mail standing in. So a subscription is a ``NoticeTarget`` (service ``Web Push``,
``url`` the push service's endpoint, scoped to a seat or to an address: all the
person's games) and its keys are a ``PushSubscription`` row beside it; the notices
runner (``app.runners.notices``) sends a push target's deliveries with ``send`` here
instead of apprise.

What a push carries: the delivery's own short form (title, line, seat link: public
words only, never a private card) as JSON, encrypted to the browser (``aes128gcm``,
RFC 8291) with the server's VAPID key (RFC 8292). Its headers:

- ``Topic``: one per game (``topic_of``), so the push service keeps only the newest
  undelivered push of a game, and the service worker shows it under the same ``tag``:
  a game's new notice replaces its last one on the lock screen;
- ``TTL``: the seconds left to the deadline of the decision it announces, never beyond
  it (``PUSH_TTL_SECONDS`` at most, for notices without a deadline): a phone that was
  off is not handed a turn that is over;
- ``Urgency``: ``high`` for a reminder, ``normal`` for a turn, ``low`` for the rest.

An endpoint that answers 404 or 410 is gone for good (the browser dropped the
subscription): its target and keys are removed (``forget``). Endpoints must be https
URLs of public hosts, as notice targets are (``check_endpoint``); ``PUSH_ALLOW_LOOPBACK``
(tests only) lets a local http endpoint in.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import json
from dataclasses import dataclass
from datetime import datetime
from email.utils import parseaddr
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from app import i18n
from app.channels import targets
from app.channels.models import NoticeTarget, PushSubscription
from app.clock import deadlines as dl
from app.config import setting
from app.db.statements import Insert, table_of
from app.db.unit import Unit

SERVICE = targets.PUSH_SERVICE
#: The delivery channel word (``NoticeDelivery.channel``) of a push.
CHANNEL = "push"
#: A 404 or 410 from the push service: the subscription is gone for good.
GONE = "gone"
URGENCY = {"reminder": "high", "turn": "normal", "vote": "normal", "more_time": "normal",
           "you_absent": "normal", "took_over": "normal", "test": "normal"}
MAX_ENDPOINT = 1000
#: The kinds whose push expires at the seat's open decision's deadline.
DECIDING = frozenset({"turn", "reminder"})
#: What a browser is pushed: "my turns" — what asks the person to act (a decision, a
#: reminder, a vote, being marked away) — not the round summaries, talk and news that
#: other targets get too: a phone that buzzes for all of them is a phone whose
#: notifications get turned off (issue 49: six games on a lock screen).
KINDS = frozenset({"turn", "reminder", "vote", "you_absent"})


def _flag(name: str) -> bool:
    return str(setting(name)).strip().lower() in ("1", "true", "yes", "on")


def is_push(target: Any) -> bool:
    return getattr(target, "service", None) == SERVICE


# -- the server's keys ---------------------------------------------------------------------

def public_key() -> str | None:
    """The VAPID public key the browser subscribes with (None: push is not set up here)."""
    key = str(setting("VAPID_PUBLIC_KEY") or "").strip()
    private = str(setting("VAPID_PRIVATE_KEY") or "").strip()
    return key if key and private else None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def generate_keys() -> tuple[str, str]:
    """A new VAPID key pair: ``(private, public)``, base64url, the private key as its raw
    32 bytes (what ``pywebpush`` reads), the public one as the uncompressed point the
    browser's ``applicationServerKey`` takes."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(serialization.Encoding.X962,
                                           serialization.PublicFormat.UncompressedPoint)
    return _b64(private), _b64(public)


# -- checking what a browser posts -------------------------------------------------------------

def check_endpoint(endpoint: Any, resolver: targets.Resolve | None = None) -> str:
    """The endpoint of a subscription, checked: an https URL of a public host (DNS
    asked now), or with ``PUSH_ALLOW_LOOPBACK`` an http(s) URL of this machine. Raises
    ``ValueError`` with words."""
    if not isinstance(endpoint, str) or not endpoint.strip():
        raise ValueError(i18n.gettext("The browser sent no push endpoint."))
    url: str = str(endpoint).strip()
    if len(url) > MAX_ENDPOINT or any(ord(c) < 33 for c in url):
        raise ValueError(i18n.gettext("That push endpoint is too long or has spaces in it."))
    parts = urlsplit(url)
    host = (parts.hostname or "").strip("[]")
    if not host:
        raise ValueError(i18n.gettext("That push endpoint names no host."))
    if _flag("PUSH_ALLOW_LOOPBACK") and _loopback(host) and parts.scheme in ("http", "https"):
        return url
    if parts.scheme != "https":
        raise ValueError(i18n.gettext("A push endpoint must be an https address."))
    targets.check_host(targets.Checked(url=url, service=SERVICE, host=host,
                                       port=parts.port), resolver)
    return url


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_keys(keys: Any) -> tuple[str, str]:
    """``(p256dh, auth)`` of a subscription's ``keys``: a P-256 public key (65 bytes,
    uncompressed) and a 16-byte auth secret, base64url; ``ValueError`` with words."""
    if not isinstance(keys, dict):
        raise ValueError(i18n.gettext("The browser sent no keys with its subscription."))
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    try:
        point = _unb64(str(p256dh)) if isinstance(p256dh, str) and len(p256dh) < 200 else b""
        secret = _unb64(str(auth)) if isinstance(auth, str) and len(auth) < 100 else b""
    except (binascii.Error, ValueError):
        point, secret = b"", b""
    if len(point) != 65 or point[0] != 4 or len(secret) != 16:
        raise ValueError(i18n.gettext("The browser's subscription keys are not a P-256 key "
                                      "and a 16-byte secret."))
    return str(p256dh), str(auth)


# -- the rows ------------------------------------------------------------------------------------

def _scope(game_id: str | None, seat: int | None, address: str | None) -> list[Any]:
    if address is not None:
        return [func.lower(col(NoticeTarget.address)) == address.strip().lower()]
    return [col(NoticeTarget.game_id) == game_id, col(NoticeTarget.seat) == seat]


def subscribe(session: Session, *, endpoint: str, p256dh: str, auth: str, now: datetime,
              game_id: str | None = None, seat: int | None = None,
              address: str | None = None) -> NoticeTarget:
    """Store a checked subscription for a seat or an address: its target (the targets'
    own ``add``, with its limit) and its keys. The same endpoint again in the same scope
    keeps its target and takes the new keys (a browser that subscribed again). The
    caller commits."""
    found = session.exec(select(NoticeTarget).where(
        *_scope(game_id, seat, address), col(NoticeTarget.url) == endpoint)).first()
    if found is None:
        found = targets.add(session, url=endpoint, service=SERVICE, now=now, game_id=game_id,
                            seat=seat, address=address)
    else:
        targets.resume(found)
    Unit(session, queued=False).insert(Insert(
        table_of(PushSubscription),
        [{"target_id": int(found.id or 0), "p256dh": p256dh, "auth": auth,
          "created_at": now}], conflict=("target_id",), replace=("p256dh", "auth"),
        key="push_subscription"))  # (keyed: a unit not queued sends a keyed insert at once)
    return found


def unsubscribe(session: Session, endpoint: str, *, game_id: str | None = None,
                seat: int | None = None, address: str | None = None) -> bool:
    """Forget this browser's subscription in that scope; whether there was one."""
    found = session.exec(select(NoticeTarget).where(
        *_scope(game_id, seat, address), col(NoticeTarget.url) == str(endpoint or "").strip(),
        col(NoticeTarget.service) == SERVICE)).first()
    if found is None:
        return False
    targets.remove(session, found)
    return True


def keys_of(session: Session, target_id: int) -> PushSubscription | None:
    return session.exec(select(PushSubscription).where(
        col(PushSubscription.target_id) == target_id)).first()


def forget(session: Session, target_id: int) -> None:
    """An endpoint that answered 404/410: its target and keys go (the caller commits)."""
    target = session.get(NoticeTarget, target_id)
    if target is not None:
        targets.remove(session, target)
    else:
        session.execute(delete(PushSubscription)
                        .where(col(PushSubscription.target_id) == target_id))


# -- one push -------------------------------------------------------------------------------------

def topic_of(game_id: str | None) -> str:
    """The ``Topic`` of a game's pushes: the same for every push of one game, different
    between games, 32 characters of the URL-safe alphabet (RFC 8030 5.4), and not the
    game's id (a push service need not learn it)."""
    secret = str(setting("SECRET_KEY") or "")
    return hashlib.sha256(f"{secret}:push-topic:{game_id or ''}".encode()).hexdigest()[:32]


def deadline_of(session: Session, game_id: str | None, seat: int | None) -> datetime | None:
    """The due time of the seat's open decision (None: it has none)."""
    if game_id is None or seat is None:
        return None
    due = session.exec(select(func.min(col(dl.Deadline.due_at))).where(
        col(dl.Deadline.game_id) == game_id, col(dl.Deadline.seat) == seat,
        col(dl.Deadline.kind) == dl.DECISION, col(dl.Deadline.done_at).is_(None))).one()
    return dl.as_utc(due) if due is not None else None


def ttl_of(due: datetime | None, now: datetime) -> int:
    """Seconds the push service may keep it: to the deadline, never beyond it, at most
    ``PUSH_TTL_SECONDS`` (0: the deadline passed, nothing to send)."""
    cap = max(0, int(float(setting("PUSH_TTL_SECONDS"))))
    if due is None:
        return cap
    return max(0, min(cap, int((dl.as_utc(due) - dl.as_utc(now)).total_seconds())))


@dataclass(frozen=True)
class Push:
    """What one push is: its JSON payload and its headers' values."""

    payload: str
    topic: str
    ttl: int
    urgency: str


def push_of(title: str, body: str, kind: str, game_id: str | None, ttl: int) -> Push:
    """The push of a delivery: its title, its line and the seat link (the delivery's
    body is the line, then the link on the last line), ``tag`` the game's topic (the
    service worker replaces the game's last notice with it)."""
    line, _, link = body.rpartition("\n")
    if not line:
        line, link = body, ""
    topic = topic_of(game_id)
    payload = json.dumps({"title": title, "body": line, "url": link, "tag": topic},
                         ensure_ascii=False)
    return Push(payload=payload, topic=topic, ttl=ttl, urgency=URGENCY.get(kind, "low"))


def send(endpoint: str, keys: PushSubscription, push: Push) -> str | None:
    """Hand one push to the push service: None when it took it, ``GONE`` when the
    subscription is gone for good (404, 410), else what went wrong in words (never the
    endpoint, which is a capability)."""
    import requests
    from pywebpush import WebPushException, webpush

    private = str(setting("VAPID_PRIVATE_KEY") or "").strip()
    if not private:
        return "push is not set up on this server (no VAPID key)"
    subject = str(setting("VAPID_SUBJECT") or "").strip() or \
        f"mailto:{parseaddr(str(setting('MAIL_FROM')))[1] or 'postmaster@localhost'}"
    try:
        webpush({"endpoint": endpoint, "keys": {"p256dh": keys.p256dh, "auth": keys.auth}},
                data=push.payload, vapid_private_key=private, vapid_claims={"sub": subject},
                content_encoding="aes128gcm", ttl=push.ttl,
                timeout=max(1.0, float(setting("NOTICE_TIMEOUT_SECONDS"))),
                headers={"Topic": push.topic, "Urgency": push.urgency})
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in (404, 410):
            return GONE
        return (f"the push service answered with error {status}" if status
                else "the push service did not take the notice")
    except requests.Timeout:
        return "the push service did not answer in time"
    except requests.RequestException:
        return "the push service could not be reached"
    return None
