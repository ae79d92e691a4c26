"""Two clock processes started by mistake still fire each deadline once (PostgreSQL)."""
from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlmodel import select

from app.runners import clock
from app.gamelog import store
from app.clock import deadlines as dl
from app.db import read_session

from .conftest import T0, Recorder, hours

pytestmark = pytest.mark.postgres

GAMES = 12


def test_two_clocks_at_once_fire_each_deadline_once(app, game_at_t0):
    # other people in each game: twelve games for two addresses that never play would be
    # over the lobby's limit for strangers (issue 17, app/mail/trust.py)
    games = [game_at_t0(deadline_hours=24, reminders=["half"], seed="4242",
                        people=[(f"Ann{n}", f"ann{n}@example.org"),
                                (f"Bob{n}", f"bob{n}@example.org")]).game_id
             for n in range(GAMES)]
    mailbox = Recorder()
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def clock_process(name: str) -> None:
        try:
            for at in (T0 + hours(12), T0 + hours(24), T0 + hours(36), T0 + hours(48)):
                barrier.wait()
                clock.tick(app, at, owner=f"{name}-{at:%H%d}", backend=mailbox)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=clock_process, args=(n,)) for n in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []

    with read_session() as session:
        logs = {gid: [(r.seat, r.action, r.source) for r in store.load_actions(session, gid)]
                for gid in games}
        fired = session.exec(select(dl.Deadline).where(
            dl.Deadline.kind == dl.REMINDER, dl.Deadline.outcome == "fired")).all()
        reminders = Counter(row.game_id for row in fired)
    # Same seed, same clock: every game must have played out identically; a
    # deadline fired twice would have added a second timeout to one of them.
    first = logs[games[0]]
    assert first and all(src == "timeout" for _, _, src in first)
    assert all(log == first for log in logs.values())
    keys = [key for key, _ in mailbox.sent]
    assert len(keys) == len(set(keys)), "a mail went out twice"
    assert len(set(reminders.values())) == 1
