"""Helpers for the people of a game (issue 21): seats that resign, give time, vote,
hand a seat over, play a rematch. The clock's injected "now" and recording mailbox
(tests/clock/conftest.py), and a way to post a seat page's forms as a person does."""
from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any, Callable, Iterator

import pytest

from app import engine, services
from app.clock import deadlines as dl
from tests.clock.conftest import T0, Recorder, hours, lead_of  # noqa: F401
from tests.clock.conftest import game_at_t0, mailbox, tick  # noqa: F401,F811  (fixtures)

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture(autouse=True)
def _turn_mail_at_once(turn_mail_at_once):
    """No grace period, no hourly cap here (tests/conftest.py says why)."""


def csrf(client: Any, token: str) -> str:
    page = client.get(f"/play/{token}")
    assert page.status_code == 200, page.status_code
    return CSRF.search(page.get_data(as_text=True)).group(1)


def post(client: Any, token: str, path: str, **form: Any) -> Any:
    """Post a form of the seat page (with its CSRF token), as the page's button does."""
    return client.post(f"/play/{token}{path}", data={"csrf_token": csrf(client, token), **form})


def play_out(game_id: str, rng: random.Random, *, at: Any = None, limit: int = 5000) -> None:
    """Random legal moves of whoever is to act until the game is over."""
    with dl.at(at or T0):
        for _ in range(limit):
            snap = services.snapshot(game_id)
            view = snap.view(None)
            if view["phase"] == "over" or services.game_info(game_id).status != "running":
                return
            seat = rng.choice(view["to_act"])
            services.submit_action(game_id, seat,
                                   rng.choice(engine.legal_actions(snap.state, seat)), snap.seq)
    raise AssertionError("the game did not end")


def some_moves(game_id: str, count: int, rng: random.Random, *, at: Any = None) -> None:
    """``count`` random legal moves of whoever is to act (a game under way, not over)."""
    with dl.at(at or T0):
        for _ in range(count):
            snap = services.snapshot(game_id)
            seat = rng.choice(snap.view(None)["to_act"])
            services.submit_action(game_id, seat,
                                   rng.choice(engine.legal_actions(snap.state, seat)), snap.seq)


def leads(box: Recorder, address: str) -> list[str]:
    return [lead_of(m) for m in box.to(address)]


def reply(app: Any, to: str, sender: str, text: str, now: Any = None) -> tuple[str, str]:
    """A reply by mail to ``to`` (a reply address of ours) from ``sender``, stored and
    applied as the inbound receiver does: ``(inbox status, outcome)``."""
    import email.policy
    from email.message import EmailMessage
    from email.utils import make_msgid

    from app.db import get_engine, read_session
    from app.inbound import inbox
    from app.inbound.models import InboxMessage
    from app.runners import inbound as runners_inbound

    message = EmailMessage()
    message["From"], message["To"] = sender, to
    message["Subject"] = "Re: your game"
    message["Message-ID"] = make_msgid(domain="player.example")
    message.set_content(f"{text}\n")
    when = now or T0
    stored = inbox.store(get_engine(app), message.as_bytes(policy=email.policy.SMTP),
                         via="smtp", mail_from=sender, rcpt=[to], now=when)
    runners_inbound.apply_pending(app, when, only=stored.id)
    with read_session() as session:
        row = session.get(InboxMessage, stored.id)
        return str(row.status), str(row.outcome)


def newest_unread(box: Recorder, address: str, read: set[str]) -> Any:
    """The newest mail to ``address`` that takes a reply (it has a Reply-To) among those
    not read yet, as a player reads their inbox (None: nothing new); every one of them is
    read from then on."""
    mails = [m for m in box.to(address) if m["Reply-To"] and str(m["Message-ID"]) not in read]
    read.update(str(m["Message-ID"]) for m in mails)
    return mails[-1] if mails else None


class ReplyLoop:
    """A reply player's afternoon: every five minutes the clock ticks, and the newest
    unread mail to ``address`` that takes a reply is handed over (``mails``), until the
    game stops running; ``now`` is the loop's moment, for the reply and for what follows."""

    def __init__(self, game_id: str, box: Recorder, tick: Callable[..., Any],
                 address: str) -> None:
        self.game_id, self.box, self.tick, self.address = game_id, box, tick, address
        self.now = T0
        self.read: set[str] = set()

    def mails(self, steps: int) -> Iterator[Any]:
        for _ in range(steps):
            self.now += timedelta(minutes=5)
            self.tick(self.now)
            if services.game_info(self.game_id).status != "running":
                return
            mail = newest_unread(self.box, self.address, self.read)
            if mail is not None:
                yield mail
