"""Issue 34 item 1, in one process: the claims of a sender whose own heartbeat went
stale are given back by the next tick, whichever clock it runs in; a sender that still
beats keeps its claims. (The real thing, a clock killed with SIGKILL beside another, is
``test_killed_clock.py``, on PostgreSQL.)"""
from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.runners import clock, heartbeats, sending


def queue_and_claim(owner: str, count: int, first: int = 0) -> None:
    now = heartbeats.wall_now()
    with write_session() as session:
        for n in range(first, first + count):
            outbox.enqueue(session, game_id=None, seat=None, kind="test",
                           to=f"p{n}@example.com", to_name="P",
                           mail=compose.Mail(subject=f"Mail {n}", text="t", html="<p>t</p>"),
                           idempotency=f"claimers:{n}", domain="silver-eye.test", now=now)
    sending.claim_due(get_engine(), now, owner=owner, limit=count)


def owners(app) -> dict[str, int]:
    with get_engine(app).connect() as conn:
        return dict(conn.execute(sa.text(  # type: ignore[arg-type]
            "SELECT coalesce(lease_owner, '-'), count(*) FROM outbox GROUP BY lease_owner")).all())


def test_the_next_tick_gives_back_what_a_quiet_sender_held(app, mailbox):
    engine = get_engine(app)
    with app.app_context():
        queue_and_claim("sender-111-deadbeef", 3)
        queue_and_claim("sender-222-cafecafe", 2, first=3)
        long_ago = heartbeats.wall_now() - timedelta(minutes=2)
        heartbeats.write(engine, "sender-111-deadbeef", every=5, detail={}, at=long_ago)
        heartbeats.write(engine, "sender-222-cafecafe", every=5, detail={})  # beats now
        assert owners(app) == {"sender-111-deadbeef": 3, "sender-222-cafecafe": 2}

        clock.tick(app, heartbeats.wall_now(), backend=mailbox, send_mail=False)

        assert owners(app) == {"-": 3, "sender-222-cafecafe": 2}
        beats = heartbeats.read(engine)
        assert "sender-111-deadbeef" not in beats and "sender-222-cafecafe" in beats
