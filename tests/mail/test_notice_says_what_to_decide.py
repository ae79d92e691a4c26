"""Notices that say what to decide and by when (issue 49 item 1): for every decision the
engine asks, in two readers' zones, the turn mail's first line and every channel's short
form (a push carries the same) say the decision and the deadline in the reader's zone,
in one vocabulary: the notice line is the mail's own lead after the game's name. The
words are the decision's kind, the round and the time: no card a seat knows privately
can be in them (the lead is built from public words only)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from app.channels.deliveries import short_form
from app.engine import words
from app.mail.compose import LEAD_WORDS, turn_lead, short_time_words

DUE = datetime(2026, 12, 8, 17, 0, tzinfo=timezone.utc)
ZONES = {"Europe/Berlin": "Tue 8 Dec 18:00 CET", "Asia/Tokyo": "Wed 9 Dec 02:00 JST"}
#: Every decision the engine asks of a seat (its short names), and the plain turn.
DECISIONS = sorted(set(words.SUBJECT_WORDS) | {"turn"})


def notice_of(kind: str, lead: str) -> tuple[str, str]:
    row = SimpleNamespace(kind=kind, text=f"{lead}\n\nHello Ann,\nthe rest of the mail",
                          announces={"round": 2})
    return short_form(row, "Friday game")


@pytest.mark.parametrize("zone", sorted(ZONES))
@pytest.mark.parametrize("decision", DECISIONS)
def test_every_turn_notice_names_the_decision_and_its_deadline(decision: str,
                                                                zone: str) -> None:
    due = short_time_words(DUE, ZoneInfo(zone))
    assert due == ZONES[zone]
    lead = turn_lead(2, decision, has_decision=True, reminder=False, digest=False,
                     deadline="", others=[], due=due)
    assert lead == f"Your turn: {LEAD_WORDS[decision]} (round 2) · due {ZONES[zone]}"
    title, line = notice_of("turn", lead)
    assert line == f"Friday game · {lead}"  # the mail's first line, word for word
    assert title.startswith("Silver Eye · Friday game")


@pytest.mark.parametrize("zone", sorted(ZONES))
@pytest.mark.parametrize("decision", DECISIONS)
def test_every_reminder_says_how_long_is_left_and_what_the_clock_then_does(decision: str, zone: str) -> None:
    due = short_time_words(DUE, ZoneInfo(zone))
    then = words.timeout_words(decision)
    lead = turn_lead(2, decision, has_decision=True, reminder=True, digest=False,
                     deadline="(long form)", others=[], due=due, left="in 2 hours",
                     clock=then)
    assert lead == (f"Reminder, your turn: {LEAD_WORDS[decision]} (round 2) · due "
                    f"{ZONES[zone]}, 2 hours left, then {then}")
    assert then.startswith("the clock ") and "default" not in then
    _, line = notice_of("reminder", lead)
    assert line == f"Friday game · {lead}"


def test_a_turn_mail_that_asks_nothing_says_so_in_its_notice_too() -> None:
    lead = turn_lead(2, None, has_decision=False, reminder=False, digest=False,
                     deadline="", others=["Bob"])
    _, line = notice_of("turn", lead)
    assert line == "Friday game · Round 2: nothing waits for you; waiting for Bob"
    bare = SimpleNamespace(kind="turn", text="", announces={"round": 2})  # no text kept
    assert short_form(bare, "Friday game")[1] == "It is your turn in Friday game (round 2)."


def test_the_short_time_is_the_readers_wall_time() -> None:
    summer = datetime(2027, 7, 6, 16, 30, tzinfo=timezone.utc)
    assert short_time_words(summer, ZoneInfo("Europe/Berlin")) == "Tue 6 Jul 18:30 CEST"
    assert short_time_words(summer, None) == "Tue 6 Jul 16:30 UTC"
    assert short_time_words(summer + timedelta(hours=8), ZoneInfo("America/New_York")) \
        == "Tue 6 Jul 20:30 EDT"
