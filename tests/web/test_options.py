"""Issue 9, item 2: one validator bounds every game option, and the worst options the
lobby accepts cannot flood an inbox.

The attack made one game with 300 reminders and a 0.02-hour deadline (379 mails
to one address in 95 s) and one with 6,000 reminders (12,000 rows at creation).
Now ``app.services.options`` refuses both, for the lobby, the CLI and the service alike,
and a simulated week of the worst game the lobby still accepts (an idle player
against bots, with the injected clock) mails each seat at most
``MAX_MAILS_PER_SEAT_PER_DAY`` a day: the number docs/security.md states.
"""
from __future__ import annotations

import collections
import html
import re
from datetime import timedelta
from pathlib import Path

import pytest

from app import services
from app.runners import clock
from app.clock import deadlines as dl
from app.services import options
from tests.clock.conftest import T0, Recorder
from tests.web.test_pages import lobby_form

ROOT = Path(__file__).resolve().parents[2]

#: The worst the lobby accepts for mail: a 4-hour time to move with three
#: reminders an hour apart (a mail every hour of a decision), ten missed
#: deadlines before a seat counts as away, Simon claimed by hand.
WORST = {"deadline": "4", "deadline_unit": "hours", "reminders": "3, 2, 1",
         "absent_after": str(options.ABSENT_AFTER_MAX), "seat0_simon": "off"}


def page_text(answer) -> str:
    return html.unescape(answer.get_data(as_text=True))


@pytest.mark.parametrize("fields, words", [
    ({"deadline": "0.02", "deadline_unit": "hours"}, "at least an hour"),
    ({"reminders": ",".join(["1"] * 300)}, "At most 3 reminders"),
    ({"reminders": "4, 3, 2, 1", "deadline": "5", "deadline_unit": "hours"}, "At most 3"),
    ({"reminders": "half, 2.5", "deadline": "5", "deadline_unit": "hours"}, "1 hour apart"),
    ({"reminders": "0.25", "deadline": "5", "deadline_unit": "hours"}, "at least 1 hour before"),
    ({"reminders": "half", "deadline": "1", "deadline_unit": "hours"}, "less than 1 hour"),
    ({"absent_after": str(options.ABSENT_AFTER_MAX + 1)}, "whole number from 1 to 10"),
    ({"absent_after": "2.5"}, "whole number"),
])
def test_the_lobby_refuses_options_out_of_range_and_creates_nothing(client, db, fields, words):
    form = lobby_form([("Ann", "ann@example.com", "human"), ("Bob", "", "human")], client,
                      **fields)
    answer = client.post("/", data=form)
    assert answer.status_code == 400
    assert words in page_text(answer)
    assert db.count("game") == 0 and db.count("deadline") == 0


@pytest.mark.parametrize("bad, words", [
    ({"reminders": ["half"] + [0.5 + i for i in range(6000)]}, "At most 3 reminders"),
    ({"deadline_hours": 0.02}, "at least an hour"),
    ({"deadline_hours": 24 * 31}, "at most 30 days"),
    ({"deadline_hours": 24, "deadline_days": 1}, "not both"),
    ({"deadline_hours": "24"}, "must be a number"),
    ({"deadline_hours": float("nan")}, "must be a number"),
    ({"reminders": "half"}, "a list"),
    ({"reminders": [True]}, "not a number of hours"),
    ({"absent_after": True}, "whole number"),
    ({"vacation_days": 365}, "from 0 to 30"),
    ({"simon": ["off"]}, "one per seat"),
    ({"memory": "yes"}, "true"),
    ({"junk": "x" * 60_000}, "Unknown game option “junk”"),
])
def test_the_service_refuses_the_same_options_for_any_caller(app, db, bad, words):
    with pytest.raises(services.BadRequest, match=re.escape(words)):
        services.create_game([{"name": "Ann"}, {"name": "Bob"}], bad)
    assert db.count("game") == 0


def test_the_cli_refuses_them_too(runner, db):
    result = runner.invoke(args=["create-game", "-p", "Ann", "-p", "Bob",
                                 "--option", "reminders=[1,1,1,1,1,1]"])
    assert result.exit_code != 0 and "At most 3 reminders" in result.output
    assert db.count("game") == 0


def test_short_deadlines_drop_the_default_reminders_that_would_come_too_close(app):
    created = services.create_game([{"name": "Ann"}, {"name": "Bob"}], {"deadline_hours": 1})
    assert created.snapshot.game.options == {"deadline_hours": 1, "reminders": []}
    kept = services.create_game([{"name": "Ann"}, {"name": "Bob"}], {"deadline_hours": 24})
    assert kept.snapshot.game.options == {"deadline_hours": 24}


@pytest.mark.parametrize("seats", [
    [("Ann", "ann@example.com", "human"), ("", "", "bot")],
    [("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human"),
     ("", "", "bot"), ("", "", "bot")],
], ids=["one-player-and-a-bot", "two-players-and-two-bots"])
@pytest.mark.slow  # a week of clock ticks every 15 minutes
def test_a_week_of_the_worst_accepted_options_stays_within_the_daily_mail_bound(
        app, client, db, seats):
    with dl.at(T0):
        answer = client.post("/", data=lobby_form(seats, client, **WORST))
    assert answer.status_code == 303, page_text(answer)
    mailbox = Recorder()
    per_day: dict[tuple[str, int], int] = collections.Counter()
    step = timedelta(minutes=15)
    moment = T0
    while moment <= T0 + timedelta(days=7):
        before = len(mailbox.sent)
        clock.tick(app, moment, backend=mailbox)
        for _, message in mailbox.sent[before:]:
            per_day[(str(message["To"]), (moment - T0).days)] += 1
        moment += step
    assert per_day, "the idle players were mailed (or the test proves nothing)"
    worst = max(per_day.values())
    print(f"\nworst options {WORST}: most mails to one seat in one day = {worst} "
          f"(bound {options.MAX_MAILS_PER_SEAT_PER_DAY}); total {len(mailbox.sent)}")
    assert worst <= options.MAX_MAILS_PER_SEAT_PER_DAY, per_day
    assert worst >= options.MAX_DECISION_MAILS_PER_SEAT_PER_DAY // 2, "the worst case was reached"


def test_docs_security_states_the_limits_these_tests_hold():
    text = (ROOT / "docs" / "security.md").read_text()
    for number in (f"{options.MAX_MAILS_PER_SEAT_PER_DAY} mails", f"{options.MAX_REMINDERS} reminders",
                   f"{options.ABSENT_AFTER_MAX} missed", "30 days", "one hour"):
        assert number in text, number
