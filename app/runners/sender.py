"""The mail sender's steps: what is due leaves, each row once, never stale.

- ``send_mail_due`` sends what is due now (``app.runners.sending``), asking
  ``still_holds`` of each row that announces something (a decision, an absence, talk, a
  vote) and composing a turn mail that waited out its grace period (``compose_late``),
  holding back rows over the per-address hourly cap (``MAIL_PER_ADDRESS_PER_HOUR``,
  default 60); seats whose address refused are played as away
  (``play_refused_as_away``). Then the notices those mails wrote (``send_notices_due``).
- ``next_due`` says when the next mail and the next notice may go.

The clock's tick calls these when the sender thread is not alive; the thread itself
(``Waker``: LISTEN and its wake-ups, an SMTP outage, backoff, the heartbeat that names
its claims) is ``app.runners.waker``, which calls them through this module.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import func
from sqlmodel import col, select

from app.channels import deliveries
from app.config import setting
from app.clock import deadlines as dl
from app import engine, i18n, services
from app.runners import sending
from app.runners import notices  # (issue 20 item 3)
from app.gamelog import store
from app.db import get_engine, read_session
from app.db.unit import Unit
from app.mail.backends import MailBackend, backend_from_config
from app.mail import table_talk
from app.mail import table_news
from app.mail import notify, turn_mails
from app.mail.compose import Mail, decision_of
from app.mail.models import SENT, Outbox
from app.mail.notify import DEFAULT_MAIL_FROM, ROUND_TOLD

log = logging.getLogger("app.runners.sender")

#: Mails to one address per hour, across all games (a real mail server blocks
#: senders that flood one inbox). ``MAIL_PER_ADDRESS_PER_HOUR``; 0 turns it off.
#: Sixty leaves room for a player replying move after move (issue 11).
DEFAULT_PER_ADDRESS_PER_HOUR = 60


def still_holds(row: Outbox) -> bool:
    """Whether what ``row`` announces is still true now (checked just before sending).

    ``decision``: the game runs, the seat has not acted since the mail's step,
    and it still faces the same decision in the same round. ``absent``: the
    seat is still away. ``talk``: the seat still wants talk mails and was not told
    of some talk yet (issue 20 item 2: ``table_talk.still_holds``). ``vote``: the vote
    is open and the seat has not answered; ``more_time``: the decision given more time
    still waits (issue 21: ``people.still_holds``). Anything else (or nothing
    announced): true. ``round``: no turn mail of the seat carried the round's end yet
    (``round_told``).
    """
    said = row.announces or {}
    what = said.get("what")
    if what == table_talk.TALK_KIND and row.game_id is not None:
        with read_session() as session:
            return table_talk.still_holds(session, row)
    if what in table_news.ANNOUNCED and row.game_id is not None:  # issue 21
        with read_session() as session:
            return table_news.still_holds(session, row)
    if what == ROUND_TOLD and row.game_id is not None:  # issue 51 item 1
        with read_session() as session:
            return not round_told(session, row)
    if what not in ("decision", "absent") or row.game_id is None:
        return True
    seat = int(said.get("seat", -1))
    with read_session() as session:
        if what == "absent":
            game = session.get(store.Game, row.game_id)
            if game is None or game.status != "running":
                return False
            clock = session.exec(select(dl.SeatClock).where(
                dl.SeatClock.game_id == row.game_id, dl.SeatClock.seat == seat)).first()
            return bool(clock and clock.absent)
        # the game and its state in one read (issue 30: a turn mail composed as it
        # leaves read the game five times, each statement a transaction of its own)
        try:
            game, _seq, state = services.game_and_state(session, row.game_id)
        except services.NotFound:
            return False
        if game.status != "running":
            return False
        acted = session.exec(select(func.count()).select_from(store.Action).where(
            store.Action.game_id == row.game_id, store.Action.seat == seat,
            store.Action.seq > int(said.get("step", 0)))).one()
        if acted:
            return False
    status = engine.status(state)
    return (status.get("phase") != "over" and status.get("round") == said.get("round")
            and decision_of(status, seat) == said.get("decision"))


def round_told(session: Any, row: Outbox) -> bool:
    """Whether a turn mail of the round mail's seat, queued after it, was sent with the
    round's end in it (issue 51 item 1: ``turn_mails.carry_round``). The sender handles a
    batch's round mails after its other rows (``sending.Sending.claim``), so a turn mail
    due with it has left first."""
    said = row.announces or {}
    found = session.exec(select(Outbox.announces).where(
        Outbox.game_id == row.game_id, Outbox.seat == row.seat, col(Outbox.id) > int(row.id or 0),
        col(Outbox.kind).in_(("turn", "reminder")), Outbox.status == SENT)
        .order_by(col(Outbox.id)).limit(20)).all()
    return any((announces or {}).get("round_over") == said.get("round") for announces in found)


def compose_late(row: Outbox, now: datetime) -> Mail | None:
    """The turn mail of a row that waited out its grace period, composed now
    (``still_holds`` has just said the seat still faces its decision), in its reader's
    language (issue 50: the person of the address it goes to, the row ``Context`` reads
    for the zone: no statement more)."""
    if row.game_id is None or row.seat is None:
        return None
    if row.kind == table_talk.TALK_KIND:  # (issue 20 item 2) no game state needed
        with read_session() as session:
            game = session.get(store.Game, row.game_id)
            if game is None:
                return None
            with i18n.in_language(notify.language_of(Unit(session, queued=False),
                                                         row.to)):
                return table_talk.talk_mail(session, game, int(row.seat), now)
    with read_session() as session:
        # the game, its state and every seat's rows in one read (issue 30)
        unit = Unit(session, queued=False)
        try:
            game, _seq, state = services.game_with_seats(unit, row.game_id)
        except services.NotFound:
            return None
        with i18n.in_language(notify.language_of(unit, row.to)):
            return turn_mails.late_turn_mail(unit, game, int(row.seat), state,
                                             row.announces or {}, now)


def per_address_cap() -> int | None:
    cap = int(float(setting("MAIL_PER_ADDRESS_PER_HOUR", DEFAULT_PER_ADDRESS_PER_HOUR)))
    return cap if cap > 0 else None


def mail_backend(app: Any) -> MailBackend:
    return backend_from_config(app.config, app.config.get("INSTANCE_PATH") or app.instance_path)


def send_mail_due(app: Any, now: datetime, *, backend: MailBackend | None = None,
                  on_sent: Callable[[Outbox], None] | None = None,
                  notice_send: notices.Send | None = None,
                  owner: str | None = None, with_notices: bool = True) -> sending.SendReport:
    """Send every due outbox row, batch after batch; ``on_sent(row)`` after each
    mail handed over (the sender thread counts it as progress, issue 17 item 1).
    Then the notices those mails wrote for the seats' targets, and any other due
    (issue 20 item 3; ``notice_send``: how, default apprise), so the clock's own
    sending, when the sender thread is stale, sends them too; ``with_notices=False``:
    not (the sender thread asks for due notices itself in its next step, without a
    claim of its own: issue 30 item 4, the clock's transactions a move). ``owner``:
    whose claims the rows carry (a sender thread's own, named in its heartbeat)."""
    with app.app_context():
        report = sending.send_due(get_engine(app), backend or mail_backend(app), now,
                                  owner=owner,
                                  sender=str(setting("MAIL_FROM", DEFAULT_MAIL_FROM)),
                                  drain=True, still_holds=still_holds,
                                  compose_late=compose_late,
                                  per_address_hour=per_address_cap(), on_sent=on_sent)
        if report.refused:
            play_refused_as_away(report.refused)
    if with_notices:
        send_notices_due(app, now, send=notice_send)
    return report


#: A seat's "away" entry is tried this many times when another move lands first.
AWAY_RETRIES = 5


def play_refused_as_away(seats: list[tuple[str, int]]) -> None:
    """Seats whose mail was superseded because their address refused and never played
    there (issue 34 item 3, ``stops.at_send``) are logged ``away`` (R29,
    source ``system``), as a seat whose run of timeouts reached the game's threshold:
    the rules' defaults play its decisions at once, so the others do not wait out its
    deadlines for a person who said no; a game where nobody is left is abandoned. The
    creator's page says why (``app.services.seat_lines``). A seat away already, or a game
    over, is left as it is; one that cannot be logged is logged for the operator and
    its deadlines time out as before."""
    for game_id, seat in seats:
        for _ in range(AWAY_RETRIES):
            with read_session() as session:
                game = session.get(store.Game, game_id)
                clock = session.exec(select(dl.SeatClock).where(
                    dl.SeatClock.game_id == game_id, dl.SeatClock.seat == seat)).first()
                if game is None or game.status != "running" or (clock and clock.absent):
                    break
                seq = store.last_seq(session, game_id)
            try:
                services.submit_action(game_id, seat, {"type": "away"}, seq, source="system")
            except services.Conflict:
                continue
            except services.ServiceError as exc:
                log.warning("game %s seat %s refused its mail and could not be logged away: "
                            "%s", game_id, seat, exc)
                break
            log.info("game %s seat %s: its address refused our mail; the seat is away",
                     game_id, seat)
            break


def send_notices_due(app: Any, now: datetime, *,
                     send: notices.Send | None = None) -> notices.NoticeReport:
    """Send every due notice to its target (``app.runners.notices``), asking the
    sender's ``still_holds`` of each; a failure here is logged, never the mail's."""
    with app.app_context():
        try:
            return notices.send_due(get_engine(app), now, send=send, still_holds=still_holds)
        except Exception as exc:  # noqa: BLE001 - the next step tries again
            log.warning("sending notices failed: %s", type(exc).__name__)
            return notices.NoticeReport()


def next_due(app: Any) -> tuple[datetime | None, datetime | None]:
    """When the earliest pending mail may be sent (its due time, or the end of the lease
    another sender holds on it; pending rows only: the partial index ``ix_outbox_due``),
    and when the earliest pending notice may be tried: one statement (issue 30 item 4:
    the sender asks both at every step; on PostgreSQL a read session's statement is its
    own transaction, without a BEGIN and a ROLLBACK around it), so polling takes no write
    lock."""
    mail = sending.earliest_due()
    with read_session(get_engine(app)) as session:
        value, noticed = session.exec(select(mail, deliveries.earliest_due())).one()
    return (dl.as_utc(value) if value is not None else None), (
        dl.as_utc(noticed) if noticed is not None else None)
