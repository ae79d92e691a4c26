"""Acceptance (issue 17 item 3): one person plays a whole game against two bots only by
replying, with the default settings (the grace period, the hourly cap, the stranger's
day): every reply gets its next mail at once, nothing is held, one mail per decision.

Ann answers each mail with a menu as soon as it arrives (real SMTP to our receiver,
the clock applies it). The hourly cap of 60 would have stopped her after a few
minutes: mail she asked for by replying is conversation, bounded by her replies.
"""
from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from app import services
from app.runners import clock
from app.clock import deadlines as dl
from app.config import DEFAULTS
from app.db import get_engine
from app.mail.models import Outbox
from tests.inbound.conftest import Player


@pytest.fixture(autouse=True)
def _turn_mail_at_once():
    """Not here: the defaults are what this is about."""


def outbox_rows(app) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


@pytest.mark.slow  # whole game over real SMTP
def test_a_whole_game_by_replies_against_two_bots_with_the_default_settings(
        mail_app, smtp, inbound, db):
    assert mail_app.config["TURN_MAIL_DELAY_SECONDS"] == DEFAULTS["TURN_MAIL_DELAY_SECONDS"]
    created = services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                    {"name": "Robo1", "kind": "bot"},
                                    {"name": "Robo2", "kind": "bot"}], {},
                                   name="Ann and the bots", seed="20261202")
    game_id = created.game_id
    ann = Player("Ann", "ann@example.com", smtp)
    reports: list[clock.TickReport] = []

    def deliver(at=None) -> None:
        """Two clock ticks: the first applies her reply, the second sends what it wrote."""
        for _ in range(2):
            reports.append(clock.tick(mail_app, at))

    # her first turn mail waits out the grace period (she might be on her page)
    deliver()
    deliver(dl.now() + timedelta(seconds=121))
    rng = random.Random(11)
    replies = 0
    for _ in range(2000):
        if services.game_info(game_id).status == "over":
            break
        mail = ann.waiting()
        assert mail is not None, (
            f"reply {replies} got no next mail: {services.snapshot(game_id).view(None)['to_act']}"
            f" {[(r.kind, r.status, r.held_until) for r in outbox_rows(mail_app)[-3:]]}")
        ann.answer(inbound, mail, ann.choose(mail, rng))
        replies += 1
        deliver()  # at once: no grace period, no cap for what she asked for
    assert services.game_info(game_id).status == "over"
    assert replies > 60, "more replies than the hourly cap allows, all within minutes"

    assert sum(report.mail.held for report in reports) == 0, "nothing was held"
    rows = [row for row in outbox_rows(mail_app) if row.to == "ann@example.com"]
    assert all(row.held_until is None and row.status in ("sent", "superseded") for row in rows)
    # every mail she got, over the whole game: one per decision (each names its own
    # step in its reply address), plus the invitation, the round mails and the result
    with_menu = [m.header("Reply-To") for m in ann.mails() if m.header("Reply-To")]
    assert len(with_menu) == len(set(with_menu)) == replies
    others = Counter(_kind(m.lead) for m in ann.mails() if not m.header("Reply-To"))
    assert set(others) <= {"invitation", "round", "over"}, others
    assert others["invitation"] == 1 and others["over"] == 1 and others["round"] <= 3
    assert {source for _, seat, source in db.actions(game_id) if seat == 0} == {"mail"}


def _kind(subject: str) -> str:
    if "invited" in subject:
        return "invitation"
    if "is over" in subject and "Round" in subject:
        return "round"
    if "the game is over" in subject.lower():
        return "over"
    return subject
