"""A store that fits a million games (issue 46 item 5): a mail, once delivered, keeps what
threading, the outbox's promises and the operator need (its ids, its Message-ID and the
thread it answers, status, times, kind, address, key, last error), not its body. A mail
not delivered yet keeps all of it, so a retry sends the very same message; and
``resend-mail`` of a delivered mail composes a turn mail or a reminder again from the
game as it stands, or says in words that it cannot.

What the player got is read from the mail server (``smtp``), never from the outbox.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlmodel import Session, col, select

from app import engine, services
from app.clock import deadlines as dl
from app.db import get_engine
from app.mail import turn_mails
from app.mail.models import PENDING, SENT, Outbox
from app.mail.outbox import KEPT_HEADERS
from app.runners import clock, sending

from .test_notice_targets import (DISCORD, DISCORD_ID, DISCORD_TOKEN,  # noqa: F401
                                  human_and_bots, notice_app, sink)
from .test_when_mail_matters import T0, CheckingMailbox, graced, play  # noqa: F401


def now() -> datetime:
    return datetime.now(timezone.utc)


def rows(app, **where) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        query = select(Outbox)
        for key, value in where.items():
            query = query.where(getattr(Outbox, key) == value)
        return list(session.exec(query.order_by(col(Outbox.id))).all())


def words(text: str) -> list[str]:
    """A body's words, as the wire's line wrapping leaves them."""
    return text.split()


def received(smtp, message_id: str):
    [mail] = [m for m in smtp.received if m.header("Message-ID") == message_id]
    return mail


def resent_rows(app) -> list[Outbox]:
    return [row for row in rows(app) if row.idempotency.startswith("resend:")]


def test_a_delivered_mail_keeps_its_thread_times_and_key_but_not_its_body(
        mail_app, smtp, new_game):
    game = new_game(seats=2)
    clock.send_mail_due(mail_app, now())

    delivered = rows(mail_app, game_id=game.game_id, status=SENT)
    assert {row.kind for row in delivered} >= {"invitation", "turn"}
    for row in delivered:
        mail = received(smtp, row.message_id)
        # the player got the whole mail: its text, its HTML, its link, its unsubscribe
        assert "/play/" in mail.text and mail.html and mail.header("List-Unsubscribe")
        # the row keeps who, what kind, when, which key, and the thread; no body
        assert (row.text, row.html) == ("", None)
        assert set(row.headers) <= set(KEPT_HEADERS)
        assert row.headers["Message-ID"] == row.message_id == mail.header("Message-ID")
        assert row.headers.get("In-Reply-To") == mail.header("In-Reply-To")
        assert row.headers.get("References") == mail.header("References")
        assert row.to == mail.to and row.subject == mail.subject
        assert row.sent_at is not None and row.idempotency and row.last_error is None
        assert row.attempts == 1


def test_a_mail_not_delivered_yet_keeps_its_body_and_its_retry_is_the_very_same_message(
        mail_app, smtp, new_game):
    smtp.stop()  # the mail server is away: every attempt fails, nothing is delivered
    game = new_game(seats=2)
    report = clock.send_mail_due(mail_app, now())
    assert report.retried and not report.sent
    waiting = rows(mail_app, game_id=game.game_id)
    assert waiting and all(row.status == PENDING and row.attempts == 1 for row in waiting)
    assert all(row.text and row.html and row.last_error for row in waiting)
    before = {row.id: (row.message_id, row.subject, row.text, row.html) for row in waiting}

    smtp.start()
    clock.send_mail_due(mail_app, now() + sending.backoff(1) + timedelta(seconds=1))

    for row in rows(mail_app, game_id=game.game_id):
        message_id, subject, text, html = before[row.id]
        mail = received(smtp, message_id)  # the same Message-ID, the same words
        assert row.status == SENT and row.attempts == 2
        assert mail.subject == subject
        assert words(mail.text) == words(text) and words(mail.html) == words(html)
        assert (row.text, row.html) == ("", None), "once delivered, the body goes"


def test_a_mail_given_to_the_seats_notice_targets_instead_keeps_no_body_either(
        notice_app, new_game, sink):
    with dl.at(T0):
        created = human_and_bots(new_game, notice_app, DISCORD)
    play(notice_app, created.game_id, CheckingMailbox(), wait=lambda seat: 30)

    notified = rows(notice_app, status="notified")
    assert notified, "the round's and the game's end went to Ann's Discord"
    assert sink.at(f"/api/webhooks/{DISCORD_ID}/{DISCORD_TOKEN}")
    assert all((row.text, row.html) == ("", None) for row in notified)
    assert all(set(row.headers) <= set(KEPT_HEADERS) and row.sent_at for row in notified)


def test_a_mail_that_will_never_leave_keeps_no_body_either(mail_app, smtp, new_game):
    """The mail server is away while the seat to act moves: its turn mail, composed and
    retried, is superseded (what it announced no longer holds). It will never be sent or
    re-sent, so its body goes; its status and its reason stay for the page and the
    operator."""
    smtp.stop()
    game = new_game(seats=2)
    clock.send_mail_due(mail_app, now())
    turn = rows(mail_app, game_id=game.game_id, kind="turn")[0]
    assert turn.status == PENDING and turn.text, "composed, waiting to be retried"
    seat = turn.seat
    while seat in (services.snapshot(game.game_id).view(None).get("to_act") or []):
        snap = services.snapshot(game.game_id)
        services.submit_action(game.game_id, seat, engine.legal_actions(snap.state, seat)[0],
                               snap.seq)
    smtp.start()
    clock.send_mail_due(mail_app, now() + sending.backoff(1) + timedelta(seconds=1))

    [gone] = [row for row in rows(mail_app, id=turn.id)]
    assert gone.status == "superseded" and gone.last_error
    assert (gone.text, gone.html) == ("", None)
    assert not [m for m in smtp.received if m.header("Message-ID") == turn.message_id]


# -- resend-mail of a delivered mail -------------------------------------------------------

def test_a_delivered_turn_mail_is_composed_again_for_the_decision_the_seat_faces_now(
        mail_app, smtp, runner, new_game):
    game = new_game(seats=2)
    clock.send_mail_due(mail_app, now())
    snap = services.snapshot(game.game_id)
    seat = snap.view(None)["to_act"][0]
    [turn] = rows(mail_app, game_id=game.game_id, seat=seat, kind="turn")
    first = received(smtp, turn.message_id)

    result = runner.invoke(args=["resend-mail", str(turn.id)])

    assert result.exit_code == 0, result.output
    [copy] = resent_rows(mail_app)
    assert (f"mail {turn.id} (turn, delivered " in result.output
            and "kept only its headers: composed again from the game as it stands, for "
                f"seat {seat}'s decision now" in result.output
            and f"queued as mail {copy.id}" in result.output), result.output
    assert copy.status == PENDING and copy.subject == turn_mails.COMPOSED_AT_SEND
    assert copy.announces["step"] == snap.seq and copy.announces["compose"]

    clock.send_mail_due(mail_app, now())

    again = received(smtp, rows(mail_app, id=copy.id)[0].message_id)
    assert again.to == first.to and again.header("Message-ID") != first.header("Message-ID")
    assert again.seat_link() == first.seat_link() and again.header("List-Unsubscribe")
    assert again.lead == first.lead, "the same decision, told again"


def test_a_delivered_invitation_is_not_sent_again_and_the_operator_is_told_why(
        mail_app, smtp, runner, new_game):
    game = new_game(seats=2)
    clock.send_mail_due(mail_app, now())
    [invitation] = rows(mail_app, game_id=game.game_id, seat=1, kind="invitation")

    result = runner.invoke(args=["resend-mail", str(invitation.id)])

    assert result.exit_code == 1
    words = " ".join(result.output.split())
    assert (f"Mail {invitation.id} (invitation, delivered" in words
            and "kept only its headers once it was delivered, not its text" in words
            and "only a turn mail or a reminder can be composed again" in words
            and "Nothing was queued" in words and "rotate-link" in words), words
    assert resent_rows(mail_app) == []


def test_a_delivered_turn_mail_of_a_seat_that_faces_no_decision_now_is_refused_in_words(
        mail_app, smtp, runner, new_game):
    game = new_game(seats=2)
    clock.send_mail_due(mail_app, now())
    snap = services.snapshot(game.game_id)
    seat = snap.view(None)["to_act"][0]
    [turn] = rows(mail_app, game_id=game.game_id, seat=seat, kind="turn")
    # the seat plays until it waits on the other
    while seat in (snap := services.snapshot(game.game_id)).view(None)["to_act"]:
        services.submit_action(game.game_id, seat, engine.legal_actions(snap.state, seat)[0],
                               snap.seq)

    result = runner.invoke(args=["resend-mail", str(turn.id)])

    assert result.exit_code == 1
    words = " ".join(result.output.split())
    assert (f"seat {seat} faces no decision now (the game is running, waiting on others)"
            in words and "there is no turn mail to compose. Nothing was queued." in words), words
    assert resent_rows(mail_app) == []
