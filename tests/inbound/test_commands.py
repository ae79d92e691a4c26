"""Commands and menus: every legal action has a command that reads back as itself."""
from __future__ import annotations

import random

import pytest

from app import engine
from app.mail import commands, menu
from app.inbound.reading import command_of, html_to_text, message_of
from tests.schema_drift import drift


def test_every_legal_action_of_random_games_round_trips_through_its_command():
    rng = random.Random(11)
    seen: set[str] = set()
    for game in range(12):
        state = engine.new_game(rng.choice((2, 3, 4)), rng.randrange(10**6))
        for _ in range(400):
            view = engine.view(state, None)
            if view["phase"] == "over":
                break
            seat = rng.choice(view["to_act"])
            legal = engine.legal_actions(state, seat)
            for action in legal:
                line = commands.command_for(action)
                assert commands.parse(line).action == action, line
                seen.add(str(action["type"]))
            state, _ = engine.apply_action(state, seat, rng.choice(legal))
    assert {"peek", "draw", "take", "exchange", "discard", "skip"} <= seen


@pytest.mark.parametrize("line, action", [
    ("D", {"type": "draw"}),
    ("  draw  ", {"type": "draw"}),
    ("t", {"type": "take"}),
    ("Call!", {"type": "call"}),
    ("s", {"type": "skip"}),
    ("x 2 5", {"type": "exchange", "positions": [1, 4]}),
    ("X 2, 5.", {"type": "exchange", "positions": [1, 4]}),
    ("exchange 2 5 into 2 right", {"type": "exchange", "positions": [1, 4], "into": 1,
                                   "end": "right"}),
    ("swap my card 3", {"type": "exchange", "positions": [2]}),
    ("Tanner LEFT", {"type": "tanner", "end": "left"}),
    ("twist 2 3", {"type": "twist", "seat": 1, "position": 2}),
    ("undermine pile 1", {"type": "undermine", "pile": 0}),
    ("gamble -1", {"type": "gamble", "value": -1}),
    ("look at 4", {"type": "look", "position": 3}),
])
def test_short_and_long_forms(line, action):
    assert commands.parse(line).action == action


@pytest.mark.parametrize("line, problem", [
    ("fly away", '"fly" is not a command we know.'),
    ("X", 'Say which of your cards, like "X 2" or "X 2 5".'),
    ("twist 2", '"twist" needs a card number.'),
    ("D 3", '"3" is more than "draw" takes.'),
    ("tanner up", '"up" should be left or right.'),
    ("X 0", '"0" is not a card number: numbers count from 1, as in the menu.'),
    ("twist 0 2", '"0" is not a player number: numbers count from 1, as in the menu.'),
])
def test_lines_that_are_not_commands_say_why(line, problem):
    parsed = commands.parse(line)
    assert parsed.action is None and not parsed.help and parsed.problem == problem


@pytest.mark.parametrize("engine_words, mail_words", [
    ("There is no card at position 8: that village has 5 cards (0 to 4).",
     "There is no card #9: that village has 5 cards (#1 to #5)."),
    ("Position 3 is not one of your facedown cards.",
     "Card #4 is not one of your facedown cards."),
    ("There is no village 4: villages are numbered 0 to 2.",
     "There is no player 5: players are numbered 1 to 3."),
    ("The deck has 12 cards (0 = top to 11).", "The deck has 12 cards (1 = top to 12)."),
])
def test_the_engines_refusals_count_from_one_in_a_mail(engine_words, mail_words):
    # issue 17 item 4: the mail says "Cards count from 1", so its answers do too
    assert commands.mail_words(engine_words) == mail_words


def test_the_first_line_that_reads_as_a_command_wins():
    message = message_of(b"From: a@b.c\r\nSubject: Re: x\r\n\r\nHello!\r\nD\r\nC\r\n")
    assert command_of(message).action == {"type": "draw"}


def test_quoted_lines_and_signatures_are_not_read():
    message = message_of(b"From: a@b.c\r\n\r\n> D\r\n\r\n-- \r\nC\r\n")
    parsed = command_of(message)
    assert parsed.action is None and parsed.problem == "The reply has no text we could read."


def test_html_loses_its_quoted_blocks_and_keeps_its_lines():
    """Each quoted block leaves one ">" line where it stood (issue 45 item 5: where the
    person's own words end, as in a plain reply), never its words."""
    text = html_to_text('<div>X 1</div><div>thanks</div><blockquote>D</blockquote>'
                        '<div class="gmail_quote">On Monday: <b>C</b></div>')
    assert [line for line in text.split("\n") if line] == ["X 1", "thanks", ">", ">"]


def test_a_big_decision_is_one_pattern_line_not_hundreds():
    view = {"to_act": [0], "legal_actions": [{"type": "twist", "seat": s, "position": p}
                                             for s in range(4) for p in range(6)]}
    built = menu.build(view, 0, "play+t@example.org", ["Ann", "Bob", "Cid", "Dee"])
    assert [item.command for item in built.items] == ["twist 1 1", "help"]
    assert "24 choices" in built.items[0].words
    assert built.items[0].mailto == "mailto:play+t@example.org?body=twist%201%201"


def test_no_decision_no_menu():
    assert not menu.build({"to_act": [1], "legal_actions": []}, 0, "play+t@x.org", ["A", "B"])


def test_the_inbox_migration_matches_the_model(database_url):
    assert drift(database_url, {"inbox"}) == []
