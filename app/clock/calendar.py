"""A seat's calendar: when its clock runs, when its deadlines may fall, when its mail may
leave (issue 21 item 1, "a clock that fits a week"). Pure: the standard library only.

Long because: running days, quiet hours and the clock changes they meet are one model
(each answer below asks the others), and reading what people type for them (times with
the digits 0-9 only, day names) sits beside it.

Friends in three time zones want two things of a clock that runs for weeks, the way the
Giant Multiplayer Robot's turn timer gives them ("days in which the timer runs",
"prevent turns from expiring in the middle of the night"):

- **Running days** (the game's; default every day), counted in each seat's own zone.
  Time counts only on them: a decision opened on Friday evening with weekdays only has
  the rest of Friday, then nothing until Monday 00:00, so its remaining time is carried
  over the weekend, not lost.
- **Quiet hours** (the seat's; e.g. 22:00-08:00, wrapping midnight allowed). They do
  not stop the clock; they keep a deadline from *falling* in them, and mail from
  leaving in them. A deadline that would fall at 03:00 falls at 08:00.

So a deadline falls at the first instant, at or after the moment its running time is
used up, that is on a running day and outside the quiet hours (``settle``); mail may
leave at the first instant outside the quiet hours (``mail_at``; days off do not hold
mail).

Daylight saving time. Durations are real elapsed time: the Sunday Europe/Berlin leaves
summer time has 25 hours, all of them counted; the one it enters it has 23. Quiet hours
and midnights are wall-clock times of the seat's zone (08:00 is 08:00 local whatever
the offset), each turned into one real instant, always the same way:

- a wall time that exists once is that instant;
- one that exists twice (the autumn fold: 02:30 on 25 October 2026 in Berlin, CEST and
  then CET) is the *first* of the two;
- one that does not exist (the spring gap: 02:30 on 29 March 2026 in Berlin) is the
  first real instant after it, when the clocks jump (03:00 CEST).

A night's quiet hours are then one stretch of real time, from its start so resolved to
its end so resolved (``is_quiet`` asks whether a moment is in one): 22:00-08:00 lasts
11 real hours on the October night and 9 on the March one; 22:00-02:30 ends at the first
02:30 and does not start again when the clocks show 02:00 a second time; 02:30-08:00
runs through the repeated hour; quiet hours lying wholly in the gap are empty that
night. A local day likewise runs from its midnight to the next one, so a moment's
running day is its local date.

Everything here takes aware datetimes (a naive one is read as UTC, like ``as_utc``) and
returns aware UTC ones. Loops are bounded (``MAX_DAYS``): a calendar with no running day
cannot be built, and no decision's time spans that many days.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache
from typing import Any, Iterable
from zoneinfo import ZoneInfo

from app.clock.time import as_utc

ALL_DAYS: frozenset[int] = frozenset(range(7))
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SHORT_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: Words a set of running days may be given by.
NAMED_SETS = {"all": ALL_DAYS, "every day": ALL_DAYS, "everyday": ALL_DAYS,
              "daily": ALL_DAYS, "weekdays": frozenset(range(5)),
              "weekends": frozenset({5, 6}), "weekend": frozenset({5, 6})}
#: Far more days than any decision's running time spans (120 days of running time on a
#: calendar with one running day a week is 840 days): the loops below stop there rather
#: than run for ever.
MAX_DAYS = 3000
#: ``[0-9]``, not ``\d`` (any Unicode digit: "２２:００"): times and days are written with
#: the digits 0-9 only, others refused in words (``_ascii_digits``, issue 45 item 6).
_HHMM = re.compile(r"^\s*([0-9]{1,2}):([0-9]{2})\s*$")
_DAY = timedelta(days=1)


@dataclass(frozen=True)
class Quiet:
    """Quiet hours: local wall-clock ``start`` to ``end`` (``end`` excluded; wraps
    midnight when ``end`` is earlier than ``start``)."""

    start: time
    end: time

    def __post_init__(self) -> None:
        if self.start.replace(tzinfo=None) == self.end.replace(tzinfo=None):
            raise ValueError("Quiet hours must start and end at different times.")

    @classmethod
    def parse(cls, start: str, end: str) -> "Quiet":
        """Quiet hours from ``"22:00"`` and ``"08:00"`` (24-hour ``HH:MM``); a
        ``ValueError`` in words for the person who typed them otherwise."""
        return cls(_clock_time(start), _clock_time(end))

    @classmethod
    def of_minutes(cls, start: int, end: int) -> "Quiet":
        """From minutes after local midnight (how the database stores them)."""
        return cls(time(start // 60 % 24, start % 60), time(end // 60 % 24, end % 60))

    @property
    def wraps(self) -> bool:
        """Whether they run past midnight (22:00-08:00)."""
        return self.end < self.start

    def hours(self) -> float:
        """How long they last on an ordinary day (no clock change)."""
        minutes = (_minutes(self.end) - _minutes(self.start)) % (24 * 60)
        return minutes / 60

    def words(self) -> str:
        return f"{self.start:%H:%M}–{self.end:%H:%M}"

    def holds(self, wall: time) -> bool:
        """Whether the local wall-clock time ``wall`` is inside them on an ordinary day
        (``Calendar.is_quiet`` asks of a real moment, clock changes included)."""
        wall = wall.replace(tzinfo=None)
        if self.wraps:
            return wall >= self.start or wall < self.end
        return self.start <= wall < self.end


def _clock_time(text: str) -> time:
    shown = _ascii_digits(str(text if text is not None else "")[:10], "the time", "22:00")
    match = _HHMM.match(shown)
    if not match:
        raise ValueError(f"“{shown}” is not a time like 22:00 (hours and minutes, 24-hour).")
    hours, minutes = int(match.group(1)), int(match.group(2))
    if hours > 23 or minutes > 59:
        raise ValueError(f"“{shown}” is not a time of day (00:00 to 23:59).")
    return time(hours, minutes)


def _ascii_digits(text: str, what: str, like: str) -> str:
    """``text``, refused in words if it holds a digit but 0-9 (``int`` takes "٢٢")."""
    if any(char.isdigit() and not char.isascii() for char in text):
        raise ValueError(f"“{text.strip()[:12]}”: write {what} with the digits 0-9, like {like}.")
    return text


def _minutes(wall: time) -> int:
    return wall.hour * 60 + wall.minute


def _local(zone: ZoneInfo, moment: datetime) -> datetime:
    return as_utc(moment).astimezone(zone)


def _wall(zone: ZoneInfo, moment: datetime) -> datetime:
    """``moment``'s local wall-clock reading, naive."""
    return _local(zone, moment).replace(tzinfo=None)


@lru_cache(maxsize=8192)
def _instant(zone: ZoneInfo, day: date, wall: time) -> datetime:
    """The real instant (UTC) of the local wall-clock time ``wall`` on ``day``: the first
    of two in a fold, the jump after it in a gap (see the module's words).

    Cached: the clock asks the same midnights and quiet ends of the same zones again and
    again (a tick, a page of seats)."""
    naive = datetime.combine(day, wall.replace(tzinfo=None))
    # zoneinfo: fold=0 reads a repeated wall time with the earlier (pre-transition)
    # offset, which is the first instant; a wall time in a gap gives a moment whose
    # reading is not the wall time itself.
    first = naive.replace(tzinfo=zone, fold=0).astimezone(timezone.utc)
    if _wall(zone, first) == naive:
        other = naive.replace(tzinfo=zone, fold=1).astimezone(timezone.utc)
        return min(first, other) if _wall(zone, other) == naive else first
    # in a gap: the clocks jump between the two readings; the first instant whose reading
    # is at or after the wall time, found to the second (zones change on whole seconds)
    low = int(naive.replace(tzinfo=zone, fold=1).astimezone(timezone.utc).timestamp())
    high = int(first.timestamp())
    low, high = min(low, high), max(low, high)
    if _wall(zone, datetime.fromtimestamp(high, timezone.utc)) < naive:
        return first  # (no zone does this; kept deterministic all the same)
    while high - low > 1:
        middle = (low + high) // 2
        if _wall(zone, datetime.fromtimestamp(middle, timezone.utc)) >= naive:
            high = middle
        else:
            low = middle
    return datetime.fromtimestamp(high, timezone.utc)


@dataclass(frozen=True)
class Calendar:
    """One seat's calendar: its zone, its quiet hours, the game's running days."""

    zone: ZoneInfo
    quiet: Quiet | None = None
    days: frozenset[int] = ALL_DAYS

    def __post_init__(self) -> None:
        if not self.days:
            raise ValueError("A clock needs at least one day on which it runs.")
        if not self.days <= ALL_DAYS:
            raise ValueError("Running days are weekdays 0 (Monday) to 6 (Sunday).")

    @classmethod
    def of(cls, zone: str | None, quiet: tuple[int, int] | None = None,
           days: Iterable[int] | None = None) -> "Calendar":
        """A calendar from what the database stores: a zone name (unknown or None: UTC),
        quiet hours as minutes after local midnight (equal ends: none), running weekdays
        (None: every day; none at all is refused)."""
        try:
            where = ZoneInfo(zone or "UTC")
        except (ValueError, KeyError, OSError):  # (ZoneInfoNotFoundError is a KeyError)
            where = ZoneInfo("UTC")
        hours = Quiet.of_minutes(*quiet) if quiet is not None and quiet[0] != quiet[1] else None
        return cls(where, hours, frozenset(days) if days is not None else ALL_DAYS)

    # -- where a moment falls ----------------------------------------------------------

    def _at(self, day: date, wall: time) -> datetime:
        return _instant(self.zone, day, wall)

    def _date(self, moment: datetime) -> date:
        return _local(self.zone, moment).date()

    def _next_day(self, moment: datetime) -> datetime:
        """The start (local midnight) of the day after ``moment``'s."""
        return self._at(self._date(moment) + _DAY, time(0))

    def runs_on(self, moment: datetime) -> bool:
        """Whether ``moment`` is on one of the running days (of the seat's zone)."""
        return self._date(moment).weekday() in self.days

    def _night(self, day: date) -> tuple[datetime, datetime]:
        """The quiet period that begins on local ``day``: ``[begin, end)``, UTC."""
        assert self.quiet is not None
        begin = self._at(day, self.quiet.start)
        end = self._at(day + _DAY if self.quiet.wraps else day, self.quiet.end)
        return begin, end

    def _quiet_period(self, moment: datetime) -> tuple[datetime, datetime] | None:
        """The quiet period ``moment`` is in (None: none). It began on ``moment``'s local
        day or the one before (one after too, for a zone whose clocks go back across
        midnight)."""
        if self.quiet is None:
            return None
        moment = as_utc(moment)
        day = self._date(moment)
        for offset in (0, -1, 1):
            begin, end = self._night(day + offset * _DAY)
            if begin <= moment < end:
                return begin, end
        return None

    def is_quiet(self, moment: datetime) -> bool:
        """Whether ``moment`` is inside the seat's quiet hours (``[start, end)``)."""
        return self._quiet_period(moment) is not None

    def quiet_end(self, moment: datetime) -> datetime:
        """The end of the quiet period ``moment`` is in (``moment`` itself when it is in
        none): the first instant at or after ``moment`` outside the quiet hours."""
        return self._settle(as_utc(moment), days=False)

    def quiet_start(self, moment: datetime) -> datetime:
        """When the quiet period ``moment`` is in began (``moment`` when in none)."""
        period = self._quiet_period(moment)
        return as_utc(moment) if period is None else period[0]

    def mail_at(self, moment: datetime) -> datetime:
        """When mail due at ``moment`` may leave: at once, or when the seat's quiet hours
        end (days the clock does not run do not hold mail)."""
        return self.quiet_end(moment)

    def settle(self, moment: datetime) -> datetime:
        """The first instant at or after ``moment`` on a running day and outside the
        quiet hours: where a deadline may fall."""
        return self._settle(as_utc(moment), days=True)

    def _settle(self, moment: datetime, *, days: bool) -> datetime:
        """The first instant at or after ``moment`` outside the quiet hours (and, with
        ``days``, on a running day): one step a day off or a quiet period at a time."""
        for _ in range(2 * MAX_DAYS):
            if days and not self.runs_on(moment):
                moment = self._next_day(moment)
                continue
            period = self._quiet_period(moment)
            if period is None:
                return moment
            moment = period[1]  # (may begin the next period: clocks changing)
        raise ValueError("No running time outside the quiet hours in sight on this calendar.")

    # -- running time ------------------------------------------------------------------

    def add(self, start: datetime, duration: timedelta) -> datetime:
        """The first moment at which ``duration`` of running time has passed since
        ``start`` (only running days count; a negative duration counts as none).
        ``add(start, 0)`` is ``start`` on a running day, else the start of the next
        running day. May be a quiet moment or the midnight a day off begins: ``due``
        moves it to where a deadline may fall."""
        moment, left = as_utc(start), max(duration, timedelta(0))
        for _ in range(MAX_DAYS):
            if not self.runs_on(moment):
                moment = self._next_day(moment)
                continue
            day_end = self._next_day(moment)
            if left <= day_end - moment:
                return moment + left
            left -= day_end - moment
            moment = day_end
        raise ValueError("More running time than any decision has: "
                         f"{duration} does not fit in {MAX_DAYS} days of this calendar.")

    def used(self, start: datetime, end: datetime) -> timedelta:
        """The running time between ``start`` and ``end`` (nothing if ``end`` is not
        later): the inverse of ``add``, ``used(s, add(s, d)) == d``."""
        moment, end = as_utc(start), as_utc(end)
        total = timedelta(0)
        for _ in range(2 * MAX_DAYS):
            if moment >= end:
                return total
            stop = min(self._next_day(moment), end)
            if self.runs_on(moment):
                total += stop - moment
            moment = stop
        raise ValueError(f"A span longer than any game ({start} to {end}).")

    def due(self, start: datetime, duration: timedelta) -> datetime:
        """When a decision opened at ``start`` with ``duration`` of running time falls
        due: ``settle(add(start, duration))``."""
        return self.settle(self.add(start, duration))

    def reminder_at(self, opened: datetime, due: datetime,
                    moment: datetime) -> datetime | None:
        """A reminder planned at ``moment`` (between ``opened`` and ``due``), out of the
        quiet hours. Not quiet: it stays. Quiet: one minute before they began (the
        evening before: "your move is due tomorrow at 08:00") if that is after
        ``opened``; else at their end if that is before ``due``; else none (dropped: the
        decision opened in these quiet hours and falls due at their end)."""
        moment = as_utc(moment)
        period = self._quiet_period(moment)
        if period is None:
            return moment
        before = period[0] - timedelta(minutes=1)
        if before > as_utc(opened) and not self.is_quiet(before):
            return before
        after = self.quiet_end(moment)
        return after if after < as_utc(due) else None

    # -- words -------------------------------------------------------------------------

    def describe(self) -> str:
        """Short words for pages: "quiet 22:00–08:00 (Europe/Berlin), clock runs Monday
        to Friday"."""
        from app.i18n import _

        zone = str(self.zone.key)
        if self.days == ALL_DAYS:
            return (_("quiet %(hours)s (%(zone)s)", hours=self.quiet.words(), zone=zone)
                    if self.quiet else _("%(zone)s, no quiet hours", zone=zone))
        days = days_words(self.days)
        return (_("quiet %(hours)s (%(zone)s), clock runs %(days)s", hours=self.quiet.words(),
                  zone=zone, days=days) if self.quiet
                else _("%(zone)s, no quiet hours, clock runs %(days)s", zone=zone, days=days))


def parse_days(value: Any) -> frozenset[int]:
    """Running days from a list of weekdays (0 = Monday, or names "mon".."sun") or words:
    "weekdays", "weekends", "all", "mon-fri", "fri-mon", "mon,wed,fri". ``ValueError``
    in words otherwise, and for no day at all."""
    if isinstance(value, str):
        text = " ".join(value.lower().split())
        if text in NAMED_SETS:
            return NAMED_SETS[text]
        text = re.sub(r"\s*(?:-|–|\bto\b)\s*", "-", text)  # "mon - fri", "mon to fri"
        found: set[int] = set()
        for part in (p for p in re.split(r"[,;\s]+", text) if p and p != "and"):
            if "-" in part:
                first, last = (_day(p) for p in part.split("-", 1))
                found.update((first + step) % 7 for step in range((last - first) % 7 + 1))
            else:
                found.add(_day(part))
        days = frozenset(found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        days = frozenset(_day(each) for each in value)
    else:
        raise ValueError("Give the days the clock runs as a list, like [0, 1, 2, 3, 4] "
                         "(0 is Monday), or in words like “weekdays” or “mon-fri”.")
    if not days:
        raise ValueError("The clock must run on at least one day of the week.")
    return days


def _day(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("A day is a number from 0 (Monday) to 6 (Sunday), or its name.")
    if isinstance(value, str) and _ascii_digits(value, "the day", "0 (Monday) to 6, or mon"
                                                ).strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int):
        if 0 <= value <= 6:
            return value
        raise ValueError(f"{value} is not a day: days are 0 (Monday) to 6 (Sunday).")
    text = str(value).strip().lower()[:12]
    for index, name in enumerate(DAY_NAMES):
        if text in (name.lower(), SHORT_NAMES[index]):
            return index
    raise ValueError(f"“{text}” is not a day: use 0 (Monday) to 6 (Sunday), or mon to sun.")


def days_words(days: frozenset[int]) -> str:
    """"every day", "Monday to Friday", "Friday to Monday" (a run of three or more, the
    week wrapping), "on Mondays", "Mon, Wed, Fri"."""
    from babel.dates import get_day_names

    from app import i18n
    from app.i18n import _, forms

    english = i18n.current() == i18n.DEFAULT
    # the days' names in the reader's language (CLDR's; English as it always read)
    wide = DAY_NAMES if english else get_day_names("wide", locale=forms.cldr())
    ordered = sorted(days)
    if set(ordered) == ALL_DAYS:
        return _("every day")
    if len(ordered) == 1:
        return _("on %(day)s", day=f"{wide[ordered[0]]}s" if english else wide[ordered[0]])
    if len(ordered) >= 3:
        for first in ordered:  # a run of consecutive days, perhaps across Sunday night
            if (first - 1) % 7 not in days:
                run = [(first + step) % 7 for step in range(len(ordered))]
                if set(run) == set(ordered):
                    return _("%(first)s to %(last)s", first=wide[run[0]], last=wide[run[-1]])
                break
    if english:
        return ", ".join(DAY_NAMES[day][:3] for day in ordered)
    short = get_day_names("abbreviated", locale=forms.cldr())
    return forms.names([short[day] for day in ordered])
