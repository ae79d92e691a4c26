"""Who gets which mail: the bridge from game events to outbox rows.

Long because: one function per kind of mail (invitation, turn, reminder, digest,
round, result, notices, fresh link), each short, beside the one ``Context`` they all
take; splitting them by kind would make every one import the others. What they share
lives apart: a seat's and an address's preferences and calendars
(``app.mail.seat_prefs``), the unsent mail's lifecycle (``app.mail.unsent``: queued,
re-aimed, superseded), the words of a view (``app.mail.view_words``), its tokens
(``app.access.unsubscribe``) and the page's sentences (``app.mail.trouble``).

Called from ``app.services.reactions``, ``app.presence.absence`` and ``app.runners.timeouts`` inside their
transactions. Each function decides whether a seat wants this mail (its
preference, an address, a person rather than a bot), builds it from that
seat's private view and enqueues it under an idempotency key that names the
cause (game, seat, step or deadline), so repeating a call never adds a second
mail. Mail only: deadline rows are the callers' business (``app.clock.deadlines``).

A turn mail waits a grace period (``TURN_MAIL_DELAY_SECONDS``, default 120, or
the game's ``turn_mail_delay_seconds``) and carries what it announces (seat,
step, round, decision): the sender re-checks that at send time and marks the
row ``superseded`` when the decision is gone; a newer mail for the same seat,
or the seat acting, supersedes an unsent one at once.

Issue 17: a seat that stops mid-turn gets one mail for the decision it faces
(``stopped_mid_turn``); what the clock played for a seat is told in words in its
next mail, on its page and in the others' news (``unsent.played_steps``); mail that a
move by reply asked for is conversation (``seat_prefs.replied``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from zoneinfo import ZoneInfo

from sqlalchemy import Table, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from app.clock import deadlines as dl
from app.clock.calendar import Calendar
from app import engine
from app.gamelog import store
from app.access import tokens
from app.access.unsubscribe import address_unsubscribe_token, unsubscribe_token
from app.config import DEFAULTS, setting
from app.mail import compose
from app.mail.headers import mail_domain
from app.db.statements import table_of
from app.db.unit import Row, Unit
from app.mail.addresses import checked_or_none
from app.mail.models import DAILY, DIGEST, EVERY, NONE, SeatMail
from app.people import tenures
from app.people.models import Person
from app.plans import models as plan_models
from app.mail.outbox import enqueue
from app.mail.seat_prefs import (_address_row, _read_people, _seats, address_mode, mail_row,
                                 quiet_of, replied, seat_calendar, zone_of)
from app.mail.unsent import did_since, played_steps, queue, supersede_unsent
from app.mail.view_words import played_lines

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
                                names=tenures.names_of(unit.session, str(game.id), seats,
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
        return seat_calendar(self.person(seat), self.settings)

    def zone(self, seat: int) -> ZoneInfo:
        """The zone every time in the seat's mail is shown in: its person's."""
        person = self.person(seat)
        return zone_of(person.time_zone if person is not None else None)

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


def _wants(unit: Unit, ctx: Context, seat: int) -> str:
    """The seat's mode, or ``none`` when its address said no to all game mail."""
    mode = str(mail_row(unit, ctx.id, seat).mode)
    address = ctx.address(seat)
    if mode != NONE and address is not None and address_mode(unit, address) == NONE:
        return NONE
    return mode


def wants(unit: Unit, ctx: Context, seat: int) -> bool:
    """Whether the seat takes the game's notices at all: it has an address, and neither
    the seat nor its address asked for no game mail."""
    return ctx.address(seat) is not None and _wants(unit, ctx, seat) != NONE


def mode_of(unit: Unit, ctx: Context, seat: int) -> str:
    """The seat's mail mode, ``none`` when it cannot be mailed at all.

    A seat on ``every`` whose address asked for one digest a day across all
    its games gets no turn mail of its own: the daily digest covers it.
    """
    address = ctx.address(seat)
    if address is None:
        return NONE
    mode = _wants(unit, ctx, seat)
    if mode == EVERY and address_mode(unit, address) == DAILY:
        return DAILY
    return mode


# -- the mails -----------------------------------------------------------------

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


def decision_opened(unit: Unit, ctx: Context, seat: int, state: Any,
                    deadline: dl.Opened, now: datetime, *,
                    delay: timedelta | None = None) -> None:
    """A seat started waiting on a decision: one turn mail after the grace period.

    Only for seats on ``every`` (digest seats are gathered by the caller's
    digest row). Any unsent decision mail of the seat is superseded first.
    """
    if mode_of(unit, ctx, seat) != EVERY:
        return
    supersede_unsent(unit, ctx.id, seat, now)
    talk = replied(unit, ctx.id, seat)
    delay = ctx.delay if delay is None else delay  # (the seat's own next step's: reactions)
    if newcomer(unit, ctx, seat):  # (issue 32) time to choose a zone and quiet hours first
        delay = max(delay, turn_mail_delay(None))
    turn(unit, ctx, seat, state, deadline.due_at, now,
         key=f"turn:{ctx.id}:{seat}:{deadline.opened_step}",
         step=deadline.opened_step, delay=timedelta(0) if talk else delay,
         conversation=talk)


def newcomer(unit: Unit, ctx: Context, seat: int) -> bool:
    """Whether the seat's person never chose a zone or quiet hours (issue 32: their
    invitation says how) and has not acted in this game yet: their first turn mail waits
    the server's grace period (``TURN_MAIL_DELAY_SECONDS``) even where the game's own is
    shorter, and is composed as it leaves, in whatever they chose meanwhile."""
    person = ctx.person(seat)
    if person is not None and (person.time_zone is not None or person.settings_at is not None
                               or quiet_of(person) is not None):
        return False
    return int(mail_row(unit, ctx.id, seat).last_acted_step or 0) == 0


def stopped_mid_turn(unit: Unit, ctx: Context, seat: int, state: Any, step: int,
                     now: datetime, *, delay: timedelta | None = None) -> None:
    """The seat acted at ``step`` and still faces a decision of the same turn (it drew,
    and must now discard or exchange): one turn mail after the grace period for the
    decision it faces now (issue 17 item 2: "one mail per waiting stretch" counts
    from the seat's last action). A seat that goes on from its open page supersedes
    it before it leaves, as it does every unsent mail; one that closed the tab hears
    of the card in its hand instead of nothing until the halfway reminder. A move
    made by reply gets it at once, as conversation (the player waits for it).

    Its deadline is the decision's, read when the mail is composed (``late_turn_mail``),
    so the move itself reads nothing more."""
    if mode_of(unit, ctx, seat) != EVERY:
        return
    talk = replied(unit, ctx.id, seat)
    turn(unit, ctx, seat, state, None, now, key=f"turn:{ctx.id}:{seat}:{step}", step=step,
         delay=timedelta(0) if talk else (ctx.delay if delay is None else delay),
         conversation=talk, due_later=not talk)


def turn(unit: Unit, ctx: Context, seat: int, state: Any, due: datetime | None,
         now: datetime, *, key: str, step: int, reminder: bool = False, digest: bool = False,
         delay: timedelta = timedelta(0), conversation: bool = False,
         due_later: bool = False) -> bool:
    """Queue a seat's turn mail (or reminder, or digest) under ``key``.

    A mail that waits out a grace period (``delay``) is composed when it
    leaves (``late_turn_mail``, called by the sender): most never leave,
    because the seat acts from its open page first, and composing them on the
    move's path cost more than the rest of the move's mail work together.
    ``conversation``: the mail follows the seat's own move by reply (issue 17
    item 3). ``due_later``: ``due`` is not known here (a decision that opened
    earlier in the turn): the mail reads its deadline when it is composed.
    """
    to = ctx.address(seat)
    if to is None:
        return False
    kind = "reminder" if reminder else "digest" if digest else "turn"
    announces = None if digest else announced_decision(engine.status(state), seat, step)
    settings = mail_row(unit, ctx.id, seat)
    if announces is not None and delay > timedelta(0):
        announces["compose"] = {"due": dl.as_utc(due).isoformat() if due else None,
                                "reminder": reminder}
        mail = compose.Mail(subject=COMPOSED_AT_SEND, text="", html="")
    else:
        if due is None and due_later:
            due = decision_due(unit, ctx.id, seat)
        mail = _turn_mail(ctx, seat, state, settings, due, now, reminder=reminder,
                          digest=digest, unit=unit)
    return queue(unit, marker=settings if announces is not None else None,
                 game_id=ctx.id, seat=seat, kind=kind, to=to,
                 to_name=ctx.info.names[seat], mail=mail, idempotency=key, domain=ctx.domain,
                 now=now, unsubscribe=ctx.unsubscribe(seat), due=dl.as_utc(now) + delay,
                 announces=announces, conversation=conversation)


def decision_due(unit: Unit, game_id: str, seat: int) -> datetime | None:
    """When the seat's open decision falls due (None: it has no open decision row)."""
    rows = dl.open_now(unit, game_id, seat, dl.DECISION)
    return dl.as_utc(rows[0].due_at) if rows else None


#: The subject an outbox row holds until its turn mail is composed at send time.
COMPOSED_AT_SEND = "(composed when it is sent)"


def _turn_mail(ctx: Context, seat: int, state: Any, settings: Any, due: datetime | None,
               now: datetime, *, reminder: bool = False, digest: bool = False,
               unit: Unit | None = None) -> compose.Mail:
    """The turn mail from the seat's view; with a ``unit``, it also says what the
    server played for the seat and the others since the seat last played."""
    view = engine.view(state, seat)
    since = int(settings.last_acted_step or 0)
    played = (played_steps(unit, ctx.id, len(ctx.seats), since)
              if unit is not None else None)
    told = plan_models.told_lines(
        unit.seat_row(plan_models.PLANS, ctx.id, seat) if unit is not None else None, since)
    return compose.turn_mail(ctx.info, seat, view, since_step=since,
                             due=due, now=now, link=ctx.link(seat),
                             unsubscribe=ctx.unsubscribe(seat), reminder=reminder,
                             digest=digest, zone=ctx.zone(seat),
                             reply_address=ctx.reply_address(seat, view), played=played,
                             plan=told)


def late_turn_mail(session: Session | Unit, game: Any, seat: int, state: Any,
                   announces: dict[str, Any], now: datetime) -> compose.Mail:
    """A waiting turn mail, composed as it leaves, from the game as it stands then.

    The sender calls this only after ``still_holds``: the seat has not acted
    and faces the decision the row announces, so the mail says what it would
    have said when it was enqueued, plus whatever the others did meanwhile.
    """
    ctx = Context.load(session, game)
    said = announces.get("compose") or {}
    due = (datetime.fromisoformat(said["due"]) if said.get("due")
           else decision_due(ctx.unit, ctx.id, seat))  # a mid-turn or held mail reads it now
    return _turn_mail(ctx, seat, state, mail_row(ctx.unit, ctx.id, seat), due, now,
                      reminder=bool(said.get("reminder")), unit=ctx.unit)


def reminder(session: Session, ctx: Context, seat: int, state: Any, row: dl.Deadline,
             due: datetime | None, step: int, now: datetime) -> None:
    """A reminder deadline came: remind the seat if it wants turn mail at all."""
    unit = ctx.unit
    if _wants(unit, ctx, seat) == NONE:
        return
    supersede_unsent(unit, ctx.id, seat, now)  # the reminder says it all
    turn(unit, ctx, seat, state, due, now, key=f"reminder:{row.id}", step=step,
         reminder=True)


def digest(session: Session, ctx: Context, seat: int, state: Any, row: dl.Deadline,
           due: datetime | None, now: datetime) -> bool:
    """A digest deadline came: one mail with everything since the seat last played.

    Returns whether a mail was enqueued (the caller notes when)."""
    unit = ctx.unit
    settings = mail_row(unit, ctx.id, seat)
    if settings.mode != DIGEST:
        return False
    if turn(unit, ctx, seat, state, due, now, key=f"digest:{row.id}", step=0, digest=True):
        unit.update(settings, last_digest_at=now)
        return True
    return False


def digest_period() -> timedelta:
    return timedelta(hours=float(setting("DIGEST_HOURS")))


def round_end(unit: Unit, ctx: Context, seat: int, state: Any, round_no: int,
              now: datetime) -> None:
    if _wants(unit, ctx, seat) == NONE:
        return
    mail = compose.round_mail(ctx.info, seat, engine.view(state, seat), round_no,
                              link=ctx.link(seat), unsubscribe=ctx.unsubscribe(seat))
    _send(unit, ctx, seat, "round", mail, f"round:{ctx.id}:{seat}:{round_no}", now)


def game_over(unit: Unit, ctx: Context, seat: int, state: Any, now: datetime) -> None:
    if _wants(unit, ctx, seat) == NONE:
        return
    mail = compose.game_over_mail(ctx.info, seat, engine.view(state, seat), link=ctx.link(seat),
                                  replay=ctx.replay(), unsubscribe=ctx.unsubscribe(seat))
    _send(unit, ctx, seat, "over", mail, f"over:{ctx.id}:{seat}", now)


def notice(unit: Unit, ctx: Context, seat: int, what: str, about: int | None,
           now: datetime, *, step: int, state: Any = None) -> None:
    """absent / you_absent / abandoned notices (not for seats that asked for no mail),
    at ``step`` of the game.

    With the game's ``state``, the seat's own notice (``you_absent``, ``abandoned``)
    first says what the server played for it since it last played: for a seat
    marked away after its timeouts, this is the next mail (issue 17 item 2)."""
    if _wants(unit, ctx, seat) == NONE:
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


def daily_digest(session: Session, address: str, entries: list[dict[str, Any]],
                 now: datetime) -> bool:
    """One mail for an address on "one digest a day across all my games".

    ``entries``: one per seat this address is waited on, each with the game's
    title, the seat's name and link, the decision in words and the deadline
    (in that seat's zone). Returns whether a mail was enqueued (once a day).
    """
    if not entries:
        return False
    sender = str(setting("MAIL_FROM"))
    day = dl.as_utc(now).strftime("%Y-%m-%d")
    base = str(setting("BASE_URL")).rstrip("/")
    token = address_unsubscribe_token(address, str(setting("SECRET_KEY") or ""))
    unsubscribe = f"{base}/unsubscribe/{token}"
    mail = compose.daily_digest_mail(entries, base_url=base, unsubscribe=unsubscribe)
    row = enqueue(session, game_id=None, seat=None, kind="daily", to=address,
                  to_name=entries[0]["name"], mail=mail, idempotency=f"daily:{address}:{day}",
                  domain=mail_domain(sender), now=now, unsubscribe=unsubscribe)
    return row is not None


_MARKS: Table = table_of(SeatMail)
_ADDRESSES: Table = table_of(Person)
_GAMES: Table = table_of(store.Game)
