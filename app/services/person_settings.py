"""A person's settings, the same in every game of their address (issues 32, 45, 46): the
use case behind the doors of ``app.web.person``.

What each setting means, how it is checked and what it writes is the person's room
(``app.people.settings``: one ``Field`` each); this module is the transaction around it.
Every person-wide change — the settings page (opened by a settings link or the games
page's link), the games page's invitations switch, an invitation's "no more
invitations", the daily digest's unsubscribe — is ``save``: checked whole before
anything is stored, then one unit of work (``app.db.unit``): the person's row once, its
open decisions of every running game settled in a fixed number of statements
(``people.settings.settle``), the targets for all games (``app.channels``), the change
kept with what it replaced (``people.keys.record``) and mailed to the address at once
with a link that undoes it (``settings_keys.told``). ``undo`` puts back what a change
replaced, where nothing changed it since. A seat link opens none of this: its door
only mails the settings link (``mail_settings_link_for_seat``).

``set_time_zone``, ``set_quiet`` and ``set_address_mode`` store a setting without a
door, a record or a mail: the operator's and the tests' setters.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app import i18n, services
from app.channels import push, targets
from app.channels.models import NoticeTarget
from app.clock import deadlines as dl
from app.db import read_session
from app.db.statements import dialect_insert, table_of
from app.db.unit import Row, Unit, unit_of_work
from app.people import away, keys
from app.people import settings as fields
from app.people import tenures
from app.people.models import PER_GAME, Person
from app.services import settings_keys
from app.services.settings_keys import stored_address

ADDRESS_MODE_WORDS = fields.ADDRESS_MODE_WORDS
_PERSONS = table_of(Person)


def _checked(check: Callable[..., Any], *args: Any) -> Any:
    try:
        return check(*args)
    except fields.Refused as exc:
        raise services.BadRequest(str(exc)) from None


def check_zone(name: str) -> str:
    return str(_checked(fields.check_zone, name))


def check_quiet(start: str | None, end: str | None) -> tuple[int, int] | None:
    quiet = _checked(fields.check_quiet, start, end)
    return (int(quiet[0]), int(quiet[1])) if quiet else None


# -- what a door asks ---------------------------------------------------------------------

@dataclass
class Wanted:
    """A change a door asks for: the person's own fields (``people.settings``) and the
    targets of all their games (``app.channels``)."""

    person: fields.Wanted = field(default_factory=fields.Wanted)
    add_target: tuple[str, str] | None = None
    remove_target: int | None = None
    #: A browser's Web Push subscription for all their games (issue 49): its checked
    #: endpoint, P-256 key and auth secret (``services.push_subscriptions``).
    add_push: tuple[str, str, str] | None = None
    #: An undo's names of the person's seats, game by game, as they were before the change
    #: (a chosen name renames them; taking it back gives each game its own name again).
    seat_names: dict[str, str] | None = None

    @property
    def empty(self) -> bool:
        return (not self.person.values and self.add_target is None
                and self.remove_target is None and self.add_push is None)


def wanted(**values: Any) -> Wanted:
    """A change of the person's fields given as values (``mode="none"``, the one-click
    doors'), not read from a form."""
    return Wanted(fields.Wanted(dict(values)))


def check(form: Mapping[str, Any], getlist: Callable[[str], list[Any]] | None = None) -> Wanted:
    """Every field of a settings form checked before any is stored (a bad one changes
    nothing): ``BadRequest`` with words for the first bad one."""
    asked = Wanted(_checked(fields.read, form, getlist))
    url = str(form.get("target_url") or "").strip()
    if url:
        try:
            asked.add_target = targets.validate(url)
        except ValueError as exc:
            raise services.BadRequest(str(exc)) from None
    if form.get("remove_target"):
        raw = str(form["remove_target"])
        if not (raw.isascii() and raw.isdigit() and len(raw) < 12):
            raise services.NotFound(i18n._("There is no such notice target of yours."))
        asked.remove_target = int(raw)
    return asked


# -- the person's row in a unit of work ---------------------------------------------------

def person_row(unit: Unit, address: str) -> Row:
    """The person's row as this unit holds it, made now when the address has none (one
    INSERT that a racing transaction may win: its row is read instead)."""
    address = stored_address(unit.session, address)
    connection = unit.session.connection()
    found = connection.execute(sa.select(_PERSONS).where(
        sa.func.lower(_PERSONS.c.address) == address.lower())).mappings().first()
    if found is None:
        found = connection.execute(
            dialect_insert(_PERSONS, unit.dialect)
            .values(address=address, mode=PER_GAME, by_mail=True, soft_bounces=0)
            .on_conflict_do_nothing(index_elements=["address"])
            .returning(*_PERSONS.columns)).mappings().first() or connection.execute(
            sa.select(_PERSONS).where(_PERSONS.c.address == address)).mappings().one()
    return Row(_PERSONS, found)


# -- a change -----------------------------------------------------------------------------

def save(address: str, asked: Wanted, via: str, *, key_id: str | None = None,
         now: datetime | None = None) -> list[str]:
    """Store ``asked`` for ``address`` in one unit of work, keep the change and mail it;
    what was saved, in words (the same lines as the mail). ``via``: the key that opened
    the door (``keys.VIA_WORDS``); ``key_id``: a settings link, whose sitting starts."""
    if asked.empty:
        raise services.BadRequest(i18n._("Nothing to save: choose a time zone, quiet hours or how "
                                  "your mail comes."))
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        if key_id is not None:
            keys.mark_used(unit, key_id, now)
        lines = save_in(unit, address, asked, via, now)
        unit.write()
    return lines or ["nothing new: your settings were already so"]


def save_in(unit: Unit, address: str, asked: Wanted, via: str, now: datetime, *,
            undo: bool = True) -> list[str]:
    """``save`` on the caller's unit of work (the one-click doors: an invitation's "no
    more invitations", the digest's unsubscribe): what changed, in words; nothing kept
    or mailed when nothing changed."""
    row = person_row(unit, address)
    done = fields.apply(row, asked.person, now)
    before, after = dict(done.before), dict(done.after)
    if done.columns:
        unit.update(row, **done.columns)
    if done.clock:
        fields.settle(unit, row.address, row, now)
    said = _away(unit, row, after["away"], now) if done.away else []
    if done.seats:
        before["seat_names"] = _rename(unit, row.address, row.name, asked.seat_names)
    if asked.remove_target is not None:
        before["target_removed"], after["target_removed"] = _remove_target(
            unit.session, row.address, asked.remove_target)
    if asked.add_target is not None:
        before["target_added"] = None
        after["target_added"] = _add_target(unit.session, row.address, *asked.add_target, now)
    if asked.add_push is not None:  # (undone as any target added: it is removed)
        before["target_added"] = None
        after["target_added"] = _add_push(unit.session, row.address, *asked.add_push, now)
    if not after:
        return []
    lines = [_words(name, value) for name, value in after.items()] + said
    change = keys.record(unit, row.address, via, before, after, "; ".join(lines), now)
    with i18n.in_language(row.language):  # (issue 50) the mail in the person's language
        settings_keys.told(unit, change, row.address, now, via, lines, name=row.name,
                           undo=undo)
    return lines


def _away(unit: Unit, row: Row, day: str | None, now: datetime) -> list[str]:
    """Away until ``day`` in all the person's games (None: back now), issue 47 item 5:
    the person's row takes the stretch within the year's allowance, and the open
    deadlines of every running game of theirs that allows vacation move with it (one
    read, one UPDATE: ``people.away``); what it paused, in words."""
    done = away.plan(row, day, now)
    unit.update(row, **done.columns, updated_at=now)
    said = away.shift(unit, row.address, row, done.before, done.after, now)
    return away.lines(done, said, row.time_zone)


def _rename(unit: Unit, address: str, name: str | None,
            names: dict[str, str] | None) -> dict[str, str]:
    """The person's seats in their running games take their chosen ``name`` (or, an
    undo's, the names ``names`` they had); the names they had before, by game. Refused in
    words, and nothing stored, when another seat of one of those games goes by it."""
    now_named = tenures.named(unit.session, address, name if names is None else None)
    if now_named.taken is not None:
        raise services.BadRequest(i18n._("%(name)s is the name of another player in "
                                         "%(game)s: choose a name nobody at your tables "
                                         "goes by.", name=name, game=now_named.taken))
    wanted = (dict(names) if names is not None else
              {game: name for game in now_named.names} if name else {})
    tenures.rename(unit, address, {game: each for game, each in wanted.items()
                                   if game in now_named.names})
    return now_named.names


def _words(name: str, value: Any) -> str:
    if name == "target_added":
        return f"notices of all your games go to {value['shown']} as well"
    if name == "target_removed":
        return f"no more notices to {value['shown']}"
    return fields.words(name, value)


def _add_target(session: Session, address: str, url: str, service: str,
                now: datetime) -> dict[str, Any]:
    try:
        target = targets.add(session, url=url, service=service, now=now, address=address)
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None
    return {"id": target.id, "shown": targets.mask(target.url)}


def _add_push(session: Session, address: str, endpoint: str, p256dh: str, auth: str,
              now: datetime) -> dict[str, Any]:
    try:
        target = push.subscribe(session, endpoint=endpoint, p256dh=p256dh, auth=auth, now=now,
                                address=address)
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None
    return {"id": target.id, "shown": targets.mask(target.url)}


def _remove_target(session: Session, address: str,
                   number: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Remove one of the person's targets; before (its URL, kept for the undo alone: it is
    never shown) and after (masked)."""
    target = session.get(NoticeTarget, number) if number > 0 else None
    if target is None or (target.address or "").lower() != address.lower():
        raise services.NotFound(i18n._("There is no such notice target of yours."))
    shown = targets.mask(target.url)
    kept = {"url": target.url, "service": target.service, "shown": shown}
    targets.remove(session, target)
    return kept, {"id": number, "shown": shown}


# -- undo ------------------------------------------------------------------------------

@dataclass(frozen=True)
class UndoPage:
    """What an undo link's page shows before the button is pressed (a GET reads only)."""

    words: str
    at: datetime
    via: str


def undo_page(token: str, now: datetime | None = None) -> UndoPage:
    with read_session() as session:
        change = _open_change(session, token, now)
        return UndoPage(change.words, dl.as_utc(change.at),
                        keys.VIA_WORDS.get(change.via, change.via))


def _open_change(session: Session, token: str, now: datetime | None) -> keys.PersonChange:
    try:
        return keys.open_change(session, token, dl.as_utc(now or dl.now()))
    except keys.KeyRefused as exc:
        raise services.Forbidden(exc.words, reason=exc.reason) from None


def undo(token: str, now: datetime | None = None) -> list[str]:
    """Put back what the change replaced, where nothing changed it since; what was put
    back and what was left (changed again since), in words. The undo is a change too: it
    is kept and mailed like any other (without an undo link of its own: the settings
    link sets anything again)."""
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        change = _open_change(unit.session, token, now)
        row = person_row(unit, change.address)
        back, left = Wanted(), []
        for name, value in change.after.items():
            old = change.before.get(name)
            if name == "target_added":
                kept = unit.session.get(NoticeTarget, int(value["id"]))
                if kept is not None and (kept.address or "").lower() == row.address.lower():
                    back.remove_target = int(value["id"])
                else:
                    left.append(f"{_words(name, value)}: that target was removed since")
            elif name == "target_removed" and isinstance(old, dict) \
                    and old.get("service") == targets.PUSH_SERVICE:
                # (a browser's keys are not kept: it subscribes again, issue 49)
                left.append(f"{_words(name, value)}: press \"Notify this browser of my "
                            "turns\" on that browser to have them again")
            elif name == "target_removed" and isinstance(old, dict):
                back.add_target = (str(old["url"]), str(old["service"]))
            elif name == "name" and fields.BY_NAME[name].of(row) == value:
                back.person.values[name] = old
                back.seat_names = dict(change.before.get("seat_names") or {})
            elif fields.BY_NAME[name].of(row) != value:
                left.append(f"{_words(name, value)}: changed again since, so left as it is")
            else:
                back.person.values[name] = old
        keys.undone(unit, change.id, now)
        lines = save_in(unit, row.address, back, "undo", now, undo=False) + left
        unit.write()
    return lines or ["nothing to put back: it was all changed again since"]


# -- the operator's and the tests' setters (no door, no record, no mail) ---------------

def _store(address: str, now: datetime | None, **values: Any) -> None:
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        row = person_row(unit, address)
        done = fields.apply(row, fields.Wanted(dict(values)), now)
        if done.columns:
            unit.update(row, **done.columns)
        if done.clock:
            fields.settle(unit, row.address, row, now)
        unit.write()


def guess_language(address: str, code: str, now: datetime | None = None) -> None:
    """Keep the language a person's first post behind a key that proves their address
    was read in (issue 50: guessed once from the browser), unless they chose one; no
    mail, no undo: it is what they were already reading. Never from a seat link (a
    forwarded mail proves no address) nor from a form a stranger fills in."""
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        row = person_row(unit, address)
        if row.language is None and code in i18n.LANGUAGES:
            unit.update(row, language=code, updated_at=now)
        unit.write()


def set_time_zone(address: str, name: str, now: datetime | None = None) -> str:
    """Store the person's time zone (no door, no mail: see the module docstring)."""
    name = check_zone(name)
    _store(address, now, time_zone=name)
    return name


def set_quiet(address: str, start: str | None, end: str | None,
              now: datetime | None = None) -> tuple[int, int] | None:
    """Store the person's quiet hours (issue 21 item 1; None: none): no mail or notice
    leaves in them and no deadline of theirs falls in them, in any game; a waiting
    decision that now falls in them moves to their end (never earlier)."""
    quiet = check_quiet(start, end)
    _store(address, now, quiet=list(quiet) if quiet else None)
    return quiet


def set_address_mode(address: str, mode: str) -> str:
    """How the person's mail comes across all their games."""
    if mode not in ADDRESS_MODE_WORDS:
        raise services.BadRequest(i18n._("Choose one of: as chosen in each game, or one digest a day."))
    _store(address, None, mode=mode)
    return mode


# -- reading --------------------------------------------------------------------------

def find(session: Session, address: str) -> Person | None:
    """The person's row as stored (None: every default), one statement."""
    return session.exec(select(Person).where(
        sa.func.lower(col(Person.address)) == address.strip().lower())).first() \
        if address else None


def status(address: str, session: Session | None = None) -> dict[str, Any]:
    """What the person's settings page shows (read only)."""
    if session is None:
        with read_session() as own:
            return status(address, own)
    return fields.status(find(session, address), address)


def invitations_refused_at(address: str) -> datetime | None:
    """When ``address`` refused invitations (None: they are welcome); read only."""
    with read_session() as session:
        row = find(session, address)
        return row.no_invitations_at if row is not None else None
