"""Who gets which mail: the bridge from game events to outbox rows.

Long because: the game as every mail sees it (``Context``: seats, links, each reader's
zone and language), the one way a seat's mail is written in its reader's language
(``in_reader_language``, issue 50) and each mail about a game's events that is not a turn
mail stay together, so that one reader sees what every such mail is told and in what
language.

The ``Context`` every mail takes (a game as the mail code needs it: seats, names,
links, clock settings, the unit its mail is queued on), whether a seat wants a mail
(``mode_of``, ``chosen_mode``), and the mails about the game's events: the invitation,
a round's end, the game's end, the notices (someone away, you away, the game
abandoned) and the fresh link a player asked for. A seat's turn mail (queued, composed
now or as it leaves, its reminder and digests) is ``app.mail.turn_mails``. What they
share lives apart: a seat's and an address's preferences and calendars
(``app.mail.seat_prefs``), the unsent mail's lifecycle (``app.mail.unsent``: queued,
re-aimed, superseded), the words of a view (``app.mail.view_words``), its tokens
(``app.access.unsubscribe``) and the page's sentences (``app.services.seat_lines``).

Called from ``app.services.reactions``, ``app.presence.absence`` and
``app.runners.timeouts`` inside their transactions. Each function decides whether a
seat wants this mail (its preference, an address, a person rather than a bot), builds
it from that seat's private view and enqueues it under an idempotency key that names
the cause (game, seat, step or deadline), so repeating a call never adds a second
mail. Mail only: deadline rows are the callers' business (``app.clock.deadlines``).

Issue 17: what the clock played for a seat is told in words in its next mail, on its
page and in the others' news (``unsent.played_steps``); mail that a move by reply
asked for is conversation (``seat_prefs.replied``).
"""
from __future__ import annotations

import functools
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, TypeVar, cast

from zoneinfo import ZoneInfo

from sqlalchemy import Table, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session

from app.clock import deadlines as dl
from app.clock.calendar import Calendar
from app import engine, i18n
from app.gamelog import store
from app.access import tokens
from app.access.unsubscribe import unsubscribe_token
from app.config import DEFAULTS, setting
from app.mail import compose
from app.mail.headers import mail_domain
from app.db.statements import table_of
from app.db.unit import Row, Unit
from app.mail.addresses import checked_or_none
from app.mail.models import DAILY, EVERY, NONE, SeatMail
from app.people import tenures
from app.people.models import Person
from app.mail.seat_prefs import (_address_row, _read_people, _seats, address_mode, mail_row,
                                 replied)
from app.people.calendar import person_calendar, zone_of
from app.mail.unsent import did_since, played_steps, queue
from app.mail.view_words import played_lines
from app.standing.rating import moved
from app.standing.settle import Change

DEFAULT_MAIL_FROM = str(DEFAULTS["MAIL_FROM"])  # (for the sender, until it reads setting())
#: The game option ``turn_mail_delay_seconds`` is bounded to this (one hour).
MAX_TURN_MAIL_DELAY_SECONDS = 3600.0


def public_view(state: Any) -> dict[str, Any]:
    """Where the game stands (who has a decision, phase, scores): no cards needed."""
    return engine.status(state)


def turn_mail_delay(options: dict[str, Any] | None) -> timedelta:
    """The grace period before a turn mail leaves: the game's option, else the setting.

    The option is read with a bound (0 .. one hour); anything else falls back
    to the setting (the lobby's validator refuses bad values up front).
    """
    raw = (options or {}).get("turn_mail_delay_seconds")
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw == raw:
        seconds = min(max(float(raw), 0.0), MAX_TURN_MAIL_DELAY_SECONDS)
    else:
        try:
            seconds = float(setting("TURN_MAIL_DELAY_SECONDS"))
        except (TypeError, ValueError):
            seconds = float(DEFAULTS["TURN_MAIL_DELAY_SECONDS"])
    return timedelta(seconds=max(seconds, 0.0))


def announced_decision(status: dict[str, Any], seat: int, step: int) -> dict[str, Any]:
    """What a turn mail announces: checked again when it leaves (see ``app.runners.sender``)."""
    return {"what": "decision", "seat": seat, "step": int(step),
            "round": status.get("round"), "decision": compose.decision_of(status, seat)}


def language_of(where: Session | Unit, address: str | None) -> str | None:
    """The language of mail to ``address`` (issue 50): its person's, as this unit holds
    the row (read once per transaction, as a seat's zone and mode read it: on a plain
    session, one statement); None: English (no row, or never chosen)."""
    unit = where if isinstance(where, Unit) else Unit(where, queued=False)
    checked = checked_or_none(address) if address else None
    person = _address_row(unit, checked) if checked is not None else None
    return getattr(person, "language", None) if person is not None else None


def writing_to(where: Session | Unit, address: str | None) -> AbstractContextManager[str]:
    """``with writing_to(session, address):`` compose a mail to an address without a
    game (a settings link, my games, the daily digest) in its person's language."""
    return i18n.in_language(language_of(where, address))


@dataclass
class Context:
    """A game as the mail code needs it, read once per reaction: its seats, names,
    links and clock settings, and the unit of work its mail is queued on."""

    game: Any
    seats: list[Any]
    info: compose.MailGame
    settings: dl.ClockSettings
    sender: str
    secret: str
    unit: Unit

    @property
    def id(self) -> str:
        return str(self.game.id)

    @classmethod
    def load(cls, where: Session | Unit, game: Any) -> "Context":
        """The context of ``game`` on a move's unit of work, or on a plain session (the
        clock, the sender, the inbound worker: their mail is written at once)."""
        unit = where if isinstance(where, Unit) else Unit(where, queued=False)
        seats = _seats(unit, game)
        base = str(setting("BASE_URL")).rstrip("/")
        names = [compose.clean_name(s.name) or f"Player {s.index + 1}" for s in seats]
        # issue 32: who held each seat before (one statement, only if a seat changed
        # hands): a mail's words about the past name the holder of that moment
        info = compose.MailGame(id=str(game.id), name=game.name or "",
                                names=tenures.held_in(unit, str(game.id), seats,
                                                       names, compose.clean_name),
                                base_url=base, commitment=game.commitment or "")
        return cls(game=game, seats=seats, info=info,
                   settings=dl.ClockSettings.from_options(game.options),
                   sender=str(setting("MAIL_FROM")),
                   secret=str(setting("SECRET_KEY") or ""), unit=unit)

    def is_human(self, seat: int) -> bool:
        return 0 <= seat < len(self.seats) and self.seats[seat].kind == "human"

    def human_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind == "human"]

    def address(self, seat: int) -> str | None:
        return checked_or_none(self.seats[seat].email) if self.is_human(seat) else None

    @property
    def delay(self) -> timedelta:
        return turn_mail_delay(self.game.options)

    def link(self, seat: int) -> str:
        row = self.seats[seat]
        token = tokens.seat_token(self.id, row.index, row.token_version, self.secret or None)
        return tokens.seat_url(token, self.info.base_url)

    def unsubscribe(self, seat: int) -> str:
        version = self.seats[seat].token_version
        return (f"{self.info.base_url}/unsubscribe/"
                f"{unsubscribe_token(self.id, seat, self.secret, version=version)}")

    def reply_address(self, seat: int, view: dict[str, Any]) -> str | None:
        """The seat-and-step address a reply to this seat's turn mail goes to (issue 11):
        signed with the seat's token version, so a rotation retires it with the link."""
        if seat not in (view.get("to_act") or []):
            return None
        from app.access.reply_address import reply_address
        return reply_address(self.id, seat, self.seats[seat].token_version,
                             int(view.get("step") or 0))

    def replay(self) -> str:
        return f"{self.info.base_url}/games/{self.id}/replay"

    def person(self, seat: int) -> Row | None:
        """The person holding ``seat`` now (issue 32), as this transaction holds the row
        (a move read it with its seats); None for a bot, a seat without an address, or a
        person who never chose anything (every default)."""
        address = self.address(seat)
        if address is None:
            return None
        if (_ADDRESSES.name, address) not in self.unit.rows:
            _read_people(self.unit, [a for s in self.human_seats()
                                     if (a := self.address(s)) is not None])
        return _address_row(self.unit, address)

    def calendar(self, seat: int) -> Calendar:
        """The seat's calendar (issue 21 item 1): its person's zone and quiet hours (issue
        32: the same in every game of theirs) and the game's running days."""
        return person_calendar(self.person(seat), self.settings)

    def zone(self, seat: int) -> ZoneInfo:
        """The zone every time in the seat's mail is shown in: its person's."""
        person = self.person(seat)
        return zone_of(person.time_zone if person is not None else None)

    def language(self, seat: int) -> str | None:
        """The language the seat's mail is written in (issue 50): its person's (the row
        ``zone`` reads, no statement more); None: English (a bot, no address, a person
        who never chose)."""
        person = self.person(seat)
        return getattr(person, "language", None) if person is not None else None

    def speaking(self, seat: int) -> AbstractContextManager[str]:
        """``with ctx.speaking(seat):`` compose the block in the seat's reader's
        language, then go back to the language of the moment (a page's, another
        reader's)."""
        return i18n.in_language(self.language(seat))

    @property
    def domain(self) -> str:
        return mail_domain(self.sender)


def _send(unit: Unit, ctx: Context, seat: int, kind: str, mail: compose.Mail,
          key: str, now: datetime, *, root: bool = False, due: datetime | None = None,
          announces: dict[str, Any] | None = None) -> bool:
    to = ctx.address(seat)
    if to is None:
        return False
    return queue(unit, game_id=ctx.id, seat=seat, kind=kind, to=to,
                 to_name=ctx.info.names[seat], mail=mail, idempotency=key,
                 domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(seat), root=root,
                 due=due, announces=announces, conversation=replied(unit, ctx.id, seat))


def chosen_mode(unit: Unit, ctx: Context, seat: int) -> str:
    """The seat's mode, or ``none`` when its address said no to all game mail."""
    mode = str(mail_row(unit, ctx.id, seat).mode)
    address = ctx.address(seat)
    if mode != NONE and address is not None and address_mode(unit, address) == NONE:
        return NONE
    return mode


def wants(unit: Unit, ctx: Context, seat: int) -> bool:
    """Whether the seat takes the game's notices at all: it has an address, and neither
    the seat nor its address asked for no game mail."""
    return ctx.address(seat) is not None and chosen_mode(unit, ctx, seat) != NONE


def mode_of(unit: Unit, ctx: Context, seat: int) -> str:
    """The seat's mail mode, ``none`` when it cannot be mailed at all.

    A seat on ``every`` whose address asked for one digest a day across all
    its games gets no turn mail of its own: the daily digest covers it.
    """
    address = ctx.address(seat)
    if address is None:
        return NONE
    mode = chosen_mode(unit, ctx, seat)
    if mode == EVERY and address_mode(unit, address) == DAILY:
        return DAILY
    return mode


# -- the mails -----------------------------------------------------------------

_Mail = TypeVar("_Mail", bound=Callable[..., Any])


def in_reader_language(mail: _Mail) -> _Mail:
    """A seat's mail composed in its reader's language (issue 50), whichever process
    composes it (the web, the clock, the inbound worker, the sender): the decorated
    function takes the ``Context`` and, right after it, the seat (``invitation(unit,
    ctx, seat, now)``, ``_turn_mail(ctx, seat, ...)``) and runs ``ctx.speaking(seat)``,
    so the language is the reader's for this one mail and the caller's again after."""
    @functools.wraps(mail)
    def composed(*args: Any, **kwargs: Any) -> Any:
        ctx, seat = _reader(args, kwargs)
        with ctx.speaking(seat):
            return mail(*args, **kwargs)
    return cast(_Mail, composed)


def _reader(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Context, int]:
    """The ``Context`` among a mail function's arguments and the seat that follows it."""
    for at, value in enumerate(args):
        if isinstance(value, Context):
            return value, int(args[at + 1] if at + 1 < len(args) else kwargs["seat"])
    return kwargs["ctx"], int(kwargs["seat"])


@in_reader_language
def invitation(unit: Unit, ctx: Context, seat: int, now: datetime) -> None:
    """Sent to every person with an address, whatever their preference.

    Its one-click unsubscribe (``List-Unsubscribe`` + ``List-Unsubscribe-Post``,
    RFC 8058) is "no more invitations to this address" (issue 17 item 7): a person
    invited by a stranger presses their mail client's Unsubscribe and hears from no
    creator here again, and not from this game (``app.mail.invitations``).
    """
    from app.mail import invitations

    to = ctx.address(seat)
    if to is None:
        return
    guard = invitations.guard_url(ctx.info.base_url, to, ctx.id, seat, ctx.secret)
    rematch_of = None
    if getattr(ctx.game, "rematch_of", None):  # (issue 21 item 6: one query, once a game)
        rematch_of = unit.session.connection().execute(
            sa_select(_GAMES.c.name).where(_GAMES.c.id == ctx.game.rematch_of)).scalar()
    yours = invitations.your_settings(ctx.person(seat), ctx.link(seat),
                                      max(ctx.delay, turn_mail_delay(None)))
    mail = compose.invitation_mail(ctx.info, seat, link=ctx.link(seat), unsubscribe=guard,
                                   deadline_hours=ctx.settings.deadline.total_seconds() / 3600,
                                   clock=None if ctx.settings.plain else ctx.settings.words(),
                                   rematch_of=rematch_of, yours=yours,
                                   mode=mode_of(unit, ctx, seat),
                                   absent_after=ctx.settings.absent_after)
    queue(unit, game_id=ctx.id, seat=seat, kind="invitation", to=to,
          to_name=ctx.info.names[seat], mail=mail, idempotency=f"invite:{ctx.id}:{seat}",
          domain=ctx.domain, now=now, unsubscribe=guard, root=True)

@in_reader_language
def round_end(unit: Unit, ctx: Context, seat: int, state: Any, round_no: int,
              now: datetime) -> None:
    if chosen_mode(unit, ctx, seat) == NONE:
        return
    mail = compose.round_mail(ctx.info, seat, engine.view(state, seat), round_no,
                              link=ctx.link(seat), unsubscribe=ctx.unsubscribe(seat))
    # issue 51 item 1: a turn mail queued after it in this transaction may carry it
    # (``turn_mails.carry_round``), and the sender then drops it (``ROUND_TOLD``)
    _send(unit, ctx, seat, "round", mail, f"round:{ctx.id}:{seat}:{round_no}", now,
          announces={"what": ROUND_TOLD, "seat": seat, "round": round_no})


#: What a round-end mail announces: the round's end, not yet told in a turn mail.
ROUND_TOLD = "round"


@in_reader_language
def game_over(unit: Unit, ctx: Context, seat: int, state: Any, now: datetime, *,
              rating: "Change | None" = None) -> None:
    """The result mail; ``rating``: what the game did to the seat's person's rating."""
    if chosen_mode(unit, ctx, seat) == NONE:
        return
    mail = compose.game_over_mail(ctx.info, seat, engine.view(state, seat), link=ctx.link(seat),
                                  replay=ctx.replay(), unsubscribe=ctx.unsubscribe(seat),
                                  rating=moved(rating.before, rating.after, rating.games)
                                  if rating is not None else None)
    _send(unit, ctx, seat, "over", mail, f"over:{ctx.id}:{seat}", now)


@in_reader_language
def notice(unit: Unit, ctx: Context, seat: int, what: str, about: int | None,
           now: datetime, *, step: int, state: Any = None) -> None:
    """absent / you_absent / abandoned notices (not for seats that asked for no mail),
    at ``step`` of the game.

    With the game's ``state``, the seat's own notice (``you_absent``, ``abandoned``)
    first says what the server played for it since it last played: for a seat
    marked away after its timeouts, this is the next mail (issue 17 item 2)."""
    if chosen_mode(unit, ctx, seat) == NONE:
        return
    played = (played_for_seat(unit, ctx, seat, state)
              if state is not None and what in ("you_absent", "abandoned") else [])
    mail = compose.notice_mail(ctx.info, seat, what, about=about, link=ctx.link(seat),
                               unsubscribe=ctx.unsubscribe(seat),
                               absent_after=ctx.settings.absent_after, played=played,
                               reason=abandoned_reason(ctx, state) if what == "abandoned"
                               else None,
                               reply_to=_back_address(ctx, seat, step) if what == "you_absent"
                               else None)
    # "X is away" must still be true when it leaves (X may be back already).
    announces = {"what": "absent", "seat": about} if about is not None else None
    _send(unit, ctx, seat, what, mail, f"{what}:{ctx.id}:{seat}:{about}:{step}", now,
          announces=announces)


def _back_address(ctx: Context, seat: int, step: int) -> str:
    """Where a reply ``BACK`` to a seat's "you are marked away" goes (issue 33: the mail
    says it may be replied to; a reply address of any step takes it)."""
    from app.access.reply_address import reply_address
    return reply_address(ctx.id, seat, ctx.seats[seat].token_version, step)


def abandoned_reason(ctx: Context, state: Any) -> str:
    """Why no person plays a game any more, for its notice: everyone ``resigned``
    (R48), everyone is ``away`` (R29), or some of each (``mixed``)."""
    resigned = set(engine.status(state).get("resigned") or ()) if state is not None else set()
    humans = ctx.human_seats()
    if humans and all(h in resigned for h in humans):
        return "resigned"
    return "mixed" if resigned & set(humans) else "away"


def played_for_seat(unit: Unit, ctx: Context, seat: int, state: Any) -> list[str]:
    """What the server played for ``seat`` since it last played, in its own words
    ("Time ran out: your 10 Dracula was discarded for you."), from its view."""
    view = engine.view(state, seat)
    row = mail_row(unit, ctx.id, seat)
    since = int(row.last_acted_step or 0)
    if not did_since(view, seat, since):
        return []
    return played_lines(view, since, ctx.info.names, seat,
                        played_steps(unit, ctx.id, 0, since, only=seat))


@in_reader_language
def fresh_link(session: Session, ctx: Context, seat: int, now: datetime) -> bool:
    """The link a player asked for: at most one mail per seat every ``FRESH_LINK_MINUTES``.

    Anyone can ask (the 403 page offers it), so without a limit a stranger
    could flood a player's inbox. The seat's ``link_mailed_at`` marker is
    moved forward by one conditional UPDATE that only a request outside the
    window can win (a second request at the same moment waits for the row
    and then finds it fresh), and only the winner enqueues. The caller's
    answer does not change: it never says whether a mail went out.
    Returns whether a mail was enqueued.
    """
    if ctx.address(seat) is None:
        return False
    now = dl.as_utc(now)
    window = timedelta(minutes=max(0.0, float(setting("FRESH_LINK_MINUTES"))))
    marker = mail_row(ctx.unit, ctx.id, seat)
    won = session.connection().execute(
        update(_MARKS)
        .where(_MARKS.c.id == marker.id,
               or_(_MARKS.c.link_mailed_at.is_(None), _MARKS.c.link_mailed_at <= now - window))
        .values(link_mailed_at=now)).rowcount
    if won != 1:
        return False
    marker.values["link_mailed_at"] = now
    mail = compose.notice_mail(ctx.info, seat, "fresh_link", about=None, link=ctx.link(seat),
                               unsubscribe=ctx.unsubscribe(seat))
    return _send(ctx.unit, ctx, seat, "link", mail,
                 f"link:{ctx.id}:{seat}:{now.isoformat()}", now)


_MARKS: Table = table_of(SeatMail)
_ADDRESSES: Table = table_of(Person)
_GAMES: Table = table_of(store.Game)
