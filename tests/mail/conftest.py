"""A real SMTP server for mail tests (aiosmtpd on 127.0.0.1, a free port).

``smtp`` collects every message it receives; ``smtp.stop()`` and
``smtp.start()`` simulate an outage on the same port. ``mail_app`` is the
test app sending through that server.
"""
from __future__ import annotations

import email
import re
import socket
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default as default_policy
from html.parser import HTMLParser
from typing import Any, Iterator

import pytest
from aiosmtpd.controller import Controller


@dataclass
class Received:
    """One message as the server got it."""

    rcpt: list[str]
    message: EmailMessage
    #: The envelope sender (MAIL FROM): where a bounce of this mail would go.
    mail_from: str = ""
    #: The name the sender gave in EHLO/HELO (``SMTP_HELO``, issue 34).
    helo: str = ""
    #: Headers already parsed (the message is never changed once received; parsing one,
    #: by ``email.policy.default``, was a third of a whole game played by replies, whose
    #: players look through every mail they got before each reply: issue 31).
    _parsed: dict[str, str | None] = field(default_factory=dict, repr=False, compare=False)

    @property
    def to(self) -> str:
        return self.rcpt[0]

    @property
    def subject(self) -> str:
        return str(self.header("Subject"))

    def header(self, name: str) -> str | None:
        key = name.lower()
        if key not in self._parsed:
            value = self.message[name]
            self._parsed[key] = None if value is None else str(value)
        return self._parsed[key]

    @property
    def text(self) -> str:
        return self.message.get_body(preferencelist=("plain",)).get_content()

    @property
    def lead(self) -> str:
        """What the mail asks or tells (its first line; the subject is the game's)."""
        return lead_of(self.message)

    @property
    def html(self) -> str:
        return self.message.get_body(preferencelist=("html",)).get_content()

    @property
    def html_words(self) -> str:
        """The HTML part as a reader sees it: tags gone, spaces collapsed."""
        return " ".join(_HtmlText.of(self.html).split())

    def links(self) -> list[str]:
        return re.findall(r"https?://\S+", self.text)

    def seat_link(self) -> str:
        return next(link for link in self.links() if "/play/" in link)


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    @classmethod
    def of(cls, html: str) -> str:
        parser = cls()
        parser.feed(html)
        return " ".join(parser.parts)


class _Collect:
    def __init__(self, box: list[Received]) -> None:
        self.box = box

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=default_policy)
        self.box.append(Received(list(envelope.rcpt_tos), message,  # type: ignore[arg-type]
                                 str(envelope.mail_from or ""), str(session.host_name or "")))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class SmtpServer:
    """An aiosmtpd server that can be stopped and started again on its port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[Received] = []
        self._controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?timeout=5"

    def start(self) -> None:
        self._controller = Controller(_Collect(self.received), hostname="127.0.0.1",
                                      port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def to(self, address: str) -> list[Received]:
        return [r for r in self.received if address in r.rcpt]


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def mail_app(app, smtp):
    """The test app, mailing through the local SMTP server."""
    app.config.update(MAIL_BACKEND="smtp", SMTP_URL=smtp.url,
                      MAIL_FROM="Silver Eye Post <post@silver-eye.test>")
    return app


@pytest.fixture(autouse=True)
def _turn_mail_at_once(turn_mail_at_once):
    """No grace period, no hourly cap here (tests/conftest.py says why)."""


TURN_LEAD = re.compile(r"^Your turn: ")


def lead_of(mail: Any) -> str:
    """The first line of a mail's text (an EmailMessage, a ``compose.Mail``, an outbox
    row): what it asks. Every mail of a game has the game's subject (issue 19 item 4),
    so this, not the subject, tells a turn mail from a round's end."""
    if isinstance(mail, EmailMessage):
        text = mail.get_body(preferencelist=("plain",)).get_content()
    else:
        text = mail.text
    lines = text.lstrip("\n").splitlines()
    return lines[0] if lines else ""


def is_turn(lead: str) -> bool:
    """A turn mail's first line: "Your turn: draw, or take the 7 Ghost from the discard (round 2)"
    (not a reminder or a digest)."""
    return TURN_LEAD.search(str(lead)) is not None
