"""POST /inbound/mail: the form an inbound-mail relay forwards, into the same inbox."""
from __future__ import annotations

import email.policy

import pytest

from tests.inbound.conftest import Player, reply_to

SECRET = "relay-shared-secret"
ANN = "ann@example.com"


@pytest.fixture
def relay_app(mail_app):
    mail_app.config["INBOUND_SECRET"] = SECRET
    return mail_app


def raw(message) -> bytes:
    return message.as_bytes(policy=email.policy.SMTP)


def test_a_relayed_reply_is_stored_and_applied_once(relay_app, client, new_game, deliver,
                                                    smtp, db):
    created = new_game(seats=2)
    deliver()
    message = reply_to(Player("Ann", ANN, smtp).waiting(), "peek 1 2")
    headers = {"X-Inbound-Secret": SECRET, "Content-Type": "message/rfc822",
               "X-Envelope-From": ANN, "X-Envelope-To": str(message["To"])}
    first = client.post("/inbound/mail", data=raw(message), headers=headers)
    again = client.post("/inbound/mail", data=raw(message), headers=headers)
    assert first.status_code == 202 and first.get_json()["duplicate"] is False
    assert again.status_code == 202 and again.get_json()["duplicate"] is True
    assert db.actions(created.game_id) == [(1, 0, "mail")]
    assert db.count("inbox", status="applied") == 1


def test_without_the_secret_nothing_is_stored(relay_app, client, new_game, deliver, smtp, db):
    new_game(seats=2)
    deliver()
    message = raw(reply_to(Player("Ann", ANN, smtp).waiting(), "peek 1 2"))
    for headers in ({}, {"X-Inbound-Secret": "guess"}):
        answer = client.post("/inbound/mail", data=message, headers=headers)
        assert answer.status_code == 403 and "X-Inbound-Secret" in answer.get_json()["error"]
    assert db.count("inbox") == 0


def test_the_route_is_off_without_a_configured_secret(mail_app, client, db):
    answer = client.post("/inbound/mail", data=b"From: a@b.c\r\n\r\nD\r\n",
                         headers={"X-Inbound-Secret": ""})
    assert answer.status_code == 404 and "INBOUND_SECRET" in answer.get_json()["error"]
    assert db.count("inbox") == 0


def test_a_two_megabyte_relayed_message_is_refused(relay_app, client, db):
    body = b"From: ann@example.com\r\nSubject: big\r\n\r\n" + b"x" * (2 * 1024 * 1024)
    answer = client.post("/inbound/mail", data=body, headers={"X-Inbound-Secret": SECRET})
    assert answer.status_code == 413 and "larger than" in answer.get_json()["error"]
    assert db.count("inbox") == 0


def test_a_relayed_message_for_another_domain_is_refused(relay_app, client, db):
    answer = client.post("/inbound/mail", data=b"From: a@b.c\r\n\r\nD\r\n",
                         headers={"X-Inbound-Secret": SECRET,
                                  "X-Envelope-To": "someone@else.example"})
    assert answer.status_code == 422 and db.count("inbox") == 0


def test_the_help_page_lists_the_commands(client):
    page = client.get("/help/mail")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for words in ("Playing by replying", "X &lt;your card numbers&gt;", "exchange 2 5 into 2 right",
                  "draw the top card of the deck", "<code>help</code>"):
        assert words in text
