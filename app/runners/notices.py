"""Sending notices to targets (Discord, Slack, ntfy...): each once, never stale (issue 20
item 3).

The queue is ``notice_delivery``, written by ``app.channels.deliveries.fan_out`` when a
mail leaves the sender (``leave_by_targets``, asked by ``app.runners.sending``) and by
"send a test notice". ``Notices`` is a ``runners.base.Runner`` over it, shaped as the
outbox's ``Sending``: claim due rows under a lease (``DELIVERIES``), then for each

- ask again whether what its mail announces still holds (the sender's own
  ``still_holds``, passed in by ``app.runners.sender``): the seat may have acted since;
  then it is ``superseded``, never sent;
- ask again whether its seat stopped the game's mail, or its person all game mail, since
  its mail left (issue 45 item 2: ``app.mail.stops``, one statement a batch): then it is
  ``superseded`` too, as the mail would have been;
- ask again whether the target's host is public (DNS may have changed since it was
  added: ``targets.check_host``);
- send it with apprise (a fresh ``Apprise`` per delivery, ``NOTICE_TIMEOUT_SECONDS``),
  or with the ``send`` a test passes in; a browser's Web Push subscription (issue 49)
  with ``app.channels.push`` instead (``_pushed``): expired unsent when its decision's
  deadline passed, its subscription forgotten when the push service says 404/410 (mail
  stands in), any other failure counted as a target's;
- success: ``sent``, the target's failures back to 0. Failure: tried again after 15 s,
  30 s, 1 min... up to ``NOTICE_MAX_ATTEMPTS``, then ``failed``; after
  ``NOTICE_FAILURES_TO_PAUSE`` failed deliveries in a row the target is paused (its page
  says so, in words without the URL), and mail stands in: an outbox row that went to
  targets only and reached none of them goes back to the mail queue.

Nothing here logs a target's URL, nor the link a notice carries: apprise's own logger
does not propagate (``app.channels.targets``), and what it said is read through
``apprise.LogCapture`` and turned into words.
"""
from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

import apprise
from sqlalchemy.engine import Engine
from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from app.channels import deliveries, push, targets
from app.channels.models import (EXPIRED, FAILED, PENDING, SENT, SUPERSEDED, NoticeDelivery,
                                 NoticeTarget, PushSubscription)
from app.clock.time import as_utc
from app.mail import stops
from app.mail.models import PENDING as MAIL_PENDING, Outbox
from app.runners.base import Lease, Runner
from app.services import notice_targets

log = logging.getLogger("app.runners.notices")

#: ``send(url, title, body)``: None when the service took the notice, else what went
#: wrong in words (never the URL).
Send = Callable[[str, str, str], "str | None"]

#: The key in an outbox row's ``headers`` that says its notice reached no target and
#: mail stands in for it (``build_message`` writes only the headers it knows).
STAND_IN = "notices"
#: The outbox status of a mail that went to the seat's targets only.
OUTBOX_NOTIFIED = deliveries.OUTBOX_NOTIFIED

#: The notice queue: pending deliveries whose time came, earliest first.
DELIVERIES = Lease(NoticeDelivery,
                   due=lambda now: (col(NoticeDelivery.status) == PENDING,
                                    col(NoticeDelivery.next_attempt_at) <= now),
                   order=(col(NoticeDelivery.next_attempt_at), col(NoticeDelivery.id)),
                   length=deliveries.LEASE)


@dataclass
class NoticeReport:
    """What one ``send_due`` did."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0
    superseded: int = 0
    paused: int = 0
    #: push subscriptions found gone (issue 49)
    expired: int = 0


def words_of(said: str) -> str:
    """What apprise logged of a failure, as words with no URL in them."""
    code = re.search(r"error=(\d{3})", said) or re.search(r"\b([45]\d\d)\b", said)
    lowered = said.lower()
    if code:
        return f"the service answered with error {code.group(1)}"
    if "timed out" in lowered or "timeout" in lowered:
        return "the service did not answer in time"
    if "connection" in lowered:
        return "the service could not be reached"
    return "the service did not take the notice"


#: apprise's plugins that print a title as Markdown's "# " in the plain text a chat
#: shows (Matrix: "# Your turn in …" on every client): the title goes in as the body's
#: first line instead (issue 34 item 5).
TITLE_AS_FIRST_LINE = frozenset({"NotifyMatrix"})


def apprise_send(url: str, title: str, body: str) -> str | None:
    """Send one notice with apprise: a fresh ``Apprise`` for it, the timeouts of
    ``NOTICE_TIMEOUT_SECONDS``; None when it went, else what went wrong in words."""
    asset = apprise.AppriseAsset(secure_logging=True)
    plugin = apprise.Apprise.instantiate(url, asset=asset)
    if plugin is None:
        return "the address is no longer understood"
    if title and type(plugin).__name__ in TITLE_AS_FIRST_LINE:
        title, body = "", f"{title}\r\n{body}"
    seconds = deliveries.timeout_seconds()
    plugin.socket_connect_timeout = seconds
    plugin.socket_read_timeout = seconds
    sender = apprise.Apprise(asset=asset)
    sender.add(plugin)
    with apprise.LogCapture(level=logging.WARNING) as said:
        ok = sender.notify(title=title, body=body)
        text = said.getvalue()
    return None if ok else words_of(text)


class Notices(Runner[NoticeDelivery]):
    """One ``send_due`` run over the notice queue."""

    lease = DELIVERIES

    limit = 50

    def __init__(self, engine: Engine, now: datetime, owner: str, *, send: Send,
                 still_holds: Callable[[Outbox], bool] | None) -> None:
        super().__init__(engine, now, owner)
        self.send = send
        self.still_holds = still_holds
        self.report = NoticeReport()
        #: the batch's outbox rows that a stop holds back (``stops.stopped_at_send``)
        self.stops: dict[int, str] = {}

    def claim(self, limit: int) -> list[NoticeDelivery]:
        rows = DELIVERIES.claim(self.engine, self.now, self.owner, limit,
                                returning=(NoticeDelivery,))
        self.report.claimed += len(rows)
        mails = [row.outbox_id for row in rows if row.outbox_id is not None]
        self.stops = {}
        if mails:
            with Session(self.engine) as session:
                self.stops = stops.stopped_at_send(session, mails)
        return sorted(rows, key=lambda row: row.id or 0)

    def failed(self, item: NoticeDelivery, error: Exception) -> None:
        """A delivery whose handling raised (a bug, a lost database): tried again later."""
        log.warning("notice delivery %s: %s", item.id, type(error).__name__)
        try:
            self._retry_or_fail(item, "the notice could not be sent")
        except Exception:  # noqa: BLE001 - the lease runs out, another run takes it
            pass

    def handle(self, item: NoticeDelivery) -> None:
        assert item.id is not None
        keys, due = None, None
        with Session(self.engine) as session:
            target = session.get(NoticeTarget, item.target_id)
            outbox = session.get(Outbox, item.outbox_id) if item.outbox_id is not None else None
            if target is not None and push.is_push(target):  # (issue 49)
                keys = push.keys_of(session, int(target.id or 0))
                if item.kind in push.DECIDING:
                    due = push.deadline_of(session, item.game_id, item.seat)
        if target is None:
            self._end(item, status=SUPERSEDED, last_error="the target was removed")
            return
        if target.paused_at is not None and item.kind != deliveries.TEST:
            self._end(item, status=SUPERSEDED, last_error="the target is paused")
            self._stand_in(item)
            return
        stop = self.stops.get(item.outbox_id) if item.outbox_id is not None else None
        if stop is not None:  # (issue 45 item 2) what the person stopped stays stopped
            self._end(item, status=SUPERSEDED, last_error=stop[:500])
            return
        if outbox is not None and outbox.announces and self.still_holds is not None \
                and not self.still_holds(outbox):
            self._end(item, status=SUPERSEDED,
                      last_error="superseded: what it announced no longer held at send time")
            return
        if push.is_push(target):
            error = self._pushed(item, target, keys, due)
            if error == push.GONE or error == EXPIRED:
                return
        else:
            error = self._sent_by_apprise(item, target)
        if error is None:
            with Session(self.engine) as session:
                session.execute(*DELIVERIES.ended(item.id, self.owner, status=SENT,
                                                 attempts=item.attempts + 1,
                                                 sent_at=self.now, last_error=None))
                stored = session.get(NoticeTarget, item.target_id)
                if stored is not None:
                    stored.failures = 0
                    stored.last_ok_at = self.now
                    if stored.paused_at is None:
                        stored.last_error = None
                session.commit()
            self.report.sent += 1
            return
        self._retry_or_fail(item, error)

    def _sent_by_apprise(self, item: NoticeDelivery, target: NoticeTarget) -> str | None:
        try:
            targets.check_host(targets.parse(target.url))
        except ValueError as exc:
            return str(exc)
        try:
            return self.send(target.url, item.title, item.body)
        except Exception as exc:  # noqa: BLE001 - a plugin's bug is one failed try
            return f"the notice could not be sent ({type(exc).__name__})"

    def _pushed(self, item: NoticeDelivery, target: NoticeTarget,
                keys: PushSubscription | None, due: datetime | None) -> str | None:
        """A push target's delivery (issue 49): expired when its decision's deadline
        passed (nothing is sent: ``EXPIRED``, ended here); the subscription forgotten
        when the push service says it is gone (``push.GONE``, ended here; mail stands
        in); else None (sent) or what went wrong, as for any target."""
        assert item.id is not None
        ttl = push.ttl_of(due, self.now)
        if due is not None and ttl <= 0:
            self._end(item, status=EXPIRED, last_error="its deadline passed before it left")
            self._stand_in(item)
            return EXPIRED
        try:
            endpoint = push.check_endpoint(target.url)
        except ValueError as exc:
            return str(exc)
        try:
            error = push.GONE if keys is None else push.send(
                endpoint, keys, push.push_of(item.title, item.body, item.kind, item.game_id,
                                             ttl))
        except Exception as exc:  # noqa: BLE001 - a library's bug is one failed try
            return f"the push could not be sent ({type(exc).__name__})"
        if error == push.GONE:
            with Session(self.engine) as session:
                push.forget(session, int(target.id or 0))
                session.commit()
            self._end(item, status=EXPIRED, last_error="the browser's subscription is gone "
                                                      "(the push service answered 404/410)")
            self.report.expired += 1
            self._stand_in(item)
        return error

    def _end(self, item: NoticeDelivery, **values: Any) -> None:
        assert item.id is not None
        DELIVERIES.end(self.engine, item.id, self.owner, **values)
        if values.get("status") == SUPERSEDED:
            self.report.superseded += 1

    def _retry_or_fail(self, item: NoticeDelivery, error: str) -> None:
        """A failed try: again after the backoff, or ``failed`` after the last attempt,
        counted against the target (a test notice is tried once and counts nothing)."""
        assert item.id is not None
        attempts = item.attempts + 1
        test = item.kind == deliveries.TEST
        if not test and attempts < deliveries.max_attempts():
            DELIVERIES.end(self.engine, item.id, self.owner, attempts=attempts,
                           next_attempt_at=self.now + deliveries.backoff(attempts),
                           last_error=error[:500])
            self.report.retried += 1
            return
        with Session(self.engine) as session:
            session.execute(*DELIVERIES.ended(item.id, self.owner, status=FAILED,
                                             attempts=attempts, last_error=error[:500]))
            target = session.get(NoticeTarget, item.target_id)
            if target is not None:
                target.last_error = error[:300]
                if not test:
                    target.failures += 1
                    if target.paused_at is None and \
                            target.failures >= deliveries.failures_to_pause():
                        targets.pause(target, self.now,
                                      f"{target.failures} notices in a row did not arrive: "
                                      f"{error}")
                        self.report.paused += 1
                        log.warning("notice target %s paused after %s failed notices",
                                    target.id, target.failures)
            session.commit()
        self.report.failed += 1
        self._stand_in(item)

    def _stand_in(self, item: NoticeDelivery) -> None:
        """Mail stands in for a notice that reached no target: its outbox row, which went
        to targets only, goes back to the mail queue (the sender asks again whether it
        still holds before it leaves)."""
        if item.outbox_id is None:
            return
        with Session(self.engine) as session:
            if deliveries.was_sent(session, item.outbox_id) or \
                    deliveries.still_waiting(session, item.outbox_id):
                return
            row = session.get(Outbox, item.outbox_id)
            if row is None or row.status != deliveries.OUTBOX_NOTIFIED:
                return
            row.status = MAIL_PENDING
            row.next_attempt_at = self.now
            row.sent_at = None
            row.headers = {**(row.headers or {}), STAND_IN: "failed"}
            session.commit()


def send_due(engine: Engine, now: datetime, *, send: Send | None = None,
             still_holds: Callable[[Outbox], bool] | None = None,
             owner: str | None = None) -> NoticeReport:
    """Send every due notice (batch after batch), each at most once; ``still_holds``:
    the sender's check of what a mail announces (``app.runners.sender.still_holds``)."""
    run = Notices(engine, as_utc(now), owner or f"notices-{uuid.uuid4().hex[:16]}",
                  send=send or apprise_send, still_holds=still_holds)
    run.run()
    return run.report


# -- the sender's question ------------------------------------------------------------

def targeted(session: Session, rows: list[Outbox]) -> tuple[set[tuple[str, int]], set[str]]:
    """The seats (game, seat) and the addresses (lower case) among ``rows`` that have a
    notice target, paused or not (``targets.of_seat``'s two scopes): a row of neither
    has none, so ``leave_by_targets`` would write nothing and mail it; the sender does
    not ask it (one query a batch, not a transaction a mail)."""
    games = {row.game_id for row in rows if row.game_id is not None}
    addresses = {row.to.strip().lower() for row in rows}
    found = session.exec(select(NoticeTarget.game_id, NoticeTarget.seat,
                                func.lower(col(NoticeTarget.address))).where(or_(
        col(NoticeTarget.game_id).in_(sorted(games)),
        func.lower(col(NoticeTarget.address)).in_(sorted(addresses))))).all()
    return ({(game, int(seat)) for game, seat, _ in found if game is not None and seat is not None},
            {address for _, _, address in found if address})


def leave_by_targets(engine: Engine, row: Outbox, now: datetime) -> bool:
    """For the sender, as outbox ``row`` leaves: write its notices to the seat's active
    targets (``deliveries.fan_out``), and say whether the mail itself stays home (True:
    the seat takes its notices on targets instead of mail, and has an active one).

    A row mail stands in for (``STAND_IN``), or one asked for by reply (conversation:
    the person waits in the inbox), is mailed and not fanned out again. Any failure
    here is logged and the mail goes as before: targets never cost a mail."""
    if row.conversation or (row.headers or {}).get(STAND_IN) or row.game_id is None \
            or row.seat is None or row.kind not in deliveries.NOTICE_KINDS:
        return False
    try:
        with Session(engine) as session:
            active = deliveries.fan_out(session, row, as_utc(now))
            mail_too = (notice_targets.takes_mail(session, row.game_id, int(row.seat),
                                                   row.to.strip().lower(), row.kind)
                        if active else True)
            session.commit()
    except Exception as exc:  # noqa: BLE001 - the mail goes as before
        log.warning("notices of outbox %s not written: %s", row.id, type(exc).__name__)
        return False
    return bool(active) and not mail_too
