"""The outbox: retried until delivered, never twice, nothing injected."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import Session, select

from app import services
from app.runners import clock, sending
from app.db import get_engine, write_session
from app.mail import addresses, compose, outbox
from app.mail.headers import build_message
from app.mail.backends import FileBackend, SmtpSettings
from app.mail.models import FAILED, PENDING, SENT, Outbox

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def queue(count: int, now: datetime = T0, to: str = "player{}@example.com") -> None:
    with write_session() as session:
        for n in range(count):
            mail = compose.Mail(subject=f"Mail {n}", text=f"Body {n}", html=f"<p>Body {n}</p>")
            outbox.enqueue(session, game_id="g1", seat=0, kind="test", to=to.format(n),
                           to_name=f"Player {n}", mail=mail, idempotency=f"test:{n}",
                           domain="silver-eye.test", now=now)


def statuses(app) -> list[str]:
    with Session(get_engine(app)) as session:
        return [row.status for row in session.exec(select(Outbox).order_by(Outbox.id))]


def test_fifty_mails_queued_while_the_server_is_down_arrive_exactly_once(mail_app, smtp):
    smtp.stop()
    queue(50)
    down = clock.send_mail_due(mail_app, T0)
    assert (down.sent, down.retried) == (0, 50)
    assert statuses(mail_app) == [PENDING] * 50

    smtp.start()
    assert clock.send_mail_due(mail_app, T0).claimed == 0, "each waits for its backoff"
    back = clock.send_mail_due(mail_app, T0 + timedelta(hours=1))
    assert back.sent == 50
    assert sorted(m.subject for m in smtp.received) == sorted(f"Mail {n}" for n in range(50))
    assert len({m.header("Message-ID") for m in smtp.received}) == 50
    assert clock.send_mail_due(mail_app, T0 + timedelta(days=1)).claimed == 0
    assert len(smtp.received) == 50
    assert statuses(mail_app) == [SENT] * 50


def test_backoff_doubles_and_is_capped_at_an_hour():
    assert [sending.backoff(n).total_seconds() for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert sending.backoff(30) == timedelta(hours=1)


def test_a_sender_that_dies_after_claiming_leaves_rows_for_later_once(mail_app, smtp):
    queue(3)
    claimed = sending.claim_due(get_engine(mail_app), T0, owner="dead-sender")
    assert len(claimed) == 3
    # The dead sender's lease holds: nobody else takes its rows meanwhile.
    assert clock.send_mail_due(mail_app, T0 + timedelta(minutes=1)).claimed == 0
    after_lease = clock.send_mail_due(mail_app, T0 + sending.LEASE + timedelta(seconds=1))
    assert after_lease.sent == 3
    assert len(smtp.received) == 3


def test_enqueueing_the_same_mail_twice_adds_one_row(mail_app):
    queue(2)
    queue(2)
    assert len(statuses(mail_app)) == 2


def test_a_refused_recipient_is_marked_failed_not_retried_forever(mail_app, smtp):
    queue(1, to="bad\r\nBcc: victim@example.com")
    report = clock.send_mail_due(mail_app, T0)
    assert report.failed == 1 and smtp.received == []
    assert statuses(mail_app) == [FAILED]


@pytest.mark.parametrize("name", [
    "Eve\r\nBcc: victim@example.com",
    "Eve\nSubject: pwned",
    "Eve\u2028Bcc: victim@example.com",
    "Eve\u0085Bcc: victim@example.com",
    "\"Eve\" <evil@example.com>, other@example.com",
])
def test_player_names_cannot_add_headers_or_recipients(name):
    message = build_message(
        to="ann@example.com", to_name=name, subject=f"Silver Eye · {name}: your turn",
        text="hi", html=None, headers={"Message-ID": "<x@silver-eye.test>"},
        sender="Silver Eye Post <post@silver-eye.test>", date=T0)
    raw = message.raw
    parsed_headers = [line.split(b":", 1)[0] for line in raw.split(b"\n") if line[:1].isalpha()]
    assert b"Bcc" not in parsed_headers and parsed_headers.count(b"Subject") == 1
    assert [a.addr_spec for a in message.parsed["To"].addresses] == ["ann@example.com"]


@pytest.mark.parametrize("address", [
    "ann@example.com\r\nBcc: victim@example.com", "ann@example.com, bob@example.com",
    "Ann <ann@example.com>", "ann@exa mple.com", "", "ann@@example.com",
])
def test_addresses_with_anything_but_one_mailbox_are_refused(address):
    with pytest.raises(addresses.BadAddress):
        addresses.normalise(address)


def test_a_header_value_with_a_line_break_is_refused():
    with pytest.raises(ValueError):
        build_message(to="ann@example.com", to_name="Ann", subject="s", text="t",
                      html=None, headers={"References": "<a@b>\r\nBcc: x@y.z"},
                      sender="post@silver-eye.test", date=T0)


def test_a_game_name_with_line_breaks_stays_one_subject_line(mail_app, smtp, new_game):
    services.create_game([{"name": "Ann\r\nBcc: victim@example.com", "email": "ann@example.com"},
                          {"name": "Bob", "email": "bob@example.com"}],
                         name="Fun\r\nBcc: victim@example.com")
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    assert smtp.received
    for mail in smtp.received:
        assert mail.rcpt in (["ann@example.com"], ["bob@example.com"])
        assert mail.header("Bcc") is None
        assert "\n" not in mail.subject


def test_the_file_backend_writes_one_file_per_row_even_when_sent_twice(tmp_path):
    backend = FileBackend(tmp_path / "mail")
    message = build_message(to="ann@example.com", to_name="Ann", subject="s",
                            text="t", html="<p>t</p>", headers={},
                            sender="post@silver-eye.test", date=T0)
    with backend:
        backend.send(message, "000000001-turn")
        backend.send(message, "000000001-turn")
    assert [p.name for p in (tmp_path / "mail").iterdir()] == ["000000001-turn.eml"]


def test_smtp_urls_say_host_port_login_and_encryption():
    plain = SmtpSettings.from_url("smtp://mail.example.com")
    assert (plain.host, plain.port, plain.ssl, plain.starttls, plain.username) == (
        "mail.example.com", 25, False, False, None)
    tls = SmtpSettings.from_url("smtp://me%40x.org:p%3Ass@mail.example.com:587?starttls=1")
    assert (tls.port, tls.starttls, tls.username, tls.password) == (587, True, "me@x.org", "p:ss")
    ssl = SmtpSettings.from_url("smtps://u:p@mail.example.com")
    assert (ssl.port, ssl.ssl, ssl.starttls) == (465, True, False)
    with pytest.raises(ValueError):
        SmtpSettings.from_url("http://mail.example.com")


def test_names_are_escaped_in_the_html_part():
    game = compose.MailGame(id="g1", name="<i>Fun</i>", names=["<b>Eve</b>", "Bob"],
                            base_url="http://silver-eye.test", commitment="c" * 64)
    mail = compose.invitation_mail(game, 0, link="http://silver-eye.test/play/t",
                                   unsubscribe="http://silver-eye.test/unsubscribe/u",
                                   deadline_hours=48)
    assert "<b>Eve</b>" not in mail.html and "&lt;b&gt;Eve&lt;/b&gt;" in mail.html
    assert "<i>Fun</i>" not in mail.html
    assert "Hello <b>Eve</b>," in mail.text  # plain text is not HTML: shown as typed


def test_smtp_login_is_used_when_the_url_names_a_user(mail_app):
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    from .conftest import _Collect, free_port

    logins: list[tuple[bytes, bytes]] = []

    def authenticator(server, session, envelope, mechanism, auth_data):  # noqa: ANN001
        logins.append((auth_data.login, auth_data.password))
        return AuthResult(success=auth_data.password == b"s3cret")

    received: list = []
    port = free_port()
    controller = Controller(_Collect(received), hostname="127.0.0.1", port=port,
                            authenticator=authenticator, auth_required=True,
                            auth_require_tls=False)
    controller.start()
    try:
        queue(1)
        mail_app.config["SMTP_URL"] = f"smtp://post:wrong@127.0.0.1:{port}?timeout=5"
        assert clock.send_mail_due(mail_app, T0).sent == 0
        mail_app.config["SMTP_URL"] = f"smtp://post:s3cret@127.0.0.1:{port}"
        assert clock.send_mail_due(mail_app, T0 + timedelta(hours=1)).sent == 1
    finally:
        controller.stop()
    assert logins[-1] == (b"post", b"s3cret") and len(received) == 1
