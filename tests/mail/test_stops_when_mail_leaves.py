"""Issue 45 item 2: what a person stopped stays stopped, for mail queued or held before.

Found: "Stop the mail" for one game answered "no more mail from Game B", and a mail of
that game already held for quiet hours was still sent when they ended. Each test here
holds a mail (the person's quiet hours, the hourly cap), stops it through the door a
person uses (the one-click unsubscribe of a mail, the seat page's mail choice, the
settings' "no mail about any of my games", the digest's one-click, "no more
invitations"), lets the hold end and runs the real sender (``send_mail_due`` through a
real SMTP server): nothing of what was stopped is sent, and what the person asks for
afterwards (a fresh link) still is.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from sqlmodel import col, select

from app import engine, services
from app.access import tokens
from app.access.unsubscribe import address_unsubscribe_token
from app.channels.models import NoticeDelivery, NoticeTarget
from app.clock import deadlines as dl
from app.db import read_session, write_session
from app.mail import invitations, stops
from app.mail.models import PENDING, SENT, SUPERSEDED, Outbox
from app.runners import sender
from app.services import my_games, person_settings
from tests.conftest import TEST_SECRET_KEY

ANN, BOB = "ann@example.com", "bob@example.com"


def utc(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2030, 1, day, hour, minute, second, tzinfo=timezone.utc)


def send(app: Any, at: datetime, **kwargs: Any) -> Any:
    """The sender's run at ``at`` (what the clock's sender thread calls)."""
    return sender.send_mail_due(app, at, **kwargs)


def rows_to(address: str, game_id: str | None = None) -> list[Outbox]:
    with read_session() as session:
        query = select(Outbox).where(col(Outbox.to) == address)
        if game_id is not None:
            query = query.where(col(Outbox.game_id) == game_id)
        rows = list(session.exec(query.order_by(col(Outbox.id))).all())
        for row in rows:
            session.expunge(row)
    return rows


def game_mail(smtp: Any, address: str) -> list[Any]:
    """The mails of games that reached ``address`` (a person-wide change is mailed to its
    address at once, whatever it stopped: issue 45; that mail is not a game's)."""
    ids = {row.message_id for row in rows_to(address) if row.game_id is not None}
    return [mail for mail in smtp.to(address) if str(mail.header("Message-ID")) in ids]


def held_to(address: str) -> list[Outbox]:
    return [row for row in rows_to(address) if row.status == PENDING
            and row.held_until is not None]


def move(game_id: str, seat: int, at: datetime) -> None:
    """``seat`` makes a legal move at ``at`` (a peek, a draw, a discard...)."""
    snap = services.snapshot(game_id)
    legal = engine.legal_actions(snap.state, seat)
    action = next((a for a in legal if a["type"] in ("peek", "draw", "discard", "skip")),
                  legal[0])
    with dl.at(at):
        services.submit_action(game_id, seat, action, snap.seq)


def bob_plays_until_ann_is_waited_on(game_id: str, at: datetime) -> None:
    for _ in range(12):
        to_act = services.snapshot(game_id).view(None)["to_act"]
        if 0 in to_act:
            return
        move(game_id, 1, at)
    raise AssertionError("Ann never came to act")


def a_game_ann_played_in(app: Any, new_game: Any, at: datetime) -> Any:
    """Ann and Bob; their invitations and first turn mails leave; Ann makes her first
    move from her page (so her game mail is her own choice: issue 34's refusal, for
    games never played, is not what stops it here)."""
    with dl.at(at):
        created = new_game(seats=2)
    send(app, at + timedelta(seconds=5))
    move(created.game_id, 0, at + timedelta(minutes=5))
    return created


# -- one game's mail ---------------------------------------------------------------------

def stop_by_one_click(client: Any, created: Any, row: Outbox | None) -> None:
    """The mail client's Unsubscribe on the held mail (RFC 8058 one-click)."""
    assert row is not None
    link = row.headers["List-Unsubscribe"].strip("<>")
    assert client.post(link.split("silver-eye.test", 1)[1]).status_code == 200


def stop_on_the_seat_page(client: Any, created: Any, row: Outbox | None = None) -> None:
    """The seat page's mail choice: "no mail from this game"."""
    csrf = tokens.csrf_token(created.game_id, 0, 1, TEST_SECRET_KEY)
    answer = client.post(f"/play/{created.tokens[0]}/prefs",
                         data={"mode": "none", "csrf_token": csrf})
    assert answer.status_code == 303


@pytest.mark.parametrize("stop", [stop_by_one_click, stop_on_the_seat_page])
def test_a_mail_held_for_quiet_hours_is_never_sent_once_the_seat_stops_the_games_mail(
        mail_app, smtp, client, new_game, stop):
    person_settings.set_quiet(ANN, "22:00", "08:00", now=utc(7, 20))
    with dl.at(utc(7, 23)):  # in Ann's quiet hours: her invitation and turn mail wait
        created = new_game(seats=2)
    send(mail_app, utc(7, 23, 0, 5))
    held = held_to(ANN)
    assert {row.kind for row in held} == {"invitation", "turn"}
    assert game_mail(smtp, BOB), "Bob's mail is not held"
    assert game_mail(smtp, ANN) == []

    with dl.at(utc(7, 23, 30)):  # "Stop the mail" of this game
        stop(client, created, next(row for row in held if row.kind == "turn"))
    send(mail_app, utc(8, 8, 0, 1))  # her quiet hours are over
    send(mail_app, utc(8, 9))

    assert game_mail(smtp, ANN) == [], "nothing of the game she stopped reaches her"
    for row in rows_to(ANN, created.game_id):
        assert row.status == SUPERSEDED, (row.kind, row.status)
        assert (row.last_error or "").startswith(stops.STOPPED_AT_SEND), row.last_error
        assert not row.held_untold, "no later mail tells her of what she stopped"

    # what she asks for still comes: a fresh link of her seat
    with dl.at(utc(8, 9, 5)):
        services.request_fresh_link(created.game_id, seat=0)
    send(mail_app, utc(8, 9, 6))
    assert [row.kind for row in rows_to(ANN, created.game_id) if row.status == SENT] == ["link"]
    assert len(game_mail(smtp, ANN)) == 1


def test_an_invitation_still_goes_to_a_seat_the_creator_set_to_no_mail(mail_app, smtp):
    """The lobby's "no mail" for a seat is not the person's stop: their invitation (their
    only way to the seat) still leaves; their turn mail was never queued."""
    players = [{"name": "Ann", "email": ANN, "kind": "human",
                "preferences": {"mail": "none"}},
               {"name": "Bob", "email": BOB, "kind": "human"}]
    with dl.at(utc(7, 10)):
        services.create_game(players, {}, name="Lobby's choice", seed="12345")
    send(mail_app, utc(7, 10, 0, 5))
    assert [row.kind for row in rows_to(ANN) if row.status == SENT] == ["invitation"]
    assert len(game_mail(smtp, ANN)) == 1


# -- all game mail -----------------------------------------------------------------------

def no_mail_on_the_settings(client: Any) -> None:
    person_settings.set_address_mode(ANN, "none")


def no_mail_by_the_digests_one_click(client: Any) -> None:
    token = address_unsubscribe_token(ANN, TEST_SECRET_KEY)
    assert client.post(f"/unsubscribe/{token}").status_code == 200


@pytest.mark.parametrize("hold", ["quiet", "hour"])
@pytest.mark.parametrize("stop", [no_mail_on_the_settings, no_mail_by_the_digests_one_click])
def test_a_held_mail_of_a_game_she_plays_is_never_sent_once_she_asks_for_no_game_mail(
        mail_app, smtp, client, new_game, hold, stop):
    if hold == "quiet":  # Bob's move comes at 23:00, in her quiet hours; they end at 08:00
        person_settings.set_quiet(ANN, "22:00", "08:00", now=utc(7, 20))
        moved, stopped, over = utc(7, 23), utc(7, 23, 30), utc(8, 8, 0, 1)
    else:  # two mails an hour: her invitation and first turn mail fill 21:00-22:00
        mail_app.config["MAIL_PER_ADDRESS_PER_HOUR"] = 2
        moved, stopped, over = utc(7, 21, 10), utc(7, 21, 30), utc(7, 22, 0, 1)
    created = a_game_ann_played_in(mail_app, new_game, utc(7, 21))
    had = len(game_mail(smtp, ANN))
    bob_plays_until_ann_is_waited_on(created.game_id, moved)
    send(mail_app, moved + timedelta(seconds=5))
    held = held_to(ANN)
    assert held and {row.held_why for row in held} == {hold}
    assert len(game_mail(smtp, ANN)) == had

    with dl.at(stopped):
        stop(client)
    send(mail_app, over)
    send(mail_app, over + timedelta(hours=1))

    assert len(game_mail(smtp, ANN)) == had, "nothing more of her games reaches her"
    for row in held:
        [now] = [found for found in rows_to(ANN) if found.id == row.id]
        assert now.status == SUPERSEDED
        assert (now.last_error or "").startswith(stops.STOPPED_AT_SEND), now.last_error
    with read_session() as session:  # she played there: her seat is not played away
        from app.clock.deadlines import SeatClock
        clock = session.exec(select(SeatClock).where(SeatClock.game_id == created.game_id,
                                                     SeatClock.seat == 0)).first()
        assert clock is None or not clock.absent
    assert game_mail(smtp, BOB), "Bob's mail leaves as before"

    with dl.at(over + timedelta(hours=1, minutes=5)):  # a link she asks for still comes
        services.request_fresh_link(created.game_id, seat=0)
    send(mail_app, over + timedelta(hours=1, minutes=6))
    assert len(game_mail(smtp, ANN)) == had + 1
    newest = rows_to(ANN, created.game_id)[-1]
    assert newest.kind == "link" and newest.status == SENT


def test_a_daily_digest_written_before_no_game_mail_is_not_sent(mail_app, smtp):
    """Her digest of the day is queued; before it leaves she asks for no game mail."""
    from app.mail import turn_mails

    with dl.at(utc(7, 7)), write_session() as session:
        assert turn_mails.daily_digest(session, ANN, [{
            "game": "Ann's game", "name": "Ann", "link": "http://silver-eye.test/play/x",
            "decision": "your turn", "deadline": "tomorrow"}], utc(7, 7))
    person_settings.set_address_mode(ANN, "none")
    send(mail_app, utc(7, 7, 0, 5))
    [row] = [row for row in rows_to(ANN) if row.kind == "daily"]
    assert row.status == SUPERSEDED
    assert not [m for m in smtp.to(ANN) if m.header("Message-ID") == row.message_id]
    assert (row.last_error or "").startswith(stops.STOPPED_AT_SEND)


# -- invitations refused -----------------------------------------------------------------

def test_an_invitation_held_for_quiet_hours_is_not_sent_after_no_more_invitations(
        mail_app, smtp, client):
    vic = "vic@example.org"
    person_settings.set_quiet(vic, "22:00", "08:00", now=utc(7, 20))
    players = [{"name": "Mallory", "email": "mallory@example.net", "kind": "human"},
               {"name": "Vic", "email": vic, "kind": "human"}]
    with dl.at(utc(7, 23)):
        created = services.create_game(players, {}, name="Uninvited", seed="12345")
    send(mail_app, utc(7, 23, 0, 5))
    assert "invitation" in {row.kind for row in held_to(vic)}

    with dl.at(utc(7, 23, 30)), read_session() as session:  # from her games page
        token = my_games.make_link_token(session, vic, TEST_SECRET_KEY)
    with dl.at(utc(7, 23, 30)):
        client.post(f"/my-games/{token}/invitations", data={"choice": "refuse"})
    send(mail_app, utc(8, 8, 0, 1))
    send(mail_app, utc(8, 8, 1))

    assert game_mail(smtp, vic) == [], "the invitation she refused never reaches her"
    for row in rows_to(vic, created.game_id):
        assert row.status == SUPERSEDED
        assert (row.last_error or "").startswith(invitations.REFUSED_AT_SEND)
    assert smtp.to("mallory@example.net")


# -- notices to targets ------------------------------------------------------------------

def test_a_notice_waiting_for_its_retry_is_not_sent_once_the_seat_stops_the_games_mail(
        mail_app, smtp, client, new_game):
    mail_app.config["NOTICE_ALLOW_PRIVATE"] = True
    with dl.at(utc(7, 9)):
        created = new_game(seats=2)
    with write_session() as session:
        session.add(NoticeTarget(game_id=created.game_id, seat=0,
                                 url="jsons://hooks.example.org/ann", service="JSON webhook",
                                 created_at=utc(7, 9)))
    tried: list[str] = []

    def down(url: str, title: str, body: str) -> str | None:
        tried.append(title)
        return "the service answered with error 503"

    send(mail_app, utc(7, 9, 0, 5), notice_send=down)
    assert tried, "her turn notice was tried, and waits for its retry"
    with dl.at(utc(7, 9, 1)):
        stop_on_the_seat_page(client, created)

    delivered: list[str] = []
    send(mail_app, utc(7, 9, 10), notice_send=lambda url, title, body: delivered.append(title))
    assert delivered == [], "a notice of the game she stopped is not sent either"
    with read_session() as session:
        rows = session.exec(select(NoticeDelivery.status, NoticeDelivery.last_error)).all()
    assert rows and all(status == SUPERSEDED for status, _ in rows)
    assert all((error or "").startswith(stops.STOPPED_AT_SEND) for _, error in rows)
