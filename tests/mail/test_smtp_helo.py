"""Issue 34 item 5: the EHLO name can be set (``SMTP_HELO``).

Measured before: Postfix logged every mail as ``from [127.0.0.1]`` under the host's own
name while docs/deliverability.md told operators to make HELO match the sending IP's
PTR name, which no setting allowed.
"""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from app.mail import backends
from app.runners import clock
from tests.mail.test_invitation_guard import create


def test_the_mail_server_hears_the_helo_name_the_operator_set(mail_app, smtp, client):
    mail_app.config.update(SMTP_HELO="mail.silver-eye.test")
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    assert smtp.received
    assert {mail.helo for mail in smtp.received} == {"mail.silver-eye.test"}


def test_without_it_the_host_names_itself(mail_app, smtp, client):
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    assert smtp.received and "mail.silver-eye.test" not in {m.helo for m in smtp.received}
    assert all(mail.helo for mail in smtp.received)


@pytest.mark.parametrize("name", ["mail.example.org\r\nMAIL FROM:<x@y>", "two words",
                                  "-leading.example.org"])
def test_a_helo_name_that_is_no_host_name_fails_at_start_with_words(name):
    with pytest.raises(ValueError, match="SMTP_HELO must be a host name"):
        backends.SmtpSettings.from_url("smtp://127.0.0.1:25", name)


def test_an_address_literal_is_a_helo_name():
    assert backends.SmtpSettings.from_url("smtp://127.0.0.1:25", "[192.0.2.7]").helo == \
        "[192.0.2.7]"
