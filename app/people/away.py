"""Away until a date, in all of a person's games at once (issue 47 item 5; OGS's
vacation days are the model).

A person who travels says so once, on their settings page (a key that proves the
address: never a seat link, issue 45): "away until 14 December" means back at 00:00 of
that day in their own zone. From then on, in every running game of theirs whose options
allow vacation (``vacation_days`` > 0, the per-game vacation's own rule), their
deadlines do not run: each open deadline moves later by the time away, keeping the
running time it had left (as ``services.absence.start_vacation`` does for one seat),
and a decision opening meanwhile counts from the end (``pause_of``, read by the move
that opens it: ``clock.deadlines.open_decision``). So no timeout fires for them while
it lasts and an announced absence never counts against them (R29's run of timeouts
needs a deadline to pass).

The days come from a yearly allowance (``AWAY_DAYS_PER_YEAR``, 30 by default), per
calendar year in UTC (the year the stretch began is charged for all of it): a stretch
is charged in whole days when set (a part of a day counts as a day), changed when the
date changes, and its unused whole days are refunded when it ends early ("I'm back").
A stretch longer than what is left is shortened to it: past its end, and in a game
whose options allow no vacation, the person is away as R29 says today (nothing of R29
changes). The person's own per-game vacation stays as it was; a seat paused by both
counts from the later end.

Cost (issue 46 item 2): setting, changing or ending it is one read of every open
deadline of the person's running games and at most one UPDATE of them, beside the
person's row: the same statements for a person in one game as in eight.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

import sqlalchemy as sa

from app.clock import deadlines as dl
from app.config import setting
from app.db.statements import table_of
from app.db.unit import Unit
from app.gamelog import store
from app.i18n import _, forms, ngettext
from app.people.calendar import person_calendar, zone_of

#: The farthest date one may say: a year ahead (the allowance is smaller anyway).
FARTHEST_DAYS = 366


def allowance() -> int:
    """The days a person may be away in a calendar year (``AWAY_DAYS_PER_YEAR``)."""
    return max(0, int(setting("AWAY_DAYS_PER_YEAR")))


def span_days(start: datetime, end: datetime) -> int:
    """Whole days charged for a stretch (a part of a day counts as a day)."""
    seconds = (dl.as_utc(end) - dl.as_utc(start)).total_seconds()
    return max(0, math.ceil(seconds / 86400))


def until_of(person: Any, now: datetime) -> datetime | None:
    """When the person's stretch away ends (None: not away now)."""
    until = getattr(person, "away_until", None) if person is not None else None
    return dl.as_utc(until) if until is not None and dl.as_utc(until) > dl.as_utc(now) else None


def pause_of(person: Any, settings: dl.ClockSettings, now: datetime) -> datetime | None:
    """Until when the person's deadlines stand still in a game with these clock
    ``settings``: their stretch away, in a game that allows vacation; else None."""
    return until_of(person, now) if settings.vacation_days > 0 else None


def seat_paused_until(clock: Any, person: Any, settings: dl.ClockSettings,
                      now: datetime) -> datetime | None:
    """Until when a seat's clock stands still: the later of its own vacation in this
    game (``clock``: its ``SeatClock`` row) and its person's stretch away from all their
    games (``pause_of``); None when neither runs now. What every table shows of a seat
    ("Ann is travelling until ...") and the seat's own page of itself."""
    own = getattr(clock, "vacation_until", None) if clock is not None else None
    ends = [end for end in (dl.as_utc(own) if own is not None else None,
                            pause_of(person, settings, now))
            if end is not None and end > dl.as_utc(now)]
    return max(ends) if ends else None


def days_left(person: Any, now: datetime) -> int:
    """The days of this year's allowance not charged yet (a stretch running now is
    charged already, whole)."""
    now = dl.as_utc(now)
    year = getattr(person, "away_year", None) if person is not None else None
    active = until_of(person, now) is not None
    used = int(getattr(person, "away_days_used", 0) or 0) if active or year == now.year else 0
    return max(0, allowance() - used)


def local_date(person: Any, now: datetime) -> str | None:
    """The day the person is back, in their zone (``YYYY-MM-DD``; None: not away)."""
    until = until_of(person, now)
    if until is None:
        return None
    return until.astimezone(zone_of(getattr(person, "time_zone", None))).date().isoformat()


def check_date(raw: str, zone: Any = None, now: datetime | None = None) -> str:
    """A date as the form's date input sends it, checked (``ValueError`` with words):
    today or later, at most a year ahead."""
    try:
        day = date.fromisoformat(str(raw).strip())
    except ValueError:
        raise ValueError(_("Give the day you are back as a date, like 2026-12-14.")) from None
    today = dl.as_utc(now or dl.now()).astimezone(zone_of(zone)).date() if zone else None
    if today is not None and day > today + timedelta(days=FARTHEST_DAYS):
        raise ValueError(_("You can say you are away for at most a year ahead."))
    return day.isoformat()


def back_at(day: str, zone_name: str | None) -> datetime:
    """00:00 of ``day`` in the person's zone, in UTC: when "away until ``day``" ends."""
    zone = zone_of(zone_name)
    return dl.as_utc(datetime.combine(date.fromisoformat(day), time(0), tzinfo=zone))


# -- a change --------------------------------------------------------------------------

@dataclass
class Planned:
    """What a change of the person's stretch away does: its end before and after (None:
    not away), what the person's row takes, and what to say."""

    before: datetime | None
    after: datetime | None
    columns: dict[str, Any]
    shortened: bool = False
    refunded: int = 0
    left: int = 0


def plan(person: Any, day: str | None, now: datetime) -> Planned:
    """The stretch ``day`` asks for (None: back now), within the allowance."""
    now = dl.as_utc(now)
    total = allowance()
    before = until_of(person, now)
    used = int(getattr(person, "away_days_used", 0) or 0)
    if before is not None:
        since = dl.as_utc(person.away_since) if person.away_since is not None else now
        year = int(person.away_year or since.year)
        charged = span_days(since, before)
        other = max(0, used - charged)
    else:
        since, year, charged = now, now.year, 0
        other = used if getattr(person, "away_year", None) == year else 0
    wanted = back_at(day, getattr(person, "time_zone", None)) if day else None
    cap = since + timedelta(days=max(0, total - other))
    after = min(wanted, cap) if wanted is not None else None
    if after is not None and after <= now:
        after = None
    if after is None:
        spent = span_days(since, now) if before is not None else 0
        columns: dict[str, Any] = {"away_until": None, "away_since": None,
                                   "away_days_used": other + spent, "away_year": year}
    else:
        spent = span_days(since, after)
        columns = {"away_until": after, "away_since": since,
                   "away_days_used": other + spent, "away_year": year}
    return Planned(before, after, columns,
                   shortened=wanted is not None and (after is None or after < wanted),
                   refunded=max(0, charged - spent) if before is not None else 0,
                   left=max(0, total - other - spent))


@dataclass
class Shifted:
    """The person's running games, by whether the stretch pauses them (names)."""

    paused: list[str] = field(default_factory=list)
    not_paused: list[str] = field(default_factory=list)


def shift(unit: Unit, address: str, person: Any, before: datetime | None,
          after: datetime | None, now: datetime) -> Shifted:
    """Move every open deadline of ``address``'s seats in its running games that allow
    vacation from counting after ``before`` to counting after ``after`` (either None:
    now), keeping the running time each had left; a time-bank decision's budget grows
    (or shrinks back) by the pause, so the pause is never taken from the bank. Rows a
    clock is firing right now are left (too late to move). One read, at most one
    UPDATE."""
    now = dl.as_utc(now)
    unleased = sa.or_(_DEADLINES.c.lease_until.is_(None), _DEADLINES.c.lease_until < now)
    found = unit.session.connection().execute(
        sa.select(_SEATS.c.game_id, _SEATS.c.index, _GAMES.c.name, _GAMES.c.options,
                  _CLOCKS.c.vacation_until, _DEADLINES.c.id, _DEADLINES.c.kind,
                  _DEADLINES.c.due_at, _DEADLINES.c.budget_seconds)
        .select_from(_SEATS.join(_GAMES, _GAMES.c.id == _SEATS.c.game_id)
                     .outerjoin(_CLOCKS, sa.and_(_CLOCKS.c.game_id == _SEATS.c.game_id,
                                                 _CLOCKS.c.seat == _SEATS.c.index))
                     .outerjoin(_DEADLINES, sa.and_(
                         _DEADLINES.c.game_id == _SEATS.c.game_id,
                         _DEADLINES.c.seat == _SEATS.c.index,
                         _DEADLINES.c.done_at.is_(None),
                         _DEADLINES.c.kind.in_((dl.DECISION, dl.REMINDER)), unleased)))
        .where(sa.func.lower(_SEATS.c.email) == address.strip().lower(),
               _SEATS.c.kind == "human", _GAMES.c.status == "running")
        .order_by(_SEATS.c.game_id, _DEADLINES.c.id)).all()
    said = Shifted()
    dues: dict[int, datetime] = {}
    budgets: dict[int, int] = {}
    for game_id, _seat, name, options, own, row_id, kind, due_at, budget in found:
        settings = dl.ClockSettings.from_options(options or {})
        allows = settings.vacation_days > 0
        words = str(name or _("game %(id)s", id=game_id))
        listed = said.paused if allows else said.not_paused
        if words not in listed:
            listed.append(words)
        if not allows or row_id is None:
            continue
        own_end = max(now, dl.as_utc(own)) if own is not None else now
        counted_from = max(own_end, before or now)
        counts_from = max(own_end, after or now)
        if counts_from == counted_from:
            continue
        calendar = person_calendar(person, settings)
        left = calendar.used(counted_from, dl.as_utc(due_at))
        dues[int(row_id)] = (calendar.due(counts_from, left) if kind == dl.DECISION
                             else calendar.add(counts_from, left))
        if kind == dl.DECISION and budget is not None:
            paused = (calendar.used(counted_from, counts_from).total_seconds()
                      - calendar.used(counts_from, counted_from).total_seconds())
            budgets[int(row_id)] = max(0, int(budget) + int(paused))
    if dues:
        values: dict[str, Any] = {"due_at": sa.case(dues, value=_DEADLINES.c.id)}
        if budgets:
            values["budget_seconds"] = sa.case(budgets, value=_DEADLINES.c.id,
                                               else_=_DEADLINES.c.budget_seconds)
        unit.statement(sa.update(_DEADLINES).where(_DEADLINES.c.id.in_(list(dues)),
                                                   _DEADLINES.c.done_at.is_(None), unleased)
                       .values(values))
    return said


def when(moment: datetime, zone_name: str | None) -> str:
    """A moment in a reader's zone, as the table shows times ("Mon 14 Dec, 00:00 CET")."""
    local = dl.as_utc(moment).astimezone(zone_of(zone_name))
    return _("%(day)s, %(time)s %(zone)s", day=forms.day_when(local, local.tzinfo),
             time=forms.clock_time(local, local.tzinfo), zone=forms.zone_label(local))


def lines(done: Planned, said: Shifted, zone_name: str | None) -> list[str]:
    """What the person is told of the change, beside the setting's own line (the page
    and the mail, once)."""
    out: list[str] = []
    listed = ", ".join(said.paused)
    if done.after is not None:
        until = when(done.after, zone_name)
        out.append(_("your deadlines stand still until %(when)s in %(games)s", when=until,
                     games=listed) if listed else
                   _("your deadlines stand still until %(when)s (no running game of yours "
                     "now)", when=until))
        if done.shortened:
            out.append(_("that is as far as this year's away days go: after it your clock "
                         "runs as usual, and missed deadlines count"))  # R29
    elif done.before is not None:
        run = (_("your deadlines run again in %(games)s", games=listed) if listed
               else _("your deadlines run again"))
        out.append(ngettext("%(run)s; %(num)d unused day given back",
                            "%(run)s; %(num)d unused days given back", done.refunded, run=run)
                   if done.refunded else run)
    elif done.shortened:
        out.append(_("no away days left this year: your clock runs as usual"))  # R29
    if said.not_paused and (done.after is not None or done.shortened):
        out.append(_("not paused in %(games)s: those games allow no vacation, so missed "
                     "deadlines count there", games=", ".join(said.not_paused)))  # R29
    out.append(_("%(left)s of %(allowance)s away days left this year", left=done.left,
                 allowance=allowance()))
    return out


_DEADLINES = table_of(dl.Deadline)
_CLOCKS = table_of(dl.SeatClock)
_SEATS = table_of(store.Seat)
_GAMES = table_of(store.Game)
