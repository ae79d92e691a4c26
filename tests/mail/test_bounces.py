"""Bounces (issue 19 item 3), the part built so far: the VERP address names the outbox
row and only ours verify; a DSN and a non-standard bounce are read as hard or soft."""
from __future__ import annotations

from app.mail import bounces


def dsn(action: str, status: str, to: str = "ann@example.com") -> bytes:
    """A real RFC 3464 report as an MTA writes it."""
    return (
        "From: MAILER-DAEMON@mx.example.com\r\nTo: <whatever>\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nThe mail could not be delivered.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.com\r\n\r\n"
        f"Final-Recipient: rfc822; {to}\r\nAction: {action}\r\nStatus: {status}\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 user unknown\r\n\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\nSubject: Silver Eye\r\n"
        "--B--\r\n").encode()


QMAIL = (b"From: MAILER-DAEMON@mx.example.com\r\nTo: x@y\r\nSubject: failure notice\r\n\r\n"
         b"Hi. This is the qmail-send program at mx.example.com.\r\n"
         b"I'm afraid I wasn't able to deliver your message to the following addresses.\r\n"
         b"This is a permanent error; I've given up. Sorry it didn't work out.\r\n\r\n"
         b"<bob@example.com>:\r\nSorry, no mailbox here by that name. (#5.1.1)\r\n\r\n"
         b"--- Below this line is a copy of the message.\r\n\r\nSubject: hi\r\n")


def test_the_bounce_address_names_its_outbox_row_and_a_forged_one_names_none(app):
    with app.app_context():
        address = bounces.envelope_sender(42)
        assert address.startswith("bounce+") and address == address.lower()
        assert bounces.outbox_id_of(address) == 42
        assert bounces.outbox_id_of(f"<{address.upper()}>") == 42, "a relay folding case"
        forged = address.replace("bounce+42.", "bounce+43.")
        assert bounces.outbox_id_of(forged) is None
        assert bounces.outbox_id_of(address.split("@")[0] + "@elsewhere.test") is None


def test_a_failed_dsn_with_a_5xx_status_is_hard_and_4xx_or_delayed_is_soft():
    hard = bounces.classify(dsn("failed", "5.1.1"))
    assert hard is not None and hard.kind == bounces.HARD and "5.1.1" in hard.reason
    soft = [bounces.classify(dsn("delayed", "4.4.7")), bounces.classify(dsn("failed", "4.2.2"))]
    assert [b.kind if b else None for b in soft] == [bounces.SOFT, bounces.SOFT]
    assert bounces.classify(dsn("delivered", "2.0.0")) is None


def test_a_qmail_bounce_is_read_by_flufl_as_hard():
    found = bounces.classify(QMAIL)
    assert found is not None and found.kind == bounces.HARD


def test_an_ordinary_mail_to_the_bounce_address_is_no_bounce():
    assert bounces.classify(b"From: a@b.c\r\nSubject: hello\r\n\r\nAre you there?\r\n") is None
