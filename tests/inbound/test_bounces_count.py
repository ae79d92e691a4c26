"""Bounces that count (issue 19 item 3), over real SMTP both ways.

Every mail leaves with its own envelope sender, ``bounce+<signed row id>@MAIL_DOMAIN``;
a bounce an MTA sends back to it reaches our own receiver. Ann and Bob play a 2-seat
game; Bob's mailbox is gone. The bounce marks his address in every game, tells Ann (the
creator) on her page and Bob on his, stops every further mail to him, and a move he
makes by replying clears it.
"""
from __future__ import annotations

import html
import smtplib
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from app import services
from app.mail import bounces
from app.mail.backends import PermanentFailure
from app.runners import clock
from tests.inbound.conftest import DOMAIN, Player
from tests.mail.test_bounces import QMAIL, dsn

ANN, BOB = "ann@example.com", "bob@example.com"


def address_state(db, address: str) -> tuple | None:
    """(bouncing, reason, soft bounces) of the address, None if it has no row."""
    with db.engine.connect() as conn:
        found = conn.execute(sa.text(
            "SELECT CASE WHEN bouncing_since IS NULL THEN 0 ELSE 1 END, bounce_reason, soft_bounces FROM person "
            "WHERE lower(address) = :a"), {"a": address}).first()
    return None if found is None else (bool(found[0]), found[1], found[2])


def outbox_to(db, address: str) -> list[tuple]:
    with db.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            'SELECT kind, status, last_error FROM outbox WHERE "to" = :a ORDER BY id'),
            {"a": address})]


def bounce_back(inbound, mail, report: bytes) -> None:
    """What the receiving MTA does: a report from <> to the mail's envelope sender."""
    assert mail.mail_from.startswith("bounce+") and mail.mail_from.endswith(f"@{DOMAIN}")
    assert inbound.send(report, mail_from="", to=[mail.mail_from]) == {}


def page_of(app, mail) -> str:
    token = mail.seat_link().split("/play/", 1)[1]
    with app.test_client() as client:
        response = client.get(f"/play/{token}")
        assert response.status_code == 200
        return " ".join(html.unescape(response.get_data(as_text=True)).split())


def test_every_mail_leaves_with_its_own_signed_bounce_address(game, smtp, mail_app):
    senders = [mail.mail_from for mail in smtp.received]
    assert len(senders) >= 4 and len(set(senders)) == len(senders), "one per mail"
    with mail_app.app_context():
        assert all(bounces.outbox_id_of(sender) is not None for sender in senders)


def test_a_hard_bounce_stops_mail_to_the_address_tells_the_creator_and_a_reply_clears_it(
        game, ann, smtp, inbound, deliver, db, mail_app, new_game):
    bob = Player("Bob", BOB, smtp)
    turn = bob.waiting()
    assert turn is not None
    # Bob's MTA: "550 5.1.1 user unknown", as an RFC 3464 report to the VERP address
    bounce_back(inbound, turn, dsn("failed", "5.1.1", to=BOB))
    bouncing, reason, _ = address_state(db, BOB)
    assert bouncing and "5.1.1" in reason
    assert outbox_to(db, BOB)[-1][1] == "failed"
    # the creator's page says so, and so does Bob's own
    ann_page = page_of(mail_app, ann.mails()[0])
    assert "Bob's mail bounces: the receiving mail server sent it back (5.1.1" in ann_page
    assert f"Our mail to {BOB} bounces" in page_of(mail_app, turn)
    # no further mail is tried to Bob, in this game or another
    seen, rows = len(smtp.to(BOB)), len(outbox_to(db, BOB))
    new_game(seats=2, seed="7", people=[("Cid", "cid@example.com"), ("Bob", BOB)])
    deliver()
    assert len(smtp.to(BOB)) == seen
    untried = outbox_to(db, BOB)[rows:]
    assert "invitation" in [kind for kind, _, _ in untried]
    assert all(status == "failed" and error.startswith(bounces.NOT_TRIED)
               for _, status, error in untried)
    # the bounce itself was never answered (no mail to the MTA, nor anyone else)
    assert all(mail.to in (ANN, BOB, "cid@example.com") for mail in smtp.received)
    # Bob plays his seat by replying to the mail he did get: his address reads mail
    bob.answer(inbound, turn, "peek 3 4")
    deliver()
    assert address_state(db, BOB) == (False, None, 0)
    new_game(seats=2, seed="8", people=[("Dee", "dee@example.com"), ("Bob", BOB)])
    deliver()
    assert len(smtp.to(BOB)) > seen, "mail goes to Bob again"


def test_soft_bounces_are_counted_and_too_many_in_a_row_count_as_hard(
        game, smtp, inbound, db, mail_app):
    mail_app.config["BOUNCE_SOFT_LIMIT"] = 3
    mail = Player("Bob", BOB, smtp).waiting()
    for count in (1, 2):
        bounce_back(inbound, mail, dsn("delayed", "4.2.2", to=BOB).replace(
            b"Reporting-MTA", f"X-Try: {count}\r\nReporting-MTA".encode()))
        assert address_state(db, BOB) == (False, None, count)
        assert outbox_to(db, BOB)[-1][1] == "sent", "a soft bounce fails no mail"
    bounce_back(inbound, mail, dsn("delayed", "4.2.2", to=BOB).replace(
        b"Reporting-MTA", b"X-Try: 3\r\nReporting-MTA"))
    bouncing, reason, _ = address_state(db, BOB)
    assert bouncing and reason.startswith("the receiving mail server sent it back (3 mails")


def test_a_non_standard_bounce_is_read_too_and_a_forged_bounce_address_is_refused(
        game, smtp, inbound, db, mail_app):
    mail = Player("Bob", BOB, smtp).waiting()
    raw = QMAIL.replace(b"Subject: failure notice", b"Message-ID: <q1@mx.example.com>\r\n"
                                                    b"Subject: failure notice")
    bounce_back(inbound, mail, raw)
    assert address_state(db, BOB)[0] is True
    local, _, domain = mail.mail_from.partition("@")
    forged = local[:-2] + ("aa" if not local.endswith("aa") else "bb") + "@" + domain
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        inbound.send(dsn("failed", "5.1.1", to=ANN), mail_from="", to=[forged])
    assert address_state(db, ANN) is None, "a forged bounce marks nobody"


class Refusing:
    """A mail server that refuses one recipient at RCPT time, for good."""

    def __init__(self, refused: str) -> None:
        self.refused, self.sent = refused, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def send(self, message, key: str, envelope_from: str | None = None,  # noqa: ANN001
             before_delivery=lambda: None) -> None:  # noqa: ANN001
        if message.to == self.refused:
            raise PermanentFailure("recipient refused: 550 5.1.1 no such user", address=True)
        before_delivery()
        self.sent.append(message.parsed)


def test_a_refusal_at_send_time_marks_the_address_too(app, new_game, db):
    new_game(seats=2)
    now = datetime.now(timezone.utc) + timedelta(minutes=5)
    server = Refusing(BOB)
    clock.send_mail_due(app, now, backend=server)
    assert address_state(db, BOB)[0] is True
    tried = len(server.sent)
    new_game(seats=2, seed="9", people=[("Cid", "cid@example.com"), ("Bob", BOB)])
    clock.send_mail_due(app, now + timedelta(minutes=5), backend=server)
    assert [m for m in server.sent[tried:] if BOB in str(m["To"])] == []
    assert outbox_to(db, BOB)[-1][2].startswith(bounces.NOT_TRIED)


def test_the_operator_can_say_a_bouncing_address_reads_its_mail_again(
        game, smtp, inbound, db, mail_app):
    bounce_back(inbound, Player("Bob", BOB, smtp).waiting(), dsn("failed", "5.2.1", to=BOB))
    runner = mail_app.test_cli_runner()
    result = runner.invoke(args=["mail-works", "Bob@Example.com"])
    assert result.exit_code == 0, result.output
    assert "no longer counts as bouncing" in result.output
    assert address_state(db, BOB) == (False, None, 0)
    again = runner.invoke(args=["mail-works", BOB])
    assert again.exit_code == 1 and "is not marked as bouncing" in again.output
