"""A seat's and an address's mail preferences and calendars: which mail row a seat has,
what its address asked for across games, its person's zone and quiet hours.

Apart from ``app.mail.notify`` (who gets which mail) because these are read by far
more than the mail code: the seat and settings pages, the clock's deadlines, table
talk and the sender's quiet hours all ask a seat's calendar or mail row, and none of
them needs the mails themselves. Each row is read once per transaction (a move reads
them with its seats: ``remember_seats``, ``remember_addresses``) and created on first
use from the lobby's preference.
"""
from __future__ import annotations

from typing import Any

from zoneinfo import ZoneInfo

from sqlalchemy import Table
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from app.db.statements import dialect_insert, table_of
from app.db.unit import Row, Unit
from app.gamelog import store
from app.mail.addresses import checked_or_none
from app.mail.models import EVERY, MAIL_MODES, SeatMail
from app.people.calendar import zone_of
from app.people.models import PER_GAME, Person



def remember_seats(unit: Unit, game_id: str, seats: list[store.SeatRow]) -> None:
    """The seats a move read (``store.SeatRow``), for ``Context.load``."""
    unit.facts[(SEATS_READ, game_id)] = seats


#: ``Unit.facts`` key of a game's seats registered by ``remember_seats``.
SEATS_READ = "seats read by the move"


def _seats(unit: Unit, game: Any) -> list[Any]:
    """The game's seats, as this transaction read them (``remember_seats``), else with
    one query: every action builds a context, and a query would return the same rows."""
    read = unit.facts.get((SEATS_READ, str(game.id)))
    if read is not None:
        return list(read)
    return store.seat_rows(unit.session, str(game.id), with_email=True)


def seat_mail(session: Session, game_id: str, seat: int) -> SeatMail:
    """The seat's mail row as the ORM object, created on first use from the lobby's
    preference (one INSERT that a racing transaction may win): for code outside a move
    that changes it through its session (the seat's settings, a digest)."""
    row = session.exec(select(SeatMail).where(SeatMail.game_id == game_id,
                                              SeatMail.seat == seat)).first()
    if row is None:
        session.execute(dialect_insert(_MARKS, session.get_bind().dialect.name)
                        .values(game_id=game_id, seat=seat,
                                mode=_lobby_mode(session, game_id, seat), last_acted_step=0)
                        .on_conflict_do_nothing(index_elements=["game_id", "seat"]))
        row = session.exec(select(SeatMail).where(SeatMail.game_id == game_id,
                                                  SeatMail.seat == seat)).one()
    return row


def mail_row(unit: Unit, game_id: str, seat: int) -> Row:
    """The seat's mail row as this transaction holds it, created now when it has none
    (one INSERT; a racing transaction that created it first wins, and its row is read).
    A move reads every seat's row with its seats; its changes are queued on the unit."""
    row = unit.seat_row(_MARKS, game_id, seat)
    if row is not None:
        return row
    return unit.create_seat_row(_MARKS, {
        "game_id": game_id, "seat": seat, "mode": _lobby_mode(unit.session, game_id, seat),
        "last_acted_step": 0})


def zone_in(unit: Unit, address: str) -> ZoneInfo:
    """The zone of ``address``'s person as this transaction holds it: a move read the
    person rows with its seats, so its answer shows its times in the mover's zone
    (issue 33) without a statement more."""
    row = _address_row(unit, address) if address else None
    return zone_of(row.time_zone if row is not None else None)


#: ``Unit.facts`` key of the seats that moved by reply in this transaction.
REPLIED = "seats that moved by reply"


def note_reply(unit: Unit, game_id: str, seat: int) -> None:
    """``seat`` made a move by replying to a mail in this transaction (source ``mail``)."""
    unit.facts.setdefault(REPLIED, set()).add((str(game_id), int(seat)))


def replied(unit: Unit, game_id: str, seat: int) -> bool:
    """Whether mail to ``seat`` written now is conversation (issue 17 item 3): the seat
    moved by reply in this very transaction, so this mail is what its reply asked
    for (the next decision after the bots moved, the round's end it caused). Such mail
    leaves at once (the player waits in their mail client, not on a page) and is
    bounded by their own replies, not by the per-address hourly cap."""
    return (str(game_id), int(seat)) in unit.facts.get(REPLIED, ())


def address_mode(unit: Unit, address: str) -> str | None:
    row = _address_row(unit, address)
    return str(row.mode) if row is not None else None


def _address_row(unit: Unit, address: str) -> Row | None:
    """The address's row as this transaction holds it (None: it has none), read once
    per transaction (a turn mail asks for it several times: the seat's mode, the daily
    digest, the mail itself)."""
    key = (_ADDRESSES.name, address)
    if key not in unit.rows:
        values = unit.session.connection().execute(
            sa_select(_ADDRESSES).where(_ADDRESSES.c.address == address)).mappings().first()
        unit.rows[key] = None if values is None else Row(_ADDRESSES, values)
    return unit.rows[key]


def _read_people(unit: Unit, addresses: list[str]) -> None:
    """The rows of those addresses this transaction has not read yet, in one statement
    (a context outside a move: the clock, the sender)."""
    wanted = sorted({a for a in addresses if (_ADDRESSES.name, a) not in unit.rows})
    if not wanted:
        return
    found = {values["address"]: values for values in unit.session.connection().execute(
        sa_select(_ADDRESSES).where(_ADDRESSES.c.address.in_(wanted))).mappings()}
    for address in wanted:
        values = found.get(address)
        unit.rows[(_ADDRESSES.name, address)] = None if values is None else Row(_ADDRESSES, values)


def remember_addresses(unit: Unit, rows: dict[str, dict[str, Any] | None]) -> None:
    """Address rows read as columns by the caller's own query (the move reads them
    with its seats; None: the address has none), so ``_address_row`` asks no more. A
    stored address that is not in its checked form is left out: it is looked up under
    that form when asked."""
    for stored, values in rows.items():
        if checked_or_none(stored) == stored:
            unit.rows.setdefault((_ADDRESSES.name, stored),
                                 None if values is None else Row(_ADDRESSES, values))


def address_mail(session: Session, address: str) -> Person:
    """The address's row of preferences across games as the ORM object, created on
    first use (one INSERT that a racing transaction may win): for code outside a move
    that changes it (the daily digest)."""
    row = session.exec(select(Person).where(Person.address == address)).first()
    if row is None:
        session.execute(dialect_insert(_ADDRESSES, session.get_bind().dialect.name)
                        .values(address=address, mode=PER_GAME, by_mail=True, soft_bounces=0)
                        .on_conflict_do_nothing(index_elements=["address"]))
        row = session.exec(select(Person).where(Person.address == address)).one()
    return row


def _lobby_mode(session: Session, game_id: str, seat: int) -> str:
    """The mail mode the lobby asked for this seat (``every`` unless it said otherwise)."""
    wanted = session.connection().execute(
        sa_select(_SEATS.c.preferences).where(_SEATS.c.game_id == game_id,
                                              _SEATS.c.index == seat)).scalar()
    mode = (wanted or {}).get("mail") if isinstance(wanted, dict) else None
    return mode if mode in MAIL_MODES else EVERY


_MARKS: Table = table_of(SeatMail)
_ADDRESSES: Table = table_of(Person)
_SEATS: Table = table_of(store.Seat)
