"""What a person stopped, read again as each mail leaves (issue 45 item 2).

A stop used to be read only when mail was queued: "Stop the mail" for one game answered
"no more mail from Game B", and the mail of that game already held for the person's
quiet hours was sent when they ended. A stop now holds for mail queued before it too,
held or not, as a refusal of invitations already did (``at_send``'s ``refused``):

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

One statement a batch, whatever its size (``at_send``), which also reads the refusals
of invitations (issue 34 item 3): the batch's rows by id, each seat's mail row by
``uq_seat_mail`` and each address's person by ``ix_person_lower``; the sender asks it
with the batch's other reads (``app.runners.sending``) and the notice runner with its
own (``app.runners.notices``: ``stopped_at_send``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

from sqlalchemy import and_, func, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from app.clock.time import as_utc
from app.gamelog import store
from app.mail.invitations import ASKED_FOR_KINDS, REFUSED_AT_SEND
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


@dataclass(frozen=True)
class AtSend:
    """What a sending batch's rows may not do, read in one statement: ``refused``, the
    rows whose address refused (no more invitations, or no game mail) and never played
    in their game (issue 34 item 3: the seat is then played as away); ``stopped``, the
    rows a stop holds back (this module's doc). ``{row id: why}`` each."""

    refused: dict[int, str]
    stopped: dict[int, str]


def at_send(session: Session, ids: Iterable[int]) -> AtSend:
    """The refusals and the stops of the outbox rows ``ids``, read in ``session``'s
    transaction: one statement (the rows by id, each seat's mail row by
    ``uq_seat_mail``, each address's person by ``ix_person_lower``), and one more only
    when a refusing address is among them (whether it played in the row's game, by
    ``ix_action_own``: nearly never). Before issue 45 the refusals and the stops were two
    statements a batch: mail left about 4 % slower."""
    wanted = sorted({int(row_id) for row_id in ids})
    if not wanted:
        return AtSend({}, {})
    seat_mode, person_mode = col(SeatMail.mode), col(Person.mode)
    refused_at = col(Person.no_invitations_at)
    found = session.execute(
        sa_select(col(Outbox.id), col(Outbox.kind), col(Outbox.game_id), col(Outbox.seat),
                  col(Outbox.to), col(Outbox.created_at), seat_mode, col(SeatMail.updated_at),
                  person_mode, refused_at)
        .select_from(Outbox)
        .outerjoin(SeatMail, and_(col(SeatMail.game_id) == col(Outbox.game_id),
                                  col(SeatMail.seat) == col(Outbox.seat)))
        .outerjoin(Person, func.lower(col(Person.address)) == func.lower(col(Outbox.to)))
        .where(col(Outbox.id).in_(wanted), col(Outbox.conversation).is_(False),
               col(Outbox.kind).not_in(sorted(ASKED_FOR_KINDS)),
               or_(seat_mode == NONE, person_mode == NONE, refused_at.is_not(None)))).all()
    stopped: dict[int, str] = {}
    refusing: list[tuple[int, str, int, str, bool]] = []
    for row_id, kind, game_id, seat, to, created_at, mode, stopped_at, person, invited_not \
            in found:
        said = _why(kind, game_id, to, created_at, mode == NONE, stopped_at, person == NONE)
        if said is not None:
            stopped.setdefault(int(row_id), said)
        if game_id is not None and seat is not None and (invited_not is not None
                                                         or person == NONE):
            refusing.append((int(row_id), str(game_id), int(seat), str(to),
                             invited_not is not None))
    return AtSend(_refused(session, refusing), stopped)


def stopped_at_send(session: Session, ids: Iterable[int]) -> dict[int, str]:
    """Which of the outbox rows ``ids`` a stop holds back now (the notice runner's
    question of its batch's mails)."""
    return at_send(session, ids).stopped


def _refused(session: Session, rows: list[tuple[int, str, int, str, bool]]) -> dict[int, str]:
    """Of the rows whose address refused, those of a game the address never played in
    (a game it played in keeps its mail: it chose that game)."""
    if not rows:
        return {}
    played = set(session.exec(select(store.Action.game_id, store.Action.seat).distinct().where(
        col(store.Action.game_id).in_(sorted({game_id for _, game_id, _, _, _ in rows})),
        col(store.Action.source).in_(store.OWN_SOURCES))).all())
    why: dict[int, str] = {}
    for row_id, game_id, seat, to, invitations_refused in rows:
        if (game_id, seat) in played:
            continue
        what = ("asked for no more invitations" if invitations_refused
                else "asked for no mail from games here")
        why[row_id] = (f"{REFUSED_AT_SEND} {to} {what} and has not played in this game; "
                       "nothing more is sent to it, and its seat is played by the rules' "
                       "defaults (away)")
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
