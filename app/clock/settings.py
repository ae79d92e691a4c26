"""A game's clock settings (chosen in the lobby, stored in its options) and what they
mean for a seat: the kind of clock (a fixed time per decision, or a time bank with an
allowance per decision, issue 21 item 2), the reminders, absence and vacation (R29),
the days the clock runs and how much more time a seat may give another (issue 21).

Pure: read from a game's options by ``ClockSettings.from_options``, which falls back to
the defaults for anything missing or wrong (the lobby's validator,
``app.services.options``, refuses wrong values up front). The deadline rows that use
them are ``app.clock.deadlines``; the calendar they are counted on is
``app.clock.calendar``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.clock.calendar import ALL_DAYS, Calendar, days_words

#: Per-game clock settings and their defaults (hours unless said otherwise).
DEFAULT_DEADLINE_HOURS = 48.0
#: Reminder leads: "half" means halfway through the window, a number means
#: that many hours before the deadline. Leads that would fall before the
#: decision opened are dropped.
DEFAULT_REMINDERS: tuple[str | float, ...] = ("half", 2.0)
DEFAULT_ABSENT_AFTER = 3
DEFAULT_VACATION_DAYS = 14
#: A time bank's allowance per decision when the game names none (issue 21 item 2),
#: and its reminders: hours of running time left before the decision falls due.
DEFAULT_ALLOWANCE_HOURS = 12.0
DEFAULT_BANK_REMINDERS: tuple[float, ...] = (24.0, 2.0)
#: One more day for another seat's decision: how often a seat may give it per round.
DEFAULT_MORE_TIME_PER_ROUND = 1


@dataclass(frozen=True)
class ClockSettings:
    """The per-game settings chosen in the lobby, with defaults filled in.

    Two kinds of clock (issue 21 item 2): a fixed ``deadline`` per decision (the
    default), or a time bank: each decision gets its ``allowance``, and the time a
    seat takes past it comes off the seat's ``bank`` (a decision falls due when the
    allowance and what is left of the bank are used up). Either way time runs only
    on the game's running ``days`` (``app.clock.calendar``: in each seat's zone)."""

    deadline: timedelta
    reminders: tuple[str | float, ...]
    absent_after: int
    vacation_days: int
    #: The weekdays the clock runs (0 = Monday), in each seat's own zone.
    days: frozenset[int] = ALL_DAYS
    #: A time-bank game: each seat's bank, and the allowance of each decision.
    bank: timedelta | None = None
    allowance: timedelta | None = None
    #: How many times each seat may give another seat one more day, per round.
    more_time_per_round: int = DEFAULT_MORE_TIME_PER_ROUND

    @property
    def banked(self) -> bool:
        return self.bank is not None and self.allowance is not None

    @classmethod
    def from_options(cls, options: dict[str, Any] | None) -> "ClockSettings":
        """Read a game's options; unknown or bad values fall back to defaults.

        Accepted keys: ``deadline_hours`` (or ``deadline_days``), ``reminders``
        (list of "half" or hours before), ``absent_after``, ``vacation_days``,
        ``clock_days`` (weekdays the clock runs), ``bank_days`` with
        ``allowance_hours`` (a time bank), ``more_time_per_round``. The lobby's
        validator (``app.services.options``) refuses bad values up front.
        """
        opts = options or {}
        hours = _positive(opts.get("deadline_hours"))
        days = _positive(opts.get("deadline_days"))
        if hours is None and days is not None:
            hours = days * 24
        raw_bank = opts.get("bank_days")
        bank = None
        if (isinstance(raw_bank, (int, float)) and not isinstance(raw_bank, bool)
                and raw_bank >= 0) or _positive(opts.get("allowance_hours")) is not None:
            bank = timedelta(days=_positive(raw_bank) or 0)
        allowance = None
        if bank is not None:
            allowance = timedelta(hours=_positive(opts.get("allowance_hours"))
                                  or DEFAULT_ALLOWANCE_HOURS)
        reminders: list[str | float] = []
        default = DEFAULT_BANK_REMINDERS if bank is not None else DEFAULT_REMINDERS
        raw = opts.get("reminders", default)
        if isinstance(raw, (str, int, float)):
            raw = [raw]
        for lead in raw if isinstance(raw, (list, tuple)) else default:
            if lead == "half" and bank is None:  # a bank's reminders follow the time left
                reminders.append("half")
            elif _positive(lead) is not None:
                reminders.append(float(lead))
        absent = opts.get("absent_after", DEFAULT_ABSENT_AFTER)
        vacation = opts.get("vacation_days", DEFAULT_VACATION_DAYS)
        running = opts.get("clock_days")
        gifts = opts.get("more_time_per_round", DEFAULT_MORE_TIME_PER_ROUND)
        return cls(
            deadline=timedelta(hours=hours or DEFAULT_DEADLINE_HOURS),
            reminders=tuple(reminders),
            absent_after=(absent if isinstance(absent, int) and absent >= 1
                          else DEFAULT_ABSENT_AFTER),
            vacation_days=(vacation if isinstance(vacation, int) and vacation >= 0
                           else DEFAULT_VACATION_DAYS),
            days=_days(running),
            bank=bank, allowance=allowance,
            more_time_per_round=(gifts if isinstance(gifts, int) and not isinstance(gifts, bool)
                                 and gifts >= 0 else DEFAULT_MORE_TIME_PER_ROUND),
        )

    def calendar(self, zone: str | None = None,
                 quiet: tuple[int, int] | None = None) -> Calendar:
        """A seat's calendar under these settings: its zone and quiet hours, the game's
        running days."""
        return Calendar.of(zone, quiet, self.days)

    def reminder_times(self, opened: datetime, due: datetime,
                       calendar: Calendar | None = None) -> list[datetime]:
        """When to remind for a window ``opened``..``due`` (sorted, distinct, inside it).

        Counted in the seat's running time (``calendar``; default: every hour of every
        day, UTC): "half" is halfway through the running time of the window, a number
        that many running hours before its end (a time bank's reminders: the time
        left). A reminder that would come in the seat's quiet hours comes just before
        they begin, or at their end, or not at all (``Calendar.reminder_at``)."""
        cal = calendar or ALWAYS
        total = cal.used(opened, due)
        times: set[datetime] = set()
        for lead in self.reminders:
            if lead == "half":
                moment = cal.add(opened, total / 2)
            else:
                before = timedelta(hours=float(lead))
                if before >= total:
                    continue
                moment = cal.add(opened, total - before)
            placed = cal.reminder_at(opened, due, moment)
            if placed is not None and opened < placed < due:
                times.add(placed)
        return sorted(times)

    @property
    def plain(self) -> bool:
        """A fixed deadline per decision, running every day (what games had before
        issue 21: their mails need no more words about the clock)."""
        return not self.banked and self.days == ALL_DAYS

    def words(self) -> str:
        """How this game's clock runs, in one sentence for mails and pages."""
        from app.i18n import _

        every_day = self.days == ALL_DAYS
        if self.banked:
            assert self.bank is not None and self.allowance is not None
            bank, allowance = span_words(self.bank), span_words(self.allowance)
            if every_day:
                return _("Each player has a time bank of %(bank)s, and %(allowance)s for each "
                         "decision before their bank starts to run", bank=bank,
                         allowance=allowance)
            return _("Each player has a time bank of %(bank)s, and %(allowance)s for each "
                     "decision before their bank starts to run; the clock runs %(days)s only",
                     bank=bank, allowance=allowance, days=days_words(self.days))
        if every_day:
            return _("Each decision has a deadline of %(span)s", span=span_words(self.deadline))
        return _("Each decision has a deadline of %(span)s; the clock runs %(days)s only",
                 span=span_words(self.deadline), days=days_words(self.days))

    def bank_left(self, clock: Any) -> timedelta:
        """What is left of a seat's bank (its clock row, or None for a seat without one)."""
        if self.bank is None:
            return timedelta(0)
        used = int(getattr(clock, "bank_used_seconds", 0) or 0) if clock is not None else 0
        return max(self.bank - timedelta(seconds=used), timedelta(0))


def span_words(span: timedelta) -> str:
    """'12 hours', '5 days', '1 day 12 hours', '90 minutes': a length of time for people."""
    minutes = int(span.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    from app.i18n import ngettext

    parts = []
    if days:
        parts.append(ngettext("%(num)d day", "%(num)d days", days))
    if hours:
        parts.append(ngettext("%(num)d hour", "%(num)d hours", hours))
    if minutes or not parts:
        parts.append(ngettext("%(num)d minute", "%(num)d minutes", minutes))
    return " ".join(parts)


#: The calendar of a seat nothing is known of: UTC, no quiet hours, every day.
ALWAYS = Calendar.of(None)


def _days(value: Any) -> frozenset[int]:
    """The running days an option names (a list of weekdays 0-6); all days otherwise."""
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(day, int) and not isinstance(day, bool) and 0 <= day <= 6
            for day in value):
        return frozenset(value)
    return ALL_DAYS


def _positive(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or \
            isinstance(value, str) and not value.isascii():  # (float takes "２")
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number > 0 else None
