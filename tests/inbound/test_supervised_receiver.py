"""The inbound receiver process lives through a lost database (issue 17 item 1).

Scenario (PostgreSQL): the real ``python -m app.processes inbound`` runs; every one of
its database connections is terminated, as a restart does. Ann's reply sent
afterwards is stored (a first try may be told "451 try again later", which a
real MTA retries, and so does Ann's here) and applied once, and the
receiver's heartbeat goes on: the process did not turn into one that
listens and does nothing.
"""
from __future__ import annotations

import signal
import smtplib
import time
import uuid

import pytest
import sqlalchemy as sa

from app.runners import heartbeats
from app.db import get_engine
from tests.clock.test_supervision import terminate_backends, wait_until
from tests.conftest import TEST_DATABASE_URL
from tests.inbound.conftest import Inbound, Player
from tests.inbound.test_durability import ANN, _receiver, statuses
from tests.mail.conftest import free_port

pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                                 reason="needs TEST_DATABASE_URL pointing at PostgreSQL")]

MTA_RETRIES = 20


def beat_at(app):
    beat = heartbeats.read(get_engine(app)).get(heartbeats.INBOUND)
    return beat.beat_at if beat is not None else None


def test_a_receiver_whose_database_connections_were_dropped_still_applies_replies(
        mail_app, new_game, deliver, smtp, db, database_url, tmp_path):
    created = new_game(seats=2)
    deliver()
    name = f"silver-eye-inbound-{uuid.uuid4().hex[:10]}"
    url = sa.engine.make_url(database_url).update_query_dict({"application_name": name})
    port = free_port()
    process = _receiver(url.render_as_string(hide_password=False), port, tmp_path)
    try:
        wait_until(lambda: beat_at(mail_app), "the receiver's heartbeat")
        dropped_at = heartbeats.wall_now()
        assert terminate_backends(name), "the receiver held no connection to drop"

        ann = Player("Ann", ANN, smtp)
        via = Inbound.__new__(Inbound)
        via.port = port
        mail = ann.waiting()
        for attempt in range(MTA_RETRIES):  # what an MTA does with a 4xx: try later
            try:
                ann.answer(via, mail, "peek 1 2")
                break
            except smtplib.SMTPDataError as refused:
                assert refused.smtp_code == 451, refused
                time.sleep(0.5)
        else:
            raise AssertionError("the receiver never stored the reply")
        wait_until(lambda: statuses(db) == ["applied"], "the reply to be applied")
        assert db.actions(created.game_id) == [(1, 0, "mail")]
        wait_until(lambda: (beat_at(mail_app) or dropped_at) > dropped_at,
                   "a heartbeat of the receiver after the drop")
        assert process.poll() is None, "the receiver died"
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    assert code == 0
