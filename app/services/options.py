"""The one validator of a game's options, with the ranges a public server can afford.

Every way to start a game (the lobby form, the CLI, and ``services.create_game``
as the last guard for any other caller) passes its options through
``validate``. Before it existed a game could ask for 6,000 reminders and a
0.02-hour deadline: one game then mailed one address hundreds of times an
hour. The ranges below bound what one game can mail one seat; they are
written out in docs/security.md and kept true by tests/web/test_options.py
(a simulated week of the worst options the lobby accepts).

Pure: no Flask, no database. ``OptionError`` carries a sentence for the
person who filled in the form.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.clock.calendar import parse_days

#: The time to make a move (hours): at least an hour, at most 30 days.
DEADLINE_MIN_HOURS = 1.0
DEADLINE_MAX_HOURS = 24.0 * 30
#: The clock's defaults when a game names none (the same as app.clock.deadlines').
DEFAULT_DEADLINE_HOURS = 48.0
DEFAULT_REMINDERS: tuple[str | float, ...] = ("half", 2.0)
#: At most this many reminders per decision...
MAX_REMINDERS = 3
#: ...each at least this many hours after the decision opens, before its
#: deadline, and apart from the other reminders. With the deadline's own
#: turn mail this keeps a seat that never plays at one mail an hour at most.
REMINDER_GAP_HOURS = 1.0
#: Missed deadlines in a row before a seat counts as away (R29).
ABSENT_AFTER_MIN, ABSENT_AFTER_MAX = 1, 10
#: Vacation days a seat may take in one game.
VACATION_DAYS_MAX = 30
SIMON_CHOICES = ("auto", "off")
#: Every option a game may carry; anything else is refused (it would be stored forever).
KNOWN = ("memory", "simon", "deadline_hours", "deadline_days", "reminders", "absent_after",
         "vacation_days", "turn_mail_delay_seconds", "clock_days", "bank_days",
         "allowance_hours", "more_time_per_round", "first", "rated")
#: A time bank (issue 21 item 2): each seat's bank in days, each decision's allowance in
#: hours (the bank runs once the allowance is used).
BANK_MIN_DAYS, BANK_MAX_DAYS = 0.0, 30.0
ALLOWANCE_MIN_HOURS, ALLOWANCE_MAX_HOURS = 1.0, 24.0 * 7
DEFAULT_ALLOWANCE_HOURS = 12.0
#: One more day for another seat: at most this many per round and giver (0: none).
MORE_TIME_MAX_PER_ROUND = 3
#: The grace period before a turn mail (issue 7): none, up to an hour.
TURN_MAIL_DELAY_MAX_SECONDS = 3600

#: What these limits allow one game to mail one seat in a day (docs/security.md):
#: one turn mail or reminder an hour at most while the seat has a decision,
#: plus the one-off mails (invitation, "you are away", other seats away, the
#: game abandoned, three round results, the final result).
MAX_DECISION_MAILS_PER_SEAT_PER_DAY = 24
ONE_OFF_MAILS_PER_SEAT = 1 + 1 + 3 + 1 + 3 + 1
MAX_MAILS_PER_SEAT_PER_DAY = MAX_DECISION_MAILS_PER_SEAT_PER_DAY + ONE_OFF_MAILS_PER_SEAT


class OptionError(ValueError):
    """An option outside its range, in words for the person who chose it."""


@dataclass(frozen=True)
class Limits:
    """The numbers the lobby shows next to its fields (one place: this module)."""

    deadline_min_hours: float = DEADLINE_MIN_HOURS
    deadline_max_hours: float = DEADLINE_MAX_HOURS
    max_reminders: int = MAX_REMINDERS
    reminder_gap_hours: float = REMINDER_GAP_HOURS
    absent_min: int = ABSENT_AFTER_MIN
    absent_max: int = ABSENT_AFTER_MAX
    vacation_max: int = VACATION_DAYS_MAX
    bank_max_days: float = BANK_MAX_DAYS
    allowance_min_hours: float = ALLOWANCE_MIN_HOURS
    allowance_max_hours: float = ALLOWANCE_MAX_HOURS
    more_time_max: int = MORE_TIME_MAX_PER_ROUND


LIMITS = Limits()


def _number(value: Any, what: str) -> float:
    """A finite int or float (never a bool, never a string)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise OptionError(f"{what} must be a number.")
    return float(value)


def _whole(value: Any, low: int, high: int, words: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionError(f"{words}: a whole number from {low} to {high}.")
    return value


def deadline_hours(options: dict[str, Any]) -> float:
    """The time to make a move that these options ask for (hours), checked."""
    if "deadline_hours" in options and "deadline_days" in options:
        raise OptionError("Give the time to make a move in hours or in days, not both.")
    if "deadline_days" in options:
        hours = _number(options["deadline_days"], "The time to make a move") * 24
    elif "deadline_hours" in options:
        hours = _number(options["deadline_hours"], "The time to make a move")
    else:
        return DEFAULT_DEADLINE_HOURS
    if hours <= 0:
        raise OptionError("The time to make a move must be a number above zero.")
    if hours < DEADLINE_MIN_HOURS:
        raise OptionError("The time to make a move must be at least an hour.")
    if hours > DEADLINE_MAX_HOURS:
        raise OptionError("The time to make a move can be at most 30 days.")
    return hours


def reminder_moments(reminders: Any, hours: float) -> list[float]:
    """When each reminder comes, in hours after the decision opened; checked.

    A reminder is ``"half"`` (halfway through) or a number of hours before
    the deadline. Each must come at least ``REMINDER_GAP_HOURS`` after the
    decision opened, before its deadline, and apart from the others.
    """
    if not isinstance(reminders, list):
        raise OptionError('Reminders are a list, like ["half", 2].')
    if len(reminders) > MAX_REMINDERS:
        raise OptionError(f"At most {MAX_REMINDERS} reminders per move "
                          f"(you asked for {len(reminders)}).")
    gap = REMINDER_GAP_HOURS
    moments = []
    for lead in reminders:
        if lead == "half":
            moment = hours / 2
            words = "The halfway reminder"
        else:
            if isinstance(lead, str) or isinstance(lead, bool) or not isinstance(lead, (int, float)):
                raise OptionError(f"“{str(lead)[:20]}” is not a number of hours for a reminder.")
            before = _number(lead, "A reminder")
            if before <= 0:
                raise OptionError(f"“{lead}” is not a number of hours for a reminder.")
            if before >= hours:
                raise OptionError(f"A reminder {lead:g} hours before the deadline would come "
                                  "before the move is due to start; choose a smaller number.")
            if before < gap:
                raise OptionError(f"A reminder must come at least {gap:g} hour before the "
                                  f"deadline (not {lead:g}).")
            moment = hours - before
            words = f"A reminder {lead:g} hours before the deadline"
        if moment < gap or hours - moment < gap:
            raise OptionError(f"{words} would come less than {gap:g} hour from the start or the "
                              "end of the time to move; choose a longer time or fewer reminders.")
        moments.append(moment)
    return _apart(moments)


def _apart(hours: list[float]) -> list[float]:
    """Reminder moments (or leads) in order, each ``REMINDER_GAP_HOURS`` from the next."""
    ordered = sorted(hours)
    for earlier, later in zip(ordered, ordered[1:]):
        if later - earlier < REMINDER_GAP_HOURS:
            raise OptionError(f"Reminders must be at least {REMINDER_GAP_HOURS:g} hour apart.")
    return ordered


def validate(options: Any, seats: int) -> dict[str, Any]:
    """The options as they will be stored, or ``OptionError`` with the reason.

    Nothing is added or renamed (a game keeps the options it was given);
    unknown keys and values outside their range are refused.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise OptionError("The game options are not understood.")
    unknown = sorted(str(key)[:40] for key in options if key not in KNOWN)
    if unknown:
        raise OptionError(f"Unknown game option “{unknown[0]}”: the options are "
                          f"{', '.join(KNOWN)}.")
    if "memory" in options and not isinstance(options["memory"], bool):
        raise OptionError("The memory variant is on (true) or off (false).")
    if "rated" in options and not isinstance(options["rated"], bool):
        raise OptionError("A game is rated (true) or friendly (false; issue 47).")
    if "simon" in options:
        simon = options["simon"]
        if (not isinstance(simon, list) or len(simon) != seats
                or any(choice not in SIMON_CHOICES for choice in simon)):
            raise OptionError(f"The Simon choice is a list of “auto” or “off”, one per seat "
                              f"({seats} here).")
    result = dict(options)
    if "first" in options:
        _whole(options["first"], 0, seats - 1, "The first player")
    if "clock_days" in options:
        result["clock_days"] = clock_days(options["clock_days"])
    if "more_time_per_round" in options:
        _whole(options["more_time_per_round"], 0, MORE_TIME_MAX_PER_ROUND,
               "Days of more time each player may give per round")
    banked = "bank_days" in options or "allowance_hours" in options
    if banked:
        hours = time_bank(options)
        if "reminders" in options:
            bank_reminders(options["reminders"])
        else:
            fitting = [lead for lead in DEFAULT_BANK_REMINDERS if lead < hours]
            if fitting != list(DEFAULT_BANK_REMINDERS):
                result["reminders"] = fitting
        result.setdefault("bank_days", 0)
        result.setdefault("allowance_hours", DEFAULT_ALLOWANCE_HOURS)
        return _rest(options, result)
    hours = deadline_hours(options)
    if "reminders" in options:
        reminder_moments(options["reminders"], hours)
    else:
        # The clock's default reminders, as they would fall in this game's
        # window: those that break the rules above are left out, explicitly.
        fits = [lead for lead in DEFAULT_REMINDERS if _fits([lead], hours)]
        if fits != list(DEFAULT_REMINDERS):
            result["reminders"] = fits
    return _rest(options, result)


def _rest(options: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The options every kind of clock has: absence, vacation, the grace period."""
    if "absent_after" in options:
        _whole(options["absent_after"], ABSENT_AFTER_MIN, ABSENT_AFTER_MAX,
               "Missed deadlines before a player counts as away")
    if "vacation_days" in options:
        _whole(options["vacation_days"], 0, VACATION_DAYS_MAX, "Vacation days")
    if "turn_mail_delay_seconds" in options:
        _whole(options["turn_mail_delay_seconds"], 0, TURN_MAIL_DELAY_MAX_SECONDS,
               "Seconds before a turn mail")
    return result


#: A time bank's reminders when a game names none: hours of time left (issue 21 item 2).
DEFAULT_BANK_REMINDERS: tuple[float, ...] = (24.0, 2.0)
#: Weekday names the running days may be given in (0 = Monday), and their words.
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def clock_days(value: Any) -> list[int]:
    """The days the clock runs (issue 21 item 1), as stored: sorted weekdays 0-6."""
    try:
        days = parse_days(value)
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    return sorted(days)


def time_bank(options: dict[str, Any]) -> float:
    """A time bank's options checked; returns the shortest time a decision can have
    (hours: the allowance, when the bank is empty)."""
    if "deadline_hours" in options or "deadline_days" in options:
        raise OptionError("Choose a fixed time per move or a time bank, not both.")
    bank = _number(options.get("bank_days", 0), "The time bank")
    if not BANK_MIN_DAYS <= bank <= BANK_MAX_DAYS:
        raise OptionError(f"The time bank: from {BANK_MIN_DAYS:g} to {BANK_MAX_DAYS:g} days.")
    allowance = _number(options.get("allowance_hours", DEFAULT_ALLOWANCE_HOURS),
                        "The time for each move")
    if not ALLOWANCE_MIN_HOURS <= allowance <= ALLOWANCE_MAX_HOURS:
        raise OptionError(f"The time for each move before the bank runs: from "
                          f"{ALLOWANCE_MIN_HOURS:g} to {ALLOWANCE_MAX_HOURS:g} hours.")
    return allowance


def bank_reminders(reminders: Any) -> list[float]:
    """A time bank's reminders: hours of time left (a fraction means nothing when each
    decision's time differs), each at least ``REMINDER_GAP_HOURS`` and apart; one that
    does not fit a decision's time is skipped then (the bank may be empty)."""
    if not isinstance(reminders, list):
        raise OptionError('Reminders are a list of hours before the time runs out, like [24, 2].')
    if len(reminders) > MAX_REMINDERS:
        raise OptionError(f"At most {MAX_REMINDERS} reminders per move "
                          f"(you asked for {len(reminders)}).")
    leads = []
    for lead in reminders:
        if lead == "half":
            raise OptionError("With a time bank, reminders come when a number of hours is "
                              "left (like [24, 2]), not halfway.")
        if isinstance(lead, (str, bool)) or not isinstance(lead, (int, float)):
            raise OptionError(f"“{str(lead)[:20]}” is not a number of hours for a reminder.")
        hours = _number(lead, "A reminder")
        if hours < REMINDER_GAP_HOURS:
            raise OptionError(f"A reminder must come at least {REMINDER_GAP_HOURS:g} hour "
                              f"before the time runs out (not {lead:g}).")
        if hours > 24 * (BANK_MAX_DAYS + 7):
            raise OptionError(f"A reminder {lead:g} hours before the time runs out is "
                              "longer than any move can take.")
        leads.append(hours)
    return _apart(leads)  # (one longer than a decision's time is skipped when it opens)


def _fits(reminders: list[Any], hours: float) -> bool:
    try:
        reminder_moments(reminders, hours)
    except OptionError:
        return False
    return True
