"""A person-wide change, as one use case (issue 45): checked whole, stored in one
transaction, kept with what it replaced, mailed to the address with a link that undoes it.

Every door that changes what holds in all of a person's games comes here: the settings
page (opened by a settings link or the games page's link), the games page's invitations
switch, an invitation's "no more invitations" link and the daily digest's unsubscribe.
A seat link is not among them (it opens one seat: ``app.web.person``).

``check`` reads a form (or JSON) into a ``Wanted`` and refuses a bad field before
anything is stored; ``save`` stores what differs from now, settles the open decisions of
the person's running games when the zone or the quiet hours moved
(``person_settings.store_clock``), keeps a ``keys.PersonChange`` with the values before,
and queues its mail (``settings_keys.told``) in the same transaction. ``undo`` puts back
the values a change replaced, field by field, where nothing changed them since.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from sqlmodel import Session

from app import services
from app.channels import targets
from app.channels.models import NoticeTarget
from app.clock import deadlines as dl
from app.db import read_session, write_session
from app.mail import invitations
from app.people import keys
from app.people.models import Person
from app.services import person_settings as ps
from app.services import settings_keys

#: A field the form left alone (distinct from None, which means "none": no quiet hours).
KEEP: Any = object()
TRUE_WORDS = ("1", "on", "true", "yes")


@dataclass
class Wanted:
    """What a person asked to change (``KEEP``: leave it). Checked by ``check``."""

    time_zone: Any = KEEP
    quiet: Any = KEEP              # (start, end) in minutes, or None for none
    mode: Any = KEEP
    by_mail: Any = KEEP
    invitations: Any = KEEP        # True: welcome; False: refused
    add_target: tuple[str, str] | None = None      # (normalised url, service)
    remove_target: int | None = None
    asked: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.asked


def check(form: Mapping[str, Any], getlist: Any = None) -> Wanted:
    """Every field of a settings form checked before any is stored (a bad one changes
    nothing): ``BadRequest`` with words for the first bad one."""
    wanted = Wanted()
    if form.get("time_zone"):
        wanted.time_zone = ps.check_zone(str(form["time_zone"]))
        wanted.asked.append("time_zone")
    if "quiet_start" in form or "quiet_end" in form:
        wanted.quiet = ps.check_quiet(form.get("quiet_start"), form.get("quiet_end"))
        wanted.asked.append("quiet")
    if form.get("address_mode"):
        if form["address_mode"] not in ps.ADDRESS_MODE_WORDS:
            raise services.BadRequest("Choose one of: as chosen in each game, one digest a "
                                      "day, or no mail about any of your games.")
        wanted.mode = str(form["address_mode"])
        wanted.asked.append("mode")
    if "by_mail" in form:
        values = getlist("by_mail") if getlist is not None else [form["by_mail"]]
        wanted.by_mail = any(str(v).lower() in TRUE_WORDS for v in values)
        wanted.asked.append("by_mail")
    if form.get("invitations"):
        if form["invitations"] not in ("allow", "refuse"):
            raise services.BadRequest("Choose to allow or to refuse invitations.")
        wanted.invitations = form["invitations"] == "allow"
        wanted.asked.append("invitations")
    url = str(form.get("target_url") or "").strip()
    if url:
        try:
            wanted.add_target = targets.validate(url)
        except ValueError as exc:
            raise services.BadRequest(str(exc)) from None
        wanted.asked.append("add_target")
    if form.get("remove_target"):
        raw = str(form["remove_target"])
        if not (raw.isascii() and raw.isdigit() and len(raw) < 12):
            raise services.NotFound("There is no such notice target of yours.")
        wanted.remove_target = int(raw)
        wanted.asked.append("remove_target")
    return wanted


def _quiet_of(row: Person | None) -> list[int] | None:
    if row is None or row.quiet_start is None or row.quiet_end is None:
        return None
    return [int(row.quiet_start), int(row.quiet_end)]


def _words(name: str, value: Any) -> str:
    """One line of a change, in the words of the page and the mail."""
    if name == "time_zone":
        return f"times in {value or 'UTC'}"
    if name == "quiet":
        return (f"quiet hours {ps.hhmm(value[0])}–{ps.hhmm(value[1])}" if value
                else "no quiet hours")
    if name == "mode":
        return f"mail across your games: {ps.ADDRESS_MODE_WORDS.get(value, value)}"
    if name == "by_mail":
        return ("notices also by mail" if value
                else "notices on your targets instead of mail")
    if name == "invitations":
        return ("creators here may invite you to games" if value == "allowed"
                else "nobody can invite you to a game here any more")
    if name == "target_added":
        return f"notices of all your games go to {value['shown']} as well"
    if name == "target_removed":
        return f"no more notices to {value['shown']}"
    return name


def save(address: str, wanted: Wanted, via: str, *, key_id: str | None = None,
         now: datetime | None = None) -> list[str]:
    """Store ``wanted`` for ``address`` in one transaction, keep the change and mail it;
    what was saved, in words (the same lines as the mail). ``via``: the key that opened
    the door (``keys.VIA_WORDS``); ``key_id``: a settings link, whose sitting starts."""
    if wanted.empty:
        raise services.BadRequest("Nothing to save: choose a time zone, quiet hours or how "
                                  "your mail comes.")
    now = dl.as_utc(now or dl.now())
    with write_session() as session:
        if key_id is not None:
            keys.mark_used(session, key_id, now)
        lines = save_in(session, address, wanted, via, now)
    return lines or ["nothing new: your settings were already so"]


def save_in(session: Session, address: str, wanted: Wanted, via: str,
            now: datetime) -> list[str]:
    """``save`` in the caller's transaction (the one-click doors: an invitation's "no
    more invitations", the digest's unsubscribe): what changed, in words; nothing
    kept or mailed when nothing changed."""
    row = ps.person_row(session, address)
    before, after = _apply(session, row, wanted, now)
    if not after:
        return []
    lines = [_words(name, value) for name, value in after.items()]
    change = keys.record(session, row.address, via, before, after, "; ".join(lines), now)
    settings_keys.told(session, change, lines, name=row.name)
    return lines


def _apply(session: Session, row: Person, wanted: Wanted,
           now: datetime) -> tuple[dict[str, Any], dict[str, Any]]:
    """Store what differs from the row; ``(before, after)`` of what changed."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    clock: dict[str, Any] = {}
    if wanted.time_zone is not KEEP and wanted.time_zone != row.time_zone:
        before["time_zone"], after["time_zone"] = row.time_zone, wanted.time_zone
        clock["time_zone"] = wanted.time_zone
    if wanted.quiet is not KEEP:
        quiet = list(wanted.quiet) if wanted.quiet else None
        if quiet != _quiet_of(row):
            before["quiet"], after["quiet"] = _quiet_of(row), quiet
            clock.update(quiet_start=quiet[0] if quiet else None,
                         quiet_end=quiet[1] if quiet else None)
    if wanted.mode is not KEEP and wanted.mode != row.mode:
        before["mode"], after["mode"] = row.mode, wanted.mode
        row.mode = wanted.mode
    if wanted.by_mail is not KEEP and bool(wanted.by_mail) != bool(row.by_mail):
        before["by_mail"], after["by_mail"] = bool(row.by_mail), bool(wanted.by_mail)
        row.by_mail = bool(wanted.by_mail)
    if wanted.invitations is not KEEP:
        refused = invitations.refused_at(session, row.address) is not None
        if wanted.invitations == refused:  # a change: allowed and refused, or refused and allowed
            before["invitations"] = "refused" if refused else "allowed"
            after["invitations"] = "allowed" if wanted.invitations else "refused"
            (ps.allow_invitations if wanted.invitations else ps.refuse_invitations)(
                session, row.address)
    if wanted.remove_target is not None:
        before["target_removed"], after["target_removed"] = _remove_target(
            session, row.address, wanted.remove_target)
    if wanted.add_target is not None:
        added = _add_target(session, row.address, *wanted.add_target, now)
        before["target_added"], after["target_added"] = None, added
    row.updated_at = now
    session.add(row)
    if clock:  # zone and hours settle the open decisions of every running game of theirs
        ps.store_clock(session, row, now, **clock)
    return before, after


def _add_target(session: Session, address: str, url: str, service: str,
                now: datetime) -> dict[str, Any]:
    try:
        target = targets.add(session, url=url, service=service, now=now, address=address)
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None
    return {"id": target.id, "shown": targets.mask(target.url)}


def _remove_target(session: Session, address: str, number: int) -> tuple[dict[str, Any],
                                                                         dict[str, Any]]:
    """Remove one of the person's targets; before (its URL, kept for the undo alone: it is
    never shown) and after (masked)."""
    target = session.get(NoticeTarget, number) if number > 0 else None
    if target is None or (target.address or "").lower() != address.lower():
        raise services.NotFound("There is no such notice target of yours.")
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
    with write_session() as session:
        change = _open_change(session, token, now)
        row = ps.person_row(session, change.address)
        wanted, left = Wanted(), []
        current = {"time_zone": row.time_zone, "quiet": _quiet_of(row), "mode": row.mode,
                   "by_mail": bool(row.by_mail),
                   "invitations": "refused" if invitations.refused_at(
                       session, row.address) is not None else "allowed"}
        for name, value in change.after.items():
            old = change.before.get(name)
            if name == "target_added":
                kept = session.get(NoticeTarget, int(value["id"]))
                if kept is not None and (kept.address or "").lower() == row.address.lower():
                    wanted.remove_target = int(value["id"])
                else:
                    left.append(f"{_words(name, value)}: that target was removed since")
                    continue
            elif name == "target_removed" and isinstance(old, dict):
                wanted.add_target = (str(old["url"]), str(old["service"]))
            elif current.get(name) != value:
                left.append(f"{_words(name, value)}: changed again since, so left as it is")
            elif name == "quiet":
                wanted.quiet = tuple(old) if old else None
            elif name == "invitations":
                wanted.invitations = old == "allowed"
            else:
                setattr(wanted, name, old)
            wanted.asked.append(name)
        before, after = _apply(session, row, wanted, now)
        change.undone_at = now
        session.add(change)
        lines = [_words(name, value) for name, value in after.items()] + left
        if after:
            redo = keys.record(session, row.address, "undo", before, after,
                               "; ".join(lines), now)
            settings_keys.told(session, redo, lines, name=row.name, undo=False)
    return lines or ["nothing to put back: it was all changed again since"]
