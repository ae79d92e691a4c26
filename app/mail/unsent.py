"""The unsent mail's lifecycle: a seat's mail queued, re-aimed, superseded when the
seat acts, and the steps the server played for it noted on its mail row.

Apart from ``app.mail.notify`` (which mail a seat gets and what it says) because this
is what happens to a mail between being queued and leaving, and it is asked by every
move (``seat_acted``, ``supersede_unsent``), the pages (``played_steps``) and the
sender alike. Every change goes through the unit of work (``app.db.unit``) with the
move's other writes; a row a sender holds (its lease) is never touched here: the
sender's own check at send time decides.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Table
from sqlalchemy import select as sa_select
from sqlmodel import Session

from app.clock import deadlines as dl
from app.db.statements import Guard, table_of
from app.db.unit import Insert, Ref, Row, Unit
from app.mail.models import PENDING, SUPERSEDED, Outbox, SeatMail
from app.mail.outbox import CHANNEL, never_sent, row_values
from app.mail.seat_prefs import mail_row
from app.mail.view_words import Played


def did_since(view: dict[str, Any], seat: int, since: int) -> bool:
    """Whether the view's logs hold an event of ``seat`` after step ``since`` (if not,
    nothing was played for it, and the log need not be asked)."""
    return any(event.get("seat") == seat and int(event.get("step") or 0) > since
               for event in [*(view.get("previous_log") or []), *(view.get("log") or [])])


def supersede_unsent(unit: Unit, game_id: str, seat: int, now: datetime, *,
                     clear_marker: bool = True) -> None:
    """Mark the seat's unsent decision mail ``superseded`` (the seat acted, or a
    newer mail replaces it). A row a sender holds right now is left to the
    sender's own check at send time. ``clear_marker=False``: the caller changes the
    seat's mail row itself, with ``unsent_mail_id=None`` among its own changes."""
    marker = mail_row(unit, game_id, seat)
    if marker.unsent_mail_id is None:
        return
    _supersede(unit, marker.unsent_mail_id, now)
    if clear_marker:
        unit.update(marker, unsent_mail_id=None)


#: Timeouts a seat's mail row remembers (``SeatMail.played``): more than a seat that
#: is away has in the two rounds a mail or a page tells of.
PLAYED_KEPT = 40


def seat_acted(unit: Unit, game_id: str, seat: int, step: int, now: datetime, *,
               own: bool = True, played: str | None = None,
               aim: tuple[dict[str, Any], datetime] | None = None) -> bool:
    """The seat acted at ``step``: its unsent decision mail is superseded and its
    mail row notes the step and forgets the mail (queued: a move sends them with its
    other writes, ``services.repository.write_move``).

    ``own`` False (the server played it: a timeout, R29; or a presence toggle): the
    mail is superseded all the same, but the step the seat last *played* stays, so
    its next mail's "since you last played" still holds what was played for it;
    ``played`` (why the server played it: ``describe.TIMED_OUT`` or ``AWAY``) notes
    the step in the row's ``played`` for the mails and the page that tell of it
    (issue 17 item 2).

    ``aim``: ``(announces, due)`` of the mail the seat should get if it stops here
    (it still faces a decision of its turn: ``stopped_mid_turn``). Its unsent turn
    mail, still waiting out the grace period (the seat went on from its page), is
    then re-aimed at that decision instead of being superseded (no new row for every
    draw). Returns whether it was re-aimed (else the caller writes a new row, if it
    wants one)."""
    marker = mail_row(unit, game_id, seat)
    if aim is not None and own and marker.unsent_mail_id is not None:
        return _aim(unit, marker, step, now, *aim)
    if marker.unsent_mail_id is not None:
        _supersede(unit, marker.unsent_mail_id, now)
    if not own:
        kept = [*(marker.played or []), *([[int(step), played]] if played else [])]
        changes: dict[str, Any] = {"unsent_mail_id": None}
        if played:
            changes["played"] = kept[-PLAYED_KEPT:]
        unit.update(marker, **changes)
        return False
    unit.update(marker, last_acted_step=step, unsent_mail_id=None)
    return False


def _aim(unit: Unit, marker: Row, step: int, now: datetime, announces: dict[str, Any],
         due: datetime) -> bool:
    """``seat_acted`` with a mail to re-aim: the unsent row, if it is a turn mail still
    pending and not being sent, now announces ``announces`` and leaves at ``due``;
    any other unsent row is superseded. The seat's mail row notes the step and keeps
    the row only if it was re-aimed.

    Whether the row can be re-aimed is read with the move's rows (``move_read`` reads
    each seat's unsent mail with it); the UPDATE checks it again when it is sent. A
    sender that leased the row in between sends it as it was (its own check at send
    time decides), and this seat's mid-turn mail is then that one."""
    now = dl.as_utc(now)
    unsent = marker.unsent_mail_id
    if _aimable(unit, unsent, now):
        unit.update_id(_OUTBOX, unsent, (*_unleased(now), ("kind", "eq", "turn")),
                       announces=announces, next_attempt_at=dl.as_utc(due), created_at=now)
        unit.update(marker, last_acted_step=step)
        return True
    _supersede(unit, unsent, now)
    unit.update(marker, last_acted_step=step, unsent_mail_id=None)
    return False


def _aimable(unit: Unit, unsent: Any, now: datetime) -> bool:
    """Whether the unsent row is a turn mail still pending that no sender holds."""
    if isinstance(unsent, Ref):
        values = unit.inserted(unsent.key) or {}
    else:
        row = unit.rows.get((_OUTBOX.name, unsent))
        if row is None:
            found = unit.session.connection().execute(
                sa_select(_OUTBOX.c.id, _OUTBOX.c.status, _OUTBOX.c.kind, _OUTBOX.c.lease_until)
                .where(_OUTBOX.c.id == unsent)).mappings().first()
            if found is None:
                return False
            row = unit.rows[(_OUTBOX.name, unsent)] = Row(_OUTBOX, found)
        values = row.values
    lease = values.get("lease_until")
    return (values.get("status") == PENDING and values.get("kind") == "turn"
            and (lease is None or dl.as_utc(lease) < now))


def queue(unit: Unit, *, marker: Row | None = None, **mail: Any) -> bool:
    """Queue one mail on the unit (once per idempotency key: ``outbox.row_values``).
    ``marker``: the seat's mail row, which then names it as its unsent mail. Returns
    whether it was queued: on a unit that sends at once, whether a row was written."""
    values = row_values(**mail)
    key = values["idempotency"]
    wrote = unit.insert(Insert(_OUTBOX, [values], conflict=("idempotency",), key=key,
                               wake=CHANNEL))
    if not unit.queued and wrote is None:
        return False  # the key was there already: nothing new, no marker to move
    if marker is not None:
        unit.update(marker, unsent_mail_id=wrote if not unit.queued else Ref(key))
    return True


#: Each seat's mail row of a game, by seat (``marks_of_game``).
Marks = dict[int, Any]


def played_steps(where: "Session | Unit | Marks", game_id: str, seats: int, after_step: int,
                 only: int | None = None) -> Played:
    """The steps after ``after_step`` that the server played for a seat, and why
    (issue 17 item 2): ``{step: (seat, why)}``, from each seat's mail row, which
    notes its timeouts as they are logged (``seat_acted``); ``only``: that seat's.
    No read of the log: a move holds these rows already, a page or a sender reads
    the game's in one query."""
    marks = marks_of_game(where, game_id)
    played: Played = {}
    for seat in ([only] if only is not None else range(int(seats))):
        row = marks.get(seat)
        for step, why in (row.played or []) if row is not None else []:
            if int(step) > after_step:
                played[int(step)] = (seat, str(why))
    return played


def marks_of_game(where: "Session | Unit | Marks", game_id: str) -> "Marks":
    """Every seat's mail row of the game: as a move's unit holds them, as a page read
    them already (``where`` is that mapping), or read now."""
    if isinstance(where, dict):
        return where
    if isinstance(where, Unit):
        where.seat_row(_MARKS, game_id, 0)  # (reads them all once)
        return {key[2]: row for key, row in where.rows.items()
                if key[0] == _MARKS.name and key[1] == game_id and row is not None}
    return {values["seat"]: Row(_MARKS, values) for values in where.connection().execute(
        sa_select(_MARKS).where(_MARKS.c.game_id == game_id)).mappings()}


def _supersede(unit: Unit, unsent: Any, now: datetime) -> None:
    """The unsent mail ``unsent`` (an id, or the ``Ref`` of one this unit queues) is
    superseded, if it is still pending and no sender holds it."""
    now = dl.as_utc(now)
    unit.update_id(_OUTBOX, unsent, _unleased(now), status=SUPERSEDED,
                   last_error="superseded: the decision it announced changed",
                   **never_sent())


def _unleased(now: datetime) -> tuple[Guard, ...]:
    """The row is still pending and no sender holds it (its lease is none or over)."""
    return (("status", "eq", PENDING), ("lease_until", "null_or_before", now))


_OUTBOX: Table = table_of(Outbox)
_MARKS: Table = table_of(SeatMail)
