"""What table talk does to mail (issue 20 item 2): the next mail carries it, once.

Long because: the whole life of talk in mail lives here, each step short and
each reading the others' rules — queueing a talk mail when someone speaks
(``said``), checking it still has something to say when it leaves
(``still_holds``), composing it (``talk_mail``), the "At the table:" block that
every other game mail of a seat carries at send time (``at_the_table``,
``with_talk``) and, once a mail was handed over, noting what it carried
(``mark_told``). Split apart, each would have to re-derive what the others decide.

The rules, as friends at a table would expect them:

- Each message reaches a seat by mail at most once: ``SeatMail.talk_told_id`` is the
  newest id a mail of the seat carried, raised (never lowered) only after that mail was
  handed over; what a mail carries is read as it leaves, so a message is never in two.
- Talk alone never floods: a seat has at most one pending talk mail per game; on
  ``hourly`` it leaves no sooner than ``TALK_MAIL_MINUTES`` after the last one left,
  on ``every`` after the game's grace period, at least ``GATHER`` (so a burst is
  collapsed into one mail).
  ``turns``: no talk mail of its own, the talk rides in the seat's next mail. ``never``
  or muted: no talk in mail at all.
- A pending talk mail whose messages another mail carried first is superseded when it
  would leave (``still_holds``), as a turn mail is when its decision is gone.
- Generated text names only people, times and what they typed (escaped in HTML):
  never a card.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from html import escape
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from app.access.reply_address import reply_address
from app.clock.time import as_utc
from app.config import setting
from app.db.statements import table_of
from app.engine.names import name_at
from app.gamelog import store
from app.i18n import N_, _, forms
from app.mail import compose, notify, turn_mails
from app.mail import seat_prefs
from app.mail import unsent
from app.mail.models import (NONE, PENDING, TALK_EVERY, TALK_HOURLY, TALK_NEVER, Outbox, SeatMail)
from app.people import tenures
from app.people.models import Person
from app.talk import store as talk_store
from app.talk.models import Talk
from app.people.calendar import person_zone

#: The outbox kind of a talk mail (and the ``announces["what"]`` it carries).
TALK_KIND = "talk"
#: The kinds of a seat's game mail that carry "At the table:" when they leave: its
#: turn mails, the round's and the game's end, the notices. Not invitations (nobody sat
#: down yet), not answers to replies (they answer one reply), not the fresh link.
CARRIES_TALK = frozenset({"turn", "reminder", "digest", "round", "over", "absent",
                          "you_absent", "abandoned", TALK_KIND,
                          # the table's people (issue 21)
                          "resigned", "took_over", "more_time", "vote", "voted"})
#: The talk modes that get talk mails of their own.
OWN_MAIL = (TALK_EVERY, TALK_HOURLY)
#: The least a talk mail waits after the message that queued it, gathering the ones
#: that follow (a game whose grace period is 0 still gets a burst in one mail).
GATHER = timedelta(seconds=60)
#: What a talk mail (and the block in any mail) tells the seat about answering.
SAY_HINT = N_("Reply with SAY and your words to answer the table.")

_OUTBOX = table_of(Outbox)
_MARKS = table_of(SeatMail)
_ADDRESSES = table_of(Person)


def period() -> timedelta:
    """The least time between two talk mails of a seat on ``hourly``."""
    try:
        minutes = float(setting("TALK_MAIL_MINUTES"))
    except (TypeError, ValueError):
        minutes = 60.0
    return timedelta(minutes=max(minutes, 0.0))


# -- someone spoke --------------------------------------------------------------------

def said(session: Session, game_id: str, talk_id: int, seat: int, now: datetime) -> None:
    """``seat`` said message ``talk_id`` at the table of ``game_id``, in the caller's
    transaction: queue the talk mails the other seats' talk settings ask for.

    One pending talk mail per seat at most (a burst collapses into it: what it says
    is read when it leaves); a row a sender holds right now does not count, since it
    may have been composed before this message was there."""
    game = session.get(store.Game, game_id)
    if game is None:
        return
    ctx = notify.Context.load(session, game)
    now = as_utc(now)
    for other in ctx.human_seats():
        if other == seat or ctx.address(other) is None:
            continue
        if notify.mode_of(ctx.unit, ctx, other) == NONE:
            continue
        marker = seat_prefs.mail_row(ctx.unit, ctx.id, other)
        mode = str(marker.talk_mode or TALK_HOURLY)
        if mode not in OWN_MAIL or marker.talk_muted:
            continue
        waiting = _pending_talk(session, ctx.id, other, now)
        if waiting == WAITING:
            continue
        due = now + max(ctx.delay, GATHER)
        if mode == TALK_HOURLY and marker.talk_mail_at is not None:
            due = max(due, as_utc(marker.talk_mail_at) + period())
        if mode == TALK_HOURLY and waiting == LEAVING:  # (its talk_mail_at is not set yet)
            due = max(due, now + period())
        unsent.queue(ctx.unit, game_id=ctx.id, seat=other, kind=TALK_KIND,
                     to=ctx.address(other), to_name=ctx.info.names[other],
                     mail=compose.Mail(subject=turn_mails.COMPOSED_AT_SEND, text="", html=""),
                     idempotency=f"talk:{ctx.id}:{other}:{int(talk_id)}", domain=ctx.domain,
                     now=now, unsubscribe=ctx.unsubscribe(other), due=due,
                     announces={"what": TALK_KIND, "seat": other,
                                "compose": {"talk_id": int(talk_id)}})


#: A seat's pending talk mail: one waiting to leave, or one a sender holds right now.
WAITING, LEAVING = "waiting", "leaving"


def _pending_talk(session: Session, game_id: str, seat: int, now: datetime) -> str | None:
    """The seat's pending talk mails (``ix_outbox_game``): ``WAITING`` if one waits that
    no sender holds, else ``LEAVING`` if a sender holds one, else None."""
    leases = session.connection().execute(
        select(_OUTBOX.c.lease_until).where(
            _OUTBOX.c.game_id == game_id, _OUTBOX.c.seat == seat,
            _OUTBOX.c.kind == TALK_KIND, _OUTBOX.c.status == PENDING)).scalars().all()
    if any(lease is None or as_utc(lease) <= now for lease in leases):
        return WAITING
    return LEAVING if leases else None


# -- what a seat was not told yet -------------------------------------------------------

@dataclass(frozen=True)
class Told:
    """The talk one mail carries: the block in both bodies, and the newest id in it."""

    text: str
    html: str
    upto: int
    first: str


def _marks(session: Session, game_id: str, seat: int) -> dict[str, Any] | None:
    row = session.connection().execute(
        select(_MARKS).where(_MARKS.c.game_id == game_id, _MARKS.c.seat == seat)
    ).mappings().first()
    return dict(row) if row is not None else None


def wants_talk(marks: dict[str, Any] | None) -> bool:
    """Whether a seat's mail may carry talk at all (not ``never``, not muted)."""
    return marks is not None and not marks.get("talk_muted") and \
        str(marks.get("talk_mode") or TALK_HOURLY) != TALK_NEVER


def _names(session: Session, game_id: str) -> list[str]:
    """The seats' names, and who held them before (issue 32: a message keeps the name of
    whoever said it; read only for a game whose seat changed hands)."""
    seats = store.seat_rows(session, game_id, with_email=False)
    return tenures.names_of(session, game_id, seats, [
        compose.clean_name(s.name) or _("Player %(number)s", number=s.index + 1) for s in seats],
        compose.clean_name)


def untold_lines(session: Session, game_id: str, seat: int) -> list[talk_store.Line]:
    """The messages the seat's mail has not carried yet ([] when it wants none)."""
    marks = _marks(session, game_id, seat)
    if not wants_talk(marks):
        return []
    assert marks is not None
    return talk_store.untold(session, game_id, seat, int(marks.get("talk_told_id") or 0))


def when_words(at: datetime, now: datetime, zone: tzinfo) -> str:
    """'14:05 CET' for today in the reader's zone, else 'Tue 1 Dec, 14:05 CET'."""
    local, today = as_utc(at).astimezone(zone), as_utc(now).astimezone(zone)
    clock = _("%(time)s %(zone)s", time=forms.clock_time(local, zone),
              zone=forms.zone_label(local))
    if local.date() == today.date():
        return clock
    return _("%(day)s, %(time)s", day=forms.day_when(local, zone), time=clock)


def block(lines: list[talk_store.Line], names: list[str], now: datetime,
          zone: tzinfo) -> Told | None:
    """"At the table:" with each message (name, time in the reader's zone, text as
    typed; escaped in HTML, line breaks kept), or None when there is none."""
    if not lines:
        return None
    heading = _("At the table:")
    text_lines, items = [heading], []
    for line in lines:
        who = name_at(names, line.seat, line.step, _("Player %(number)s", number=line.seat + 1))
        when = when_words(line.at, now, zone)
        said_text = line.text.replace("\r\n", "\n").strip()
        parts = said_text.split("\n")
        text_lines.append(f"  {who} ({when}): {parts[0]}")
        text_lines.extend(f"    {part}" for part in parts[1:])
        items.append(
            f'<li style="margin:0 0 4px"><strong>{escape(who)}</strong> '
            f'<span style="color:#5f5f5f;font-size:12px">{escape(when)}</span>: '
            f'{"<br>".join(escape(part) for part in parts)}</li>')
    html = ('<div class="talk" style="border:1px solid #d8cfb8;border-radius:6px;'
            'padding:8px 10px;margin:0 0 12px;background:#fdfbf6">'
            f'<p style="margin:0 0 4px;font-weight:bold">{escape(heading)}</p>'
            '<ul style="margin:0;padding-left:18px;font-size:14px">'
            + "\n".join(items) + "</ul></div>\n")
    first = lines[0]
    first_who = name_at(names, first.seat, first.step, _("Someone"))
    return Told(text="\n".join(text_lines), html=html, upto=max(l.id for l in lines),
                first=f"{first_who}: {first.text}")


def talking_games(session: Session, games: set[str]) -> set[str]:
    """Of ``games``, those with talk anybody may still be told of (not hidden): a mail of
    any other game carries none, so ``at_the_table`` is not asked of it (the sender asks
    once a batch, not once or twice a mail)."""
    if not games:
        return set()
    return set(session.execute(select(col(Talk.game_id)).distinct().where(
        col(Talk.game_id).in_(sorted(games)), col(Talk.hidden_at).is_(None))).scalars())


def at_the_table(engine: Engine, row: Outbox, now: datetime) -> Told | None:
    """The talk the mail of ``row`` carries as it leaves (None: none, or a mail that
    carries no talk: not a seat's game mail, a seat on ``never`` or muted)."""
    if row.game_id is None or row.seat is None or row.kind not in CARRIES_TALK:
        return None
    with Session(engine) as session:
        marks = _marks(session, row.game_id, int(row.seat))
        if not wants_talk(marks):
            return None
        assert marks is not None
        lines = talk_store.untold(session, row.game_id, int(row.seat),
                                  int(marks.get("talk_told_id") or 0))
        if not lines:
            return None
        return block(lines, _names(session, row.game_id), now,
                     person_zone(session, row.game_id, int(row.seat)))


def with_talk(text: str, html: str | None, told: Told) -> tuple[str, str | None]:
    """The mail's bodies with the talk under the lead (text: the first line stays what
    the mail asks, the inbox preview) or under the brand line (HTML)."""
    lead, gap, rest = text.partition("\n\n")
    text = (f"{lead}\n\n{told.text}\n\n{rest}" if gap and "\n" not in lead
            else f"{told.text}\n\n{text}")
    if html:
        marker = 'class="brand"'
        at = html.find(marker)
        end = html.find("</p>", at) if at >= 0 else -1
        html = (html[:end + 4] + told.html + html[end + 4:] if end >= 0
                else told.html + html)
    return text, html


def mark_told(engine: Engine, row: Outbox, told: Told | None, now: datetime) -> None:
    """``row`` was handed over: the seat was told of talk up to ``told.upto`` (raised
    only: a mail that left later but read earlier never lowers it), and a talk mail
    notes when it left (the next one on ``hourly`` waits out the period from it)."""
    if row.game_id is None or row.seat is None or (told is None and row.kind != TALK_KIND):
        return
    where = and_(_MARKS.c.game_id == row.game_id, _MARKS.c.seat == int(row.seat))
    with Session(engine) as session:
        if told is not None:
            session.connection().execute(update(_MARKS).where(
                where, _MARKS.c.talk_told_id < told.upto).values(talk_told_id=told.upto))
        if row.kind == TALK_KIND:
            session.connection().execute(update(_MARKS).where(where)
                                         .values(talk_mail_at=as_utc(now)))
        session.commit()


# -- the talk mail ------------------------------------------------------------------------

def still_holds(session: Session, row: Outbox) -> bool:
    """A talk mail still has something to say: the seat still wants talk mails (game
    mail on, talk not muted, ``every`` or ``hourly``) and talk it was not told of."""
    if row.game_id is None or row.seat is None:
        return False
    seat = int(row.seat)
    if session.get(store.Game, row.game_id) is None:
        return False
    marks = _marks(session, row.game_id, seat)
    if marks is None or marks.get("talk_muted") or marks.get("mode") == NONE:
        return False
    if str(marks.get("talk_mode") or TALK_HOURLY) not in OWN_MAIL:
        return False
    address = session.connection().execute(
        select(_ADDRESSES.c.mode).where(_ADDRESSES.c.address == row.to)).scalar()
    if address == NONE:
        return False
    return bool(talk_store.untold(session, row.game_id, seat,
                                  int(marks.get("talk_told_id") or 0)))


def talk_mail(session: Session, game: Any, seat: int, now: datetime) -> compose.Mail:
    """A talk mail for ``seat``, composed as it leaves (``compose_talk``) from the talk
    it was not told of yet; the block itself is added by the sender, as to every mail,
    so what a mail carries is read once."""
    ctx = notify.Context.load(session, game)
    lines = untold_lines(session, ctx.id, seat)
    first = lines[0] if lines else None
    said_first = (f"{name_at(ctx.info.names, first.seat, first.step)}: {first.text}"
                  if first is not None and 0 <= first.seat < len(ctx.info.names) else "")
    address = reply_address(ctx.id, seat, int(ctx.seats[seat].token_version),
                            store.last_seq(session, ctx.id))
    return compose_talk(ctx.info, seat, said_first, link=ctx.link(seat),
                        unsubscribe=ctx.unsubscribe(seat), reply_to=address)


def compose_talk(game: compose.MailGame, seat: int, said_first: str, *, link: str,
                 unsubscribe: str, reply_to: str) -> compose.Mail:
    """The talk mail: its first line "At the table of <game>: Bob: nice Dracula" (the
    inbox preview), how to answer by mail (``SAY``, to ``reply_to``: a seat-and-step
    address, any step will do for talk), the seat link and the usual footer."""
    lead = (_("At the table of %(game)s: %(said)s", game=game.title, said=said_first)
            if said_first else _("At the table of %(game)s", game=game.title))
    mail = compose.render("talk", compose.thread_subject(game), lead=lead, game=game,
                          seat=seat, name=game.names[seat], link=link,
                          unsubscribe=unsubscribe, hint=_(SAY_HINT))
    return compose.Mail(mail.subject, mail.text, mail.html, reply_to=reply_to)
