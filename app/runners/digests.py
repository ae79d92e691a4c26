"""One digest a day across all games, for addresses that asked for it (issue 7 item 8).

The clock calls ``send_daily`` every tick; an address on ``daily`` whose last
digest is a day old (or that never had one) gets one mail gathering every
running game where a seat with that address has an open decision, with each
seat's link. Nothing is mailed when no game waits for it. The mail is
enqueued once a day per address (its idempotency key names the day).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, or_, select

from app.clock import deadlines as dl
from app import i18n, services
from app.gamelog import store
from app.db import read_session, write_session
from app.mail import compose, notify, turn_mails
from app.mail import seat_prefs
from app.mail.models import DAILY, NONE
from app.people.models import Person

PERIOD = timedelta(days=1)


def send_daily(now: datetime) -> int:
    """Enqueue the daily digests that are due at ``now``; returns how many."""
    now = dl.as_utc(now)
    with read_session() as session:
        due = [row.address for row in session.exec(select(Person).where(
            Person.mode == DAILY,
            or_(col(Person.last_digest_at).is_(None),
                col(Person.last_digest_at) <= now - PERIOD)))]
    sent = 0
    for address in due:  # one transaction each: one address's trouble stops no other
        try:
            with write_session() as session:
                row = seat_prefs.address_mail(session, address)
                with i18n.in_language(row.language):  # (issue 50) the address's person's
                    entries = waiting_seats(session, address, now)
                    done = bool(entries) and turn_mails.daily_digest(session, address,
                                                                     entries, now)
                if done:
                    row.last_digest_at = now
                    sent += 1
        except IntegrityError:  # a second clock enqueued the same day's digest first
            continue
    return sent


def waiting_seats(session: Any, address: str, now: datetime) -> list[dict[str, Any]]:
    """Every seat with this address that a running game waits on, earliest deadline first."""
    rows = session.exec(
        select(dl.Deadline, store.Seat, store.Game)
        .join(store.Seat, (col(store.Seat.game_id) == col(dl.Deadline.game_id))
              & (col(store.Seat.index) == col(dl.Deadline.seat)))
        .join(store.Game, col(store.Game.id) == col(dl.Deadline.game_id))
        .where(col(dl.Deadline.done_at).is_(None), dl.Deadline.kind == dl.DECISION,
               store.Game.status == "running", store.Seat.kind == "human",
               store.Seat.email == address)
        .order_by(col(dl.Deadline.due_at))).all()
    entries = []
    for deadline, seat, game in rows:
        if notify.checked_or_none(seat.email) != address:
            continue
        ctx = notify.Context.load(session, game)
        if seat_prefs.seat_mail(session, ctx.id, seat.index).mode == NONE:
            continue
        zone = ctx.zone(seat.index)
        status = notify.public_view(services.load_state(ctx.id))
        entries.append({
            "game": ctx.info.title, "name": ctx.info.names[seat.index],
            "link": ctx.link(seat.index),
            "decision": compose.decision_words(compose.decision_of(status, seat.index)),
            "deadline": compose.deadline_words(deadline.due_at, now, zone),
        })
    return entries

