"""A seat's own page: its private view and its moves, behind its signed link.

GET shows; POST ``/act`` submits a move with the position (``expected_seq``)
it was chosen on and the seat's CSRF token. A move is either a button (an
action as the engine listed it, posted back as JSON) or a card form (the kind
of decision and the ticked cards, turned into engine steps by
``choices.actions_from_form`` and applied together, all or nothing). A refused
move (422) or a stale page (409) shows the page again with the reason in words.

Seat access is checked once per request by ``@seat_required``
(``app.web.seat_request``); a GET reads everything it shows in one database
session.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from app import services
from app.i18n import _, ngettext
from app.clock import deadlines
from app.services import table
from app.services.left import taken_at
from app.engine import words
from app.engine.describe import move_result
from app.engine.names import SeatNames
from app.web import choices, round_summary, seat_page, view_helpers
from app.web.seat_request import Check, SeatRequest, open_request, seat_required
from app.web.doors import door

bp = Blueprint("play", __name__)
bp.record_once(view_helpers.install)


def page_again(token: str) -> SeatRequest:
    """The seat page read again, for a form refused after its seat was opened (the
    reason shown above the moves)."""
    return open_request(token, seat_page.read)


def render_seat(seat: SeatRequest, error: str | None = None, status: int = 200) -> Any:
    """The seat page, optionally with an error above the moves."""
    access, snap, page = seat.access, seat.snap, seat.page
    assert snap is not None and isinstance(page, seat_page.SeatPage)
    me = access.seat
    view = snap.view(me)
    names = snap.game.names
    kinds = [s.kind for s in snap.game.seats]
    playable = snap.game.status == "running"
    choice = choices.card_choice(view, me) if playable else None
    # Simon claims (R16, preference off) get their own form up top, unless another card
    # decision is on the page (then they are buttons among the moves).
    simon = choices.simon_choice(view, me) if playable and choice is None else None
    context = view_helpers.table_context(view, names, kinds, me, choice or simon,
                                         page.clocks, deadlines.now(), page.zone)
    legal = list(view.get("legal_actions") or []) if playable else []
    # Buttons for what is not chosen by tapping cards: draw, take, call, skip...
    buttons = [a for a in legal if not (simon and a.get("type") == "simon")
               and not (choice and a.get("type") == choice.kind and choices.aimed(a))]
    groups = view_helpers.group_actions(buttons, view, me, names)
    if snap.game.status == "abandoned":
        context["pending"] = _("This game was abandoned: no more moves can be made.")
        context["ended"] = services.ended_words(snap.game)
    draft, refused = page.talk_draft
    return render_template(
        "play.html", **context, game=snap.game, game_title=snap.game.name,
        groups=groups, my_move=bool(groups or choice), choice=choice, simon=simon,
        simon_value=view_helpers.top_discard_value(view),
        since=view_helpers.since_last_acted(view, names, me, page.played),
        call_stakes=_(words.CALL_STAKES),
        due_line=view_helpers.due_line(view, me, page.clocks, page.zone) if playable else "",
        token=access.token, csrf=access.csrf, error=error, no_referrer=True,
        round_summary=round_summary.for_page(access, snap, view),
        took_over=took_over_words(view, names, me),
        mail_box=page.mail, targets_box=page.targets,
        people_box=table.about_me(page.people, me), plan_box=page.plan,
        talk_box={**page.talk, "draft": draft, "error": refused}, talk_folded=True,
    ), status


@bp.get("/left/<token>")
@door("left link", "what stopping this game's mail to an earlier holder does (read)")
def left_form(token: str) -> Any:
    """The unsubscribe of a goodbye (a seat handed over, issue 32): what it concerns, and
    a button; a GET changes nothing (mail scanners open links)."""
    return render_template("seat_left.html", mail=services.left_mail(token), done=False,
                           no_referrer=True)


@bp.post("/left/<token>")
@door("left link", "this game's mail to the earlier holder's address, to stop it")
def left_unsubscribe(token: str) -> Any:
    """One click (RFC 8058) or the form: this game's mail to that address stops."""
    return render_template("seat_left.html", mail=services.left_mail(token, stop=True),
                           done=True, no_referrer=True)


def took_over_words(view: dict[str, Any], names: Any, me: int) -> str | None:
    """What the seat page of a newcomer says first (issue 32, R49): whose seat they took
    over and when, and that its cards, what it has seen and its score are theirs now.
    None for a seat its holder has held from the start."""
    since = names.since[me] if isinstance(names, SeatNames) and me < len(names.since) else 0
    if since <= 0:
        return None
    was = names.at_step(since - 1)[me]
    unit, at = taken_at(view, me, since)
    totals = view.get("totals") or []
    if me >= len(totals):
        return (_("You took over %(was)s's seat in round %(at)s: its cards, everything "
                  "%(was)s had seen of them and its score are yours to play on. What %(was)s "
                  "did and said before stays %(was)s's.", was=was, at=at) if unit == "round"
                else _("You took over %(was)s's seat at move %(at)s: its cards, everything "
                       "%(was)s had seen of them and its score are yours to play on. What "
                       "%(was)s did and said before stays %(was)s's.", was=was, at=at))
    if unit == "round":
        return ngettext(
            "You took over %(was)s's seat in round %(at)s: its cards, everything %(was)s had "
            "seen of them and its score (%(num)s point) are yours to play on. What %(was)s "
            "did and said before stays %(was)s's.",
            "You took over %(was)s's seat in round %(at)s: its cards, everything %(was)s had "
            "seen of them and its score (%(num)s points) are yours to play on. What %(was)s "
            "did and said before stays %(was)s's.", totals[me], was=was, at=at)
    return ngettext(
        "You took over %(was)s's seat at move %(at)s: its cards, everything %(was)s had seen "
        "of them and its score (%(num)s point) are yours to play on. What %(was)s did and "
        "said before stays %(was)s's.",
        "You took over %(was)s's seat at move %(at)s: its cards, everything %(was)s had seen "
        "of them and its score (%(num)s points) are yours to play on. What %(was)s did and "
        "said before stays %(was)s's.", totals[me], was=was, at=at)


@bp.get("/play/<token>")
@seat_required(read=seat_page.read)
def show(seat: SeatRequest) -> Any:
    """The seat's private view and its moves."""
    return render_seat(seat)


def _posted_actions(form: Any, me: int) -> list[dict[str, Any]]:
    """The engine steps a posted form stands for: a button's action, or a card form's."""
    kind = form.get("choice")
    if kind:
        return choices.actions_from_form(str(kind), form.getlist("pick"), form, me)
    try:
        action = json.loads(form.get("action") or "")
    except ValueError:
        action = None
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise services.BadRequest(_("That move was not understood. Reload your page and "
                                    "choose one of the buttons."))
    positions = action.get("positions")
    if action.get("type") == "exchange" and isinstance(positions, list):
        return [choices.actions_from_form(
            "exchange", [choices.pick_value(me, p) for p in positions if isinstance(p, int)],
            form, me)[0]]
    if form.get("spotter") in ("1", "on", "true"):
        action["spotter"] = True
    return [action]


def _expected_seq(form: Any) -> int:
    try:
        return int(form.get("expected_seq", ""))
    except ValueError:
        raise services.BadRequest(_("The form is missing the move number it was made on. "
                                    "Reload your page and try again.")) from None


@bp.post("/play/<token>/act")
@seat_required(in_unit=True)
def act(token: str, check: Check) -> Any:
    """Submit a move (one or several steps), then back to the page (POST-redirect-GET).

    The link is checked inside the move's own transaction
    (``services.submit_by_link``, one session for the check and the move), and
    the form's CSRF token right after it, before the body is read."""
    steps: list[dict[str, Any]] = []

    def read_move(access: services.SeatAccess) -> tuple[list[dict[str, Any]], int]:
        check(access)
        expected_seq = _expected_seq(request.form)
        steps[:] = _posted_actions(request.form, access.seat)
        return steps, expected_seq

    try:
        access, done = services.submit_by_link(token, read_move)
    except (services.Illegal, services.Conflict) as exc:
        return render_seat(page_again(token), exc.message, exc.status)
    names = done.snapshot.game.names
    after = done.snapshot.view(access.seat)
    said = move_result([(item.action, item.events) for item in done.applied[:len(steps)]],
                       after, names, access.seat)
    flash(said, "success")
    return redirect(url_for("play.show", token=access.token), code=303)
