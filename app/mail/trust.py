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

from datetime import datetime, timedelta

from sqlalchemy import exists, func, select
from sqlmodel import Session, col

from app.gamelog import store
from app.mail.models import SUPERSEDED, Outbox

#: Mails one never-acted address may be sent (or queued for) in 24 hours.
STRANGER_MAILS_PER_DAY = 20
#: Action sources that a person made themselves (not the clock, not the server).
OWN_SOURCES = ("player", "mail")
DAY = timedelta(hours=24)


def has_acted(session: Session, address: str) -> bool:
    """Whether any seat at ``address`` (as stored on seats: normalised) ever moved itself."""
    if not address:
        return False
    moved = (select(col(store.Action.id))
             .join(store.Seat, (col(store.Seat.game_id) == col(store.Action.game_id))
                   & (col(store.Seat.index) == col(store.Action.seat)))
             .where(func.lower(col(store.Seat.email)) == address.lower(),
                    col(store.Action.source).in_(OWN_SOURCES)))
    return bool(session.execute(select(exists(moved))).scalar())


def mails_in_day(session: Session, address: str, now: datetime) -> int:
    """Mails to ``address`` created in the 24 hours before ``now`` that were or will be
    sent (superseded rows never leave, so they do not count)."""
    return int(session.execute(
        select(func.count()).select_from(Outbox)
        .where(func.lower(col(Outbox.to)) == address.lower(), col(Outbox.created_at) > now - DAY,
               col(Outbox.status) != SUPERSEDED)).scalar() or 0)

