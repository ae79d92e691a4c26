"""The public page of a game: what a spectator may see, no token needed."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from app import services
from app.web import view_helpers

bp = Blueprint("spectate", __name__)
bp.record_once(view_helpers.install)


@bp.get("/games/<game_id>")
def show(game_id: str) -> Any:
    """The table as the public sees it (``engine.view(state, None)``)."""
    snap = services.snapshot(game_id)
    view = snap.view(None)
    kinds = [s.kind for s in snap.game.seats]
    context = view_helpers.table_context(view, snap.game.names, kinds, None)
    return render_template("spectate.html", **context, game=snap.game,
                           game_title=snap.game.name,
                           created=snap.game.created.strftime("%d %b %Y"), **PUBLIC_WORDS)


#: A facedown card the public knows was shown to the whole table at some point.
PUBLIC_WORDS = {"known_word": "shown", "known_title": "facedown, but it was shown to everyone",
                "known_legend": "facedown, but shown to everyone earlier"}
