"""Table talk's use cases (issue 20 items 1 and 4): saying a message at a game's table,
the creator hiding one or keeping the talk from spectators, a seat muting it, and what
the pages and the JSON show of it.

Long because: saying, hiding and muting at the table are one use case with their
refusals, each a whole translatable sentence (issue 50).

The talk is public like the discard pile: every seat reads every message, spectators
too unless the creator said no (``Game.talk_spectators``). It is typed by people and
stored as typed (control characters removed): every reader escapes it. No generated
text is added to a message, so it never carries a card a seat must not know.

``post`` works on the caller's session (a page's form, the JSON API, a ``SAY`` reply by
mail: ``app.inbound`` opens its own transaction); ``say_by_link`` and the other
``*_by_link``-style wrappers open one write session, check the seat link in it and
carry the whole request out there. ``for_page``/``lines_for`` read on the session a
page already opened (``services.seat_page``, ``services.game_page``).
"""
from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Sequence

from sqlalchemy import select
from sqlmodel import Session

from app.clock.time import as_utc, iso_in, now as clock_now
from app import i18n
from app.i18n import N_, _, forms, ngettext
from app.config import setting
from app.db import read_session, write_session
from app.db.statements import table_of
from app.engine.names import holds_now, name_at
from app.gamelog import store
from app.mail import table_talk
from app.mail import seat_prefs
from app.people import tenures
from app.services.errors import BadRequest, Forbidden, NotFound, TooMany
from app.services.repository import _seat_access
from app.services.results import SeatAccess
from app.talk import store as talk_store
from app.talk.models import API, MAIL, PAGE, Talk
from app.people.calendar import person_zone, zone_of

SOURCES = (PAGE, API, MAIL)
#: The longest key a caller may give (the stored key also names the game and seat).
MAX_KEY_CHARS = 100
#: The most messages a seat page lists; the replay's last frame has them all.
PAGE_LINES = 300
#: What a hidden message shows in its place, everywhere.
HIDDEN_WORDS = N_("hidden by the creator")

_TALK = table_of(Talk)
_GAME = table_of(store.Game)
#: Bidirectional overrides and isolates: they make a message show other text than it holds.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
#: What talk never carries (issue 45 item 5), read by page, JSON and mail alike: a mail
#: address (a reply address of ours is one: it plays a seat), a link with a key of ours
#: (a seat, the created page, my games, an invitation, a left seat, an unsubscribe, a
#: settings link), or a seat link's key on its own (the signed JSON list, ``["game",
#: seat, version]``, starts ``Wy``). Everyone at the table, and spectators, read the talk.
_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+", re.U)
_KEYED_LINK = re.compile(r"/(?:api/)?(?:play|created|my-games|invitations|left|unsubscribe|"
                         r"settings)/[\w.~%-]{6,}", re.I)
_SEAT_KEY = re.compile(r"\bWy[\w-]{8,}\.[\w-]{16,}")


@dataclass(frozen=True)
class Table:
    """What a talk use case needs of the game, read on its session."""

    game_id: str
    status: str
    people: tuple[int, ...]  # the human seats, in order; the first is the creator
    spectators: bool

    @property
    def creator(self) -> int | None:
        return self.people[0] if self.people else None


def _table(session: Session, game_id: str) -> Table:
    row = session.connection().execute(
        select(_GAME.c.status, _GAME.c.talk_spectators).where(_GAME.c.id == str(game_id))).first()
    if row is None:
        raise NotFound(_("There is no game with this id."))
    seats = store.seat_rows(session, str(game_id))
    return Table(str(game_id), str(row[0]), tuple(s.index for s in seats if s.kind == "human"),
                 bool(row[1]))


def clean(text: Any) -> str:
    """The message as it will be stored: plain text, stripped, line ends as ``\\n``,
    tabs as spaces, every other control character (and the bidi overrides, which would
    show other text than the message holds, and lone surrogates) removed. Refused with
    words when nothing is left, when it is longer than ``TALK_MAX_CHARS`` (never cut),
    or when it carries a mail address or a link with a key (issue 45 item 5)."""
    if not isinstance(text, str):
        raise BadRequest(_('The message must be text, like {"text": "nice Dracula"}.'))
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cs"))
    text = _BIDI.sub("", text).strip()
    if not text:
        raise BadRequest(_("Your message is empty: type something to say to the table."))
    most = int(setting("TALK_MAX_CHARS"))
    if len(text) > most:
        raise BadRequest(_("Your message is %(length)s characters; the table takes at most "
                           "%(most)s. Nothing was said.", length=len(text), most=most))
    if _ADDRESS.search(text):
        raise BadRequest(_("Your message holds a mail address. Table talk never carries one "
                         "(a reply address plays a seat, and everyone at the table reads "
                         "the talk): say it without the address. Nothing was said."),
                         reason="keys")
    if _KEYED_LINK.search(text) or _SEAT_KEY.search(text):
        raise BadRequest(_("Your message holds a link that opens a seat or someone's "
                         "settings. Table talk never carries one (whoever holds it plays "
                         "that seat, and everyone at the table reads the talk): say it "
                         "without the link. Nothing was said."), reason="keys")
    return text


def _stored_key(key: Any, source: str, game_id: str, seat: int) -> str | None:
    """The key as stored: a digest of the caller's own, under its source, game and seat
    (keys are unique across every game, so one seat's key never answers for another's;
    a mail's Message-ID may be long, the digest always fits the column). A page's or a
    program's key is at most ``MAX_KEY_CHARS`` printable characters."""
    if key is None or key == "":
        return None
    if not isinstance(key, str) or (source != MAIL and (
            len(key) > MAX_KEY_CHARS or not key.isprintable())):
        raise BadRequest(_("The message's key must be text of at most %(most)s "
                           "printable characters (or left out). Nothing was said.",
                           most=MAX_KEY_CHARS))
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    return f"{source}:{game_id}:{seat}:{digest}"


def _earlier(session: Session, key: str | None) -> int | None:
    if key is None:
        return None
    found = session.connection().execute(select(_TALK.c.id).where(_TALK.c.key == key)).scalar()
    return None if found is None else int(found)


def _minutes(delta: timedelta) -> str:
    minutes = max(1, int(-(-delta.total_seconds() // 60)))
    return ngettext("%(num)s minute", "%(num)s minutes", minutes)


def _check_rate(session: Session, game_id: str, seat: int, now: datetime) -> None:
    """The 51st message within an hour (``TALK_PER_SEAT_PER_HOUR``) is refused, saying
    when the seat may talk again."""
    per_hour = int(setting("TALK_PER_SEAT_PER_HOUR"))
    since = now - talk_store.HOUR
    if talk_store.said_since(session, game_id, seat, since) < per_hour:
        return
    oldest = talk_store.oldest_since(session, game_id, seat, since)
    again = as_utc(oldest) + talk_store.HOUR if oldest is not None else now + talk_store.HOUR
    raise TooMany(_("You said %(num)s messages at this table in the last hour, the most "
                    "it takes in an hour. You may talk again in %(wait)s "
                    "(at %(time)s UTC). Nothing was said.", num=per_hour,
                    wait=_minutes(again - now), time=f"{again:%H:%M}"),
                  retry_after=max(1, int((again - now).total_seconds())))


def post(session: Session, game_id: str, seat: int, text: str, *, key: str | None,
         source: str, now: datetime) -> int:
    """Say ``text`` at the table of ``game_id`` as ``seat``, in the caller's transaction;
    returns the message's id. Only the game's people talk (a bot does not), while the
    game runs and after it ended ("gg"); an abandoned game's table is closed. A message
    posted again with the same ``key`` (a form sent twice, a reply delivered twice) is
    said once: the earlier id comes back and nothing is told twice. A new message is
    handed to the mail (``app.mail.table_talk.said``) in the same transaction."""
    if source not in SOURCES:
        raise ValueError(f"unknown talk source {source!r}")
    game_id, seat, now = str(game_id), int(seat), as_utc(now)
    text = clean(text)
    stored = _stored_key(key, source, game_id, seat)
    table = _table(session, game_id)
    if seat not in table.people:
        raise Forbidden(_("Only the players of this game can talk at its table."), reason="talk")
    if table.status == "abandoned":
        raise Forbidden(_("This game was abandoned, so its table is closed: nothing more can be "
                        "said here. Its replay keeps what was said."), reason="abandoned")
    # one game's messages one at a time, until this transaction ends: two racing posts
    # cannot both be a seat's 50th, and ids commit in the order they were given, so a
    # mail that carries talk up to id N never skips a smaller id committed after it
    # (``table_talk.mark_told`` only raises a seat's told id)
    if not store.lock_key(session, f"talk:{game_id}"):
        raise TooMany(_("The table is busy; please send your message again in a moment. "
                      "Nothing was said."), retry_after=5)
    earlier = _earlier(session, stored)
    if earlier is not None:
        return earlier
    _check_rate(session, game_id, seat, now)
    step = store.last_seq(session, game_id)
    talk_id, new = talk_store.add(session, game_id=game_id, seat=seat, text=text, step=step,
                                  at=now, source=source, key=stored)
    if new:
        table_talk.said(session, game_id, talk_id, seat, now)
    return talk_id


# -- the web's wrappers: one write session, the link checked in it ---------------------

def _open(session: Session, token: str, check: Callable[[SeatAccess], None] | None) -> SeatAccess:
    access = _seat_access(session, token)
    if check is not None:
        check(access)  # the form's CSRF token, before anything is read from it
    return access


def say_by_link(token: str, text: Any, key: Any, source: str,
                check: Callable[[SeatAccess], None] | None = None) -> tuple[SeatAccess, int]:
    """``post`` for the seat of a link: the link checked (and ``check(access)``, the
    page's CSRF token) in the message's own transaction."""
    with write_session() as session:
        access = _open(session, token, check)
        return access, post(session, access.game_id, access.seat, text, key=key,
                            source=source, now=clock_now())


def hide(token: str, talk_id: int, check: Callable[[SeatAccess], None] | None = None) -> bool:
    """The creator (the game's first human seat) hides one message: kept in the log,
    shown everywhere as "hidden by the creator", carried by no mail after this. True
    when it was hidden now, False when it was hidden already."""
    with write_session() as session:
        access = _open(session, token, check)
        table = _table(session, access.game_id)
        if access.seat != table.creator:
            raise Forbidden(_("Only the game's creator can hide a message at its table."),
                            reason="creator")
        found = session.connection().execute(
            select(_TALK.c.hidden_at).where(_TALK.c.game_id == access.game_id,
                                           _TALK.c.id == int(talk_id))).first()
        if found is None:
            raise NotFound(_("There is no such message at this table."))
        if found[0] is not None:
            return False
        return talk_store.hide(session, access.game_id, int(talk_id), access.seat, clock_now())


def set_muted(token: str, muted: bool, check: Callable[[SeatAccess], None] | None = None) -> bool:
    """A seat folds the talk away on its page (and, per the mail's rules, out of its
    mail), or brings it back; returns the new setting."""
    with write_session() as session:
        access = _open(session, token, check)
        row = seat_prefs.seat_mail(session, access.game_id, access.seat)
        row.talk_muted = bool(muted)
        row.updated_at = clock_now()
    return bool(muted)


def set_spectators(token: str, on: bool, check: Callable[[SeatAccess], None] | None = None) -> bool:
    """The creator lets spectators (and the public replay while the game runs) read
    the talk, or not; returns the new setting."""
    with write_session() as session:
        access = _open(session, token, check)
        if access.seat != _table(session, access.game_id).creator:
            raise Forbidden(_("Only the game's creator can choose whether spectators read the "
                            "table talk."), reason="creator")
        session.connection().execute(_GAME.update().where(_GAME.c.id == access.game_id)
                                     .values(talk_spectators=bool(on)))
    return bool(on)


# -- reading, on the caller's session ------------------------------------------------

def _time_words(moment: datetime, zone: Any) -> str:
    local = as_utc(moment).astimezone(zone)
    if i18n.current() != i18n.DEFAULT:  # the reader's language: CLDR's form (issue 50)
        return forms.short_when(local, local.tzinfo)
    return f"{local.day} {local:%b %H:%M} {local.tzname() or 'UTC'}"


def rows(found: Iterable[talk_store.Line], names: Sequence[str], me: int | None = None,
         zone_name: str | None = None) -> list[dict[str, Any]]:
    """Messages as the templates and the JSON show them: the sender's name (the seat's
    holder when it was said: issue 32, R53), the text (None when hidden), when (aware
    UTC, ISO, and in words in ``zone_name``)."""
    zone = zone_of(zone_name or "UTC")
    out = []
    for line in found:
        at = as_utc(line.at)
        out.append({"id": line.id, "seat": line.seat, "step": line.step,
                    "name": name_at(names, line.seat, line.step),
                    "text": line.shown(), "hidden": line.hidden, "at": at,
                    "at_iso": iso_in(at, zone), "at_words": _time_words(at, zone),
                    "mine": line.seat == me and holds_now(names, line.seat, line.step)})
    return out


def as_json(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The JSON of ``rows``: id, seat, name, text (null when hidden), at (ISO), hidden, step."""
    return [{"id": r["id"], "seat": r["seat"], "name": r["name"], "text": r["text"],
             "at": r["at_iso"], "hidden": r["hidden"], "step": r["step"]} for r in lines]


def seat_box(table: Table, found: list[talk_store.Line], total: int, names: Sequence[str],
             me: int, muted: bool, zone_name: str | None) -> dict[str, Any]:
    """The seat page's talk box from rows its presenter read already (issue 33: the newest
    lines with their count in one statement, the mute on the seat's mail row)."""
    newest = max((line.id for line in found), default=0)
    lines = rows(found, names, me, zone_name) if not muted else []
    return _box(table, lines, total, newest, muted, True, names, me)


def for_page(session: Session, game_id: str, names: Sequence[str] | None) -> dict[str, Any]:
    """The spectator page's talk box, read only: the newest ``PAGE_LINES`` messages (when
    spectators read the talk) and their count (a seat page's box is ``seat_box``)."""
    game_id = str(game_id)
    table = _table(session, game_id)
    if names is None:  # (the spectator page's reader is not given them)
        names = _names(session, game_id)
    found, total = talk_store.newest_counted(session, game_id, PAGE_LINES)
    lines = rows(found, names) if table.spectators else []
    return _box(table, lines, total, max((line.id for line in found), default=0), False,
                table.spectators, names, None)


def _box(table: Table, lines: list[dict[str, Any]], total: int, newest: int, muted: bool,
         shown: bool, names: Sequence[str], me: int | None) -> dict[str, Any]:
    closed = table.status == "abandoned"
    return {"lines": lines, "total": total, "earlier": max(0, total - len(lines)),
            "newest": newest, "muted": muted, "shown": shown, "me": me,
            "creator": me is not None and me == table.creator,
            "creator_name": names[table.creator] if table.creator is not None
            and table.creator < len(names) else _("the creator"),
            "spectators": table.spectators, "over": table.status == "over",
            "can_talk": me is not None and me in table.people and not closed and not muted,
            "closed": closed, "max_chars": int(setting("TALK_MAX_CHARS")),
            "key": secrets.token_urlsafe(16), "hidden_words": _(HIDDEN_WORDS)}


def _names(session: Session, game_id: str) -> Sequence[str]:
    """The seats' names now and before (issue 32: ``tenures.names_of``, read only when a
    seat ever changed hands)."""
    seats = store.seat_rows(session, game_id)
    return tenures.names_of(session, game_id, seats, [s.name for s in seats])


def lines_for(session: Session, game_id: str, names: Sequence[str], me: int | None = None,
              after_id: int = 0, upto_step: int | None = None,
              limit: int | None = None, zone: str | None = None) -> list[dict[str, Any]]:
    """The talk as ``rows`` on the caller's session (the JSON, the replay); a seat's
    times in its person's zone (issue 33: a seat's JSON shows no UTC time), read here
    unless the caller knows it (``zone``)."""
    if zone is None and me is not None:
        zone = str(person_zone(session, game_id, me))
    return rows(talk_store.lines(session, str(game_id), after_id=after_id, upto_step=upto_step,
                                 limit=limit), names, me, zone)


def for_replay(session: Session, game_id: str, seat: int | None, step: int, over: bool,
               names: Sequence[str]) -> dict[str, Any]:
    """What a replay frame shows of the talk, read on the replay's own session
    (``services.replay_page``'s ``also``): what was said up to ``step``. A seat's
    replay (opened by its link) always shows it; a public one once the game is over,
    or while it runs if the creator lets spectators read the talk."""
    table = _table(session, game_id)
    shown = seat is not None or over or table.spectators
    lines = lines_for(session, game_id, names, seat, upto_step=step) if shown else []
    # the shape of ``for_page``'s box, read only (no form, no switches)
    return {"shown": shown, "lines": lines, "total": len(lines), "earlier": 0, "newest": 0,
            "muted": False, "me": None, "creator": False, "spectators": table.spectators,
            "over": over, "can_talk": False, "closed": False, "hidden_words": _(HIDDEN_WORDS),
            "note": _("What was said up to move %(step)s.", step=step) if lines else None,
            "not_shown_words": _("The players keep their table talk to themselves while the "
                                 "game runs; it is shown here once the game is over.")}


def replay_json(game_id: str, seat: int | None, step: int, over: bool,
                names: Sequence[str]) -> list[dict[str, Any]] | None:
    """The talk of the JSON replay up to ``step`` (None: this reader may not read it
    yet), in a read session of its own."""
    with read_session() as session:
        said = for_replay(session, game_id, seat, step, over, names)
    return as_json(said["lines"]) if said["shown"] else None


def news(game_id: str) -> tuple[int, int, int]:
    """How far a game is, its newest talk id and the news of its people (issue 21: votes,
    answers, days given), for pages polling for news (three small queries in one read
    session); ``NotFound`` for no such game."""
    from app.table import store as table_store

    with read_session() as session:
        step = store.game_seq(session, str(game_id))
        if step is None:
            raise NotFound(_("There is no game with this id."))
        return (step, talk_store.newest_id(session, str(game_id)),
                table_store.news(session, str(game_id)))


def json_lines(game_id: str, me: int | None, after_id: int = 0,
               limit: int | None = PAGE_LINES) -> tuple[list[dict[str, Any]], int]:
    """The talk as the JSON API gives it to a seat, in a read session of its own:
    ``(lines after after_id (the newest limit of them), the game's newest talk id)``."""
    with read_session() as session:
        found = lines_for(session, game_id, _names(session, str(game_id)), me,
                          after_id=after_id, limit=limit)
        return as_json(found), talk_store.newest_id(session, str(game_id))
