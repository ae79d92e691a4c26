"""A sending batch asks once what it used to ask for every mail (issue 30 item 5: the
outbox made 0.16-0.20x raw smtplib's mails/s to the same server).

Each mail of a game used to cost three transactions besides its send: the talk it
might carry (``table_talk.at_the_table``), the notice targets it might fan out to
(``notices.leave_by_targets``, a commit even when the seat has none), and its own end
in a session of its own; and each batch opened an SMTP connection, loading the
system's TLS certificates for a plain one. Now a batch learns which of its games have
talk and which of its seats and addresses have targets in two queries, ends each row
with one statement on a connection it keeps (autocommit: still one mail at most
doubled by a crash between its send and its end), and a run keeps one SMTP
connection, batch after batch.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, select

from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.mail.backends import SmtpBackend, SmtpSettings
from app.mail.models import SENT, Outbox
from app.runners import sending

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def queue(count: int, first: int = 0) -> None:
    """``count`` turn mails of games without talk or notice targets, each to its own
    address."""
    with write_session() as session:
        for n in range(first, first + count):
            mail = compose.Mail(subject=f"Mail {n}", text=f"Body {n}", html=f"<p>Body {n}</p>")
            outbox.enqueue(session, game_id=f"game{n % 7}", seat=n % 3, kind="turn",
                           to=f"player{n}@example.com", to_name=f"Player {n}", mail=mail,
                           idempotency=f"asks-once:{n}", domain="silver-eye.test", now=T0)


class Counted(SmtpBackend):
    """The SMTP backend, counting the connections it opens."""

    connections = 0

    def _connect(self) -> Any:
        Counted.connections += 1
        return super()._connect()


def statements_to_send(app: Any, backend: SmtpBackend) -> tuple[int, sending.SendReport]:
    """The statements one ``send_due`` run sends, and its report."""
    engine = get_engine(app)
    sent: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        sent.append(statement)

    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        with app.app_context():
            report = sending.send_due(engine, backend, T0, sender="post@silver-eye.test",
                                      drain=True, per_address_hour=60)
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)
    return len(sent), report


def test_a_mail_more_in_a_batch_costs_one_statement_more(mail_app, smtp):
    backend = SmtpBackend(SmtpSettings.from_url(smtp.url))
    queue(10)
    few, report = statements_to_send(mail_app, backend)
    assert report.sent == 10
    queue(40, first=10)
    many, report = statements_to_send(mail_app, backend)
    assert report.sent == 40
    # its end: one UPDATE (the claim, the caps, the talk and the targets are the batch's)
    assert many - few <= 30, (few, many)
    assert len(smtp.received) == 50


def test_a_run_of_many_batches_keeps_one_smtp_connection(mail_app, smtp):
    queue(250)
    Counted.connections = 0
    backend = Counted(SmtpSettings.from_url(smtp.url))
    _, report = statements_to_send(mail_app, backend)
    assert (report.claimed, report.sent) == (250, 250)
    assert Counted.connections == 1
    assert sorted(m.message["Subject"] for m in smtp.received) == sorted(
        f"Mail {n}" for n in range(250))
    with Session(get_engine(mail_app)) as session:
        rows = session.exec(select(Outbox)).all()
    assert {(row.status, row.lease_owner) for row in rows} == {(SENT, None)}
