"""Words that count right (issue 51 item 3): "missed 1 deadlines" read like a slip; a
plan that stops says what it stopped at in a player's numbers (from 1) and promises
nothing about the rest, which the clock may still play."""
from __future__ import annotations

import pytest

from app.mail import commands
from app.mail.compose import MailGame, notice_mail

GAME = MailGame(id="g1", name="Friday game", names=["Ann", "Bob"], base_url="http://x.test")


@pytest.mark.parametrize("after, said", [(1, "missed 1 deadline,"), (3, "missed 3 deadlines in a row")])
def test_the_away_notice_counts_its_deadlines(after: int, said: str) -> None:
    for notice, about in (("absent", 1), ("you_absent", None)):
        mail = notice_mail(GAME, 0, notice, about=about, link="http://x.test/play/t",
                           unsubscribe="http://x.test/u", absent_after=after)
        text = " ".join(mail.text.split())
        assert said.rstrip(",") in text, text
        assert "1 deadlines" not in text and "1 deadline in a row" not in text


def test_an_engine_refusal_in_a_plans_words_counts_from_one() -> None:
    assert commands.mail_words("Position 1 is not one of your facedown cards.") == \
        "Card #2 is not one of your facedown cards."
