"""A person's settings, each in one place (issues 32, 45, 46): what a field of the
settings form means, how it is checked, what it changes on the person's row, and how
that change is said in words (on the page and in the mail that tells the person).

Long because: every person-wide setting is one ``Field`` here, with its reading, its
checks and its words, so that adding one opens one file (issue 46); split by setting,
the fields would scatter again.

A new person-wide setting is added here (its column on ``people.models.Person``, a
``Field`` below, its words), in ``templates/person.html`` and in a migration; nothing
else changes: the doors (``app.web.person``) hand the whole form on, and the use case
(``app.services.person_settings.save``) stores whatever ``apply`` returns, keeps the
change with what it replaced, and mails it.

A change of zone or quiet hours also moves the person's open decisions out of the new
quiet hours and off the days their games' clocks do not run (later only: nobody loses
time): ``settle``, one read of every open decision of the person's running games and,
when any moves, three writes — the same statements for a person in one game as in
eight (issue 46 item 2).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Mapping
from zoneinfo import ZoneInfo, available_timezones

import sqlalchemy as sa

from app import i18n
from app.i18n import N_, _
from app.clock import deadlines as dl
from app.clock.calendar import Quiet
from app.db.statements import table_of
from app.db.unit import Unit
from app.gamelog import store
from app.people import away
from app.people.calendar import person_calendar, quiet_of
from app.people.models import ADDRESS_MODES, DAILY, NONE, PER_GAME, Person

ADDRESS_MODE_WORDS = {
    PER_GAME: N_("as chosen in each game"),
    DAILY: N_("one digest a day across all my games"),
    NONE: N_("no mail about any of my games, except links I ask for"),
}
#: Quiet hours may not take more of a day than this: a person must be reachable.
QUIET_MAX_HOURS = 16
#: A game's clock that runs every day: the settings page shows the person's own hours.
EVERY_DAY = dl.ClockSettings.from_options({})
#: A field the form left alone (distinct from None, which means "none": no quiet hours).
KEEP: Any = object()
TRUE_WORDS = ("1", "on", "true", "yes")


class Refused(ValueError):
    """A field that cannot be stored, with words for the person (nothing was stored)."""


# -- checking one field ------------------------------------------------------------------

def check_zone(name: str) -> str:
    """An IANA time zone name as ``zoneinfo`` knows it, or ``Refused``."""
    name = str(name or "").strip()
    if not name or len(name) > 64 or name not in available_timezones() and name != "UTC":
        raise Refused(_("Choose a time zone from the list, such as Europe/Paris or "
                        "America/New_York."))
    ZoneInfo(name)
    return name


def check_quiet(start: str | None, end: str | None) -> tuple[int, int] | None:
    """Quiet hours as ``"22:00"``, ``"08:00"`` (local, may wrap midnight), checked:
    ``(start, end)`` in minutes after midnight, or None for none (both empty)."""
    start, end = (str(start or "").strip(), str(end or "").strip())
    if not start and not end:
        return None
    if not start or not end:
        raise Refused(_("Give both ends of your quiet hours (like 22:00 and 08:00), or "
                        "neither for none."))
    try:
        quiet = Quiet.parse(start, end)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    if quiet.hours() > QUIET_MAX_HOURS:
        raise Refused(_("Quiet hours can last at most %(most)s hours a day (%(quiet)s is "
                        "%(hours)s); the game needs some of your day.", most=QUIET_MAX_HOURS,
                        quiet=quiet.words(), hours=f"{quiet.hours():g}"))
    return (quiet.start.hour * 60 + quiet.start.minute, quiet.end.hour * 60 + quiet.end.minute)


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def common_zones(current: str) -> list[str]:
    """Every zone ``zoneinfo`` knows, sorted (the form's list), current one included."""
    zones = sorted(z for z in available_timezones() if "/" in z or z == "UTC")
    return zones if current in zones else [current, *zones]


# -- the fields ------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    """One person-wide setting: the form's names that ask for it, how they are read into
    one value (``read``: ``Refused`` with words), the value on a row (``of``: the same
    shape, to compare and to keep in a change), what storing a value writes on the row
    (``columns``), and the value in words (``words``)."""

    name: str
    asks: tuple[str, ...]
    read: Callable[[Mapping[str, Any], Callable[[str], list[Any]]], Any]
    of: Callable[[Any], Any]
    columns: Callable[[Any, datetime], dict[str, Any]]
    words: Callable[[Any], str]
    #: The person's clock: a change moves their open decisions (``settle``).
    clock: bool = False
    #: The person's seats: a change renames them in their running games
    #: (``people.tenures.rename``).
    seats: bool = False
    #: Away until a date (issue 47 item 5): what it writes depends on the year's
    #: allowance and moves deadlines, so ``columns`` writes nothing and the use case asks
    #: ``people.away`` (``plan``, ``shift``).
    away: bool = False


def _zone_read(form: Mapping[str, Any], _listed: Any) -> Any:
    return check_zone(str(form["time_zone"])) if form.get("time_zone") else KEEP


def _language_read(form: Mapping[str, Any], _listed: Any) -> Any:
    """The language the person reads (issue 50): one the server speaks, or refused."""
    if not form.get("language"):
        return KEEP
    code = i18n.supported(str(form["language"]))
    if code is None or code != str(form["language"]):
        raise Refused(_("Choose one of the languages listed: %(languages)s.",
                        languages=", ".join(i18n.NAMES.values())))
    return code


def _quiet_read(form: Mapping[str, Any], _listed: Any) -> Any:
    if "quiet_start" not in form and "quiet_end" not in form:
        return KEEP
    quiet = check_quiet(form.get("quiet_start"), form.get("quiet_end"))
    return list(quiet) if quiet else None


def _mode_read(form: Mapping[str, Any], _listed: Any) -> Any:
    if not form.get("address_mode"):
        return KEEP
    if form["address_mode"] not in ADDRESS_MODE_WORDS:
        raise Refused(_("Choose one of: as chosen in each game, one digest a day, or no "
                        "mail about any of your games."))
    return str(form["address_mode"])


def _by_mail_read(form: Mapping[str, Any], getlist: Callable[[str], list[Any]]) -> Any:
    if "by_mail" not in form:
        return KEEP
    # (the form posts a hidden "0" before the checkbox: a form without the box is "off")
    return any(str(v).lower() in TRUE_WORDS for v in getlist("by_mail"))


#: The longest name a person may go by (a seat's, in the lobby: ``services.games``).
MAX_NAME_LENGTH = 60


def _name_read(form: Mapping[str, Any], _listed: Any) -> Any:
    if "name" not in form:
        return KEEP
    name = " ".join(str(form["name"] or "").split())
    if not name:
        raise Refused(_("Give the name you want to be shown by at your tables."))
    if len(name) > MAX_NAME_LENGTH:
        raise Refused(_("A name is at most %(most)s characters long.", most=MAX_NAME_LENGTH))
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        raise Refused(_("Your name holds a control character (such as NUL); please type it "
                        "plainly."))
    return name


def _push_instead_read(form: Mapping[str, Any], getlist: Callable[[str], list[Any]]) -> Any:
    if "push_instead" not in form:
        return KEEP
    # (a hidden "0" before the checkbox, as ``by_mail``'s)
    return any(str(v).lower() in TRUE_WORDS for v in getlist("push_instead"))


def _invitations_read(form: Mapping[str, Any], _listed: Any) -> Any:
    if not form.get("invitations"):
        return KEEP
    if form["invitations"] not in ("allow", "refuse"):
        raise Refused(_("Choose to allow or to refuse invitations."))
    return "allowed" if form["invitations"] == "allow" else "refused"


def _standing_read(form: Mapping[str, Any], _listed: Any) -> Any:
    if not form.get("standing"):
        return KEEP
    if form["standing"] not in ("show", "hide"):
        raise Refused(_("Choose to show your record and rating to others, or to hide them."))
    return form["standing"] == "hide"


def _away_read(form: Mapping[str, Any], _listed: Any) -> Any:
    if form.get("away_back"):  # "I'm back" in all my games
        return None
    if "away_until" not in form:
        return KEEP
    raw = str(form.get("away_until") or "").strip()
    if not raw:
        return None
    try:
        day = away.check_date(raw, "UTC")
    except ValueError as exc:
        raise Refused(str(exc)) from None
    if day < (dl.now() - timedelta(days=1)).date().isoformat():
        raise Refused(_("That day has passed: give the day you will be back."))
    return day


FIELDS: tuple[Field, ...] = (
    Field("standing", ("standing",), _standing_read, lambda row: bool(row.standing_hidden),
          lambda hidden, now: {"standing_hidden": bool(hidden)},
          lambda hidden: (_("your record and rating hidden from others (tables see only "
                            "whether you are new, reliable or not)") if hidden
                          else _("your record and rating shown on your page"))),
    Field("name", ("name",), _name_read, lambda row: row.name,
          lambda name, now: {"name": name},
          lambda name: (_("shown as %(name)s at your tables", name=name) if name
                        else _("shown by the names your games' creators typed")),
          seats=True),
    Field("time_zone", ("time_zone",), _zone_read, lambda row: row.time_zone,
          lambda zone, now: {"time_zone": zone, "settings_at": now},
          lambda zone: _("times in %(zone)s", zone=zone or "UTC"), clock=True),
    Field("language", ("language",), _language_read, lambda row: row.language,
          lambda code, now: {"language": code},
          lambda code: _("pages and mail in %(language)s",
                         language=i18n.NAMES.get(code or i18n.DEFAULT))),
    Field("quiet", ("quiet_start", "quiet_end"), _quiet_read,
          lambda row: list(quiet) if (quiet := quiet_of(row)) else None,
          lambda quiet, now: {"quiet_start": quiet[0] if quiet else None,
                              "quiet_end": quiet[1] if quiet else None, "settings_at": now},
          lambda quiet: (_("quiet hours %(start)s–%(end)s", start=hhmm(quiet[0]),
                           end=hhmm(quiet[1])) if quiet
                         else _("no quiet hours")), clock=True),
    Field("mode", ("address_mode",), _mode_read, lambda row: row.mode,
          lambda mode, now: {"mode": mode},
          lambda mode: _("mail across your games: %(mode)s",
                         mode=_(ADDRESS_MODE_WORDS[mode]) if mode in ADDRESS_MODE_WORDS
                         else mode)),
    Field("by_mail", ("by_mail",), _by_mail_read, lambda row: bool(row.by_mail),
          lambda on, now: {"by_mail": bool(on)},
          lambda on: (_("notices also by mail") if on
                      else _("notices on your targets instead of mail"))),
    Field("push_instead", ("push_instead",), _push_instead_read,
          lambda row: bool(row.push_instead), lambda on, now: {"push_instead": bool(on)},
          lambda on: (_("your turns mailed only when a push to your browser fails (the "
                        "digest and news by mail as before)") if on
                      else _("your turns mailed beside push"))),  # (issue 49 item 4)
    Field("invitations", ("invitations",), _invitations_read,
          lambda row: "refused" if row.no_invitations_at is not None else "allowed",
          lambda what, now: {"no_invitations_at": now if what == "refused" else None},
          lambda what: (_("creators here may invite you to games") if what == "allowed"
                        else _("nobody can invite you to a game here any more"))),
    Field("away", ("away_until", "away_back"), _away_read,
          lambda row: away.local_date(row, dl.now()),
          lambda day, now: {},
          lambda day: (_("away from all your games until %(day)s", day=day) if day
                       else _("back in all your games")), away=True),
)
BY_NAME = {each.name: each for each in FIELDS}


@dataclass
class Wanted:
    """What a person asked to change: ``{field name: value}`` (a field left alone is not
    there); ``asked``: every field asked for, in the form's order."""

    values: dict[str, Any] = field(default_factory=dict)

    @property
    def asked(self) -> list[str]:
        return list(self.values)


def read(form: Mapping[str, Any], getlist: Callable[[str], list[Any]] | None = None) -> Wanted:
    """Every person field of a form checked before any is stored: ``Refused`` with words
    for the first bad one."""
    wanted = Wanted()
    for each in FIELDS:
        value = each.read(form, getlist or (lambda name: [form[name]]))
        if value is not KEEP:
            wanted.values[each.name] = value
    return wanted


def words(name: str, value: Any) -> str:
    """One line of a change, in the words of the page and the mail."""
    found = BY_NAME.get(name)
    return found.words(value) if found is not None else name


@dataclass
class Applied:
    """What ``apply`` found to change: the row's columns to write, and the fields'
    values before and after (only those that differ from what is stored)."""

    columns: dict[str, Any] = field(default_factory=dict)
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    clock: bool = False
    seats: bool = False
    away: bool = False


def apply(row: Any, wanted: Wanted, now: datetime) -> Applied:
    """The changes ``wanted`` makes to the person ``row`` (a ``Row`` or ``Person``; it is
    not changed here): what differs from what is stored."""
    done = Applied()
    for name, value in wanted.values.items():
        each = BY_NAME[name]
        if value == each.of(row):
            continue
        done.before[name], done.after[name] = each.of(row), value
        done.columns.update(each.columns(value, now))
        done.clock = done.clock or each.clock
        done.seats = done.seats or each.seats
        done.away = done.away or each.away
    if done.columns:
        done.columns["updated_at"] = now
    return done


def status(row: Person | Any | None, address: str) -> dict[str, Any]:
    """What the settings page shows of the person (``row`` None: every default)."""
    zone = (row.time_zone if row is not None else None) or "UTC"
    quiet = quiet_of(row) if row is not None else None
    return {"address": address, "time_zone": zone, "name": row.name if row is not None else "",
            "language": (row.language if row is not None else None) or i18n.current(),
            "language_chosen": row.language if row is not None else None,
            "languages": i18n.NAMES,
            "chosen": row is not None and row.settings_at is not None,
            "zones": common_zones(zone),
            "quiet_start": hhmm(quiet[0]) if quiet else "",
            "quiet_end": hhmm(quiet[1]) if quiet else "",
            "calendar_words": person_calendar(row, EVERY_DAY).describe(),
            "address_mode": row.mode if row is not None else PER_GAME,
            "address_modes": ADDRESS_MODE_WORDS,
            "by_mail": bool(row.by_mail) if row is not None else True,
            "push_instead": bool(row.push_instead) if row is not None else False,
            "invitations_refused_at": row.no_invitations_at if row is not None else None,
            "standing_hidden": bool(row.standing_hidden) if row is not None else False,
            **away_status(row)}


def away_status(row: Any) -> dict[str, Any]:
    """The settings page's "away until a date" (issue 47 item 5): the day back (in the
    person's zone), when it ends in words, the allowance and what is left of it."""
    now = dl.now()
    until = away.until_of(row, now)
    zone = getattr(row, "time_zone", None) if row is not None else None
    return {"away_until": away.local_date(row, now) or "",
            "away_until_words": away.when(until, zone) if until is not None else "",
            "away_days_left": away.days_left(row, now),
            "away_allowance": away.allowance()}


# -- the person's open decisions after a change of their clock ---------------------------

@dataclass(frozen=True)
class Moved:
    """One open decision moved later: its row, its new due time and budget, and the
    reminders planned again for its new window."""

    id: int
    game_id: str
    seat: int
    due: datetime
    budget: int | None
    reminders: tuple[datetime, ...]
    opened_step: int
    opened_at: datetime


def settle(unit: Unit, address: str, person: Any, now: datetime) -> list[Moved]:
    """Move every open decision of ``address``'s running games out of its person's quiet
    hours and off the days each game's clock does not run (later only: the time moved
    over is credited to a time bank's budget), with its reminders, on the unit: one
    read, and when any moves one UPDATE of the decisions (those a clock is firing right
    now are left: it is too late to move them), one of their open reminders and one
    INSERT of the new ones. ``person``: the row as it is now (after the change)."""
    now = dl.as_utc(now)
    found = unit.session.connection().execute(
        sa.select(_DEADLINES.c.id, _DEADLINES.c.game_id, _DEADLINES.c.seat,
                  _DEADLINES.c.due_at, _DEADLINES.c.budget_seconds,
                  _DEADLINES.c.opened_step, _DEADLINES.c.opened_at, _GAMES.c.options)
        .select_from(_DEADLINES.join(_SEATS, sa.and_(
            _SEATS.c.game_id == _DEADLINES.c.game_id, _SEATS.c.index == _DEADLINES.c.seat))
            .join(_GAMES, _GAMES.c.id == _DEADLINES.c.game_id))
        .where(sa.func.lower(_SEATS.c.email) == address.strip().lower(),
               _SEATS.c.kind == "human", _GAMES.c.status == "running",
               _DEADLINES.c.kind == dl.DECISION, _DEADLINES.c.done_at.is_(None),
               sa.or_(_DEADLINES.c.lease_until.is_(None), _DEADLINES.c.lease_until < now))
        .order_by(_DEADLINES.c.id)).all()
    moved: list[Moved] = []
    for row_id, game_id, seat, due_at, budget, opened_step, opened_at, options in found:
        settings = dl.ClockSettings.from_options(options or {})
        calendar = person_calendar(person, settings)
        due = dl.as_utc(due_at)
        settled = calendar.settle(due)
        if settled <= due:
            continue
        credit = int(calendar.used(due, settled).total_seconds())
        opened = dl.as_utc(opened_at)
        moved.append(Moved(int(row_id), str(game_id), int(seat), settled,
                           int(budget) + credit if budget is not None else None,
                           tuple(at for at in settings.reminder_times(opened, settled,
                                                                      calendar) if at > now),
                           int(opened_step), opened))
    if moved:
        _write_moved(unit, moved, now)
    return moved


def _write_moved(unit: Unit, moved: list[Moved], now: datetime) -> None:
    ids = [each.id for each in moved]
    unleased = sa.or_(_DEADLINES.c.lease_until.is_(None), _DEADLINES.c.lease_until < now)
    values: dict[str, Any] = {
        "due_at": sa.case({each.id: each.due for each in moved}, value=_DEADLINES.c.id)}
    banked = {each.id: each.budget for each in moved if each.budget is not None}
    if banked:  # (a time bank's budget grows by the time moved over: nobody loses time)
        values["budget_seconds"] = sa.case(banked, value=_DEADLINES.c.id,
                                           else_=_DEADLINES.c.budget_seconds)
    unit.statement(sa.update(_DEADLINES).where(_DEADLINES.c.id.in_(ids),
                                               _DEADLINES.c.done_at.is_(None), unleased)
                   .values(values))
    seats = sa.tuple_(_DEADLINES.c.game_id, _DEADLINES.c.seat)
    unit.statement(sa.update(_DEADLINES).where(
        _DEADLINES.c.kind == dl.REMINDER, _DEADLINES.c.done_at.is_(None), unleased,
        seats.in_([(each.game_id, each.seat) for each in moved]))
        .values(done_at=now, outcome="cancelled"))
    reminders = [{"game_id": each.game_id, "seat": each.seat, "kind": dl.REMINDER,
                  "due_at": at, "opened_step": each.opened_step, "opened_at": each.opened_at}
                 for each in moved for at in each.reminders]
    if reminders:
        unit.statement(sa.insert(_DEADLINES).values(reminders))



_DEADLINES = table_of(dl.Deadline)
_SEATS = table_of(store.Seat)
_GAMES = table_of(store.Game)
