"""A clock that fits a week (issue 21 items 1 and 2), with an injected clock.

Quiet hours are a person's own, in their zone (issue 32: the same in every game of
theirs): no mail leaves in them (held, collapsed, sent at their end) and no deadline of
the seat falls in them. Running days are the
game's: no time is counted on the other days (in each seat's zone). A time bank gives
each decision an allowance, and what a seat takes past it comes off its bank.
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any, Callable
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from app import engine, services
from app.clock import deadlines as dl
from app.db import read_session
from app.mail.models import SUPERSEDED, Outbox
from app.services import person_settings

from .conftest import hours

BERLIN = ZoneInfo("Europe/Berlin")
ANN, BOB = "ann@example.com", "bob@example.com"


def berlin(*when: int) -> datetime:
    """A Berlin wall-clock moment, as aware UTC."""
    return datetime(*when, tzinfo=BERLIN).astimezone(timezone.utc)


def quiet_in_berlin(moment: datetime) -> bool:
    local = moment.astimezone(BERLIN)
    return local.hour >= 22 or local.hour < 8


def decision(gid: str, seat: int) -> datetime | None:
    with read_session() as session:
        rows = dl.open_rows(session, gid, seat, dl.DECISION)
        return dl.as_utc(rows[0].due_at) if rows else None


def reminders(gid: str, seat: int) -> list[datetime]:
    with read_session() as session:
        return [dl.as_utc(r.due_at) for r in dl.open_rows(session, gid, seat, dl.REMINDER)]


def log_of(gid: str) -> list[tuple[int, str, str]]:
    from app.gamelog import store
    with read_session() as session:
        return [(r.seat, r.action["type"], r.source) for r in store.load_actions(session, gid)]


def make_game(at: datetime, new_game: Callable[..., Any], **options: Any) -> str:
    with dl.at(at):
        return new_game(**options).game_id


def move(gid: str, seat: int, at: datetime, rng: random.Random | None = None) -> None:
    """``seat`` makes a legal move at ``at`` (a draw is followed by its discard later)."""
    snap = services.snapshot(gid)
    legal = engine.legal_actions(snap.state, seat)
    action = rng.choice(legal) if rng else next(
        (a for a in legal if a["type"] in ("peek", "draw", "discard", "skip")), legal[0])
    with dl.at(at):
        services.submit_action(gid, seat, action, snap.seq)


def whole_turn(gid: str, seat: int, at: datetime) -> None:
    """``seat`` plays until it has no decision any more (a draw, then its discard...)."""
    for _ in range(12):
        if seat not in services.snapshot(gid).view(None)["to_act"]:
            return
        move(gid, seat, at)


class Timed:
    """The clock's mail, each with the moment it was handed over (the tick's "now")."""

    def __init__(self, tick: Callable[..., Any], mailbox: Any) -> None:
        self.tick, self.mailbox = tick, mailbox
        self.sent: list[tuple[datetime, EmailMessage]] = []

    def at(self, now: datetime) -> Any:
        before = len(self.mailbox.sent)
        report = self.tick(now)
        self.sent += [(now, message) for _, message in self.mailbox.sent[before:]]
        return report

    def until(self, then: datetime, last: datetime) -> None:
        """A running clock between ``last`` and ``then``: it ticks at every 08:00 Berlin
        in between too (when Ann's quiet hours end), as a clock ticking every few
        seconds would, then at ``then``."""
        morning = last.astimezone(BERLIN).replace(hour=8, minute=0, second=0, microsecond=0)
        while morning.astimezone(timezone.utc) <= then:
            if morning.astimezone(timezone.utc) > last:
                self.at(morning.astimezone(timezone.utc))
            morning = (morning + timedelta(days=1)).replace(hour=8)
        self.at(then)

    def to(self, address: str) -> list[tuple[datetime, EmailMessage]]:
        return [(at, m) for at, m in self.sent if address in str(m["To"])]


# -- quiet hours ---------------------------------------------------------------------------

def test_a_deadline_that_would_fall_at_three_in_berlin_falls_at_eight(new_game, tick):
    """Ann (Berlin, quiet 22:00–08:00) gets her turn at 20:00 Berlin with 7 hours to
    move: it would be due at 03:00, so it falls due at 08:00, her quiet hours' end."""
    start = berlin(2030, 1, 7, 10, 0)            # a Monday
    gid = make_game(start, new_game, deadline_hours=7, reminders=["half", 2], first=1)
    person_settings.set_time_zone(ANN, "Europe/Berlin")
    person_settings.set_quiet(ANN, "22:00", "08:00", now=start)
    whole_turn(gid, 0, start)                     # Ann's peek; Bob begins (R50: first=1)
    whole_turn(gid, 1, berlin(2030, 1, 7, 20, 0))
    assert services.snapshot(gid).view(None)["current"] == 0
    assert decision(gid, 0) == berlin(2030, 1, 8, 8, 0)
    # reminders come before her quiet hours, never in them
    assert reminders(gid, 0) and not any(quiet_in_berlin(at) for at in reminders(gid, 0))
    assert all(at < berlin(2030, 1, 7, 22, 0) for at in reminders(gid, 0))
    tick(berlin(2030, 1, 8, 3, 0))
    assert ("timeout" not in {src for seat, _, src in log_of(gid) if seat == 0})
    tick(berlin(2030, 1, 8, 7, 59))
    assert ("timeout" not in {src for seat, _, src in log_of(gid) if seat == 0})
    tick(berlin(2030, 1, 8, 8, 0))
    assert (0, "pass", "timeout") in log_of(gid), "played at 08:00 as the rules say (R29)"


def test_the_same_across_the_october_dst_night(new_game, tick):
    """On the night the clocks go back (Europe: Sunday 27 October 2030, 03:00 CEST ->
    02:00 CET), 08:00 is 07:00 UTC, not 06:00: the deadline follows the wall clock."""
    start = berlin(2030, 10, 26, 10, 0)          # Saturday, CEST
    gid = make_game(start, new_game, deadline_hours=7, reminders=[], first=1)
    person_settings.set_time_zone(ANN, "Europe/Berlin")
    person_settings.set_quiet(ANN, "22:00", "08:00", now=start)
    whole_turn(gid, 0, start)
    whole_turn(gid, 1, berlin(2030, 10, 26, 20, 0))   # 18:00 UTC; naive due 01:00 UTC
    due = decision(gid, 0)
    assert due == datetime(2030, 10, 27, 7, 0, tzinfo=timezone.utc)
    assert due.astimezone(BERLIN).hour == 8 and due.astimezone(BERLIN).tzname() == "CET"
    tick(datetime(2030, 10, 27, 6, 30, tzinfo=timezone.utc))   # 07:30 CET
    assert (0, "pass", "timeout") not in log_of(gid)
    tick(due)
    assert (0, "pass", "timeout") in log_of(gid)


def test_quiet_hours_set_while_a_deadline_waits_move_it_out_of_them_never_earlier(new_game):
    start = berlin(2030, 1, 7, 18, 0)
    gid = make_game(start, new_game, deadline_hours=9, reminders=[])
    before = decision(gid, 0)
    assert before == berlin(2030, 1, 8, 3, 0)
    person_settings.set_time_zone(ANN, "Europe/Berlin")
    person_settings.set_quiet(ANN, "22:00", "08:00", now=start)
    assert decision(gid, 0) == berlin(2030, 1, 8, 8, 0)
    person_settings.set_quiet(ANN, "", "", now=start)       # none: nothing moves back
    assert decision(gid, 0) == berlin(2030, 1, 8, 8, 0)


def test_quiet_hours_are_checked_in_words(new_game):
    gid = make_game(berlin(2030, 1, 7, 10, 0), new_game)
    for start, end, words in (("22:00", "", "both ends"), ("25:00", "08:00", "time of day"),
                              ("06:00", "23:30", "at most 16 hours")):
        try:
            person_settings.set_quiet(ANN, start, end)
        except services.BadRequest as exc:
            assert words in exc.message, exc.message
        else:
            raise AssertionError(f"{start}–{end} was accepted")


@pytest.mark.slow  # whole game at all hours
def test_a_berlin_seat_with_quiet_hours_gets_no_mail_in_them_over_a_whole_game(
        new_game, tick, mailbox):
    """Ann (Berlin, 22:00–08:00) and Bob (no quiet hours) play a whole game at all hours:
    decisions open at night, Bob plays at 02:00 and 23:00. Not one mail reaches Ann in
    her quiet hours; what was held reaches her at 08:00, the older turn mails collapsed
    into the newest; Bob's mail is never held."""
    rng = random.Random(21)
    start = berlin(2030, 1, 7, 9, 0)
    gid = make_game(start, new_game, deadline_hours=72, reminders=["half", 2])
    person_settings.set_time_zone(ANN, "Europe/Berlin")
    person_settings.set_quiet(ANN, "22:00", "08:00", now=start)
    timed = Timed(tick, mailbox)
    now = start
    timed.at(now)
    for _ in range(3000):
        snap = services.snapshot(gid)
        view = snap.view(None)
        if view["phase"] == "over":
            break
        last, now = now, now + timedelta(minutes=rng.choice([7, 25, 50, 95, 180, 330]))
        timed.until(now, last)
        view = services.snapshot(gid).view(None)
        if view["phase"] == "over" or not view["to_act"]:
            continue
        seat = rng.choice(view["to_act"])
        if seat == 0 and quiet_in_berlin(now) and rng.random() < 0.8:
            continue  # Ann mostly sleeps at night (but not always)
        move(gid, seat, now, rng)
    for _ in range(6):  # what is still held leaves at the end of the quiet hours
        last, now = now, now + hours(6)
        timed.until(now, last)
    assert services.snapshot(gid).view(None)["phase"] == "over"
    to_ann = timed.to(ANN)
    assert len(to_ann) > 20
    in_quiet = [(at.astimezone(BERLIN).isoformat(), m["Subject"]) for at, m in to_ann
                if quiet_in_berlin(at)]
    assert in_quiet == []
    assert any(at.astimezone(BERLIN).strftime("%H:%M") == "08:00" for at, _ in to_ann), \
        "held mail left when her quiet hours ended"
    assert any(quiet_in_berlin(at) for at, _ in timed.to(BOB)), "Bob's mail is not held"
    with read_session() as session:
        collapsed = session.exec(select(Outbox.id).where(
            Outbox.game_id == gid, Outbox.seat == 0, Outbox.status == SUPERSEDED)).all()
        held = session.exec(select(Outbox.seat).where(Outbox.game_id == gid,
                                                      Outbox.held_why == "quiet")).all()
    assert held and set(held) == {0}, "only Ann's mail waits for her quiet hours' end"
    assert collapsed, "stale turn mails held overnight were not sent"


# -- running days --------------------------------------------------------------------------

def test_a_deadline_opened_friday_evening_with_weekdays_only_waits_for_monday(new_game, tick):
    """48 hours, weekdays only: a decision opened Friday 19:00 (Berlin) has 5 hours of
    Friday, none of the weekend, and falls due Tuesday 19:00."""
    friday = berlin(2030, 1, 11, 19, 0)
    gid = make_game(berlin(2030, 1, 11, 10, 0), new_game, deadline_hours=48, reminders=[],
                    clock_days=[0, 1, 2, 3, 4], first=1)
    for address in (ANN, BOB):
        person_settings.set_time_zone(address, "Europe/Berlin")
    whole_turn(gid, 0, berlin(2030, 1, 11, 10, 0))
    whole_turn(gid, 1, friday)
    due = decision(gid, 0)
    assert due == berlin(2030, 1, 15, 19, 0)
    tick(berlin(2030, 1, 13, 23, 59))            # all weekend: nothing
    tick(berlin(2030, 1, 14, 12, 0))             # Monday noon: still time left
    assert (0, "pass", "timeout") not in log_of(gid)
    tick(due)
    assert (0, "pass", "timeout") in log_of(gid)


def test_running_days_are_validated_in_words(new_game):
    for days, words in (([], "at least one"), ([7], "0"), ("someday", "day")):
        try:
            new_game(clock_days=days)
        except services.BadRequest as exc:
            assert words.lower() in exc.message.lower(), exc.message
        else:
            raise AssertionError(f"{days!r} was accepted")


# -- the time bank ---------------------------------------------------------------------------

def bank_left(gid: str, seat: int) -> int:
    settings = dl.ClockSettings.from_options(services.game_info(gid).options)
    with read_session() as session:
        clock = session.exec(select(dl.SeatClock).where(dl.SeatClock.game_id == gid,
                                                        dl.SeatClock.seat == seat)).first()
        return int(settings.bank_left(clock).total_seconds())


def open_window(gid: str, seat: int) -> tuple[datetime, datetime]:
    """When the seat's open decision opened, and when it falls due."""
    with read_session() as session:
        row = dl.open_rows(session, gid, seat, dl.DECISION)[0]
        return dl.as_utc(row.opened_at), dl.as_utc(row.due_at)


@pytest.mark.slow  # whole game
def test_a_time_bank_over_a_whole_game(new_game, tick, client):
    """Bank 1 day, 2 hours per decision, reminders when 3 and 1 hours are left. Ann
    always answers 5 hours after her decision opens: 3 hours come off her bank each
    time, until it is empty; then her decisions have their 2 hours, she misses them,
    and the clock plays them for her as it always did (R29). Bob always answers within
    half an hour: his bank stays full, his allowance comes back whole every time."""
    start = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)
    gid = make_game(start, new_game, bank_days=1, allowance_hours=2, reminders=[3, 1],
                    absent_after=10)
    full = 24 * 3600
    first_due = decision(gid, 0)
    assert first_due == start + hours(2) + hours(24), "the allowance plus the whole bank"
    assert reminders(gid, 0) == [first_due - hours(3), first_due - hours(1)], \
        "reminders follow the time left"
    now = start
    charged: list[int] = []
    timeouts = 0
    for _ in range(600):
        view = services.snapshot(gid).view(None)
        if view["phase"] == "over":
            break
        if 1 in view["to_act"]:
            now += timedelta(minutes=30)
            whole_turn(gid, 1, now)
            assert bank_left(gid, 1) == full
            continue
        opened, due = open_window(gid, 0)
        left = bank_left(gid, 0)
        assert due == opened + hours(2) + timedelta(seconds=left)
        if opened + hours(5) < due:
            now = opened + hours(5)
            whole_turn(gid, 0, now)
            charged.append(left - bank_left(gid, 0))
        else:
            now = due
            tick(now)  # her bank is spent: the clock plays the decision (R29)
            assert bank_left(gid, 0) == 0
            timeouts += 1
    # 3 hours past each 2-hour allowance, seven times (21 of her 24 hours); the eighth
    # time her last 3 hours run out just as she would answer: the clock plays it
    assert charged == [3 * 3600] * 7, charged
    assert bank_left(gid, 0) == 0 and timeouts > 0
    assert any(seat == 0 and src == "timeout" for seat, _, src in log_of(gid))
    # the bank is shown to everyone: a seat's JSON and the public page
    table = client.get(f"/api/play/{services.seat_tokens(gid)[1]}/table").get_json()
    assert [row["bank"]["seconds"] for row in table["seats"]] == [0, full]
    assert "Time bank" in client.get(f"/games/{gid}").get_data(as_text=True)
