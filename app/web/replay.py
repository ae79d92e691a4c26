"""The replay viewer: one page per frame, so it works as plain links without JavaScript.

``/games/<id>/replay?step=n`` shows the spectator's view after move n;
``&token=...`` shows the seat's own view at that moment instead (so a running
game's replay never shows a seat more than it saw); ``&open=1`` once the game
is over shows every card and the seed, with how to re-derive the deal.
The frames come from ``services.replay_frames``, each built from a view.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request, url_for

from app import services
from app.web import view_helpers
from app.web.spectate import PUBLIC_WORDS

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
        raise services.BadRequest("The move number must be a whole number, like 12.") from None
    return max(0, min(step, last))


@bp.get("/games/<game_id>/replay")
def show(game_id: str) -> Any:
    """One frame of the replay, with links to every other frame."""
    token = request.args.get("token") or None
    seat = None
    if token:
        access = services.open_seat(token)
        if access.game_id != game_id:
            raise services.Forbidden("This link belongs to another game.", reason="foreign")
        seat = access.seat
    info = services.game_info(game_id)
    finished = info.status == "over"
    open_hand = finished and request.args.get("open", "") in ("1", "true", "yes", "on")
    data = services.replay_frames(game_id, seat=seat, reveal=open_hand)
    frames = data["frames"]
    last = len(frames) - 1
    step = _wanted_step(last)
    frame = frames[step]
    view = frame["view"]
    names = info.names
    kinds = [s.kind for s in info.seats]

    keep: dict[str, Any] = {}
    if token:
        keep["token"] = token
    if open_hand:
        keep["open"] = 1

    def link(to: int, **extra: Any) -> str:
        args = {**keep, **extra}
        return url_for("replay.show", game_id=game_id, step=to, **args)

    nav = {
        "first": link(0), "last": link(last),
        "prev": link(step - 1) if step > 0 else None,
        "next": link(step + 1) if step < last else None,
        "action": url_for("replay.show", game_id=game_id), "keep": keep,
        "open": url_for("replay.show", game_id=game_id, step=step, open=1,
                        **({"token": token} if token else {})),
        "closed": url_for("replay.show", game_id=game_id, step=step,
                          **({"token": token} if token else {})),
    }
    rounds = []
    for f in frames[1:]:
        number = f["view"].get("round")
        if f["view"].get("phase") != "over" and number and all(r["number"] != number for r in rounds):
            rounds.append({"number": number, "step": f["step"], "url": link(f["step"])})
    # The deal of round 1 is frame 0.
    if frames and frames[0]["view"].get("round") and rounds and rounds[0]["number"] == frames[0]["view"]["round"]:
        rounds[0] = {**rounds[0], "step": 0, "url": link(0)}
    current_round = view.get("round")
    timeline = []
    previous_round = None
    for f in frames:
        r = f["view"].get("round")
        if r == current_round and f["view"].get("phase") != "over" or f["step"] == step:
            timeline.append({"step": f["step"], "url": link(f["step"]),
                             "title": " ".join(f["text"])[:200] or "the deal",
                             "round_start": previous_round is not None and r != previous_round})
        previous_round = r

    context = view_helpers.table_context(view, names, kinds, seat)
    seed = data["game"].get("seed") if open_hand else None
    return render_template(
        "replay.html", **context, game=info, game_title=info.name, token=token,
        step=step, last=last, frame=frame, move=frame["text"], mover=frame["seat"],
        nav=nav, rounds=rounds, timeline=timeline, finished=finished, open_hand=open_hand,
        seed=seed, seed_literal=repr(services.engine_seed(seed)) if seed else "",
        seat_count=len(info.seats),
        options_literal=repr(services.engine_options(info.options)),
        api_log_url=url_for("api.replay", game_id=game_id, reveal=1, _external=False),
        how_to_verify=data.get("how_to_verify"), no_referrer=bool(token),
        **({"known_word": "facedown", "known_title": "facedown at this moment",
            "known_legend": "facedown at this moment"} if open_hand
           else PUBLIC_WORDS if seat is None else {}),
    )
