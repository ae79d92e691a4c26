"""Every mail of a game says which game, by name and by id (issue 8), and tells
what happened in the very sentences the seat page shows."""
from __future__ import annotations

import html
from datetime import datetime, timezone

import pytest

from app.engine import cards
from app.mail import compose
from app.mail.view_words import since_lines
from app.web import view_helpers
from tests.engine.scenario import exchange
from tests.engine.test_rulings_abilities import spotter_game

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)
NAMES = ["Ann", "Bob"]


def a_game_after_a_spotter_match():
    """Ann exchanges with a Spotter and finds Bob's 12: Bob is to draw."""
    game = spotter_game([30, 31, 47, 48, 32])
    game.act(0, exchange(1, spotter=True))
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 2})
    return game


def every_game_mail(info: compose.MailGame, view: dict) -> dict[str, compose.Mail]:
    common = {"link": "http://x/play/t", "unsubscribe": "http://x/u"}
    return {
        "turn": compose.turn_mail(info, 1, view, since_step=0, due=None, now=T0, **common),
        "invitation": compose.invitation_mail(info, 1, deadline_hours=48, **common),
        "round_end": compose.round_mail(info, 1, view, 1, **common),
        "game_over": compose.game_over_mail(info, 1, view, replay="http://x/r", **common),
        "notice": compose.notice_mail(info, 1, "fresh_link", about=None, **common),
    }


@pytest.mark.parametrize("name", ["Friday cards", ""])
def test_every_game_mail_names_the_game_and_its_id(name):
    view = a_game_after_a_spotter_match().view(1)
    info = compose.MailGame(id="abcd234567", name=name, names=NAMES, base_url="http://x")
    for kind, mail in every_game_mail(info, view).items():
        for body in (mail.text, html.unescape(mail.html)):
            assert "abcd234567" in body, kind
            if name:
                assert "Friday cards (game abcd234567)" in body, kind
        assert (name or "game abcd234567") in mail.subject, kind


def test_the_turn_mail_tells_the_news_in_the_sentences_of_the_seat_page():
    game = a_game_after_a_spotter_match()
    view = game.view(1)
    page = [entry["text"] for entry in view_helpers.log_entries(view["log"], NAMES, 1)]
    assert f"Ann's Spotter discarded {cards.label(47)} from your village." in page
    info = compose.MailGame(id="abcd234567", name="Friday", names=NAMES, base_url="http://x")
    assert since_lines(view, -1, NAMES, 1) == page
    mail = compose.turn_mail(info, 1, view, since_step=-1, due=None, now=T0, link="l",
                             unsubscribe="u")
    for sentence in page:
        assert sentence in mail.text and sentence in html.unescape(mail.html)
