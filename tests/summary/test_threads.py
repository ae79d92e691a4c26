"""One conversation per game per seat in Gmail, Apple Mail, Outlook and Thunderbird
(issue 19 item 4): every mail of a game to a seat has the same subject and refers to
the seat's invitation; what it asks is its first line and its preheader.

Gmail threads only mails with one subject (after "Re:") that refer to each other;
Apple Mail and Thunderbird by References; Outlook by the topic (docs/deliverability.md,
"One conversation per game in every mail client"). A whole game is played by bots
through the services and its mail received by a real SMTP server.
"""
from __future__ import annotations

import random
import re
from datetime import datetime, timezone

import pytest

from app import services
from app.engine import bots
from app.runners import clock
from tests.mail.conftest import _turn_mail_at_once, mail_app, smtp  # noqa: F401 (fixtures)

ADDRESSES = ("ann@example.com", "bob@example.com", "cid@example.com")


def preheader(html: str) -> str:
    found = re.search(r'<div class="preheader"[^>]*>(.*?)</div>', html, flags=re.S)
    assert found, "the HTML part starts with a preheader"
    return " ".join(found.group(1).split())


def first_line(text: str) -> str:
    return text.lstrip("\n").splitlines()[0]


def play_a_whole_game(mail_app, new_game, seed: str = "2024") -> str:  # noqa: F811
    gid = new_game(seats=3, seed=seed).game_id
    rng = random.Random(7)
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    while True:
        snap = services.snapshot(gid)
        view = snap.view(None)
        if view["phase"] == "over":
            return gid
        seat = view["to_act"][0]
        services.submit_action(gid, seat, bots.choose("greedy", snap.state, seat, rng), snap.seq)
        clock.send_mail_due(mail_app, datetime.now(timezone.utc))


@pytest.mark.slow  # whole game over real SMTP
def test_every_mail_of_a_game_to_a_seat_is_one_conversation_that_says_what_it_asks_first(
        mail_app, smtp, new_game):  # noqa: F811
    play_a_whole_game(mail_app, new_game)
    leads: set[str] = set()
    for address in ADDRESSES:
        mails = smtp.to(address)
        assert len(mails) > 5, "invitation, turns, round ends, game over"
        subjects = {mail.subject for mail in mails}
        assert len(subjects) == 1, f"{address} got {len(subjects)} subjects: {sorted(subjects)}"
        [subject] = subjects
        assert subject.startswith("Silver Eye · ") and "Test game" in subject
        [invitation] = [m for m in mails if m.header("In-Reply-To") is None]
        root = invitation.header("Message-ID")
        for mail in mails:
            assert mail.header("Thread-Topic") == subject  # Outlook's conversation topic
            if mail is not invitation:
                assert mail.header("In-Reply-To") == root
                assert mail.header("References") == root
            lead = first_line(mail.text)
            assert lead == preheader(mail.html), "the preview says what the text says first"
            assert not lead.startswith("Hello"), lead
            leads.add(re.sub(r"\d+", "N", lead.split(":")[0]))
        turns = [first_line(m.text) for m in mails if first_line(m.text).startswith("Your turn: ")]
        assert turns, f"{address} was asked to play"
        assert all(re.fullmatch(r"Your turn: .+ \(round \d\) · due \w{3} \d+ \w{3} \d\d:\d\d \w+", t)
                   for t in turns), turns
    assert {"You are invited to play", "Your turn", "Round N is over",
            "The game is over"} <= leads, leads


def test_two_games_of_the_same_name_are_two_conversations(mail_app, smtp, new_game):  # noqa: F811
    new_game(seats=2, seed="1")
    new_game(seats=2, seed="2")
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    mails = smtp.to("ann@example.com")
    assert {m.subject for m in mails if m.header("In-Reply-To") is None} == {
        m.subject for m in mails}
    assert len({m.subject for m in mails}) == 2, "the id tells two 'Test game's apart"
    assert len({m.header("References") for m in mails if m.header("References")}) == 2
