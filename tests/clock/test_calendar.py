"""A seat's calendar (issue 21 item 1): running days, quiet hours, across DST changes.

Dates of 2026: Europe/Berlin leaves summer time on Sunday 25 October (03:00 CEST ->
02:00 CET, at 01:00 UTC) and enters it on Sunday 29 March (02:00 CET -> 03:00 CEST, at
01:00 UTC); America/New_York leaves it on Sunday 1 November (02:00 EDT -> 01:00 EST);
Australia/Sydney is on summer time (UTC+11) in December.
"""
from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.clock.calendar import ALL_DAYS, Calendar, Quiet, days_words, parse_days

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
SYDNEY = ZoneInfo("Australia/Sydney")
NIGHT = (22 * 60, 8 * 60)
WEEKDAYS = [0, 1, 2, 3, 4]


def berlin(*when: int) -> datetime:
    return datetime(*when, tzinfo=BERLIN).astimezone(timezone.utc)


def utc(*when: int) -> datetime:
    return datetime(*when, tzinfo=timezone.utc)


def local(moment: datetime | None, zone: ZoneInfo = BERLIN) -> str:
    assert moment is not None
    assert moment.utcoffset() == timedelta(0), "the calendar answers in UTC"
    return moment.astimezone(zone).strftime("%a %d %b %H:%M %Z")


# -- quiet hours -----------------------------------------------------------------------


def test_a_deadline_that_would_fall_at_three_falls_when_the_quiet_hours_end():
    calendar = Calendar.of("Europe/Berlin", NIGHT)
    assert local(calendar.settle(berlin(2026, 12, 2, 3, 0))) == "Wed 02 Dec 08:00 CET"
    assert local(calendar.due(berlin(2026, 12, 1, 20, 0), timedelta(hours=7))) == \
        "Wed 02 Dec 08:00 CET"
    assert calendar.settle(berlin(2026, 12, 2, 9, 0)) == berlin(2026, 12, 2, 9, 0)
    assert calendar.settle(berlin(2026, 12, 2, 8, 0)) == berlin(2026, 12, 2, 8, 0)  # end excluded


def test_the_same_deadline_falls_at_eight_local_across_the_october_dst_night():
    calendar = Calendar.of("Europe/Berlin", NIGHT)
    # opened Saturday 20:00 CEST; 7 real hours later the clocks show 02:00 CET
    due = calendar.due(berlin(2026, 10, 24, 20, 0), timedelta(hours=7))
    assert due == utc(2026, 10, 25, 7, 0)
    assert local(due) == "Sun 25 Oct 08:00 CET"
    after_the_fold = utc(2026, 10, 25, 1, 30)   # 02:30 CET, the second 02:30
    assert calendar.is_quiet(after_the_fold)
    assert calendar.settle(after_the_fold) == utc(2026, 10, 25, 7, 0)
    # the night is eleven real hours long
    assert calendar.quiet_end(after_the_fold) - calendar.quiet_start(after_the_fold) == \
        timedelta(hours=11)


def test_the_same_deadline_falls_at_eight_local_across_the_march_dst_night():
    calendar = Calendar.of("Europe/Berlin", NIGHT)
    due = calendar.due(berlin(2026, 3, 28, 20, 0), timedelta(hours=7))   # 04:00 CEST
    assert due == utc(2026, 3, 29, 6, 0)
    assert local(due) == "Sun 29 Mar 08:00 CEST"
    spring = utc(2026, 3, 29, 1, 30)                                      # 03:30 CEST
    assert calendar.quiet_end(spring) - calendar.quiet_start(spring) == timedelta(hours=9)


def test_new_york_quiet_hours_end_at_eight_est_after_its_clocks_go_back():
    calendar = Calendar.of("America/New_York", NIGHT)
    three_est = utc(2026, 11, 1, 8, 0)
    assert local(calendar.settle(three_est), NEW_YORK) == "Sun 01 Nov 08:00 EST"
    assert calendar.settle(three_est) == utc(2026, 11, 1, 13, 0)
    assert local(calendar.quiet_start(three_est), NEW_YORK) == "Sat 31 Oct 22:00 EDT"


def test_quiet_hours_ending_in_the_repeated_hour_end_the_first_time_it_is_shown():
    # quiet 22:00-02:30 on the October night: over at 02:30 CEST, not again at 02:00 CET
    calendar = Calendar.of("Europe/Berlin", (22 * 60, 2 * 60 + 30))
    first_pass, second_pass = utc(2026, 10, 25, 0, 10), utc(2026, 10, 25, 1, 10)  # 02:10 twice
    assert calendar.is_quiet(first_pass)
    assert local(calendar.mail_at(first_pass)) == "Sun 25 Oct 02:30 CEST"
    assert not calendar.is_quiet(second_pass)
    assert calendar.mail_at(second_pass) == second_pass     # not held until the next night


def test_quiet_hours_starting_in_the_repeated_hour_run_through_it():
    calendar = Calendar.of("Europe/Berlin", (2 * 60 + 30, 8 * 60))
    second_pass = utc(2026, 10, 25, 1, 10)                  # 02:10 CET, after 02:30 CEST
    assert calendar.is_quiet(second_pass)
    assert local(calendar.quiet_start(second_pass)) == "Sun 25 Oct 02:30 CEST"
    assert local(calendar.quiet_end(second_pass)) == "Sun 25 Oct 08:00 CET"


def test_a_wall_time_in_the_spring_gap_means_the_first_instant_after_it():
    calendar = Calendar.of("Europe/Berlin", (1 * 60, 2 * 60 + 30))   # quiet 01:00-02:30
    in_quiet = utc(2026, 3, 29, 0, 30)                                # 01:30 CET
    end = calendar.quiet_end(in_quiet)
    assert end == utc(2026, 3, 29, 1, 0)                              # 03:00 CEST
    assert local(end) == "Sun 29 Mar 03:00 CEST"
    assert not calendar.is_quiet(end)


def test_quiet_hours_wholly_in_the_spring_gap_are_empty_that_night_only():
    calendar = Calendar.of("Europe/Berlin", (2 * 60 + 15, 2 * 60 + 45))
    for minute in range(0, 24 * 60, 5):
        moment = utc(2026, 3, 28, 22, 0) + timedelta(minutes=minute)
        assert not calendar.is_quiet(moment), local(moment)
    assert calendar.is_quiet(berlin(2026, 3, 30, 2, 20))


def test_quiet_hours_that_do_not_wrap_midnight():
    calendar = Calendar.of("America/New_York", (13 * 60, 14 * 60))
    half_past_one = datetime(2026, 11, 2, 13, 30, tzinfo=NEW_YORK)
    assert calendar.is_quiet(half_past_one)
    assert local(calendar.mail_at(half_past_one), NEW_YORK) == "Mon 02 Nov 14:00 EST"
    assert local(calendar.settle(half_past_one), NEW_YORK) == "Mon 02 Nov 14:00 EST"
    assert not calendar.is_quiet(half_past_one.replace(hour=12))
    assert not calendar.is_quiet(half_past_one.replace(hour=23))   # no wrapping
    assert Quiet.parse("13:00", "14:00").hours() == 1


# -- running days ----------------------------------------------------------------------


def test_weekdays_only_a_friday_evening_decision_is_due_tuesday_evening():
    calendar = Calendar.of("Europe/Berlin", None, WEEKDAYS)
    friday = berlin(2026, 12, 4, 19, 0)
    due = calendar.due(friday, timedelta(hours=48))
    assert local(due) == "Tue 08 Dec 19:00 CET"
    assert calendar.used(friday, due) == timedelta(hours=48)
    # five hours on Friday, none over the weekend, whenever during it one looks
    for hour in range(0, 49, 3):
        assert calendar.used(friday, berlin(2026, 12, 5, 0, 0) + timedelta(hours=hour)) == \
            timedelta(hours=5)
    # never due before Monday, even with only Friday's hours and a minute more
    assert local(calendar.due(friday, timedelta(hours=5, minutes=1))) == "Mon 07 Dec 00:01 CET"
    assert local(calendar.due(friday, timedelta(hours=5))) == "Mon 07 Dec 00:00 CET"


def test_weekdays_only_a_decision_opened_on_saturday_starts_counting_monday():
    calendar = Calendar.of("Europe/Berlin", None, WEEKDAYS)
    saturday = berlin(2026, 12, 5, 10, 0)
    assert local(calendar.add(saturday, timedelta(0))) == "Mon 07 Dec 00:00 CET"
    assert local(calendar.due(saturday, timedelta(hours=1))) == "Mon 07 Dec 01:00 CET"
    assert calendar.used(saturday, berlin(2026, 12, 7, 0, 0)) == timedelta(0)
    wednesday = berlin(2026, 12, 9, 10, 0)
    assert calendar.add(wednesday, timedelta(0)) == wednesday


def test_used_over_a_weekend_counts_weekdays_only_and_undoes_add():
    calendar = Calendar.of("Europe/Berlin", None, WEEKDAYS)
    thursday = berlin(2026, 12, 3, 12, 0)
    next_tuesday = berlin(2026, 12, 8, 12, 0)
    assert calendar.used(thursday, next_tuesday) == timedelta(hours=72)
    assert calendar.add(thursday, timedelta(hours=72)) == next_tuesday
    assert calendar.used(next_tuesday, thursday) == timedelta(0)


def test_running_days_are_counted_in_the_seats_own_zone():
    # Friday 19:00 in Berlin is already Saturday 05:00 in Sydney: a Sydney seat's
    # weekday clock waits for its own Monday
    sydney = Calendar.of("Australia/Sydney", NIGHT, WEEKDAYS)
    friday_in_berlin = berlin(2026, 12, 4, 19, 0)
    assert local(friday_in_berlin, SYDNEY) == "Sat 05 Dec 05:00 AEDT"
    assert local(sydney.add(friday_in_berlin, timedelta(0)), SYDNEY) == "Mon 07 Dec 00:00 AEDT"
    # 48 h from Monday 00:00 is Wednesday 00:00, quiet: it falls at 08:00
    assert local(sydney.due(friday_in_berlin, timedelta(hours=48)), SYDNEY) == \
        "Wed 09 Dec 08:00 AEDT"


def test_a_running_day_lasts_as_long_as_it_really_does():
    sundays = Calendar.of("Europe/Berlin", None, [6])
    assert sundays.used(berlin(2026, 10, 24, 0, 0), berlin(2026, 10, 26, 0, 0)) == \
        timedelta(hours=25)
    assert sundays.used(berlin(2026, 3, 28, 0, 0), berlin(2026, 3, 30, 0, 0)) == \
        timedelta(hours=23)
    # 24 running hours from the October Sunday's midnight are still that Sunday
    assert local(sundays.add(berlin(2026, 10, 25, 0, 0), timedelta(hours=24))) == \
        "Sun 25 Oct 23:00 CET"


def test_a_deadline_friday_night_in_quiet_hours_with_weekdays_only_falls_monday_morning():
    calendar = Calendar.of("Europe/Berlin", NIGHT, WEEKDAYS)
    assert local(calendar.settle(berlin(2026, 12, 4, 23, 0))) == "Mon 07 Dec 08:00 CET"
    assert local(calendar.due(berlin(2026, 12, 3, 23, 0), timedelta(hours=24))) == \
        "Mon 07 Dec 08:00 CET"


def test_a_long_decision_on_one_running_day_a_week_ends_and_a_calendar_needs_a_day():
    sundays = Calendar.of("Europe/Berlin", None, [6])
    start = berlin(2026, 1, 1, 0, 0)
    due = sundays.due(start, timedelta(days=120))
    assert sundays.used(start, due) == timedelta(days=120)
    assert local(due) == "Sun 23 Apr 01:00 CEST"   # 2028: the DST Sundays net an hour short
    with pytest.raises(ValueError, match="at least one day"):
        Calendar(BERLIN, None, frozenset())


# -- mail and reminders ----------------------------------------------------------------


def test_mail_waits_for_quiet_hours_but_not_for_days_off():
    calendar = Calendar.of("Europe/Berlin", NIGHT, WEEKDAYS)
    assert local(calendar.mail_at(berlin(2026, 12, 5, 23, 0))) == "Sun 06 Dec 08:00 CET"
    assert local(calendar.mail_at(berlin(2026, 12, 6, 7, 59))) == "Sun 06 Dec 08:00 CET"
    assert calendar.mail_at(berlin(2026, 12, 5, 12, 0)) == berlin(2026, 12, 5, 12, 0)
    assert calendar.mail_at(berlin(2026, 12, 5, 21, 59)) == berlin(2026, 12, 5, 21, 59)
    assert Calendar.of("Europe/Berlin").mail_at(berlin(2026, 12, 5, 3, 0)) == \
        berlin(2026, 12, 5, 3, 0)


def test_a_reminder_in_quiet_hours_comes_before_they_begin_or_after_or_not_at_all():
    calendar = Calendar.of("Europe/Berlin", NIGHT)
    opened, due = berlin(2026, 12, 1, 20, 0), berlin(2026, 12, 2, 8, 0)
    # a 06:00 reminder: the evening before, just before the quiet hours begin
    assert local(calendar.reminder_at(opened, due, berlin(2026, 12, 2, 6, 0))) == \
        "Tue 01 Dec 21:59 CET"
    # opened in the quiet hours: the reminder waits for their end, if the deadline is later
    late = berlin(2026, 12, 1, 22, 30)
    assert local(calendar.reminder_at(late, berlin(2026, 12, 2, 12, 0),
                                      berlin(2026, 12, 2, 3, 0))) == "Wed 02 Dec 08:00 CET"
    # ... and is dropped if the deadline is their end
    assert calendar.reminder_at(late, berlin(2026, 12, 2, 8, 0), berlin(2026, 12, 2, 3, 0)) \
        is None
    # not quiet: it stays
    assert calendar.reminder_at(opened, due, berlin(2026, 12, 1, 21, 0)) == \
        berlin(2026, 12, 1, 21, 0)


# -- words -----------------------------------------------------------------------------


def test_words_for_pages():
    assert Quiet.parse("22:00", "08:00").hours() == 10
    assert Quiet.parse("8:30", "07:45").hours() == 23.25
    assert Quiet.parse("22:00", "08:00").words() == "22:00–08:00"
    assert days_words(ALL_DAYS) == "every day"
    assert days_words(frozenset(WEEKDAYS)) == "Monday to Friday"
    assert days_words(frozenset({4, 5, 6, 0})) == "Friday to Monday"
    assert days_words(frozenset({0, 2, 4})) == "Mon, Wed, Fri"
    assert days_words(frozenset({5, 6})) == "Sat, Sun"
    assert days_words(frozenset({6})) == "on Sundays"
    assert Calendar.of("Europe/Berlin", NIGHT, WEEKDAYS).describe() == \
        "quiet 22:00–08:00 (Europe/Berlin), clock runs Monday to Friday"
    assert Calendar.of("America/New_York").describe() == "America/New_York, no quiet hours"


def test_days_and_zones_read_from_what_people_and_the_database_give():
    assert parse_days("weekdays") == frozenset(WEEKDAYS)
    assert parse_days("All") == ALL_DAYS
    assert parse_days("mon-fri") == parse_days("Monday to Friday") == frozenset(WEEKDAYS)
    assert parse_days("fri-mon") == frozenset({4, 5, 6, 0})
    assert parse_days("mon-wed, sat") == frozenset({0, 1, 2, 5})
    assert parse_days("mon, wed and fri") == frozenset({0, 2, 4})
    assert parse_days(["sun", 1]) == frozenset({6, 1})
    assert parse_days([0, "2"]) == frozenset({0, 2})
    assert Calendar.of("Not/AZone").zone.key == "UTC"
    assert Calendar.of(None).zone.key == "UTC"
    assert Calendar.of("UTC", (480, 480)).quiet is None
    assert Calendar.of("UTC", (22 * 60, 8 * 60)).quiet == Quiet(time(22), time(8))


@pytest.mark.parametrize("bad, words", [
    (lambda: Quiet.parse("8", "9"), "not a time like 22:00"),
    (lambda: Quiet.parse("24:00", "08:00"), "not a time of day"),
    (lambda: Quiet.parse("22:60", "08:00"), "not a time of day"),
    (lambda: Quiet.parse("08:00", "08:00"), "different times"),
    (lambda: parse_days([]), "at least one day"),
    (lambda: parse_days(""), "at least one day"),
    (lambda: parse_days([9]), "9 is not a day"),
    (lambda: parse_days([True]), "a number from 0"),
    (lambda: parse_days("someday"), "“someday” is not a day"),
    (lambda: parse_days(5), "as a list"),
    (lambda: Calendar.of("UTC", None, []), "at least one day"),
    (lambda: Calendar.of("UTC", None, [7]), "0 \\(Monday\\) to 6"),
])
def test_refusals_are_sentences(bad, words):
    with pytest.raises(ValueError, match=words):
        bad()


# -- properties ------------------------------------------------------------------------

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
         "America/Santiago", "Australia/Lord_Howe", "Asia/Kathmandu"]


@st.composite
def calendars(draw: st.DrawFn) -> Calendar:
    zone = draw(st.sampled_from(ZONES))
    quiet = None
    if draw(st.booleans()):
        start = draw(st.integers(0, 24 * 4 - 1)) * 15
        length = draw(st.integers(1, 16 * 4)) * 15
        quiet = (start, (start + length) % (24 * 60))
    days = draw(st.frozensets(st.integers(0, 6), min_size=1))
    return Calendar.of(zone, quiet, days)


moments = st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2028, 12, 31),
                       timezones=st.just(timezone.utc))
durations = st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=30))


@settings(max_examples=300, deadline=None)
@given(calendar=calendars(), start=moments, duration=durations)
def test_running_time_adds_up_and_deadlines_fall_where_they_may(calendar, start, duration):
    end = calendar.add(start, duration)
    assert end >= start
    assert calendar.used(start, end) == duration
    assert calendar.used(end, start) == timedelta(0)
    if duration > timedelta(0):
        assert calendar.used(start, end - timedelta(microseconds=1)) < duration  # the first
    due = calendar.due(start, duration)
    assert due >= end
    assert calendar.runs_on(due) and not calendar.is_quiet(due)
    assert calendar.settle(due) == due
    assert calendar.used(end, due) == timedelta(0) or calendar.quiet is not None
    for moment in (start, end):
        settled = calendar.settle(moment)
        assert settled >= moment
        assert (settled == moment) == (calendar.runs_on(moment)
                                       and not calendar.is_quiet(moment))


@settings(max_examples=300, deadline=None)
@given(calendar=calendars(), moment=moments, fraction=st.floats(0, 1, exclude_max=True))
def test_mail_leaves_at_the_end_of_a_single_stretch_of_quiet(calendar, moment, fraction):
    mail = calendar.mail_at(moment)
    assert mail >= moment and not calendar.is_quiet(mail)
    if calendar.quiet is None or not calendar.is_quiet(moment):
        assert mail == moment == calendar.quiet_start(moment)
        return
    assert mail - moment < timedelta(hours=24)
    inside = moment + (mail - moment) * fraction   # (rounded to the microsecond)
    assert inside >= mail or calendar.is_quiet(inside)  # quiet all the way to the end
    began = calendar.quiet_start(moment)
    assert began <= moment and calendar.is_quiet(began)
    assert not calendar.is_quiet(began - timedelta(seconds=1))


@settings(max_examples=300, deadline=None)
@given(calendar=calendars(), moment=moments)
def test_on_a_day_without_a_clock_change_quiet_hours_are_the_wall_clock(calendar, moment):
    assume(calendar.quiet is not None)
    assert calendar.quiet is not None
    offsets = {(moment + timedelta(hours=hours)).astimezone(calendar.zone).utcoffset()
               for hours in (-26, 0, 26)}
    assume(len(offsets) == 1)
    wall = moment.astimezone(calendar.zone).time()
    assert calendar.is_quiet(moment) == calendar.quiet.holds(wall)


@settings(max_examples=200, deadline=None)
@given(calendar=calendars(), opened=moments, duration=durations,
       fraction=st.floats(0, 1, exclude_max=True))
def test_a_reminder_is_never_quiet_and_stays_inside_the_decision(calendar, opened, duration,
                                                                 fraction):
    due = calendar.due(opened, duration)
    planned = opened + (due - opened) * fraction
    placed = calendar.reminder_at(opened, due, planned)
    if not calendar.is_quiet(planned):
        assert placed == planned
    elif placed is not None:
        assert opened < placed < due and not calendar.is_quiet(placed)
