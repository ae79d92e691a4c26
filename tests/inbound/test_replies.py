"""Replies that must not become moves, and replies that must, over real SMTP.

Ann and Bob play a 2-seat game. Each scenario reads Ann's turn mail from the
outside mail server, replies to our receiver, and lets the clock apply it.
"""
from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import make_msgid

import pytest
import sqlalchemy as sa

from app import services
from app.inbound import answers as replying
from app.runners import inbound as runners_inbound
from tests.inbound.conftest import DOMAIN, Player, answers, menu_of, reply_to

ANN, BOB = "ann@example.com", "bob@example.com"


def inbox(db) -> list[tuple]:
    with db.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            "SELECT status, outcome, seat, step FROM inbox ORDER BY id"))]


def test_the_turn_mail_has_a_menu_with_mailto_links_and_a_seat_and_step_reply_to(game, ann):
    mail = ann.waiting()
    assert mail is not None
    assert mail.header("Reply-To").startswith("play+")
    assert mail.header("Reply-To").endswith(f"@{DOMAIN}")
    commands = [command for command, _ in menu_of(mail)]
    assert commands[0].startswith("peek ") and commands[-1] == "help"
    assert f'href="mailto:{mail.header("Reply-To")}?subject=' in mail.html
    assert "body=peek%201%202" in mail.html


def test_a_reply_becomes_the_move_and_the_next_mail_confirms_it(game, ann, smtp, inbound,
                                                                  deliver, db):
    bob = Player("Bob", BOB, smtp)
    ann.answer(inbound, ann.waiting(), "peek 1 2")
    bob.answer(inbound, bob.waiting(), "peek 3 4")
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail"), (2, 1, "mail")]
    assert [row[0] for row in inbox(db)] == ["applied", "applied"]
    current = services.snapshot(game.game_id).view(None)["current"]
    player = (ann, bob)[current]
    mail = player.waiting()  # the turn that follows, with a fresh reply address
    assert mail is not None and ("D", "draw the top card of the deck") in menu_of(mail)
    player.answer(inbound, mail, "D")
    deliver()
    assert db.actions(game.game_id)[-1] == (3, current, "mail")
    follow_up = player.waiting()  # same turn, next decision: what to do with the card
    assert follow_up is not None and follow_up.header("Reply-To") != mail.header("Reply-To")
    assert "The card in your hand" in follow_up.text
    assert any(command.startswith("X ") for command, _ in menu_of(follow_up))


def test_a_reply_to_a_decision_already_made_on_the_page_is_answered_in_mail_words(
        game, ann, inbound, deliver, db, smtp):
    # (issue 17 item 4: this test used to expect "The game moved on" for a "peek 1 2"
    # made after Bob peeked and drew, which still meant what it said and now applies
    # (tests/inbound/test_reply_meaning.py); a reply is stale when the seat itself
    # made the mail's decision another way, and the answer says so without web words)
    mail = ann.waiting()
    services.submit_action(game.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
    ann.answer(inbound, mail, "peek 3 4")
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "player")]
    [answer] = answers(smtp, ANN)
    assert 'Your reply said: "peek 3 4"' in answer.text
    assert "Your reply was to the mail of " in answer.text
    assert ("since then you made that decision another way (you looked at cards #1 and #2 "
            "of your village). Nothing was changed.") in answer.text
    assert "This is where the game stands now." in answer.text
    assert "reload" not in answer.text and "step" not in answer.text
    assert answer.header("Reply-To") != mail.header("Reply-To")  # a menu for step 1
    assert inbox(db)[0][:2] == ("answered", "stale: acted")


def test_a_peek_reply_still_counts_after_the_other_seat_peeked_first(game, ann, inbound,
                                                                     deliver, db):
    mail = ann.waiting()
    services.submit_action(game.game_id, 1, {"type": "peek", "positions": [2, 3]}, 0)
    ann.answer(inbound, mail, "peek 1 2")
    deliver()
    assert [seat for _, seat, _ in db.actions(game.game_id)] == [1, 0]


def test_the_same_message_id_delivered_twice_is_one_action(game, ann, inbound, deliver, db):
    message = reply_to(ann.waiting(), "peek 1 2")
    inbound.send(message, mail_from=ANN)
    inbound.send(message, mail_from=ANN)
    deliver()
    inbound.send(message, mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    assert db.count("inbox") == 1


def test_a_reply_from_another_address_is_refused_and_the_seat_is_told(game, ann, inbound,
                                                                       deliver, db, smtp):
    inbound.send(reply_to(ann.waiting(), "peek 1 2", sender="mallory@evil.example"),
                 mail_from="mallory@evil.example")
    deliver()
    assert db.actions(game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert "not yours" in answer.text and "mallory@evil.example" in answer.text
    assert smtp.to("mallory@evil.example") == []


def test_the_seat_address_matches_whatever_its_case(game, ann, inbound, deliver, db):
    inbound.send(reply_to(ann.waiting(), "peek 1 2", sender="Ann Example <ANN@Example.COM>"),
                 mail_from="ANN@example.com")
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]


def test_a_reply_to_a_rotated_seat_does_nothing(game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()
    services.rotate_link(game.game_id, 0)
    ann.answer(inbound, mail, "peek 1 2")
    deliver()
    assert db.actions(game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert "no longer plays your seat" in answer.text
    assert answer.header("Reply-To") != mail.header("Reply-To")  # the new, current address


def test_another_seats_address_or_a_changed_token_does_nothing(game, ann, smtp, inbound,
                                                               deliver, db):
    mail = ann.waiting()
    # Bob answers Ann's mail from his own address: not Ann's seat
    inbound.send(reply_to(mail, "peek 1 2", sender=BOB), mail_from=BOB)
    # a token edited to name seat 1 (Bob) or another game: the signature fails
    address = mail.header("Reply-To")
    local, domain = address.split("@")
    game_part, seat, version, step, signature = local.removeprefix("play+").split(".")
    # (issue 17 item 5: refused at RCPT, so nothing of them is stored)
    for forged in (f"play+{game_part}.1.{version}.{step}.{signature}@{domain}",
                   f"play+abcdefghjk.0.{version}.{step}.{signature}@{domain}",
                   f"play+{game_part}.0.{version}.{step}.{'a' * len(signature)}@{domain}"):
        message = reply_to(mail, "peek 1 2")
        message.replace_header("To", forged)
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            inbound.send(message, mail_from=ANN, to=[forged])
        assert refused.value.recipients[forged][0] == 550
    deliver()
    assert db.actions(game.game_id) == []
    outcomes = [row[1] for row in inbox(db)]
    assert outcomes == ["sender is not the seat's address"]
    assert len(answers(smtp, ANN)) == 1 and answers(smtp, BOB) == []


def test_a_token_signed_by_another_server_does_nothing(game, ann, inbound, deliver, db):
    from app.access import tokens
    mail = ann.waiting()
    token = tokens.reply_token(game.game_id, 0, 1, 0, secret_key="another-server")
    message = reply_to(mail, "peek 1 2")
    message.replace_header("To", f"play+{token}@{DOMAIN}")
    with pytest.raises(smtplib.SMTPRecipientsRefused):  # at RCPT (issue 17 item 5)
        inbound.send(message, mail_from=ANN, to=[f"play+{token}@{DOMAIN}"])
    deliver()
    assert db.actions(game.game_id) == []
    assert inbox(db) == []


def test_an_auto_responder_is_never_answered(game, ann, inbound, deliver, db, smtp):
    message = reply_to(ann.waiting(), "I am out of the office until Monday.")
    message["Auto-Submitted"] = "auto-replied"
    inbound.send(message, mail_from=ANN)
    plain = reply_to(ann.waiting(), "I am out of the office until Monday.")
    plain["X-Autoreply"] = "yes"
    inbound.send(plain, mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == [] and answers(smtp, ANN) == []
    assert [row[0] for row in inbox(db)] == ["ignored", "ignored"]


def test_a_bounce_is_never_answered(game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()
    bounce = MIMEMultipart("report", report_type="delivery-status")
    bounce["From"] = "Mail Delivery System <MAILER-DAEMON@example.com>"
    bounce["To"] = mail.header("Reply-To")
    bounce["Subject"] = "Undelivered Mail Returned to Sender"
    bounce["Message-ID"] = make_msgid()
    bounce.attach(MIMEText("D\n\nThis is the mail system."))
    bounce.attach(MIMEText("Reporting-MTA: dns; example.com\n", "delivery-status"))
    inbound.send(bounce.as_string().replace("\n", "\r\n").encode(), mail_from="",
                 to=[mail.header("Reply-To")])
    deliver()
    assert db.actions(game.game_id) == [] and answers(smtp, ANN) == []
    assert inbox(db)[0][:2] == ("ignored", "bounce (empty return path)")


def test_list_mail_is_never_answered(game, ann, inbound, deliver, db, smtp):
    message = reply_to(ann.waiting(), "peek 1 2")
    message["List-Id"] = "<players.lists.example>"
    inbound.send(message, mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == [] and answers(smtp, ANN) == []


def test_an_html_only_reply_is_read_without_its_quoted_part(game, ann, inbound, deliver, db):
    mail = ann.waiting()
    message = reply_to(mail, "Peek 2 3<br>", html=True,
                       quote="On Tuesday you wrote:<br>peek 1 2<br>help")
    assert message.get_content_type() == "text/html"
    inbound.send(message, mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    assert services.snapshot(game.game_id).view(0)["log"][-1]["type"] == "peek"
    village = services.snapshot(game.game_id).view(0)["villages"][0]
    assert village[1]["id"] is not None and village[2]["id"] is not None


def test_a_reply_in_a_thread_quoted_in_another_language_with_a_signature(
        game, ann, inbound, deliver, db):
    mail = ann.waiting()
    quoted = ("Am Di., 1. Dez. 2026 um 09:00 Uhr schrieb Silver Eye Post "
              f"<post@{DOMAIN}>:\n> Hallo Ann,\n> peek 3 4\n> help\n")
    message = reply_to(mail, "  PEEK   1, 3 \n\nGruß\nAnn\n--\nVon meinem Telefon gesendet",
                       quote=quoted)
    inbound.send(message, mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    village = services.snapshot(game.game_id).view(0)["villages"][0]
    assert [card["id"] is not None for card in village[:4]] == [True, False, True, False]


def test_help_answers_with_the_menu_again(game, ann, inbound, deliver, db, smtp):
    ann.answer(inbound, ann.waiting(), "Help")
    deliver()
    [answer] = answers(smtp, ANN)
    assert "Here are your commands again." in answer.text
    assert [c for c, _ in menu_of(answer)] == [c for c, _ in menu_of(ann.mails()[-2])]
    assert db.actions(game.game_id) == []


def test_an_unreadable_or_illegal_command_is_quoted_explained_and_the_menu_repeated(
        game, ann, inbound, deliver, db, smtp):
    ann.answer(inbound, ann.waiting(), "fly to the moon")
    deliver()
    mail = ann.waiting()  # the answer carries a fresh menu: reply to it
    ann.answer(inbound, mail, "D")  # drawing before peeking: the engine refuses
    deliver()
    first, second = answers(smtp, ANN)
    assert 'Your reply said: "fly to the moon"' in first.text
    assert '"fly" is not a command we know.' in first.text
    assert 'Your reply said: "D"' in second.text
    assert "peek" in second.text.split("Your reply said")[1].split("\n\n")[0].lower()
    assert menu_of(second) and db.actions(game.game_id) == []


def test_at_most_n_answers_per_seat_per_hour(game, ann, inbound, deliver, db, smtp,
                                              mail_app):
    mail_app.config["INBOUND_ANSWERS_PER_HOUR"] = 3
    mail = ann.waiting()
    for n in range(6):
        message = reply_to(mail, f"nonsense number {n}")
        inbound.send(message, mail_from=ANN)
    deliver()
    assert len(answers(smtp, ANN)) == 3
    assert sum("hourly limit" in row[1] for row in inbox(db)) == 3


def test_a_two_megabyte_message_is_refused_at_smtp_level(game, ann, inbound, db):
    message = reply_to(ann.waiting(), "peek 1 2")
    message.add_attachment(b"x" * (2 * 1024 * 1024), maintype="application",
                           subtype="octet-stream", filename="big.bin")
    with pytest.raises((smtplib.SMTPDataError, smtplib.SMTPSenderRefused)) as refused:
        inbound.send(message, mail_from=ANN)
    assert refused.value.smtp_code == 552
    assert db.count("inbox") == 0


def test_a_message_with_many_parts_is_refused_at_smtp_level(game, ann, inbound, db):
    message = reply_to(ann.waiting(), "peek 1 2")
    for n in range(20):
        message.add_attachment(f"part {n}".encode(), maintype="text", subtype="plain")
    with pytest.raises(smtplib.SMTPDataError) as refused:
        inbound.send(message, mail_from=ANN)
    assert refused.value.smtp_code == 552 and b"too many parts" in refused.value.smtp_error
    assert db.count("inbox") == 0


def test_mail_for_other_domains_is_refused_at_rcpt(inbound, mail_app):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = ANN, "someone@else.example", "hi"
    message.set_content("D")
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        inbound.send(message, mail_from=ANN, to=["someone@else.example"])


def test_header_injection_in_subject_and_command_goes_nowhere(game, ann, inbound, deliver,
                                                               db, smtp):
    mail = ann.waiting()
    raw = (f"From: {ANN}\r\nTo: {mail.header('Reply-To')}\r\n"
           f"Subject: =?utf-8?q?Re=3A_x=0D=0ABcc=3A_victim=40evil=2Eexample?=\r\n"
           f"Message-ID: <inject-1@player.example>\r\nContent-Type: text/plain\r\n\r\n"
           f"X 1\rBcc: victim@evil.example\r\nTo: victim@evil.example\r\n").encode()
    inbound.send(raw, mail_from=ANN, to=[mail.header("Reply-To")])
    deliver()
    [answer] = answers(smtp, ANN)
    assert answer.rcpt == [ANN]
    assert answer.header("Bcc") is None and answer.header("To").endswith(f"<{ANN}>")
    assert "victim" not in answer.subject and "\n" not in answer.subject
    assert all("victim" not in r for m in smtp.received for r in m.rcpt)
    assert db.actions(game.game_id) == []


def test_a_worker_that_dies_after_the_move_but_before_finishing_the_row(
        game, ann, inbound, deliver, db, mail_app, monkeypatch):
    ann.answer(inbound, ann.waiting(), "peek 1 2")
    real = replying.answer

    def die(*args, **kwargs):
        raise RuntimeError("killed between the move and the row's update")

    monkeypatch.setattr(replying, "answer", die)
    report = runners_inbound.apply_pending(mail_app)
    assert report.outcomes == {"error": 1}
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    monkeypatch.setattr(replying, "answer", real)
    from datetime import timedelta
    from app.clock import deadlines as dl
    later = runners_inbound.apply_pending(
        mail_app, dl.now() + runners_inbound.LEASE + timedelta(seconds=1))
    assert later.outcomes == {"applied": 1}
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    assert inbox(db) == [("applied", "already applied", 0, 0)]
