"""Issue 34 item 1: the caps hold with any number of senders.

Measured before: with ``MAIL_PER_ADDRESS_PER_HOUR=60`` a victim received 89 mails in
61 s, because the clock's tick and the sender thread each counted the address's sent
mail once for its batch and each allowed the whole hour. Here two senders claim their
batches for one address at the same moment and only then start sending (neither
sends before both hold their rows, so neither has a sent mail to count): what the
victim's inbox gets is counted, on SQLite and on PostgreSQL.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.clock.time import as_utc
from app.db import get_engine, write_session
from app.mail import compose, holds, outbox
from app.mail.models import PENDING, SENT, Outbox
from app.runners import sending
from app.mail.wire import WireMessage

NOW = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)
VICTIM = "victim@example.com"


def queue(count: int, *, to: str = VICTIM) -> None:
    """``count`` mails to ``to``, all due now (what 40 games' mail looks like to a sender)."""
    with write_session() as session:
        for n in range(count):
            outbox.enqueue(session, game_id=None, seat=None, kind="test", to=to, to_name="V",
                           mail=compose.Mail(subject=f"mail {n}", text="t", html="<p>t</p>"),
                           idempotency=f"flood:{to}:{n}", domain="silver-eye.test", now=NOW)


class Inbox:
    """The victim's mail server: what it received. Its first delivery waits until two
    senders hold claims (both batches counted their caps before any mail left)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.received: list[str] = []
        self.lock = threading.Lock()
        self.both_claimed = threading.Event()

    def __enter__(self) -> "Inbox":
        return self

    def __exit__(self, *_: Any) -> None:
        return None

    def send(self, message: WireMessage, key: str = "", envelope_from: str | None = None,
             before_delivery: Callable[[], object] = lambda: None) -> None:
        before_delivery()
        if not self.both_claimed.is_set():
            for _ in range(500):  # (a gate, not a measurement: at most 10 s, then go on)
                with Session(self.engine) as session:
                    owners = session.exec(select(func.count(func.distinct(
                        col(Outbox.lease_owner))))).one()
                if owners >= 2:
                    break
                time.sleep(0.02)
            self.both_claimed.set()
        with self.lock:
            self.received.append(message.to)


def two_senders_at_once(app: Any, *, hour: int | None, stranger: int | None,
                        batch: int = 100) -> Inbox:
    engine = get_engine(app)
    inbox = Inbox(engine)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def sender(name: str) -> None:
        try:
            start.wait()
            with app.app_context():
                    sending.send_due(engine, inbox, NOW, sender="post@silver-eye.test",
                                 owner=name, limit=batch, drain=True, per_address_hour=hour,
                                 stranger_day=stranger)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=sender, args=(name,)) for name in ("tick", "thread")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return inbox


def statuses() -> dict[str, int]:
    with Session(get_engine()) as session:
        return dict(session.exec(select(Outbox.status, func.count())
                                 .group_by(col(Outbox.status))).all())


def test_two_senders_at_once_send_one_address_at_most_its_hourly_cap(app):
    queue(150)  # the victim played before: only the hourly cap applies

    with app.app_context():
        inbox = two_senders_at_once(app, hour=60, stranger=None)

        assert inbox.received.count(VICTIM) == 60, "the cap is 60 an hour, whoever sends"
        assert statuses() == {SENT: 60, PENDING: 90}
        with Session(get_engine()) as session:
            held = session.exec(select(Outbox).where(col(Outbox.status) == PENDING)).all()
        # the rest waits, held, until the hour of the first of the 60 is over, and the
        # victim's next mail will say why (nothing is lost, nothing fails silently)
        assert {row.held_why for row in held} == {holds.HELD_HOUR}
        assert {as_utc(row.held_until) for row in held if row.held_until} == {NOW + holds.HOUR}
        assert all(row.lease_owner is None for row in held)


def test_two_senders_at_once_send_a_stranger_at_most_a_day_of_mail(app):
    queue(60)  # an address nobody ever played from

    with app.app_context():
        inbox = two_senders_at_once(app, hour=60, stranger=20, batch=30)  # 30 each

        assert inbox.received.count(VICTIM) == 20
        assert statuses() == {SENT: 20, PENDING: 40}


def test_a_claim_that_ended_unsent_no_longer_counts(app):
    """A row a sender let go but could not send (the server was down) is counted only
    while that sender holds it: once its claim ends, the next sender may send it."""
    queue(3)
    engine = get_engine(app)

    class Down:
        def __enter__(self) -> "Down":
            return self

        def __exit__(self, *_: Any) -> None:
            return None

        def send(self, *_: Any, **__: Any) -> None:
            raise OSError("connection refused")

    with app.app_context():
        first = sending.send_due(engine, Down(), NOW, sender="p@silver-eye.test",
                                 per_address_hour=3, stranger_day=None)
        assert first.retried == 3
        inbox = Inbox(engine)
        inbox.both_claimed.set()
        later = NOW + sending.backoff(1)
        second = sending.send_due(engine, inbox, later, sender="p@silver-eye.test",
                                  per_address_hour=3, stranger_day=None)
        assert (second.sent, second.held) == (3, 0)
        assert inbox.received == [VICTIM] * 3
