"""The caps learn a sending batch's addresses in two statements (issue 30): what they
learn is what the per-address questions say, address by address."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.db import get_engine, write_session
from app.mail import compose, holds, outbox, trust
from app.mail.models import SENT, Outbox
from app.clock.time import as_utc

NOW = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def sent(to: str, minutes_ago: list[int], *, conversation: bool = False) -> None:
    """Mails to ``to`` that went out that many minutes before NOW."""
    with write_session() as session:
        for ago in minutes_ago:
            at = NOW - timedelta(minutes=ago)
            row_id = outbox.enqueue(
                session, game_id=None, seat=None, kind="test", to=to, to_name="P",
                mail=compose.Mail(subject="s", text="t", html=None),
                idempotency=f"{to}:{ago}:{conversation}", domain="silver-eye.test", now=at,
                conversation=conversation)
            session.execute(update(Outbox).where(Outbox.id == row_id)  # type: ignore[arg-type]
                            .values(status=SENT, sent_at=at))


def sent_since(engine: Engine, to: str, since: datetime, *, conversation: bool | None = None,
               newest: int) -> list[datetime]:
    """The question of one address, asked plainly: when the newest ``newest`` mails to
    ``to`` went out after ``since`` (oldest first); ``conversation`` False: only those
    the hourly cap counts."""
    query = select(Outbox.sent_at).where(col(Outbox.to) == to, col(Outbox.status) == SENT,
                                         col(Outbox.sent_at) > since)
    if conversation is not None:
        query = query.where(col(Outbox.conversation) == conversation)
    with Session(engine) as session:
        rows = session.exec(query.order_by(col(Outbox.sent_at).desc()).limit(newest)).all()
    return [as_utc(at) for at in reversed(rows) if at is not None]


def test_a_batch_learns_what_each_address_would_have_said_alone(app):
    sent("busy@example.com", list(range(1, 71)))                   # 59 in the hour, 70 in the day
    sent("busy@example.com", [2, 3, 4], conversation=True)              # answers: not counted
    sent("yesterday@example.com", [90 + 30 * n for n in range(25)])     # 25 in the day
    sent("long-ago@example.com", [60 * 30])                             # 30 hours ago
    addresses = ["busy@example.com", "yesterday@example.com", "long-ago@example.com",
                 "nobody@example.com"]
    engine = get_engine(app)

    hour, day = holds.sent_among(engine, addresses, NOW, hour_cap=50, day_cap=20)

    for address in addresses:
        assert hour.get(address, []) == sent_since(engine, address, NOW - timedelta(hours=1),
                                                   conversation=False, newest=50), address
        assert day.get(address, []) == sent_since(engine, address, NOW - trust.DAY,
                                                  newest=20), address
    assert len(hour["busy@example.com"]) == 50 and len(day["yesterday@example.com"]) == 20
    assert "long-ago@example.com" not in day


def test_a_batch_learns_who_ever_played_as_each_address_would_alone(app, client, new_game):
    game = new_game(seats=2)  # Ann and Bob; Ann moves by her link, Bob never does
    seat = game.snapshot.view(None)["to_act"][0]
    client.post(f"/api/play/{game.tokens[seat]}/actions",
                json={"action": {"type": "away"}, "expected_seq": 0})
    addresses = ["ann@example.com", "BOB@example.com", "stranger@example.com"]
    with Session(get_engine(app)) as session:
        one_by_one = {address for address in addresses if trust.has_acted(session, address)}
        assert trust.acted_among(session, addresses) == one_by_one
    assert one_by_one == {["ann@example.com", "BOB@example.com"][seat]}, "as given, case and all"
