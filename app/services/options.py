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
         "vacation_days", "turn_mail_delay_seconds")
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
    ordered = sorted(moments)
    for earlier, later in zip(ordered, ordered[1:]):
        if later - earlier < gap:
            raise OptionError(f"Reminders must be at least {gap:g} hour apart.")
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
    if "simon" in options:
        simon = options["simon"]
        if (not isinstance(simon, list) or len(simon) != seats
                or any(choice not in SIMON_CHOICES for choice in simon)):
            raise OptionError(f"The Simon choice is a list of “auto” or “off”, one per seat "
                              f"({seats} here).")
    result = dict(options)
    hours = deadline_hours(options)
    if "reminders" in options:
        reminder_moments(options["reminders"], hours)
    else:
        # The clock's default reminders, as they would fall in this game's
        # window: those that break the rules above are left out, explicitly.
        fitting = [lead for lead in DEFAULT_REMINDERS if _fits([lead], hours)]
        if fitting != list(DEFAULT_REMINDERS):
            result["reminders"] = fitting
    if "absent_after" in options:
        _whole(options["absent_after"], ABSENT_AFTER_MIN, ABSENT_AFTER_MAX,
               "Missed deadlines before a player counts as away")
    if "vacation_days" in options:
        _whole(options["vacation_days"], 0, VACATION_DAYS_MAX, "Vacation days")
    if "turn_mail_delay_seconds" in options:
        _whole(options["turn_mail_delay_seconds"], 0, TURN_MAIL_DELAY_MAX_SECONDS,
               "Seconds before a turn mail")
    return result


def _fits(reminders: list[Any], hours: float) -> bool:
    try:
        reminder_moments(reminders, hours)
    except OptionError:
        return False
    return True
