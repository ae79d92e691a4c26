"""An open table's mailed link (issue 48): the use cases behind ``/tables/seat/<token>``,
and the clock's end of tables whose wait is over.

The link is a hold (``app.seating.models.TableHold``): it was mailed to one address, so
whoever opens it has read that mailbox. Its GET shows the table and what the button
would do (a mail scanner opens links: the GET changes nothing); its POSTs:

- ``confirm``: sits its person down (a stranger's hold takes the first open seat; a
  named seat is confirmed). A stranger whose hold lapsed is still seated while the link
  lives if a seat is free; otherwise told the table is full. The click that confirms the
  last seat starts the game in the same unit of work (``services.games.create_in``: the
  deal, its SHA-256 commitment, every seat's link mailed to its address, the first turn)
  and answers with the clicker's own seat link; the others' links go by mail only.
- ``leave``: gives the seat up before the start (it opens again).
- ``start_now`` and ``close``: the creator's seat only. Once the table has waited a day,
  its still-open seats may be given to bots and the game started; or the table closed.

Every step reads the table under its lock (``store.at_table`` after ``lock_key``), so two
clicks for the last seat at once seat exactly one: the second finds it taken.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.access import tokens
from app import i18n
from app.clock import deadlines as dl
from app.config import setting
from app.db import read_session
from app.db.unit import Row, Unit, unit_of_work
from app.gamelog import store as log_store
from app.mail import compose, notify, unsent
from app.mail.headers import mail_domain
from app.seating import rules, store
from app.seating.models import BOT, CLOSED, EXPIRED, HUMAN, OPEN, STARTED
from app.services import games
from app.services.errors import BadRequest, Forbidden
from app.services.open_tables import listing

#: How long a table waits before its creator may fill its open seats with bots.
START_EARLY_AFTER = timedelta(days=1)
#: Outbox kind of the mail that says a table stopped waiting without a game.
ENDED_KIND = "table_ended"


def _now(now: datetime | None) -> datetime:
    return dl.as_utc(now or dl.now())


def _hold_id(token: str) -> str:
    try:
        payload = tokens.unsign(tokens.TABLE_SEAT, token)
    except tokens.BadToken:
        payload = None
    if not (isinstance(payload, list) and len(payload) == 1 and isinstance(payload[0], str)):
        raise Forbidden(i18n._("This link is not valid: it may have been cut short. Nothing was "
                        "changed."), reason="table_link")
    return payload[0]


@dataclass(frozen=True)
class SeatLink:
    """What the link's page shows: the table as listed (None once it left the list), who
    the link is for, and what may be done now (``can``: sit, leave, start, close)."""

    table_id: str
    table_name: str
    table: dict[str, Any] | None
    name: str
    words: str
    can: tuple[str, ...]
    host: bool
    #: Whether one of the table's held seats is this link's (the list says "held for you").
    holding: bool = False


def _state(at: store.AtTable, hold: Row, now: datetime) -> tuple[str, tuple[str, ...]]:
    """What the link's holder is told, and may do, at ``now``."""
    table = at.table
    host = hold.seat is not None and int(hold.seat) == int(table.host_seat)
    seated = hold.seated_at is not None and hold.left_at is None
    if table.status == STARTED:
        return ("The game has started: your seat's link was mailed to you." if seated else
                "This table's game started without you: every seat was taken."), ()
    if table.status in (EXPIRED, CLOSED) or dl.as_utc(table.wait_until) <= now:
        return ("This table stopped waiting for players without a game "
                + ("(its creator closed it)." if table.status == CLOSED else
                   "(its wait was over).")), ()
    if hold.left_at is not None:
        return "You gave this seat up. Other open tables are listed at /tables.", ()
    waiting = len(at.waiting_for())
    if seated:
        can: tuple[str, ...] = ("close",) if host else ("leave",)
        if host and at.empty() and now - dl.as_utc(table.created_at) >= START_EARLY_AFTER \
                and not _unconfirmed(at):
            can = ("start", "close")
        return (f"You are seated. The game starts when every seat is confirmed: waiting "
                f"for {waiting} more. Your seat's link comes by mail then."), can
    if dl.as_utc(hold.link_until) <= now:
        return ("This link has expired. If the table still has a seat, ask again at "
                "/tables."), ()
    if hold.seat is not None:
        return ("Your seat at this table waits for you: confirm it to play.",
                ("sit", "leave") if not host else ("sit", "close"))
    if dl.as_utc(hold.held_until) > now:
        return "A seat is held for you: sit down to take it.", ("sit",)
    if at.free(now, but=hold.id) > 0:
        return ("Your hold lapsed, but a seat is still free: sit down now to take it (the "
                "first to press gets it)."), ("sit",)
    return ("Your hold lapsed and the table is full now. Other open tables are listed at "
            "/tables."), ()


def _unconfirmed(at: store.AtTable) -> list[str]:
    return [str(s.name) for s in at.seats
            if s.kind == HUMAN and s.email is not None and s.confirmed_at is None]


def _read(session: Any, token: str) -> tuple[store.AtTable, Row]:
    hold_id = _hold_id(token)
    found = store.hold(session, hold_id)
    at = store.at_table(session, found.table_id) if found is not None else None
    if found is None or at is None:
        raise Forbidden(i18n._("This link opens nothing here (the table is gone)."),
                        reason="table_link")
    return at, found


def page(token: str, now: datetime | None = None) -> SeatLink:
    now = _now(now)
    with read_session() as session:
        at, hold = _read(session, token)
    words, can = _state(at, hold, now)
    shown, _ = listing(now=now, only=at.table.id)
    holding = any(h.id == hold.id for h in at.live_holds(now))
    return SeatLink(at.table.id, at.table.name, shown[0] if shown else None, hold.name,
                    words, can, "start" in can or "close" in can, holding)


@dataclass(frozen=True)
class Done:
    """What a POST did: words, and the clicker's seat link when the game just started."""

    words: str
    seat_url: str | None = None


def _act(token: str, now: datetime, action: str) -> Done:
    with unit_of_work() as unit:
        session = unit.session
        hold_id = _hold_id(token)
        first = store.hold(session, hold_id)
        if first is None:
            raise Forbidden(i18n._("This link opens nothing here."), reason="table_link")
        log_store.lock_key(session, f"open-table:{first.table_id}")
        at, hold = _read(session, token)
        words, can = _state(at, hold, now)
        if action not in can:
            raise BadRequest(words if action == "sit" or not can else
                             "That cannot be done at this table now. " + words)
        done = {"sit": _sit, "leave": _leave, "start": _start_now, "close": _close}[action](
            unit, at, hold, now)
        unit.write()
    return done


def confirm(token: str, now: datetime | None = None) -> Done:
    return _act(token, _now(now), "sit")


def leave(token: str, now: datetime | None = None) -> Done:
    return _act(token, _now(now), "leave")


def start_now(token: str, now: datetime | None = None) -> Done:
    return _act(token, _now(now), "start")


def close(token: str, now: datetime | None = None) -> Done:
    return _act(token, _now(now), "close")


def _sit(unit: Unit, at: store.AtTable, hold: Row, now: datetime) -> Done:
    table = at.table
    if hold.seat is not None:
        index = int(hold.seat)
    else:
        if not at.empty() or at.free(now, but=hold.id) <= 0:
            raise BadRequest(i18n._("The table is full now: the last seat was taken a moment ago. "
                             "Other open tables are listed at /tables."))
        refused = rules.refusal(table.gate, store.record_of(unit.session, hold.email))
        if refused:
            raise BadRequest(refused)
        index = int(at.empty()[0].index)
    store.seat_hold(unit, table.id, index, hold, now)
    for seat in at.seats:
        if int(seat.index) == index:
            seat.values.update(name=hold.name, email=hold.email, confirmed_at=now,
                               person_key=hold.person_key)
    if at.waiting_for():
        return Done(f"You are seated at {table.name}. The game starts when every seat is "
                    f"confirmed (waiting for {len(at.waiting_for())} more); your seat's "
                    "link comes by mail then.")
    created = _start(unit, at, now)
    return Done(f"You took the last seat: {table.name} has started.",
                tokens.seat_url(created.tokens[index]))


def _start(unit: Unit, at: store.AtTable, now: datetime) -> Any:
    """Deal the game as any game is dealt; the table leaves the list."""
    unit.write()
    table = at.table
    players = [{"name": s.name, "email": s.email or "", "kind": BOT if s.kind == BOT else HUMAN,
                "simon": s.simon} for s in at.seats]
    options = dict(table.options or {})
    options["simon"] = [p["simon"] for p in players]
    created = games.create_in(unit, players, options, table.name,
                              talk_spectators=bool(table.talk_spectators))
    store.end(unit, table.id, STARTED, now, game_id=created.game_id)
    return created


def _leave(unit: Unit, at: store.AtTable, hold: Row, now: datetime) -> Done:
    index = next((int(s.index) for s in at.seats if s.hold_id == hold.id
                  or hold.seat is not None and int(s.index) == int(hold.seat)), None)
    if index is not None:
        store.leave(unit, at.table.id, index, hold, now)
    return Done("You gave your seat up; it is open for someone else now.")


def _start_now(unit: Unit, at: store.AtTable, hold: Row, now: datetime) -> Done:
    empty = [int(s.index) for s in at.empty()]
    store.bots_in(unit, at.table.id, empty)
    for seat in at.seats:
        if int(seat.index) in empty:
            seat.values.update(kind=BOT, name=f"Bot {int(seat.index) + 1}")
    created = _start(unit, at, now)
    index = int(at.table.host_seat)
    return Done(f"{at.table.name} has started, with a bot in each open seat.",
                tokens.seat_url(created.tokens[index]))


def _close(unit: Unit, at: store.AtTable, hold: Row, now: datetime) -> Done:
    store.end(unit, at.table.id, CLOSED, now)
    _tell_ended(unit, at, now, i18n.N_("its creator closed it"), but=int(at.table.host_seat))
    return Done("The table is closed: it left the list, and those seated were told.")


def _tell_ended(unit: Unit, at: store.AtTable, now: datetime, why: str,
                but: int | None = None) -> None:
    """One mail to each person seated (or named) that the table ended without a game;
    ``but``: the seat that ended it (it knows)."""
    for seat in at.seats:
        if seat.kind == BOT or seat.email is None or int(seat.index) == but:
            continue
        with notify.writing_to(unit, str(seat.email)):  # its person's language (issue 50)
            mail = compose.render(ENDED_KIND, f"Silver Eye · {at.table.name}",
                                  lead=i18n._("%(table)s stopped waiting for players",
                                              table=at.table.name),
                                  name=seat.name, table=at.table.name, why=i18n._(why))
        unsent.queue(unit, game_id=None, seat=None, kind=ENDED_KIND, to=str(seat.email),
                     to_name=str(seat.name or ""), mail=mail,
                     idempotency=f"table-ended:{at.table.id}:{seat.index}",
                     domain=mail_domain(str(setting("MAIL_FROM"))), now=now,
                     conversation=True)


def expire_due(now: datetime | None = None) -> int:
    """The clock's sweep: each open table whose wait is over leaves the list, and its
    seated people (the creator among them) are told, once. Returns how many ended."""
    now = _now(now)
    with read_session() as session:
        due = store.due(session, now)
    ended = 0
    for table_id in due:
        with unit_of_work() as unit:
            log_store.lock_key(unit.session, f"open-table:{table_id}")
            at = store.at_table(unit.session, table_id)
            if at is None or at.table.status != OPEN or dl.as_utc(at.table.wait_until) > now:
                continue
            store.end(unit, table_id, EXPIRED, now)
            _tell_ended(unit, at, now, i18n.N_("its wait was over before every seat was taken"))
            unit.write()
            ended += 1
    return ended

