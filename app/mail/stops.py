"""What a person stopped, read again as each mail leaves (issue 45 item 2).

A stop used to be read only when mail was queued: "Stop the mail" for one game answered
"no more mail from Game B", and the mail of that game already held for the person's
quiet hours was sent when they ended. A stop now holds for mail queued before it too,
held or not, as a refusal of invitations already did (``invitations.refused_at_send``):

- the seat's own "no mail from this game" (``SeatMail.mode`` none: the seat page's
  choice, the one-click ``/unsubscribe/<token>`` of its mails, an invitation's "no more
  invitations", which stops the invited seat's mail too);
- the person's "no mail about any of my games" (``Person.mode`` none: the settings page,
  the daily digest's one-click unsubscribe), for every game, played in or not, and for
  a daily digest written before it.

Such a mail is superseded, never sent, with the reason in its ``last_error``
(``STOPPED_AT_SEND``); its seat page is not told of it as held mail (``held_untold``
cleared: the person chose it). What the person asked for still leaves: a fresh link,
the my-games link, an answer to their own reply (conversation), and the one mail that
tells the earlier holder of a seat it was handed over (``invitations.ASKED_FOR_KINDS``;
the goodbye's own unsubscribe, ``services.left.left_mail``, stops that one). An
invitation goes when the seat's "no mail" was the creator's choice in the lobby (it
predates the invitation): only a stop made after it was queued holds it back.

One statement a batch, whatever its size (``stopped_at_send``): the batch's rows by id,
each seat's mail row by ``uq_seat_mail`` and each address's person by
``ix_person_lower``; the sender asks it with the batch's other reads
(``app.runners.sending``) and the notice runner with its own (``app.runners.notices``).
"""
from __future__ import annotations

from datetime import datetime
from typing import Iterable

from sqlalchemy import and_, func, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from app.clock.time import as_utc
from app.mail.invitations import ASKED_FOR_KINDS
from app.mail.models import NONE, Outbox, SeatMail
from app.people.models import Person

#: What the ``last_error`` of a mail superseded by a stop begins with.
STOPPED_AT_SEND = "stopped:"
#: The mail a person gets whatever a game sends: the invitation to a seat (sent on a
#: "no mail" the creator chose; held back by a stop made after it was queued).
INVITATION = "invitation"
#: The one mail across games that the person's "no mail about any of my games" stops
#: (the rest of their game-less mail is what they asked for: links, settings).
DAILY = "daily"


def stopped_at_send(session: Session, ids: Iterable[int]) -> dict[int, str]:
    """Which of the outbox rows ``ids`` a stop holds back now, as ``{row id: why}`` (see
    the module doc): one statement, read in ``session``'s transaction."""
    wanted = sorted({int(row_id) for row_id in ids})
    if not wanted:
        return {}
    seat_mode = col(SeatMail.mode)
    person_mode = col(Person.mode)
    found = session.execute(
        sa_select(col(Outbox.id), col(Outbox.kind), col(Outbox.game_id), col(Outbox.to),
                  col(Outbox.created_at), seat_mode, col(SeatMail.updated_at), person_mode)
        .select_from(Outbox)
        .outerjoin(SeatMail, and_(col(SeatMail.game_id) == col(Outbox.game_id),
                                  col(SeatMail.seat) == col(Outbox.seat)))
        .outerjoin(Person, func.lower(col(Person.address)) == func.lower(col(Outbox.to)))
        .where(col(Outbox.id).in_(wanted), col(Outbox.conversation).is_(False),
               col(Outbox.kind).not_in(sorted(ASKED_FOR_KINDS)),
               or_(seat_mode == NONE, person_mode == NONE))).all()
    why: dict[int, str] = {}
    for row_id, kind, game_id, to, created_at, seat, stopped_at, person in found:
        said = _why(kind, game_id, to, created_at, seat == NONE, stopped_at, person == NONE)
        if said is not None:
            why.setdefault(int(row_id), said)
    return why


def _why(kind: str, game_id: str | None, to: str, created_at: datetime, seat_stopped: bool,
         stopped_at: datetime | None, person_stopped: bool) -> str | None:
    """The reason a stop holds back one row (None: none does)."""
    if game_id is None:  # mail across games: only the daily digest is game mail
        return (f"{STOPPED_AT_SEND} {to} asked for no mail about any of their games"
                if person_stopped and kind == DAILY else None)
    if person_stopped:
        return (f"{STOPPED_AT_SEND} {to} asked for no mail about any of their games; "
                "nothing of this game is sent to it but what it asks for")
    if seat_stopped and (kind != INVITATION or (
            stopped_at is not None and as_utc(stopped_at) > as_utc(created_at))):
        return (f"{STOPPED_AT_SEND} the seat asked for no more mail from this game; "
                "nothing of it is sent but what the seat asks for")
    return None
