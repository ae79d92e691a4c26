"""Mail leaves when it is due, not on the next tick (issue 7 item 2).

A ``waker.Waker`` thread runs against the test's store (SQLite: it polls the
outbox's due index; PostgreSQL: it LISTENs for the NOTIFY of the committing
transaction). The tests wait for an event (a mail handed over), with a
generous limit only so that a broken waker fails instead of hanging.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from tests.mail.conftest import lead_of
from app import engine, services
from app.runners import sender
from app.runners.waker import Waker
from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.mail.models import SENT, Outbox

from tests.clock.conftest import Recorder
from tests.conftest import TEST_DATABASE_URL

GIVE_UP_SECONDS = 60.0


class Signalling(Recorder):
    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Condition()

    def send(self, message, key: str, envelope_from: str | None = None,  # noqa: ANN001
             before_delivery=lambda: None) -> None:  # noqa: ANN001
        super().send(message, key, envelope_from, before_delivery)
        with self.arrived:
            self.arrived.notify_all()

    def wait_for(self, count: int) -> bool:
        end = time.monotonic() + GIVE_UP_SECONDS
        with self.arrived:
            while len(self.sent) < count:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.arrived.wait(left)
        return True


def test_a_running_waker_sends_each_mail_once_as_it_becomes_due(app, new_game):
    mailbox = Signalling()
    waker = Waker(app, backend=mailbox)
    thread = waker.start()
    try:
        created = new_game(seats=2)
        # two invitations and the first decisions' turn mails (no grace in this suite)
        first = 2 + len(created.snapshot.view(None)["to_act"])
        assert mailbox.wait_for(first), "the waker sent nothing"
        gid = created.game_id
        snap = services.snapshot(gid)
        seat = snap.view(None)["to_act"][0]
        before = len(mailbox.sent)
        # a move hands a decision on: its mail goes out without any tick
        for _ in range(40):
            snap = services.snapshot(gid)
            to_act = snap.view(None)["to_act"]
            seat = to_act[0]
            services.submit_action(gid, seat, engine.legal_actions(snap.state, seat)[0], snap.seq)
            if set(services.snapshot(gid).view(None)["to_act"]) - set(to_act):
                break
        assert mailbox.wait_for(before + 1)
    finally:
        waker.stop.set()
        thread.join(timeout=GIVE_UP_SECONDS)
    assert not thread.is_alive()
    keys = [key for key, _ in mailbox.sent]
    assert len(keys) == len(set(keys)), "a mail went out twice"
    with Session(get_engine(app)) as session:
        sent = session.exec(select(Outbox).where(Outbox.status == SENT)).all()
    assert len(sent) == len(mailbox.sent)


def test_the_waker_sleeps_until_the_next_due_mail_and_leaves_the_rest(app, new_game):
    app.config["TURN_MAIL_DELAY_SECONDS"] = 3600  # turn mails due in an hour
    new_game(seats=2)
    upcoming, _ = sender.next_due(app)
    assert upcoming is not None
    mailbox = Signalling()
    waker = Waker(app, backend=mailbox)
    thread = waker.start()
    try:
        assert mailbox.wait_for(2)  # the invitations, due at once
    finally:
        waker.stop.set()
        thread.join(timeout=GIVE_UP_SECONDS)
    assert sorted("invited" in lead_of(m) for _, m in mailbox.sent) == [True, True]
    later, _ = sender.next_due(app)
    assert later is not None and later > datetime.now(timezone.utc)


def looks_at_what_is_due(statement: str) -> bool:
    """The sender thread's own look at what is due (``sender.next_due``: the earliest
    mail and notice), not a claim's look past its rows."""
    return statement.lstrip().startswith("SELECT") and "min(" in statement \
        and "outbox" in statement and "notice_delivery" in statement


@pytest.mark.skipif(not TEST_DATABASE_URL, reason="LISTEN/NOTIFY is PostgreSQL's")
def test_a_notify_of_mail_due_later_costs_the_sleeping_waker_no_query(app, new_game):
    """Issue 30 item 4: every move queues a turn mail due after its grace period, and
    the sender used to read the outbox for each NOTIFY. The NOTIFY says when the mail is
    due; the waker sleeps on while that is later than it means to wake, and mail due
    now still leaves at once."""
    app.config["TURN_MAIL_DELAY_SECONDS"] = 3600
    mailbox = Signalling()
    waker = Waker(app, backend=mailbox)
    asked: list[str] = []

    def note(_conn, _cursor, statement: str, *_args) -> None:  # noqa: ANN001
        if threading.current_thread().name == "mail-waker":
            asked.append(statement)

    sa.event.listen(get_engine(app), "before_cursor_execute", note)
    thread = waker.start()
    try:
        game = new_game(seats=2)
        assert mailbox.wait_for(2), "the invitations, due at once, left"
        for _ in range(30):  # until the steps after sending are done: it sleeps now
            seen = len(asked)
            time.sleep(1.0)
            if len(asked) == seen:
                break
        asked.clear()
        for n in range(5):  # five moves' turn mails, each committed on its own
            with write_session() as session:
                outbox.enqueue(session, game_id=game.game_id, seat=0, kind="test",
                               to="ann@example.com", to_name="Ann",
                               mail=compose.Mail(subject=f"later {n}", text="t", html=None),
                               idempotency=f"later:{n}", domain="silver-eye.test",
                               now=datetime.now(timezone.utc),
                               due=datetime.now(timezone.utc) + timedelta(hours=1))
            time.sleep(0.4)
        time.sleep(1.0)
        looks = [sql for sql in asked if looks_at_what_is_due(sql)]
        # (a look of its own, at most: its sleep's end, or a stray wake-up of a busy
        # machine, may fall in the window; before, each of the five woke it)
        assert len(looks) <= 1, f"the outbox read {len(looks)} times for mail not due"

        with write_session() as session:
            outbox.enqueue(session, game_id=None, seat=None, kind="test",
                           to="bob@example.com", to_name="Bob",
                           mail=compose.Mail(subject="now", text="t", html=None),
                           idempotency="now:1", domain="silver-eye.test",
                           now=datetime.now(timezone.utc))
        assert mailbox.wait_for(3), "mail due now wakes it"
        assert mailbox.sent[-1][1]["Subject"] == "now"
    finally:
        waker.stop.set()
        thread.join(timeout=GIVE_UP_SECONDS)
        sa.event.remove(get_engine(app), "before_cursor_execute", note)


@pytest.mark.skipif(not TEST_DATABASE_URL, reason="LISTEN/NOTIFY is PostgreSQL's")
def test_after_sending_the_waker_sleeps_until_the_mail_its_claim_saw_without_a_look(app):
    """Issue 30 item 4: a run's last claim, coming back short, reads when the next mail
    falls due, in its own transaction; the sender thread sleeps until then instead of
    looking again at once (one transaction less a batch of the clock's). Ann's mail is
    due now and Bob's in three seconds: Bob's leaves when due, and between the two only
    the look of the step that sends Bob's is taken (two before)."""
    mailbox = Signalling()
    waker = Waker(app, backend=mailbox)
    asked: list[tuple[float, str]] = []

    def note(_conn, _cursor, statement: str, *_args) -> None:  # noqa: ANN001
        if threading.current_thread().name == "mail-waker":
            asked.append((time.monotonic(), statement))

    sa.event.listen(get_engine(app), "before_cursor_execute", note)
    thread = waker.start()
    try:
        time.sleep(1.0)  # the waker's first look, at nothing
        now = datetime.now(timezone.utc)
        with write_session() as session:
            for name, due in (("ann", now), ("bob", now + timedelta(seconds=3))):
                outbox.enqueue(session, game_id=None, seat=None, kind="test",
                               to=f"{name}@example.com", to_name=name.title(),
                               mail=compose.Mail(subject=name, text="t", html=None),
                               idempotency=f"soon:{name}", domain="silver-eye.test",
                               now=now, due=due)
        assert mailbox.wait_for(1), "Ann's mail, due now, left"
        ann_left = time.monotonic()
        assert mailbox.wait_for(2), "Bob's mail left when due"
        bob_left = time.monotonic()
    finally:
        waker.stop.set()
        thread.join(timeout=GIVE_UP_SECONDS)
        sa.event.remove(get_engine(app), "before_cursor_execute", note)
    assert [m["Subject"] for _, m in mailbox.sent] == ["ann", "bob"]
    assert datetime.now(timezone.utc) >= now + timedelta(seconds=3)
    between = [sql for at, sql in asked if ann_left <= at <= bob_left and looks_at_what_is_due(sql)]
    assert len(between) == 1, f"{len(between)} looks between the two mails"


def test_mail_that_falls_due_in_a_stream_leaves_in_a_few_batches_each_mail_once(app):
    """Issue 30 item 4: each game in play leaves a turn mail its grace period after a
    move, so on a busy server mail falls due a few at a time, all the time; a run for
    each cost the clock a claim and a look every few mails (batches of 2.9 rows). After
    a short run the next waits ``GATHER_SECONDS``: twelve mails falling due one every
    tenth of a second (1.1 s in all) leave in at most three runs, each mail once."""
    mailbox = Signalling()
    waker = Waker(app, backend=mailbox)
    thread = waker.start()
    try:
        time.sleep(1.0)  # the waker's first look, at nothing
        now = datetime.now(timezone.utc)
        with write_session() as session:
            for n in range(12):
                outbox.enqueue(session, game_id=None, seat=None, kind="test",
                               to=f"player{n}@example.com", to_name=f"Player {n}",
                               mail=compose.Mail(subject=f"stream {n}", text="t", html=None),
                               idempotency=f"stream:{n}", domain="silver-eye.test",
                               now=now, due=now + timedelta(seconds=0.1 * n))
        assert mailbox.wait_for(12), "the stream's mail left"
    finally:
        waker.stop.set()
        thread.join(timeout=GIVE_UP_SECONDS)
    assert sorted(str(m["Subject"]) for _, m in mailbox.sent) == \
        sorted(f"stream {n}" for n in range(12)), "each mail once"
    runs = [report for report in waker.reports if report.sent]
    assert len(runs) <= 3, [report.sent for report in runs]
