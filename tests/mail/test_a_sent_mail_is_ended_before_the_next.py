"""A mail's row says "sent" before the next mail leaves (issue 30 item 5).

On PostgreSQL a batch writes each row's end in a thread of its own while the next row
is checked and composed (``app.db.in_flight.InFlight``): the commit's wait for the disk
was a fifth of a mail's time. What must not change with it: a sender killed between handing a mail
over and writing its end doubles at most that one mail, so at the moment any mail
leaves, every mail handed over before it is already stored as sent, as another
connection (the sender that would take over after a crash) sees it.
"""
from __future__ import annotations

from datetime import datetime, timezone
from email.message import EmailMessage

from sqlmodel import Session, select

from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.mail.models import SENT, Outbox
from app.runners import sending

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

    def send(self, message: EmailMessage, key: str, envelope_from: str | None = None) -> None:
        subject = str(message["Subject"])
        with Session(self.engine) as session:
            stored = {row.subject: row.status for row in session.exec(select(Outbox))}
        unended = [earlier for earlier in self.handed if stored[earlier] != SENT]
        if unended:
            self.unended_at_send.append((subject, unended))
        self.handed.append(subject)


def test_when_a_mail_leaves_every_mail_before_it_already_reads_as_sent(app):
    with write_session() as session:
        for n in range(40):
            outbox.enqueue(session, game_id=None, seat=None, kind="test",
                           to=f"player{n}@example.com", to_name=f"Player {n}",
                           mail=compose.Mail(subject=f"Mail {n}", text=f"Body {n}", html=None),
                           idempotency=f"ends:{n}", domain="silver-eye.test", now=T0)
    engine = get_engine(app)
    server = Watching(engine)

    with app.app_context():
        report = sending.send_due(engine, server, T0, sender="post@silver-eye.test",
                                  limit=15, drain=True)

    assert report.sent == 40 and len(server.handed) == 40
    assert server.unended_at_send == [], "a mail left while one before it was not stored as sent"
    with Session(engine) as session:
        assert {row.status for row in session.exec(select(Outbox))} == {SENT}
