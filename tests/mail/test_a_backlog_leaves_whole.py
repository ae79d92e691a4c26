"""A backlog of mail leaves whole: every claimed row is sent or given back in its run,
and a sender that went quiet gives its claims up at once (issue 30 item 3).

Measured before: of 2,000 mails queued at once, 37 were claimed and never sent
(``claimed=400, sent=392`` a run), with nothing in the log; they sat out the
10-minute lease. The runner told the rows of a batch apart by ``id(row)``, and a
freed row's address was given to a row of the next batch, which was then taken for
one already handled.
"""
from __future__ import annotations

import logging
import threading
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import Session, select

from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.mail.models import PENDING, SENT, Outbox
from app.runners import clock, heartbeats, sending
from app.runners.base import Runner

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def queue(count: int, *, people: int = 200) -> None:
    """``count`` mails at once, to ``people`` addresses (ten a day each stays under the
    stranger's cap: what is measured here is the sender, not the caps)."""
    with write_session() as session:
        for n in range(count):
            mail = compose.Mail(subject=f"Mail {n}", text=f"Body {n}", html=f"<p>Body {n}</p>")
            outbox.enqueue(session, game_id=None, seat=None, kind="test",
                           to=f"player{n % people}@example.com", to_name=f"Player {n}",
                           mail=mail, idempotency=f"backlog:{n}", domain="silver-eye.test",
                           now=T0)


def rows(app) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


@pytest.mark.slow
def test_two_thousand_mails_queued_at_once_arrive_each_once_from_two_senders(mail_app, smtp):
    queue(2000)
    reports: list[sending.SendReport] = []

    def one_sender() -> None:
        reports.append(clock.send_mail_due(mail_app, T0))

    senders = [threading.Thread(target=one_sender) for _ in range(2)]
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join()

    received = Counter(mail.subject for mail in smtp.received)
    assert len(received) == 2000, "every mail arrived"
    assert max(received.values()) == 1, "none twice"
    assert sum(report.sent for report in reports) == 2000
    assert sum(report.claimed for report in reports) == 2000, "each claimed once"
    stored = rows(mail_app)
    assert {row.status for row in stored} == {SENT}
    assert [row.id for row in stored if row.lease_owner is not None] == [], \
        "no row is left waiting in a lease"


def test_a_run_over_several_batches_sends_every_row_it_claims(mail_app, smtp):
    """Two full batches and a short one in one run: claimed, sent and received agree."""
    queue(2 * sending.BATCH + 7, people=300)
    report = clock.send_mail_due(mail_app, T0)
    assert (report.claimed, report.sent) == (2 * sending.BATCH + 7,) * 2
    assert len({mail.subject for mail in smtp.received}) == 2 * sending.BATCH + 7
    assert all(row.lease_owner is None and row.status == SENT for row in rows(mail_app))


def test_a_runner_tells_rows_by_their_id_never_by_where_they_sit_in_memory():
    runner: Runner[object] = Runner(engine=None, now=T0, owner="x")  # type: ignore[arg-type]
    assert runner.key(41) == 41
    assert runner.key(Outbox(id=7, kind="t", to="a@example.com", subject="s", text="t",
                             headers={}, status=PENDING, attempts=0, next_attempt_at=T0,
                             message_id="m", idempotency="i", created_at=T0)) == 7
    with pytest.raises(TypeError):
        runner.key(object())


class _StillDue(Runner[Outbox]):
    """A runner whose rows stay due after handling (as a deadline of a busy game)."""

    lease = sending.OUTBOX
    limit = 2

    def claim(self, limit: int) -> list[Outbox]:
        return sending.claim_due(self.engine, self.now, owner=self.owner, limit=limit)

    def handle(self, item: Outbox) -> None:
        assert item.id is not None
        sending.OUTBOX.end(self.engine, item.id, self.owner)  # given back, still due


def test_a_row_claimed_again_in_the_same_run_is_given_back_at_once_and_said(app, caplog):
    queue(2)
    with caplog.at_level(logging.INFO, logger="app.runners"):
        claimed = _StillDue(get_engine(app), T0, owner="busy").run()
    assert claimed == 2, "handled once each, not looped over"
    assert [(row.status, row.lease_owner) for row in rows(app)] == [(PENDING, None)] * 2, \
        "no lease left on rows nobody works on"
    assert sum("given back for the next run" in line for line in caplog.messages) == 2


def test_a_sender_thread_that_went_quiet_has_its_claims_taken_by_the_clock_at_once(
        mail_app, smtp):
    """A sender thread claimed three mails and stopped beating (killed, hung): the
    clock's next tick finds its heartbeat stale, gives its claims back and sends them,
    minutes before the lease would have run out."""
    engine = get_engine(mail_app)
    queue(3)
    dead = "sender-4242-deadbeef"
    assert len(sending.claim_due(engine, T0, owner=dead)) == 3
    # its last beat, as a sender thread writes it: the ``sender`` row and its own
    heartbeats.write(engine, heartbeats.SENDER, every=heartbeats.BEAT_SECONDS,
                     detail={"owner": dead},
                     at=heartbeats.wall_now() - timedelta(minutes=5), also=dead)

    report = clock.tick(mail_app, T0 + timedelta(seconds=30), send_mail=None)

    assert report.sent_mail and report.mail.sent == 3
    assert len(smtp.received) == 3
    assert all(row.status == SENT for row in rows(mail_app))


def test_a_sender_that_beats_keeps_its_claims(mail_app, smtp):
    """A live sender (fresh heartbeat) is never robbed of its rows: the clock neither
    sends mail itself nor touches the claims."""
    engine = get_engine(mail_app)
    queue(3)
    alive = "sender-1-cafe"
    assert len(sending.claim_due(engine, T0, owner=alive)) == 3
    heartbeats.write(engine, heartbeats.SENDER, every=heartbeats.BEAT_SECONDS,
                     detail={"owner": alive})

    report = clock.tick(mail_app, T0 + timedelta(seconds=30), send_mail=None)

    assert not report.sent_mail and smtp.received == []
    assert {row.lease_owner for row in rows(mail_app)} == {alive}
