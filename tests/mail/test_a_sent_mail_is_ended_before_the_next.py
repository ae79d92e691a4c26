"""A mail's row says "sent" before the next mail leaves (issue 30 item 5).

On PostgreSQL a batch writes each row's end in a thread of its own while the next row
is checked and composed (``app.db.in_flight.InFlight``): the commit's wait for the disk
was a fifth of a mail's time. What must not change with it: a sender killed between handing a mail
over and writing its end doubles at most that one mail, so at the moment any mail
leaves, every mail handed over before it is already stored as sent, as another
connection (the sender that would take over after a crash) sees it.
"""
from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Callable

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.mail.models import SENT, Outbox
from app.runners import sending
from app.mail.wire import WireMessage

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


class Watching:
    """A mail server double that, as each mail arrives, reads the outbox the way a
    second sender would: through a connection of its own."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.handed: list[str] = []
        self.unended_at_send: list[tuple[str, list[str]]] = []

    def __enter__(self) -> "Watching":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def send(self, message: WireMessage, key: str, envelope_from: str | None = None,
             before_delivery: Callable[[], object] = lambda: None) -> None:
        before_delivery()
        subject = str(message.parsed["Subject"])
        with Session(self.engine) as session:
            stored = {row.subject: row.status for row in session.exec(select(Outbox))}
        unended = [earlier for earlier in self.handed if stored[earlier] != SENT]
        if unended:
            self.unended_at_send.append((subject, unended))
        self.handed.append(subject)


def queue_forty() -> None:
    """Forty mails, "Mail 0" to "Mail 39", each to its own address, due now."""
    with write_session() as session:
        for n in range(40):
            outbox.enqueue(session, game_id=None, seat=None, kind="test",
                           to=f"player{n}@example.com", to_name=f"Player {n}",
                           mail=compose.Mail(subject=f"Mail {n}", text=f"Body {n}", html=None),
                           idempotency=f"ends:{n}", domain="silver-eye.test", now=T0)


@pytest.fixture
def slow_ends(app):
    """Each row's end takes 20 ms more to store: a sender that let a mail leave
    without waiting for the end before it would be seen doing so, not only when the
    machine happens to be slow."""
    engine = get_engine(app)

    def slow(conn, cursor, statement: str, *args) -> None:  # noqa: ANN001
        if statement.lstrip().upper().startswith("UPDATE OUTBOX") and "ended_row" in statement:
            time.sleep(0.02)

    sa.event.listen(engine, "before_cursor_execute", slow)
    yield
    sa.event.remove(engine, "before_cursor_execute", slow)


def test_when_a_mail_leaves_every_mail_before_it_already_reads_as_sent(app, slow_ends):
    queue_forty()
    engine = get_engine(app)
    server = Watching(engine)

    with app.app_context():
        report = sending.send_due(engine, server, T0, sender="post@silver-eye.test",
                                  limit=15, drain=True)

    assert report.sent == 40 and len(server.handed) == 40
    assert server.unended_at_send == [], "a mail left while one before it was not stored as sent"
    with Session(engine) as session:
        assert {row.status for row in session.exec(select(Outbox))} == {SENT}


class Reading:
    """An aiosmtpd handler that, as it takes each mail (after the DATA's final dot, the
    moment the mail is delivered), reads the outbox through a connection of its own."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.watching = Watching(engine)

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: ANN001
        message = WireMessage(raw=envelope.content, mail_from=envelope.mail_from,
                              to=envelope.rcpt_tos[0], utf8=False)
        self.watching.send(message, key="")
        return "250 OK"


def test_through_a_mail_server_each_mail_is_delivered_only_after_the_one_before_is_stored(
        app, slow_ends):
    """The SMTP backend sends a mail's envelope and text while the mail before it is
    still being stored, and holds the DATA's final dot until it is (``_DotHeld``): the
    server delivers nothing before that, so a crash still doubles at most one mail."""
    from aiosmtpd.controller import Controller

    from app.mail.backends import SmtpBackend, SmtpSettings
    from tests.mail.conftest import free_port

    queue_forty()
    engine = get_engine(app)
    handler = Reading(engine)
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        with app.app_context():
            report = sending.send_due(engine, SmtpBackend(SmtpSettings.from_url(
                f"smtp://127.0.0.1:{port}?timeout=5")), T0, sender="post@silver-eye.test",
                limit=15, drain=True)
    finally:
        controller.stop()

    assert report.sent == 40 and len(handler.watching.handed) == 40
    assert handler.watching.unended_at_send == [], \
        "the server took a mail while one before it was not stored as sent"
