"""No silent turn (issue 17 item 2): a player who walks away mid-turn is mailed once,
and a move the clock plays for a seat is told to it and to the others.

Eve draws and closes the tab. With the default grace period she gets one turn
mail about the card in her hand, not silence until the halfway reminder. When
her deadline passes, the server discards that card for her: her next mail and
her seat page say so in words, and so does Ann's news.
"""
from __future__ import annotations

import html
from datetime import timedelta

import pytest

from tests.mail.conftest import lead_of
from app import engine, services
from app.runners import clock
from app.clock import deadlines as dl
from app.engine import cards
from tests.clock.conftest import T0, Recorder

EVE, ANN = "eve@example.com", "ann@example.com"


@pytest.fixture(autouse=True)
def _turn_mail_at_once():
    """The defaults here (the grace period is what this is about), no hourly cap."""


@pytest.fixture
def game(app):
    """Ann and Eve, dealt so that Eve plays first; both have looked at their cards,
    and every mail so far (invitations, turn mails) has left."""
    app.config["MAIL_PER_ADDRESS_PER_HOUR"] = 0
    with dl.at(T0):
        created = services.create_game([{"name": "Eve", "email": EVE},
                                        {"name": "Ann", "email": ANN}],
                                       {"deadline_hours": 24, "reminders": ["half"]},
                                       name="Walk away", seed="3")
        for seat in (0, 1):
            snap = services.snapshot(created.game_id)
            peek = next(a for a in engine.legal_actions(snap.state, seat) if a["type"] == "peek")
            services.submit_action(created.game_id, seat, peek, snap.seq)
    assert services.snapshot(created.game_id).view(None)["current"] == 0, "Eve starts"
    clock.send_mail_due(app, T0 + timedelta(hours=1), backend=Recorder())
    return created


def draw(game_id: str, seat: int, at) -> None:
    with dl.at(at):
        services.submit_action(game_id, seat, {"type": "draw"},
                               services.snapshot(game_id).seq)


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def hand_label(game_id: str, seat: int) -> str:
    view = services.snapshot(game_id).view(seat)
    assert view["hand_seat"] == seat
    return cards.label(int(view["hand"]["id"]))


def test_a_seat_that_draws_and_walks_away_gets_one_mail_naming_the_card_in_hand(app, game):
    mailbox = Recorder()
    drawn_at = T0 + timedelta(hours=2)
    draw(game.game_id, 0, drawn_at)
    card = hand_label(game.game_id, 0)

    clock.send_mail_due(app, drawn_at + timedelta(seconds=60), backend=mailbox)
    assert mailbox.to(EVE) == [], "within the grace period she may still be on her page"
    clock.send_mail_due(app, drawn_at + timedelta(seconds=121), backend=mailbox)
    [mail] = mailbox.to(EVE)
    assert "keep the drawn card or discard it" in lead_of(mail), "the decision she faces now"
    assert f"The card in your hand: {card}" in text_of(mail)
    assert "Please play by" in text_of(mail), "it names the deadline of her turn"

    # one mail per waiting stretch: nothing more until the halfway reminder
    for minutes in (5, 30, 60, 300):
        clock.send_mail_due(app, drawn_at + timedelta(minutes=minutes), backend=mailbox)
    assert len(mailbox.to(EVE)) == 1


def test_a_seat_that_goes_on_from_its_page_gets_no_mail_about_the_draw(app, game):
    mailbox = Recorder()
    drawn_at = T0 + timedelta(hours=2)
    draw(game.game_id, 0, drawn_at)
    snap = services.snapshot(game.game_id)
    move = next(a for a in engine.legal_actions(snap.state, 0) if a["type"] == "exchange")
    with dl.at(drawn_at + timedelta(seconds=30)):
        services.submit_action(game.game_id, 0, move, snap.seq)
    clock.send_mail_due(app, drawn_at + timedelta(minutes=10), backend=mailbox)
    assert mailbox.to(EVE) == []


def test_a_timeout_is_told_to_the_seat_in_its_next_mail_and_page_and_to_the_others(
        app, client, game):
    mailbox = Recorder()
    drawn_at = T0 + timedelta(hours=2)
    draw(game.game_id, 0, drawn_at)
    card = hand_label(game.game_id, 0)
    clock.send_mail_due(app, drawn_at + timedelta(minutes=3), backend=mailbox)

    # the deadline passes: the server discards Eve's card for her
    due = drawn_at + timedelta(hours=25)
    clock.tick(app, due, backend=mailbox)
    log = services.snapshot(game.game_id).view(None)["log"]
    timed_out = [e for e in log if e.get("seat") == 0 and e["type"] == "discard"]
    assert timed_out and cards.label(timed_out[-1]["card"]["id"]) == card
    assert [source for _, _, source in _actions(app, game.game_id)][-1] == "timeout"

    # Ann's turn mail tells her news in words
    clock.send_mail_due(app, due + timedelta(minutes=3), backend=mailbox)
    ann = text_of(mailbox.to(ANN)[-1])
    assert f"Time ran out for Eve: their {card} was discarded." in ann

    # Eve's page says it at the top, until she moves
    page = html.unescape(client.get(f"/play/{game.tokens[0]}").get_data(as_text=True))
    told = f"Time ran out: your {card} was discarded for you."
    assert page.index(told) < page.index('id="table-title"'), "at the top, not folded away"
    # and Ann's page says it in her news, as her mail does
    ann_page = " ".join(html.unescape(
        client.get(f"/play/{game.tokens[1]}").get_data(as_text=True)).split())
    assert f"Time ran out for Eve: their {card} was discarded." in ann_page

    # Ann plays her turn: Eve's next mail says first what was played for her
    with dl.at(due + timedelta(minutes=5)):
        snap = services.snapshot(game.game_id)
        services.submit_action(game.game_id, 1, {"type": "draw"}, snap.seq)
        snap = services.snapshot(game.game_id)
        move = next(a for a in engine.legal_actions(snap.state, 1) if a["type"] == "exchange")
        services.submit_action(game.game_id, 1, move, snap.seq)
    before = len(mailbox.to(EVE))
    clock.send_mail_due(app, due + timedelta(minutes=10), backend=mailbox)
    [eve] = mailbox.to(EVE)[before:]
    body = text_of(eve)
    assert told in body
    assert body.index(told) < body.index("Your village"), "it is said first"
    assert told in " ".join(html.unescape(eve.get_body(preferencelist=("html",))
                                          .get_content()).split())

    # once she has played herself, the page notice is gone
    with dl.at(due + timedelta(minutes=15)):
        snap = services.snapshot(game.game_id)
        services.submit_action(game.game_id, 0, {"type": "draw"}, snap.seq)
    page = html.unescape(client.get(f"/play/{game.tokens[0]}").get_data(as_text=True))
    assert told not in page


def _actions(app, game_id: str) -> list[tuple[int, int, str]]:
    from tests.conftest import Db
    return Db(app).actions(game_id)
