"""Clock test helpers: an injected "now", a mailbox that records, games made at T0."""
from __future__ import annotations


from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any, Callable

import pytest

from app.runners import clock
from app.clock import deadlines as dl
from app.mail.wire import WireMessage

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


class Recorder:
    """A mail backend that keeps what it is given (one entry per delivery)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, EmailMessage]] = []

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def send(self, message: WireMessage, key: str, envelope_from: str | None = None,
             before_delivery: Callable[[], object] = lambda: None) -> None:
        before_delivery()
        self.sent.append((key, message.parsed))

    def to(self, address: str) -> list[EmailMessage]:
        return [m for _, m in self.sent if address in str(m["To"])]

    def subjects(self, address: str) -> list[str]:
        """What each mail to ``address`` asks or tells: its first line (every mail of a
        game has the game's subject since issue 19 item 4; this is what the inbox
        preview shows after it)."""
        return [lead_of(m) for m in self.to(address)]

    def clear(self) -> None:
        self.sent.clear()


@pytest.fixture
def mailbox() -> Recorder:
    return Recorder()


@pytest.fixture
def tick(app, mailbox) -> Callable[..., clock.TickReport]:
    """``tick(at)``: one clock tick at an injected moment, mail into ``mailbox``."""
    def run(at: datetime, **kwargs: Any) -> clock.TickReport:
        return clock.tick(app, at, backend=mailbox, **kwargs)
    return run


@pytest.fixture
def game_at_t0(new_game) -> Callable[..., Any]:
    """A game created at T0 (its first deadlines count from T0)."""
    def make(**kwargs: Any) -> Any:
        with dl.at(T0):
            return new_game(**kwargs)
    return make


def hours(n: float) -> timedelta:
    return timedelta(hours=n)


@pytest.fixture(autouse=True)
def _turn_mail_at_once(turn_mail_at_once):
    """No grace period, no hourly cap here (tests/conftest.py says why)."""


from tests.mail.conftest import TURN_LEAD, is_turn, lead_of  # noqa: E402,F401  (one definition)
