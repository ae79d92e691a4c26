"""Dates, times, spans and lists in the reader's language and zone, by Babel's CLDR
data (issue 50 item 2): no fixed date pattern and no English grammar glued by hand.

Every time a person reads (a deadline in a mail's first line, the seat page's due line,
a settings page's "times in ...") is said here, in the language being written in
(``app.i18n.current``) and the reader's ``zoneinfo`` zone. English is said the British
way ("Tue 8 Dec", "Tuesday, 8 December 2026"), as the server always did.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo
from typing import Iterable, Literal

from functools import lru_cache

from babel import Locale
from babel.dates import format_date, format_skeleton, format_time, format_timedelta
from babel.lists import format_list

from app.i18n import _, current

#: The CLDR locale each language formats with.
CLDR = {"en": "en_GB", "de": "de_DE", "ja": "ja_JP"}


def cldr() -> Locale:
    """The CLDR locale of the language being written in (parsed once: Babel's
    functions parse a locale name on every call, a seat page lists names some 25 times)."""
    return _parsed(CLDR.get(current(), "en_GB"))


@lru_cache(maxsize=None)
def _parsed(name: str) -> Locale:
    return Locale.parse(name)


def _local(moment: datetime, zone: tzinfo | None) -> datetime:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(zone or timezone.utc)


def zone_label(local: datetime) -> str:
    """The zone as its readers call it where CLDR knows a short name ('MEZ' in German,
    'CET' in English), else its abbreviation ('JST', 'UTC')."""
    name = local.tzname() or "UTC"
    try:
        cldr_name = format_time(local, "z", tzinfo=local.tzinfo, locale=cldr())
    except (LookupError, ValueError):  # a zone CLDR cannot name: the abbreviation
        return name
    short = cldr_name and len(cldr_name) <= 5 and not any(c.isdigit() for c in cldr_name)
    return cldr_name if short else name


def short_when(moment: datetime, zone: tzinfo | None = None) -> str:
    """'Tue 8 Dec 18:00 CET', 'Di., 8. Dez. 18:00 MEZ', '12月8日(火) 18:00 JST': a deadline
    as a first line or a lock screen has room for it. English keeps the form every
    English mail, page and push has said since issue 49 ("Tue 8 Sep 18:00 CEST": CLDR's
    British English would say "Sept", and a name for the zone where the abbreviation is
    shorter), so a deadline reads the same on the lock screen and in the mail."""
    local = _local(moment, zone)
    if current() == "en":
        return f"{local:%a} {local.day} {local:%b %H:%M} {local.tzname() or 'UTC'}"
    return _("%(date)s %(time)s %(zone)s",
             date=format_skeleton("MMMEd", local, tzinfo=local.tzinfo, locale=cldr()),
             time=format_time(local, "HH:mm", tzinfo=local.tzinfo, locale=cldr()),
             zone=zone_label(local))


def long_when(moment: datetime, zone: tzinfo | None = None) -> str:
    """'Tuesday, 8 December 2026, 18:00 CET', 'Dienstag, 8. Dezember 2026, 18:00 MEZ',
    '2026年12月8日火曜日 18:00 JST'."""
    local = _local(moment, zone)
    return _("%(date)s, %(time)s %(zone)s",
             date=format_date(local.date(), "full", locale=cldr()),
             time=format_time(local, "HH:mm", tzinfo=local.tzinfo, locale=cldr()),
             zone=zone_label(local))


def day_when(moment: datetime, zone: tzinfo | None = None) -> str:
    """'Tue 8 Dec' (a day, without the time)."""
    local = _local(moment, zone)
    return format_skeleton("MMMEd", local, tzinfo=local.tzinfo, locale=cldr())


def clock_time(moment: datetime, zone: tzinfo | None = None) -> str:
    """'18:00' in the reader's zone."""
    local = _local(moment, zone)
    return format_time(local, "HH:mm", tzinfo=local.tzinfo, locale=cldr())


def span(left: timedelta, *, direction: bool = True) -> str:
    """'in 2 days', 'in 12 hours', 'in 3 minutes' ('in 2 Tagen', '2 日後'); without
    ``direction``, the length alone ('2 days'). Rounded as CLDR rounds it."""
    if left.total_seconds() <= 0 and direction:
        return _("now")
    return format_timedelta(left, threshold=1.0, add_direction=direction,
                            granularity="minute", locale=cldr())


def names(items: Iterable[str], style: Literal["standard", "or"] = "standard") -> str:
    """'Ann, Bob and Kenji', 'Ann, Bob und Kenji', 'Ann、Bob、Kenji' (``style`` 'or' for
    'Ann or Bob')."""
    return format_list(list(items), style=style, locale=cldr())
