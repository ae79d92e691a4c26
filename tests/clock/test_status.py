"""``flask --app app status``: what an operator (or a monitor's cron job) reads (issue 17 item 1).

Scenario: a server with a game whose mail is partly out, one mail that failed
for good, one held back by the hourly cap, and a reply the inbound worker
gave up on. The command names each, and exits non-zero while not ready.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from app import services
from app.runners import heartbeats
from app.db import get_engine
from app.inbound.models import DEAD, InboxMessage
from sqlmodel import Session
from tests.conftest import PEOPLE


def a_game_with_mail(app) -> datetime:
    """A game's mails: the first sent three minutes ago (returned: when), one failed
    for good, one held by the cap, the rest due now."""
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    game_id = services.create_game(players, {}, name="Status", seed="31").game_id
    now = datetime.now(timezone.utc)
    with get_engine(app).begin() as conn:
        ids = [row[0] for row in conn.execute(sa.text(
            "SELECT id FROM outbox WHERE game_id = :g ORDER BY id"), {"g": game_id})]
        assert len(ids) >= 3
        conn.execute(sa.text("UPDATE outbox SET status = 'sent', sent_at = :t WHERE id = :i"),
                     {"t": now - timedelta(minutes=3), "i": ids[0]})
        conn.execute(sa.text("UPDATE outbox SET status = 'failed', "
                             "last_error = 'recipient refused' WHERE id = :i"), {"i": ids[1]})
        conn.execute(sa.text("UPDATE outbox SET held_until = :t, next_attempt_at = :t "
                             "WHERE id = :i"), {"t": now + timedelta(minutes=30), "i": ids[2]})
    return now - timedelta(minutes=3)


def a_dead_reply(app) -> int:
    now = datetime.now(timezone.utc)
    with Session(get_engine(app)) as session:
        row = InboxMessage(message_id="<dead@example.com>", received_at=now, via="smtp",
                           mail_from="ann@example.com", rcpt=["play+x@silver-eye.test"],
                           raw=b"", status=DEAD, attempts=5, done_at=now,
                           outcome="dead: the database kept failing",
                           last_error="OperationalError: server closed the connection")
        session.add(row)
        session.commit()
        return int(row.id)


def test_status_names_the_last_tick_send_and_apply_and_what_waits(app, runner):
    sent_at = a_game_with_mail(app)
    dead = a_dead_reply(app)
    engine = get_engine(app)
    heartbeats.write(engine, heartbeats.CLOCK, every=30,
                     detail={"last_tick": "2026-12-02T01:00:00+00:00"})
    heartbeats.write(engine, heartbeats.SENDER, every=5, detail={})
    heartbeats.write(engine, heartbeats.INBOUND, every=5,
                     detail={"last_apply": "2026-12-02T01:00:05+00:00"})

    result = runner.invoke(args=["status"])
    out = result.output
    assert result.exit_code == 0, out
    assert "database: reachable" in out
    assert "clock:   last tick 2026-12-02 01:00:00 UTC" in out
    assert f"sender:  last send {sent_at:%Y-%m-%d %H:%M:%S} UTC" in out
    assert "inbound: last apply 2026-12-02 01:00:05 UTC" in out
    assert "last reply applied never" in out
    mail_line = next(line for line in out.splitlines() if line.startswith("mail:"))
    assert "failed 1" in mail_line and "(held by a cap 1)" in mail_line
    assert "oldest due-but-unsent" in mail_line and "none" not in mail_line
    assert "dead 1" in out and "pending 0" in out
    assert f"#{dead} received" in out and "5 attempts" in out
    assert "OperationalError: server closed the connection" in out
    assert out.rstrip().endswith("ready: yes")


def test_status_exits_non_zero_and_says_why_when_the_clock_is_gone(app, runner):
    heartbeats.write(get_engine(app), heartbeats.SENDER, every=5, detail={})
    result = runner.invoke(args=["status"])
    assert result.exit_code == 1
    assert "clock:   last tick never · no heartbeat ever" in result.output
    assert result.output.rstrip().endswith("ready: no (clock: no heartbeat ever written)")
