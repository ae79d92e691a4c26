"""More time for another seat's decision (issue 21 item 3; lichess's "+"): one more day
of the receiver's running time, ``more_time_per_round`` times per round and giver; the
deadline moves with its reminders (``dl.move_decision``), a time-bank decision's budget
grows by the same, the receiver is told, everyone sees it (``Gift`` rows,
``app.table.models``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app import engine
from app.i18n import _, ngettext
from app.services.status_words import status_word
from app.clock import deadlines as dl
from app.db import write_session
from app.gamelog import store
from app.mail import notify
from app.mail import table_news
from app.table.models import Gift
from app.services.errors import BadRequest, Conflict, Forbidden, NotFound, TooMany
from app.people.calendar import calendar_of

def _services() -> Any:
    from app import services
    return services


#: What "more time" gives: one day of the receiver's running time.
MORE_TIME = timedelta(days=1)


# -- more time -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Given:
    """More time given: to whom, the deadline before and after."""

    receiver: int
    before: datetime
    after: datetime


def gifts_left(session: Session, game_id: str, giver: int, round_no: int,
               settings: dl.ClockSettings) -> int:
    """How many more days ``giver`` may still give in this round."""
    given = session.exec(select(func.count()).select_from(Gift).where(
        Gift.game_id == game_id, Gift.giver == giver, Gift.round == round_no)).one()
    return max(0, settings.more_time_per_round - int(given or 0))


def give_time(game_id: str, giver: int, receiver: int, now: datetime | None = None) -> Given:
    """``giver`` gives ``receiver``'s current decision one more day (issue 21 item 3)."""
    now = dl.as_utc(now or dl.now())
    snap = _services().snapshot(game_id)
    status = engine.status(snap.state)
    with write_session() as session:
        game = session.get(store.Game, str(game_id))
        if game is None:
            raise NotFound(_("There is no game with this id."))
        if game.status != "running":
            raise Conflict(_("The game is %(status)s: there is no clock to give time on.",
                             status=status_word(game.status)),
                           reason=game.status)
        seats = store.load_seats(session, game.id)
        if not 0 <= giver < len(seats) or seats[giver].kind != "human":
            raise Forbidden(_("Only the game's people can give time."), reason="not_a_person")
        if isinstance(receiver, bool) or not isinstance(receiver, int) \
                or not 0 <= receiver < len(seats):
            raise BadRequest(_("Choose the player to give more time to."))
        if receiver == giver:
            raise BadRequest(_("More time is for another player: for yourself, take a "
                             "vacation (it pauses your clock)."))
        settings = dl.ClockSettings.from_options(game.options)
        if settings.more_time_per_round <= 0:
            raise Conflict(_("This game gives no more time: its creator turned it off."),
                           reason="no_more_time")
        if not store.lock_key(session, f"gift:{game.id}:{giver}"):
            raise Conflict(_("The game is busy; please try again."), reason="busy")
        round_no = int(status.get("round") or 0)
        if gifts_left(session, game.id, giver, round_no, settings) <= 0:
            times = settings.more_time_per_round
            raise TooMany(ngettext("You gave more time once in this round already; you can "
                                   "give again next round.",
                                   "You gave more time %(num)s times in this round already; "
                                   "you can give again next round.", times),
                          reason="gifts")
        rows = dl.open_rows(session, game.id, receiver, dl.DECISION)
        name = seats[receiver].name
        if not rows:
            raise Conflict(_("%(name)s has no decision waiting now, so there is no deadline "
                             "to move.", name=name), reason="no_decision")
        row = rows[0]
        calendar = calendar_of(session, game.id, receiver, settings)
        before = dl.as_utc(row.due_at)
        after = calendar.settle(calendar.add(before, MORE_TIME))
        try:
            dl.move_decision(session, row, after, now, settings, calendar,
                             credit=calendar.used(before, after))
        except dl.Busy as exc:
            raise Conflict(str(exc), reason="busy") from None
        gift = Gift(game_id=game.id, giver=giver, receiver=receiver, round=round_no,
                    step=snap.seq, deadline_id=row.id, seconds=int(MORE_TIME.total_seconds()),
                    at=now, due_before=before, due_after=after)
        # not a unit write: the time bank's deadline moves through the clock's ORM rows
        # in this session (dl.move_decision), and the gift names that deadline's row
        session.add(gift)
        session.flush()
        assert gift.id is not None and row.id is not None
        ctx = notify.Context.load(session, game)
        table_news.more_time(ctx.unit, ctx, receiver, giver, gift.id, row.id, after, now)
        return Given(receiver, before, after)


def gifts(session: Session, game_id: str) -> list[Gift]:
    """Every day given in the game, oldest first (everyone sees who gave what)."""
    return list(session.exec(select(Gift).where(Gift.game_id == str(game_id))
                             .order_by(col(Gift.id))))


