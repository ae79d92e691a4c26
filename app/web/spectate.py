"""Public pages: a game as a spectator sees it, its "what step is it" probe, and the rules.

No token is needed for any of them: everything shown is the spectator's view
(``engine.view(state, None)``) or the printed rules.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, render_template, request

from app import services
from app.clock import deadlines
from app.engine import cards, words
from app.i18n import N_, _
from app.web.my_games import day_words
from app.web import table_clock, view_helpers
from app.web.doors import door

bp = Blueprint("spectate", __name__)
bp.record_once(view_helpers.install)

#: How often an open page asks whether the game moved (milliseconds), said to the script.
POLL_MS = 3000


@bp.get("/games/<game_id>")
@door("none", "the public page of a game")
def show(game_id: str) -> Any:
    """The table as the public sees it (``engine.view(state, None)``)."""
    snap, (clocks, talk_box, table) = services.game_page(game_id, _public_reads)
    view = snap.view(None)
    kinds = [s.kind for s in snap.game.seats]
    context = view_helpers.table_context(view, snap.game.names, kinds, None,
                                         clocks=clocks, now=deadlines.now())
    return render_template("spectate.html", **context, game=snap.game,
                           game_title=snap.game.name,
                           created=day_words(snap.game.created), talk_box=talk_box,
                           table=table, **public_words())


def _public_reads(session: Any, snap: services.Snapshot) -> tuple[Any, Any, dict[str, Any]]:
    """What the public page reads besides the game, on its session: the clocks, the
    table talk (issue 20 item 1: shown unless the creator keeps it from spectators), and
    the table's people (issue 21: banks, time given, votes, the series) as anyone sees
    them."""
    from app.services import table, talk
    game_id = snap.game.id
    decisions = deadlines.open_rows(session, game_id, kind=deadlines.DECISION)
    return (table_clock.seat_clocks(session, game_id, decisions),
            # (the names the page read: who said what, then, issue 32)
            talk.for_page(session, game_id, snap.game.names),
            table.read(session, snap.game, None, snap.state, decisions=decisions))


@bp.get("/games/<game_id>/seq")
@door("none", "the step, talk and people counters an open page polls")
def seq(game_id: str) -> Any:
    """How far the game is, for open pages that update themselves (cheap; ETag'd).

    The step number is public (every page shows it), and so is the newest table talk's
    id (a page showing the talk reloads when something is said) and the count of the
    people's doings (a vote opened, answered or closed, a day given: issue 21). A page
    that already has all three gets ``304 Not Modified`` with no body.
    """
    from app.services import talk
    # the newest table talk too (issue 20 item 1), and the people's news (issue 21)
    step, said, people = talk.news(game_id)
    etag = f'"seq-{step}-talk-{said}-people-{people}"'
    if etag in request.headers.get("If-None-Match", ""):
        answer = current_304()
    else:
        answer = jsonify(seq=step, talk=said, people=people, poll_ms=POLL_MS)
    answer.headers["ETag"] = etag
    answer.headers["Cache-Control"] = "no-cache"
    return answer


def current_304() -> Any:
    from flask import Response

    return Response(status=304)


@bp.get("/help")
@door("none", "the help page")
def help_page() -> Any:
    """How the server works for a newcomer: games by link and by mail, open tables and
    their gates (issue 48 item 6)."""
    from app.seating import rules as seating_rules
    asked = {**words.SUBJECT_WORDS, "turn": N_("your turn, not begun"),
             "drawn_refused": N_("a drawn card the pile refuses")}
    timeouts = [(_capital(_(str(asked[kind]))), _(str(then)))
                for kind, then in words.TIMEOUT_WORDS.items() if kind in asked]
    return render_template("help.html", gates=seating_rules.GATE_MEANING,
                           gate_words=seating_rules.GATE_WORDS,
                           new_cap=seating_rules.NEW_CAP, timeouts=timeouts)


@bp.get("/rules")
@door("none", "the rules")
def rules() -> Any:
    """The rules in our own words, with every card and what it does."""
    entries = []
    for card_id in _one_of_each():
        entries.append({"card": view_helpers.card_face({"id": card_id, "faceup": True}),
                        "count": _copies(card_id), "text": cards.ability(card_id)})
    return render_template("rules.html", entries=entries, call_stakes=words.CALL_STAKES)


def _one_of_each() -> list[int]:
    """One card id per kind of card: each value, and each of the four Obsessors."""
    seen: set[int] = set()
    chosen = []
    for card_id in range(cards.DECK_SIZE):
        key = card_id if cards.is_obsessor(card_id) else cards.VALUE[card_id]
        if key not in seen:
            seen.add(key)
            chosen.append(card_id)
    return chosen


def _copies(card_id: int) -> int:
    if cards.is_obsessor(card_id):
        return 1
    return sum(1 for c in range(cards.DECK_SIZE) if cards.VALUE[c] == cards.VALUE[card_id])


#: A facedown card the public knows was shown to the whole table at some point.
PUBLIC_WORDS = {"known_word": N_("shown"),
                "known_title": N_("facedown, but it was shown to everyone"),
                "known_legend": N_("facedown, but shown to everyone earlier")}


def public_words() -> dict[str, str]:
    """``PUBLIC_WORDS`` in the reader's language."""
    return {key: _(value) for key, value in PUBLIC_WORDS.items()}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
