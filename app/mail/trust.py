"""Whether an address is a known player, and how much mail waits for a stranger (issue 17).

An address *has acted* once a seat at that address made a move itself (by its
link or by a reply: action sources ``player`` and ``mail``). Until then it is a
stranger to us: somebody typed it into a lobby form, and it may be a victim
whose inbox is being rented out. A stranger gets at most
``STRANGER_MAILS_PER_DAY`` mails in any 24 hours across all games; the lobby
refuses invitations beyond that up front, with words to the creator, and the
sender holds the rest.

One home for the two questions, asked by the lobby (``app.web.lobby`` /
``app.services.games``) and by the sender (``app.mail.outbox``). Addresses are
compared case-folded: a stored address keeps its local part's case (RFC 5321
lets a server tell ``Ann`` from ``ann``; none of the ones people use do), and a
limit that ``ANN@`` and ``Ann@`` could each spend would be no limit.
"""
from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Text, bindparam, exists, func, literal, select
from sqlalchemy.orm import aliased
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Session, col

from app.gamelog import store
from app.mail.models import SUPERSEDED, Outbox

#: Mails one never-acted address may be sent (or queued for) in 24 hours.
STRANGER_MAILS_PER_DAY = 20
#: Action sources that a person made themselves (not the clock, not the server).
OWN_SOURCES = store.OWN_SOURCES
DAY = timedelta(hours=24)


def has_acted(session: Session, address: str) -> bool:
    """Whether any seat at ``address`` (as stored on seats: normalised) ever moved itself.

    Seat first (``ix_seat_email``), then one probe of ``ix_action_own`` per seat of the
    address, stopping at the first move found: the cost is the address's seats, never
    the log's length (issue 30 item 1; joined the other way round, a store that had
    lived was scanned whole for every stranger). On PostgreSQL the probe is a
    ``LATERAL ... LIMIT 1``, which the planner cannot turn into a hash join over the
    log whatever its statistics say; SQLite runs the correlated EXISTS as a probe."""
    if not address:
        return False
    if session.get_bind().dialect.name == "postgresql":
        return bool(acted_among(session, [address]))
    seat = store.Seat
    return bool(session.execute(select(exists(select(literal(1)).select_from(seat).where(
        func.lower(col(seat.email)) == address.lower(), exists(_own_move()))))).scalar())


def _own_move() -> Any:
    """A move the seat in the enclosing query made itself (correlated to ``seat``):
    one probe of ``ix_action_own``."""
    action, seat = store.Action, store.Seat
    return select(literal(1)).where(col(action.game_id) == col(seat.game_id),
                                    col(action.seat) == col(seat.index),
                                    col(action.source).in_(OWN_SOURCES))


def acted_among(session: Session, addresses: list[str]) -> set[str]:
    """Which of ``addresses`` ever moved themselves (``has_acted`` of each), as given.

    One statement for a sending batch's addresses, a round trip per batch, not per
    mail. On PostgreSQL each address is probed as ``has_acted`` probes (``LATERAL ...
    LIMIT 1``: its seats, then one move of its own); SQLite takes the addresses' seats
    (``ix_seat_email``) and probes ``ix_action_own`` once for each (the correlated
    EXISTS): the cost is the addresses' seats, never the log's length."""
    wanted = {address.lower(): address for address in addresses if address}
    if not wanted:
        return set()
    if session.get_bind().dialect.name != "postgresql":
        email = func.lower(col(store.Seat.email))
        return {wanted[address] for address in session.execute(
            select(email).distinct().where(email.in_(sorted(wanted)), exists(_own_move())))
            .scalars()}
    each = func.unnest(literal(sorted(wanted), type_=ARRAY(Text))).table_valued(
        "address").render_derived(name="each")
    seat = store.Seat
    own = _own_move().limit(1).lateral("own")
    found = (select(literal(1)).select_from(seat).join(own, literal(True))
             .where(func.lower(col(seat.email)) == each.c.address).limit(1).lateral("found"))
    query = select(each.c.address).select_from(each).join(found, literal(True))
    return {wanted[address] for address in session.execute(query).scalars()}


def mails_in_day(session: Session, address: str, now: datetime) -> int:
    """Mails to ``address`` created in the 24 hours before ``now`` that were or will be
    sent (superseded rows never leave, so they do not count)."""
    return int(session.execute(
        select(func.count()).select_from(Outbox)
        .where(func.lower(col(Outbox.to)) == address.lower(), col(Outbox.created_at) > now - DAY,
               col(Outbox.status) != SUPERSEDED)).scalar() or 0)



def played_with(session: Session, address: str, others: list[str]) -> set[str]:
    """Which of ``others`` (case-folded) played a game with ``address``: a game where a
    seat at each made a move of its own (issue 34 item 2). Seated together is not
    enough: a stranger who names an address in a game of theirs has not played with it.
    One statement: the address's seats (``ix_seat_email``), the other seats of those
    games at ``others``, a probe of ``ix_action_own`` for each side."""
    wanted = sorted({other.lower() for other in others if other} - {address.lower()})
    if not address or not wanted:
        return set()
    return set(session.execute(_played_with_query(),
                               {"address": address.lower(), "wanted": wanted}).scalars())


@functools.cache
def _played_with_query() -> Any:
    """``played_with``'s statement, built once: its two aliases of ``seat`` cost the ORM
    about 6 ms to build on each call (a game's creation asks it for each seat, issue 30)."""
    me, them = aliased(store.Seat), aliased(store.Seat)
    action = store.Action

    def moved(seat: Any) -> Any:
        return exists(select(literal(1)).where(
            col(action.game_id) == seat.game_id, col(action.seat) == seat.index,
            col(action.source).in_(OWN_SOURCES)))

    them_address = func.lower(them.email)
    return (select(them_address).distinct().select_from(me)
            .join(them, col(them.game_id) == col(me.game_id))
            .where(func.lower(me.email) == bindparam("address"),
                   them_address.in_(bindparam("wanted", expanding=True)),
                   col(them.index) != col(me.index), moved(me), moved(them)))
