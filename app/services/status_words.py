"""A game's status as a sentence says it ("the game is over", "… abandoned"), in the
reader's language: one home for the refusals of moves, votes, time and plans on a game
that no longer runs (imports nothing of the services, so each of them may use it)."""
from __future__ import annotations

from app.i18n import _, pgettext


def status_word(status: str) -> str:
    """'over', 'abandoned', 'open', 'running' (unknown: as stored)."""
    return {"over": _("over"), "abandoned": _("abandoned"), "open": pgettext("game", "open"),
            "running": _("running")}.get(status, status)
