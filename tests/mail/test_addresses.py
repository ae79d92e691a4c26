"""Addresses done properly (issue 7 item 4): one check for lobby, CLI and mailer.

Every odd address is either refused up front with a sentence (400 in the
lobby, an error from the CLI and the services) or delivered by a real SMTP
server (aiosmtpd); a mail that cannot be delivered is marked ``failed`` and
shown on the page of the game's creator. Never a 500, never a silent drop.
"""
from __future__ import annotations

import html
from datetime import datetime, timedelta, timezone

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import Session, select

from app import services
from app.runners import clock, sending
from app.db import get_engine
from app.mail import addresses
from app.mail.models import FAILED, SENT, Outbox

from tests.web.test_pages import lobby_form

from .conftest import _Collect, free_port

NOW = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)

REFUSED = [
    ("ann@example.org.", "cannot end with a period"),
    ("ann@example.com\r\nBcc: victim@example.com", "one line of text"),
    ("a" * 250 + "@example.com", "longer than 254"),
    ("Ann <ann@example.com>", "display name"),
    ('"Ann" <ann@example.com>', "display name"),
    ("ann@example.com, bob@example.com", "ann@example.com, bob@example.com"),
    ("ann@@example.com", "@"),
    ("ann@localhost", "should have a period"),
]


@pytest.mark.parametrize("address, words", REFUSED)
def test_an_address_that_cannot_be_mailed_is_refused_with_words_everywhere(
        client, runner, db, address, words):
    with pytest.raises(addresses.BadAddress):
        addresses.normalise(address)
    with pytest.raises(services.BadRequest) as refused:
        services.create_game([{"name": "Ann", "email": address}, {"name": "Bob"}])
    assert "does not look right" in refused.value.message
    answer = client.post("/", data=lobby_form([("Ann", address, "human"), ("Bob", "", "human")],
                                              client))
    assert answer.status_code == 400
    page = html.unescape(answer.get_data(as_text=True))
    assert "does not look right" in page
    cli = runner.invoke(args=["create-game", "-p", f"Ann:{address}", "-p", "Bob"])
    assert cli.exit_code != 0 and "does not look right" in cli.output
    assert db.count("game") == 0


def test_one_check_normalises_the_domain_and_keeps_the_mailbox():
    assert addresses.normalise(" Ann@Example.COM ") == "Ann@example.com"
    assert addresses.normalise("ann@bücher.de") == "ann@xn--bcher-kva.de"
    assert addresses.normalise("josé@example.fr") == "josé@example.fr"
    assert addresses.needs_smtputf8("josé@example.fr")
    assert not addresses.needs_smtputf8("ann@xn--bcher-kva.de")


class Server:
    """An aiosmtpd server with or without SMTPUTF8."""

    def __init__(self, smtputf8: bool) -> None:
        self.received: list = []
        self.port = free_port()
        self.controller = Controller(_Collect(self.received), hostname="127.0.0.1",
                                     port=self.port, enable_SMTPUTF8=smtputf8)

    def __enter__(self) -> "Server":
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}?timeout=5"


def rows(app) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


def test_an_internationalised_domain_and_mailbox_are_delivered_where_the_server_offers_smtputf8(
        app, new_game):
    created = services.create_game([{"name": "Ann", "email": "ann@bücher.de"},
                                    {"name": "José", "email": "josé@example.fr"}])
    with Server(smtputf8=True) as server:
        app.config.update(MAIL_BACKEND="smtp", SMTP_URL=server.url)
        clock.send_mail_due(app, datetime.now(timezone.utc))
    rcpts = sorted({r.rcpt[0] for r in server.received})
    assert rcpts == ["ann@xn--bcher-kva.de", "josé@example.fr"]
    assert {row.status for row in rows(app)} == {SENT}
    assert created.game_id


def test_a_mailbox_the_server_cannot_take_fails_and_the_creator_is_told(app, client, new_game):
    created = services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                    {"name": "José", "email": "josé@example.fr"}])
    with Server(smtputf8=False) as server:
        app.config.update(MAIL_BACKEND="smtp", SMTP_URL=server.url)
        report = clock.send_mail_due(app, datetime.now(timezone.utc))
    assert report.failed >= 1
    assert [r.rcpt[0] for r in server.received] and all(
        r.rcpt[0] == "ann@example.com" for r in server.received)
    failed = [row for row in rows(app) if row.status == FAILED]
    assert failed and all(row.to == "josé@example.fr" for row in failed)
    page = html.unescape(client.get(f"/play/{created.tokens[0]}").get_data(as_text=True))
    assert "José's mail bounces" in page and "SMTPUTF8" in page
    others = html.unescape(client.get(f"/play/{created.tokens[1]}").get_data(as_text=True))
    assert "mail bounces" not in others  # only the creator is told about every seat


def test_a_mail_that_keeps_failing_is_failed_after_its_retries_and_shown(app, client, smtp,
                                                                         new_game):
    app.config.update(MAIL_BACKEND="smtp", SMTP_URL=smtp.url)
    created = new_game(seats=2)
    smtp.stop()  # the server is gone for good
    now = NOW
    for _ in range(sending.MAX_ATTEMPTS):
        clock.send_mail_due(app, now)
        now += sending.BACKOFF_CAP + timedelta(seconds=1)
    assert {row.status for row in rows(app)} == {FAILED}
    page = html.unescape(client.get(f"/play/{created.tokens[0]}").get_data(as_text=True))
    assert "Bob's mail bounces" in page and "Your mail bounces" in page
    smtp.start()
    assert clock.send_mail_due(app, now + timedelta(days=1)).claimed == 0
