"""The replay viewer: one page per frame, so it works as plain links without JavaScript.

``/games/<id>/replay?step=n`` shows the spectator's view after move n;
``&token=...`` shows the seat's own view at that moment instead (so a running
game's replay never shows a seat more than it saw); ``&open=1`` once the game
is over shows every card and the seed, with how to re-derive the deal.
``services.replay_page`` reads it all in one session: the link checked, the log
read once, the step list and the one frame shown (only it is built from a view).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request, url_for

from app import services
from app.engine.summary import last_summary
from app.web import view_helpers
from app.i18n import _
from app.web.spectate import public_words
from app.web.doors import door

bp = Blueprint("replay", __name__)
bp.record_once(view_helpers.install)


def _wanted_step(last: int) -> int:
    """The ``step`` query parameter, clamped to the game's moves (default: the deal)."""
    raw = request.args.get("step", "").strip()
    if not raw:
        return 0
    try:
        step = int(raw)
    except ValueError:
        raise services.BadRequest(_("The move number must be a whole number, like 12.")) from None
    return max(0, min(step, last))


@bp.get("/games/<game_id>/replay")
@door("none", "the public replay; with ?token= a seat link, that seat's own view, "
      "checked as a seat route checks it")
def show(game_id: str) -> Any:
    """One frame of the replay, with links to every other frame.

    Only the frame shown is built from a view; the navigation (rounds, the
    moves of this round, the last step) describes the steps without building
    any (``services.replay_page``).
    """
    token = request.args.get("token") or None
    from app.services import talk

    def talk_said(session: Any, info: services.GameInfo, seat: int | None, step: int) -> Any:
        """The table talk said up to this frame (issue 20 item 1), on the page's session."""
        return talk.for_replay(session, game_id, seat, step, info.status != "running",
                               info.names)

    page = services.replay_page(game_id, token, _wanted_step,
                                request.args.get("open", "") in ("1", "true", "yes", "on"),
                                also=talk_said)
    info, lines, step, open_hand, seat = page.info, page.lines, page.step, page.reveal, page.seat
    finished = info.status != "running"
    last = lines[-1].step
    data = page.frames
    frame = data["frames"][0]
    view = frame["view"]
    # the names of that step, knowing who held each seat before (R49 take-overs, issue 32)
    names = services.step_names(info.names, step)
    kinds = [s.kind for s in info.seats]

    keep: dict[str, Any] = {}
    if token:
        keep["token"] = token
    if open_hand:
        keep["open"] = 1

    def link(to: int, **extra: Any) -> str:
        args = {**keep, **extra}
        return url_for("replay.show", game_id=game_id, step=to, **args)

    token_arg: dict[str, Any] = {"token": token} if token else {}
    nav = {
        "first": link(0), "last": link(last),
        "prev": link(step - 1) if step > 0 else None,
        "next": link(step + 1) if step < last else None,
        "action": url_for("replay.show", game_id=game_id), "keep": keep,
        "open": url_for("replay.show", game_id=game_id, step=step, open=1, **token_arg),
        "closed": url_for("replay.show", game_id=game_id, step=step, **token_arg),
    }
    rounds = _round_starts(lines, link)
    scorings = _scoring_steps(lines, link)
    # The frame of a step that scored a round explains that round (public facts, R24).
    summary = last_summary(view) if any(
        e.get("type") == "round_scored" for e in frame["events"]) else None
    here = lines[step]
    timeline = [{"step": line.step, "url": link(line.step),
                 "title": _title(line, names),
                 "round_start": line.step > 0 and lines[line.step - 1].round != line.round}
                for line in lines
                if (line.round == here.round and not line.over) or line.step == step]

    context = view_helpers.table_context(view, names, kinds, seat)
    talk_box = page.also
    seed = data["game"].get("seed") if open_hand else None
    return render_template(
        "replay.html", **context, game=info, game_title=info.name, token=token,
        step=step, last=last, frame=frame, move=frame["text"], mover=frame["seat"],
        nav=nav, rounds=rounds, scorings=scorings, timeline=timeline,
        round_summary=summary.words(names) if summary and summary.step == step else None, finished=finished, open_hand=open_hand,
        seed=seed, seed_literal=repr(services.engine_seed(seed)) if seed else "",
        seat_count=len(info.seats), talk_box=talk_box,
        options_literal=repr(services.engine_options(info.options)),
        api_log_url=url_for("api.replay", game_id=game_id, reveal=1, _external=False),
        how_to_verify=data.get("how_to_verify"), no_referrer=bool(token),
        ended=data.get("ended") if step == last else None,
        **({"known_word": _("facedown"), "known_title": _("facedown at this moment"),
            "known_legend": _("facedown at this moment")} if open_hand
           else public_words() if seat is None else {}),
    )


def _round_starts(lines: list[services.StepLine], link: Any) -> list[dict[str, Any]]:
    """The first step of each round (round 1 starts with the deal, step 0)."""
    rounds: list[dict[str, Any]] = []
    for line in lines:
        if not line.over and all(r["number"] != line.round for r in rounds):
            rounds.append({"number": line.round, "step": line.step, "url": link(line.step)})
    return rounds


def _scoring_steps(lines: list[services.StepLine], link: Any) -> list[dict[str, Any]]:
    """The step that scored each round: the one after which the next round (or the
    end of the game) begins. Its frame is the round's scoring frame."""
    found: list[dict[str, Any]] = []
    for before, line in zip(lines, lines[1:]):
        if line.round != before.round or (line.over and not before.over):
            found.append({"number": before.round, "step": line.step, "url": link(line.step)})
    return found


def _title(line: services.StepLine, names: list[str]) -> str:
    """The tooltip of a timeline link: who moved and what happened, shortened."""
    if line.step == 0:
        return _("The cards are dealt.")
    who = names[line.seat] if line.seat is not None and 0 <= line.seat < len(names) else ""
    text = line.text or _("A move.")
    return (_("%(name)s: %(move)s", name=who, move=text) if who else text)[:200]
