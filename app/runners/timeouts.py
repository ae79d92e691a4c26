"""What the clock does with a due deadline row: a timeout (R29), a reminder, a digest,
a vote's expiry (issue 21: ``app.services.votes.expire``).

Each is safe to run twice, at once or after a crash:
- a reminder or digest closes its deadline row and enqueues its mail in one
  transaction, with a conditional UPDATE that only one caller can win; the
  reminder carries what it announces, re-checked when it leaves;
- a timeout is ``app.services.absence.auto_pass`` (R29): it submits the engine's
  default through the services with the step the decision was seen at, so a
  second clock (or a replay after a crash) gets "the game moved on" instead
  of a second row.
"""
from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col

from app import engine, services
from app.services import absence, votes
from app.gamelog import store
from app.clock import deadlines as dl
from app.db import read_session, write_session
from app.mail import notify, turn_mails

log = logging.getLogger(__name__)


def fire(deadline_id: int, now: datetime) -> str:
    """Do what a due deadline row asks; returns what happened (for logs and tests)."""
    with read_session() as session:
        row = session.get(dl.Deadline, deadline_id)
        kind = row.kind if row is not None else None
        ref = row.ref_id if row is not None else None
    if kind == dl.DECISION:
        return absence.auto_pass(deadline_id, now)
    if kind in (dl.REMINDER, dl.DIGEST):
        return remind(deadline_id, now)
    if kind == dl.VOTE and ref is not None:  # issue 21: a vote's time is up
        return f"vote {votes.expire(int(ref), now)}"
    return "gone"


def remind(deadline_id: int, now: datetime) -> str:
    """Send a reminder (or digest) for an open decision, exactly once."""
    now = dl.as_utc(now)
    with read_session() as session:
        row = session.get(dl.Deadline, deadline_id)
        if row is None or row.done_at is not None:
            return "done already"
        game_id, seat, kind = row.game_id, row.seat, row.kind
    snap = services.snapshot(game_id)
    with dl.at(now), write_session() as session:
        won = session.exec(update(dl.Deadline)
                           .where(col(dl.Deadline.id) == deadline_id,
                                  col(dl.Deadline.done_at).is_(None))
                           .values(done_at=now, outcome="fired")).rowcount
        if won != 1:
            return "done already"
        row = session.get(dl.Deadline, deadline_id)
        game = session.get(store.Game, game_id)
        if row is None or game is None or game.status != "running":
            return "game not running"
        ctx = notify.Context.load(session, game)
        decision = dl.open_rows(session, game_id, seat, dl.DECISION)
        due = decision[0].due_at if decision else None
        if kind == dl.DIGEST:
            with ctx.speaking(seat):  # (issue 50) in the reader's language
                turn_mails.digest(session, ctx, seat, snap.state, row, due, now)
            return "digest"
        if seat not in (engine.view(snap.state, None).get("to_act") or []):
            return "no decision"
        with ctx.speaking(seat):
            turn_mails.reminder(session, ctx, seat, snap.state, row, due, snap.seq, now)
        return "reminded"
