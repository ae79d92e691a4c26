"""Side-effect hooks called by app.services inside its transaction.

Services call these after every state change so that mail (outbox rows) and the
clock (deadline rows) are written in the same transaction as the action that
caused them. The mail/clock issue fills them in; until then they do nothing.
"""
from __future__ import annotations

from typing import Any


def after_create(session: Any, game: Any, state: Any) -> None:
    """A game was created (invitations, first deadlines)."""


def after_action(session: Any, game: Any, seq: int, seat: int | None, action: dict,
                 source: str, before: Any, after: Any, events: list[dict]) -> None:
    """An action row was appended (turn mail, round/game results, deadlines)."""


def fresh_link_requested(session: Any, game: Any, seat: int) -> None:
    """Someone asked on a 403 page to have a fresh link mailed to this seat."""


def is_absent(session: Any, game: Any, seat: int) -> bool:
    """Whether this seat is absent (R29): services then apply its defaults at once."""
    return False
