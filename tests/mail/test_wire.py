"""A mail as it goes on the wire, read back the way a mail program reads it.

The sender writes each message's bytes itself (``app.mail.wire``, issue 30: the
standard library's builder took more of a mail's time than the SMTP exchange). What
must hold is what a reader and a relay see: every name and subject reads back as it
was written, whatever a player typed; no name adds a header or a recipient; every
line ends in CRLF, a header line keeps to 78 where its words allow, a body line to 76;
each part decodes to exactly the text composed. And the SMTP backend holds the
DATA's final dot until ``before_delivery`` returns: a mail is delivered only after the
one before it is stored as sent, and not at all when that fails.
"""
from __future__ import annotations

import threading
from datetime import datetime, timezone
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from app.mail.backends import SmtpBackend, SmtpSettings
from app.mail.compose import clean_name
from app.mail.headers import build_message
from tests.mail.conftest import free_port

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)

NAMES = [
    "Ann", "Zoë", "Ann \"the Bold\" O'Brien, Jr.", "=?utf-8?q?Mallory?=", "李小龙",
    "🂡 Ace of spades", "Ann (away)", "back\\slash", "Eve\r\nBcc: victim@example.com",
    "a.b", "x" * 80, "Ünïcödé " * 12, "Ann  <ann@evil.example>", "",
]
SUBJECTS = [
    "Silver Eye · Friday game: round 3, your turn",
    "Silver Eye · " + "Ærø “quoted” — " * 8,
    "plain ascii " + "y" * 120,
    "Looks encoded =?utf-8?q?=41?= but is not",
    "Silver Eye · 李小龙 and 🂡 at the table",
]


def wire(to: str = "ann@example.org", to_name: str = "Ann", subject: str = "s",
         text: str = "t", html: str | None = "<p>t</p>", **headers: str) -> Any:
    return build_message(to=to, to_name=to_name, subject=subject, text=text, html=html,
                         headers=headers, sender="Silver Eye Post <post@silver-eye.test>",
                         date=T0)


def lines_of(raw: bytes) -> list[bytes]:
    assert raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b""), \
        "every line on the wire ends in CRLF"
    return raw.split(b"\r\n")[:-1]


@pytest.mark.parametrize("name", NAMES)
def test_a_players_name_reads_back_as_written_and_adds_nothing(name):
    message = wire(to_name=name, subject=f"Silver Eye · {name}: your turn")
    parsed = message.parsed
    (address,) = parsed["To"].addresses
    assert (address.display_name, address.addr_spec) == (clean_name(name), "ann@example.org")
    assert str(parsed["Subject"]) == clean_name(f"Silver Eye · {name}: your turn", limit=200)
    head = message.raw.split(b"\r\n\r\n", 1)[0]
    names = [line.split(b":", 1)[0] for line in lines_of(head + b"\r\n")
             if line[:1] not in (b" ", b"\t")]
    assert names.count(b"To") == names.count(b"Subject") == 1 and b"Bcc" not in names
    assert head.isascii(), "an ASCII mailbox's headers are ASCII: names go as encoded words"


@pytest.mark.parametrize("subject", SUBJECTS)
def test_a_subject_reads_back_as_written_and_folds_at_78(subject):
    message = wire(subject=subject)
    assert str(message.parsed["Subject"]) == clean_name(subject, limit=200)
    assert str(message.parsed["Thread-Topic"]) == clean_name(subject, limit=200)
    head = message.raw.split(b"\r\n\r\n", 1)[0] + b"\r\n"
    for line in lines_of(head):
        words = line.split(b" ")
        # a line runs past 78 only when one word alone does (a word is never cut)
        assert len(line) <= 78 or max(len(word) for word in words) > 78 - 2 - 9, line


TEXTS = [
    "Your turn.\n\nDraw from the deck.\n",
    ".a line that starts with a dot\n.\n..\nFrom the deck\n",
    "trailing spaces   \n\ttab first\nequals = sign and =41 not an escape\n",
    "Zoë drew 🂡 — the Ace\n" * 5,
    "long " * 60 + "\n",
    "no newline at the end",
    "windows\r\nline\rends\r\n",
    "a control \x0c character\n",
    # every line length around the limit, ending in a space (encoded at the line's end)
    # or in a character of several bytes
    "".join("x" * n + " \n" for n in range(68, 82)) + "".join("é" * n + "\n" for n in range(20, 30)),
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("with_html", [True, False])
def test_a_body_decodes_to_exactly_the_text_composed(text, with_html):
    html = f"<p>{text}</p>" if with_html else None
    message = wire(text=text, html=html)
    body = message.raw.split(b"\r\n\r\n", 1)[1]
    assert max(len(line) for line in lines_of(body)) <= 76
    expected = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n") + "\n"
    parsed = message.parsed
    assert parsed.get_body(("plain",)).get_content() == expected
    if with_html:
        assert parsed.get_content_type() == "multipart/alternative"
        assert parsed.get_body(("html",)).get_content() == \
            html.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n") + "\n"
    else:
        assert parsed.get_content_type() == "text/plain"


def test_a_utf8_mailbox_is_written_in_utf8_and_asks_for_smtputf8():
    message = wire(to="josé@example.org", to_name="José")
    assert message.utf8 and message.to == "josé@example.org"
    assert "josé@example.org".encode() in message.raw
    (address,) = message.parsed["To"].addresses
    assert (address.display_name, address.addr_spec) == ("José", "josé@example.org")
    assert not wire().utf8


@pytest.mark.parametrize("sender", ["post@silver-eye.test", "Silver Eye <post@[192.0.2.1]>",
                                    "post@[IPv6:2001:db8::1]", "Zoë's table <zoe+post@example.org>"])
def test_a_mail_from_setting_of_any_usual_shape_is_written_and_reads_back(sender):
    message = build_message(to="ann@example.org", to_name="Ann", subject="s", text="t",
                            html=None, headers={}, sender=sender, date=T0)
    (address,) = message.parsed["From"].addresses
    assert address.addr_spec == sender.rpartition("<")[2].rstrip(">") == message.mail_from


@pytest.mark.parametrize("to", ["ann b@example.org", "ann@example.org\r\nBcc: x@y.z",
                                "<ann@example.org>", "ann@example.org, bob@example.org",
                                "ann", "ann@@example.org"])
def test_an_address_that_is_not_one_mailbox_is_refused(to):
    with pytest.raises(ValueError):
        wire(to=to)


@pytest.mark.parametrize("header", ["Message-ID", "References", "List-Unsubscribe", "Reply-To"])
def test_a_header_of_ours_with_a_line_break_or_not_ascii_is_refused(header):
    with pytest.raises(ValueError):
        wire(**{header: "<a@b>\r\nBcc: x@y.z"})
    with pytest.raises(ValueError):
        wire(**{header: "<é@b>"})


# -- the DATA's dot, held -----------------------------------------------------------


class Arrivals:
    """An aiosmtpd handler that keeps what it delivers."""

    def __init__(self) -> None:
        self.delivered: list[str] = []
        self.arrived = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.delivered.append(envelope.rcpt_tos[0])
        self.arrived.set()
        return "250 OK"


@pytest.fixture
def arrivals():
    handler = Arrivals()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    handler.url = f"smtp://127.0.0.1:{port}?timeout=5"
    yield handler
    controller.stop()


def test_the_server_delivers_a_mail_only_after_before_delivery_returns(arrivals):
    seen_then: list[list[str]] = []
    backend = SmtpBackend(SmtpSettings.from_url(arrivals.url))
    with backend:
        backend.send(wire(to="ann@example.org"), "1-turn",
                     before_delivery=lambda: seen_then.append(list(arrivals.delivered)))
        backend.send(wire(to="bob@example.org"), "2-turn",
                     before_delivery=lambda: seen_then.append(list(arrivals.delivered)))
    assert seen_then == [[], ["ann@example.org"]], \
        "at before_delivery the server has the message but has not delivered it"
    assert arrivals.delivered == ["ann@example.org", "bob@example.org"]


def test_when_before_delivery_fails_nothing_is_delivered_and_the_next_mail_goes(arrivals):
    backend = SmtpBackend(SmtpSettings.from_url(arrivals.url))

    def stored_end_failed() -> None:
        raise RuntimeError("the database went away")

    with backend:
        with pytest.raises(RuntimeError):
            backend.send(wire(to="ann@example.org"), "1-turn", before_delivery=stored_end_failed)
        backend.send(wire(to="bob@example.org"), "2-turn")  # (a new connection)
    assert arrivals.arrived.wait(5)
    assert arrivals.delivered == ["bob@example.org"], "Ann's mail, its DATA never ended, " \
        "was not delivered: the sender that takes it over sends it once"
