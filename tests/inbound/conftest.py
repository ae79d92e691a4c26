"""Play by replying, end to end: real SMTP both ways.

``smtp`` (from tests/mail) is the outside world's mail server: our outbox
delivers turn mails to it. ``inbound`` is our receiver (aiosmtpd, the same
code as ``python -m app.processes inbound``) on a free port; players send replies to
it with smtplib. Nothing waits on timers: ``deliver()`` is one clock tick,
which applies the stored replies and sends the outbox.
"""
from __future__ import annotations

import email.policy
import random
import re
import smtplib
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any, Callable, Iterator

import pytest

from app.runners import clock
from app.inbound import receiver
from app.runners import inbound as runners_inbound
from tests.mail.conftest import Received, SmtpServer, free_port
from tests.mail.conftest import smtp  # noqa: F401  (the outside world's mail server)

DOMAIN = "silver-eye.test"
ANN = "ann@example.com"
MENU_LINE = re.compile(r"^  (\S.*?)\s{2,}(.*)$")


@pytest.fixture(autouse=True)
def _turn_mail_at_once(turn_mail_at_once):
    """No grace period, no hourly cap here (tests/conftest.py says why)."""


@pytest.fixture
def mail_app(app, smtp):
    app.config.update(MAIL_BACKEND="smtp", SMTP_URL=smtp.url,
                      MAIL_FROM=f"Silver Eye Post <post@{DOMAIN}>", MAIL_DOMAIN=DOMAIN)
    return app


class Inbound:
    """Our receiver on a free port, and a way to hand it a message."""

    def __init__(self, app: Any, apply: bool) -> None:
        self.port = free_port()
        self.controller = receiver.controller(
            app, "127.0.0.1", self.port, apply=runners_inbound.apply_one if apply else None)

    def send(self, message: EmailMessage | bytes, *, mail_from: str | None = None,
             to: list[str] | None = None) -> dict:
        """Send over SMTP; returns smtplib's refused-recipients dict (raises on refusal)."""
        if isinstance(message, EmailMessage):
            mail_from = mail_from if mail_from is not None else str(message["From"])
            to = to or [str(message["To"])]
            data: bytes = message.as_bytes(policy=email.policy.SMTP)  # CRLF line ends
        else:
            data = message
        with smtplib.SMTP("127.0.0.1", self.port, timeout=10) as client:
            return client.sendmail(mail_from or "", to or [], data)


@pytest.fixture
def inbound(mail_app) -> Iterator[Inbound]:
    """The receiver storing replies; the clock (``deliver``) applies them."""
    server = Inbound(mail_app, apply=False)
    server.controller.start()
    yield server
    server.controller.stop()
    server.controller.handler.close()


@pytest.fixture
def deliver(mail_app) -> Callable[[], clock.TickReport]:
    """The clock: a tick applies stored replies and sends due mail to ``smtp``; the
    mail written while applying is due a moment after that tick's "now", so a
    second tick sends it (as the next tick of a running clock would)."""
    def run() -> clock.TickReport:
        first = clock.tick(mail_app)
        clock.tick(mail_app)
        return first
    return run


def menu_of(mail: Received) -> list[tuple[str, str]]:
    """The (command, words) lines of a mail's "Play by replying" menu."""
    lines = mail.text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith("Play by replying"))
    except StopIteration:
        return []
    items = []
    for line in lines[start + 1:]:
        match = MENU_LINE.match(line)
        if not match:
            break
        items.append((match.group(1), match.group(2)))
    return items


def reply_to(mail: Received, command: str, *, sender: str | None = None,
             quote: str | None = None, html: bool = False) -> EmailMessage:
    """A reply as a mail client writes it: the command, then the quoted mail."""
    message = EmailMessage()
    message["From"] = sender or mail.to
    message["To"] = mail.header("Reply-To")
    message["Subject"] = f"Re: {mail.subject}"
    message["Message-ID"] = make_msgid(domain="player.example")
    message["In-Reply-To"] = mail.header("Message-ID")
    message["References"] = mail.header("Message-ID")
    quoted = quote if quote is not None else (
        f"On Tue, 1 Dec 2026 at 09:00, Silver Eye Post <post@{DOMAIN}> wrote:\n"
        + "\n".join(f"> {line}" for line in mail.text.splitlines()))
    if html:
        message.set_content(f"<div dir=\"ltr\">{command}</div><br><div class=\"gmail_quote\">"
                            f"<blockquote>{quoted}</blockquote></div>", subtype="html")
    else:
        message.set_content(f"{command}\n\n{quoted}\n")
    return message


def reply_with(mail: Received, plain: str | None, html: str | None = None) -> EmailMessage:
    """A reply to ``mail`` with this plain part, this HTML part, or both (multipart), as
    the client that wrote it (issue 45 item 5: what a reply reads is what it shows)."""
    message = EmailMessage()
    message["From"] = f"Ann <{mail.to}>"
    message["To"] = mail.header("Reply-To")
    message["Subject"] = f"Re: {mail.subject}"
    message["Message-ID"] = make_msgid(domain="player.example")
    message["In-Reply-To"] = mail.header("Message-ID")
    message["References"] = mail.header("Message-ID")
    if plain is not None:
        message.set_content(plain)
        if html is not None:
            message.add_alternative(html, subtype="html")
    else:
        message.set_content(html or "", subtype="html")
    return message


@dataclass
class Player:
    """Someone who plays only from their mail client."""

    name: str
    address: str
    smtp: SmtpServer
    answered: set[str] = field(default_factory=set)

    def mails(self) -> list[Received]:
        return self.smtp.to(self.address)

    def waiting(self) -> Received | None:
        """The newest mail with a menu, if not answered yet."""
        with_menu = [m for m in self.mails() if m.header("Reply-To")]
        if not with_menu or with_menu[-1].header("Message-ID") in self.answered:
            return None
        return with_menu[-1]

    def choose(self, mail: Received, rng: random.Random) -> str:
        commands = [command for command, _ in menu_of(mail) if command != "help"]
        assert commands, f"a mail with a Reply-To but no menu:\n{mail.text}"
        if "C" in commands and rng.random() < 0.5:
            return "C"  # call now and then, so rounds end
        return rng.choice(commands)

    def answer(self, inbound: Inbound, mail: Received, command: str) -> None:
        self.answered.add(str(mail.header("Message-ID")))
        inbound.send(reply_to(mail, command), mail_from=self.address)


@pytest.fixture
def game(mail_app, new_game, deliver):
    """Ann and Bob's 2-seat game, its first mails delivered to ``smtp``."""
    created = new_game(seats=2)
    deliver()
    return created


@pytest.fixture
def ann(smtp) -> Player:
    """Ann, seat 0, who plays from her mail client."""
    return Player("Ann", ANN, smtp)


def answers(smtp: SmtpServer, address: str) -> list[Received]:
    """The answers to replies (not turn mails) that reached ``address``."""
    return [m for m in smtp.to(address) if "about your reply" in m.lead.lower()]
