"""Every kind of mail, as it goes out, keeps every body line to RFC 2045's 76 (§6.7 for
quoted-printable, §6.8 for base64; plain 7bit lines too, under RFC 5322's 78), and each
part decodes to exactly the text composed (issue 19 item 1: 35 of 58 lines of a
round-end mail ran to 998 characters; issue 34 item 4: 5,152 lines ran to 78)."""
from __future__ import annotations

from datetime import datetime, timezone
from email import message_from_bytes, policy

import pytest

from app.mail import compose
from app.mail.headers import build_message
from tests.summary.mail_kinds import NAMES, every_mail

MAILS = every_mail()
DATE = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
#: RFC 2045 §6.7 (quoted-printable) and §6.8 (base64): encoded lines of at most 76.
MIME_LINE = 76


def sent(mail: compose.Mail, to: str = "ann@example.org") -> bytes:
    message = build_message(
        to=to, to_name=NAMES[0], subject=mail.subject, text=mail.text, html=mail.html,
        headers={"Message-ID": "<x@silver-eye.test>",
                 "List-Unsubscribe": "<http://silver-eye.test/unsubscribe/" + "y" * 300 + ">"},
        sender="Silver Eye Post <post@silver-eye.test>", date=DATE)
    return message.raw


@pytest.mark.parametrize("kind", sorted(MAILS))
def test_every_body_line_keeps_to_the_mime_limits_and_decodes_to_what_was_written(kind):
    mail = MAILS[kind]
    raw = sent(mail)
    assert b"\n" not in raw.replace(b"\r\n", b""), "every line on the wire ends in CRLF"
    head, _, body = raw.partition(b"\r\n\r\n")
    assert mail.html, "every kind has an HTML part (else the check below is half a check)"
    too_long = [line for line in body.split(b"\r\n") if len(line) > MIME_LINE]
    assert too_long == [], f"{kind}: {len(too_long)} body lines over 76, e.g. {too_long[0][:90]!r}"
    parsed = message_from_bytes(raw.replace(b"\r\n", b"\n"), policy=policy.default)
    parts = {part.get_content_type(): part for part in parsed.walk()
             if part.get_content_maintype() == "text"}
    assert parts["text/plain"].get_content().rstrip("\n") == mail.text.rstrip("\n")
    assert parts["text/html"].get_content().rstrip("\n") == mail.html.rstrip("\n")
    # the one long header is not folded into something a client cannot click
    assert b"List-Unsubscribe: <http://silver-eye.test/unsubscribe/" + b"y" * 300 + b">" in head


def test_a_mail_to_a_utf8_mailbox_keeps_the_limits_too():
    raw = sent(MAILS["turn"], to="josé@example.org")
    _, _, body = raw.partition(b"\r\n\r\n")
    assert max(len(line) for line in body.split(b"\r\n")) <= MIME_LINE
