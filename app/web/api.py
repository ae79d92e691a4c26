"""The JSON API under ``/api/``: the same use cases as the pages, for programs.

Every answer about a seat is built from ``engine.view(state, seat)``; every
error is JSON ``{"error", "message"}`` with a 4xx status (see errors.py).
POSTs take ``application/json`` only, which also keeps other sites' forms out.
"""
from __future__ import annotations

import time
from datetime import datetime, tzinfo
from typing import Any, TypeVar

from flask import Blueprint, current_app, jsonify, request

from app import engine, services
from app.i18n import _
from app.clock.time import iso_in
from app.web.openapi_parts import BAD_LINK, TOKEN, answer, error  # (OpenAPI pieces)
from app.web.openapi_parts import PLAN_PATHS, PLAN_SCHEMAS
from app.web.seat_request import Check, SeatRequest, seat_required, with_game
from app.web.doors import door
from app.people.calendar import person_zone

bp = Blueprint("api", __name__, url_prefix="/api")


class NotJson(services.ServiceError):
    status, code = 415, "unsupported_media_type"


def _seat_payload(access: services.SeatAccess, snap: services.Snapshot,
                  read: tuple[list[dict[str, Any]], tzinfo] | None = None) -> dict[str, Any]:
    talk, zone = read or ([], None)
    return {"game": snap.game.public(zone), "seat": access.seat, "seq": snap.seq,
            "names": snap.game.names, "view": snap.view(access.seat),
            # the table talk, newest last (issue 20 item 4; all of it: /api/play/<token>/talk)
            "talk": talk}


def _seat_talk(session: Any, access: services.SeatAccess,
               snap: services.Snapshot) -> tuple[list[dict[str, Any]], tzinfo]:
    """The seat's table talk as JSON, and the zone of its person (every time of a seat's
    JSON is in it: issue 33), read on the seat view's session."""
    from app.services import talk

    zone = person_zone(session, access.game_id, access.seat)
    return talk.as_json(talk.lines_for(session, access.game_id, snap.game.names, access.seat,
                                       limit=talk.PAGE_LINES, zone=str(zone))), zone


def _json_body() -> dict[str, Any]:
    if not request.is_json:
        raise NotJson(
            _('Send the move as JSON with "Content-Type: application/json".'))
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise services.BadRequest(
            _('The body is not a JSON object like {"action": {"type": "draw"}, '
              '"expected_seq": 3}.'))
    return body


@bp.get("/play/<token>")
@seat_required(read=_seat_talk)
def play(seat: SeatRequest) -> Any:
    """A seat's private view of its game, the step number and the players' names."""
    assert seat.snap is not None
    return jsonify(_seat_payload(seat.access, seat.snap, seat.page))


@bp.get("/play/<token>/actions")
@seat_required(read=with_game)
def legal_actions(seat: SeatRequest) -> Any:
    """What this seat may do now (empty when it has nothing to decide)."""
    access, snap = seat.access, seat.snap
    assert snap is not None
    view = snap.view(access.seat)
    return jsonify({"seat": access.seat, "seq": snap.seq, "to_act": view.get("to_act", []),
                    "legal_actions": view.get("legal_actions", [])})


@bp.post("/play/<token>/actions")
@seat_required(in_unit=True)
def submit(token: str, check: Check) -> Any:
    """Make a move: ``{"action": {...}, "expected_seq": n}`` with n the step it was decided on."""
    def read_move(access: services.SeatAccess) -> tuple[list[Any], Any]:  # link accepted
        check(access)
        body = _json_body()
        if "action" not in body or "expected_seq" not in body:
            raise services.BadRequest(_('Both "action" and "expected_seq" are needed.'))
        return [body["action"]], body["expected_seq"]

    with_history = _flag("log")  # read before the move: a bad query changes nothing
    access, result = services.submit_by_link(token, read_move)
    names = result.snapshot.game.names
    view = result.snapshot.view(access.seat)
    if not with_history:
        for key in HISTORY_KEYS:
            view.pop(key, None)
    return jsonify({
        "seq": result.seq,
        "applied": [{"seq": item.seq, "seat": item.seat, "source": item.source,
                     "text": [engine.describe(e, names) for e in item.events]}
                    for item in result.applied],
        "events": result.events,
        "game": result.snapshot.game.public(result.zone),
        "view": view,
    })


#: What a move's answer leaves out of the view unless asked (``?log=1``): the
#: round's public log and the last round's, which the client already holds
#: from the view it decided on (``applied`` says what this move added). They
#: were nine tenths of every answer's bytes, encoded and parsed on every move.
HISTORY_KEYS = ("log", "previous_log")


def _flag(name: str) -> bool:
    """A yes/no query parameter: absent, ``0`` or ``1`` (anything else is a 400)."""
    value = request.args.get(name, "0")
    if value not in ("0", "1"):
        raise services.BadRequest(_("?%(name)s= takes 0 or 1.", name=name))
    return value == "1"


@bp.get("/games/<game_id>")
@door("none", "the public view of a game (what a spectator sees)")
def game(game_id: str) -> Any:
    """The public (spectator) view of a game."""
    snap = services.snapshot(game_id)
    return jsonify({"game": snap.game.public(), "seq": snap.seq, "names": snap.game.names,
                    "view": snap.view(None)})


@bp.get("/games/<game_id>/replay")
@door("none", "the public replay; with ?token= a seat link, that seat's own view, "
      "checked as a seat route checks it")
def replay(game_id: str) -> Any:
    """Frames of the game; ``?token=`` for a seat's own frames, ``?reveal=1`` once over.

    ``?first=&last=`` (or their older names ``from``/``to``) limit the frames
    to those steps, inclusive: only they are built.
    """
    seat = None
    token = request.args.get("token")
    if token:
        access = services.open_seat(token)
        if access.game_id != game_id:
            raise services.Forbidden(_("This link belongs to another game."), reason="foreign")
        seat = access.seat
    reveal = request.args.get("reveal", "").lower() in ("1", "true", "yes", "on")
    first = _step_arg("first", _step_arg("from", 0))
    last = _step_arg("last", _step_arg("to", None))
    frames = services.replay_frames(game_id, seat=seat, reveal=reveal, first=first, last=last)
    if seat is not None:  # a seat's JSON: its times in its person's zone (issue 33)
        frames["game"]["created"] = iso_in(datetime.fromisoformat(frames["game"]["created"]),
                                           _zone_of(game_id, seat))
    # the table talk said up to the last frame, when this reader may read it (issue 20)
    from app.services import talk
    info = frames["game"]
    upto = frames["steps"] if last is None else min(last, frames["steps"])
    frames["talk"] = talk.replay_json(game_id, seat, upto, info["status"] == "over",
                                      info["names"])
    return jsonify(frames)


def _zone_of(game_id: str, seat: int) -> tzinfo:
    """The zone of the person holding ``seat``, for a seat's JSON read outside a page's
    session."""
    from app.db import read_session

    with read_session() as session:
        return person_zone(session, game_id, seat)


#: More digits than any game has steps; also far below Python's int-parsing limit.
MAX_STEP_DIGITS = 9


#: A step argument's default: a number, or None for "not given" (the caller's type stays).
_Default = TypeVar("_Default", bound=int | None)


def _step_arg(name: str, default: _Default) -> int | _Default:
    """A step number from the query: ASCII digits only (``str.isdigit`` takes "²")."""
    raw = request.args.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()):
        raise services.BadRequest(_('"%(name)s" must be a step number, like 12.', name=name))
    if len(raw) > MAX_STEP_DIGITS:
        raise services.BadRequest(_('"%(name)s" is larger than any game: a step number has '
                                    'at most %(most)s digits.', name=name,
                                    most=MAX_STEP_DIGITS))
    return int(raw)


@bp.get("/openapi.json")
@door("none", "the API's description")
def openapi() -> Any:
    """The hand-written OpenAPI 3.1 description of this API."""
    return jsonify(openapi_document(current_app.config["BASE_URL"]))


# -- the OpenAPI document -----------------------------------------------------------

def openapi_document(base_url: str) -> dict[str, Any]:
    """OpenAPI 3.1 for the routes above (kept beside them so both change together)."""
    token = TOKEN
    game_id = {"name": "game_id", "in": "path", "required": True,
               "schema": {"type": "string"}}
    bad_link = BAD_LINK
    # Any request may be refused before its handler (app/web/input_guard.py): a NUL
    # byte anywhere, a JSON body nested too deep, a step number that is not digits.
    bad_input = error("Malformed input: a NUL byte, a bad step number, a body nested too "
                       "deep; the message says which")
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Silver Eye Post", "version": "1",
                 "description": "Play Silver Eye by email: seat views, legal actions, moves "
                                "and replays. Seat views come from the engine's view of that "
                                "seat only; cards a seat has not seen have null id and value."},
        "servers": [{"url": base_url}],
        "paths": {
            "/api/play/{token}": {"get": {
                "summary": "A seat's private view", "parameters": [token],
                "responses": {"200": answer("SeatState", "The seat's view"), "400": bad_input,
                              "403": bad_link}}},
            "/api/play/{token}/actions": {
                "get": {"summary": "The seat's legal actions now", "parameters": [token],
                        "responses": {"200": answer("LegalActions", "Legal actions"),
                                      "400": bad_input, "403": bad_link}},
                "post": {
                    "summary": "Make a move",
                    "description": "Send one of the legal actions with the step it was "
                                   "decided on. A stale or repeated move changes nothing "
                                   "and answers 409. The answer's view leaves out `log` and "
                                   "`previous_log` (the history the client decided on; "
                                   "`applied` says what this move added) unless `?log=1`.",
                    "parameters": [token, {"name": "log", "in": "query", "required": False,
                                           "schema": {"type": "string", "enum": ["0", "1"]},
                                           "description": "1: the view with its history"}],
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Move"}}}},
                    "responses": {
                        "200": answer("MoveResult", "Applied; bots and absent seats may have "
                                                "moved after it"),
                        "400": error("Malformed body"), "403": bad_link,
                        "409": error("The game moved on, or the move was already applied"),
                        "413": error("The body is larger than 64 kB"),
                        "415": error("Not JSON"),
                        "422": error("The action has a field its type does not have, or the "
                                      "rules do not allow this move now (engine's words)"),
                        "429": error("The seat said away/back too often this hour")}}},
            "/api/games/{game_id}": {"get": {
                "summary": "Public (spectator) view of a game", "parameters": [game_id],
                "responses": {"200": answer("GameState", "Spectator view"), "400": bad_input,
                              "404": error("No such game")}}},
            "/api/games/{game_id}/replay": {"get": {
                "summary": "The game step by step",
                "parameters": [game_id,
                               {"name": "token", "in": "query", "required": False,
                                "schema": {"type": "string"},
                                "description": "A seat's token: frames as that seat saw them"},
                               {"name": "reveal", "in": "query", "required": False,
                                "schema": {"type": "string", "enum": ["0", "1"]},
                                "description": "All cards open; only after the game is over"},
                               {"name": "first", "in": "query", "required": False,
                                "schema": {"type": "integer", "minimum": 0},
                                "description": "First step to return (default 0); "
                                               "also accepted as 'from'"},
                               {"name": "last", "in": "query", "required": False,
                                "schema": {"type": "integer", "minimum": 0},
                                "description": "Last step to return (default: the latest); "
                                               "also accepted as 'to'"}],
                "responses": {"200": answer("Replay", "Frames"), "400": bad_input,
                              "403": bad_link, "404": error("No such game")}}},
            "/api/openapi.json": {"get": {"summary": "This document",
                                          "responses": {"200": {"description": "OpenAPI"}}}},
        },
        "components": {"schemas": {
            "Error": {"type": "object", "required": ["error", "message"], "properties": {
                "error": {"type": "string"}, "message": {"type": "string"},
                "reason": {"type": "string"}, "seq": {"type": "integer"}}},
            "Action": {"type": "object", "required": ["type"],
                       "properties": {"type": {"type": "string"}},
                       "additionalProperties": True,
                       "description": "One entry of legal_actions, sent back as it is "
                                      "(exchange may add into/end/spotter)."},
            "Move": {"type": "object", "required": ["action", "expected_seq"], "properties": {
                "action": {"$ref": "#/components/schemas/Action"},
                "expected_seq": {"type": "integer", "minimum": 0}}},
            "View": {"type": "object", "description": "engine.view(state, seat): round, "
                     "phase, to_act, current, pending, step, deck_count, discard, villages, "
                     "hand, round_scores, totals, legal_actions, log...",
                     "additionalProperties": True},
            "Game": {"type": "object", "properties": {
                "id": {"type": "string"}, "name": {"type": "string"},
                "status": {"type": "string", "enum": ["running", "over", "abandoned"]},
                "end_reason": {"type": ["string", "null"],
                               "enum": ["away", "agreement", "resigned", "operator", None],
                               "description": "Why an abandoned game ended early"},
                "series_id": {"type": ["string", "null"]},
                "rematch_of": {"type": ["string", "null"]},
                "series_no": {"type": "integer"},
                "names": {"type": "array", "items": {"type": "string"}},
                "commitment": {"type": "string", "description": "sha256 hex of the seed"},
                "seed": {"type": ["string", "null"],
                         "description": "Shown once the game is over or was ended"},
                "seq": {"type": "integer"}}, "additionalProperties": True},
            "SeatState": {"type": "object", "properties": {
                "game": {"$ref": "#/components/schemas/Game"}, "seat": {"type": "integer"},
                "seq": {"type": "integer"}, "names": {"type": "array"},
                "view": {"$ref": "#/components/schemas/View"},
                "talk": {"type": "array", "items": {"$ref": "#/components/schemas/TalkLine"},
                         "description": "The table talk, newest last (the newest 300)"}}},
            "GameState": {"type": "object", "properties": {
                "game": {"$ref": "#/components/schemas/Game"}, "seq": {"type": "integer"},
                "view": {"$ref": "#/components/schemas/View"}}},
            "LegalActions": {"type": "object", "properties": {
                "seat": {"type": "integer"}, "seq": {"type": "integer"},
                "to_act": {"type": "array", "items": {"type": "integer"}},
                "legal_actions": {"type": "array",
                                  "items": {"$ref": "#/components/schemas/Action"}}}},
            "MoveResult": {"type": "object", "properties": {
                "seq": {"type": "integer"}, "applied": {"type": "array"},
                "events": {"type": "array"}, "game": {"$ref": "#/components/schemas/Game"},
                "view": {"$ref": "#/components/schemas/View"}}},
            "Replay": {"type": "object", "properties": {
                "game": {"$ref": "#/components/schemas/Game"},
                "steps": {"type": "integer", "description": "Steps in the whole game"},
                "frames": {"type": "array", "items": {"type": "object", "properties": {
                    "step": {"type": "integer"}, "seat": {"type": ["integer", "null"]},
                    "text": {"type": "array", "items": {"type": "string"}},
                    "view": {"$ref": "#/components/schemas/View"}}}},
                "log": {"type": "array", "description": "[seat, action] pairs, once over"},
                "talk": {"type": ["array", "null"],
                         "items": {"$ref": "#/components/schemas/TalkLine"},
                         "description": "The table talk up to the last frame; null when "
                                        "spectators may not read it yet"},
                "how_to_verify": {"type": "string"}}},
        }},
    }
    # the routes of table talk and notice targets are described beside them (issue 20)
    from app.web import person, push, standing, table, tables, talk, targets
    for module in (talk, targets, table, person, standing, tables, push):
        document["paths"].update(module.OPENAPI_PATHS)
        document["components"]["schemas"].update(getattr(module, "OPENAPI_SCHEMAS", {}))
    document["paths"].update(PLAN_PATHS)            # deciding ahead (issue 35)
    document["components"]["schemas"].update(PLAN_SCHEMAS)
    return document


# -- benchmark baseline (registered only when BENCH_ENDPOINTS is on) ----------------

bench_bp = Blueprint("bench", __name__, url_prefix="/api/bench")


def start_cpu_clock() -> None:
    """Bench only: note this thread's CPU time as the request starts."""
    from flask import g
    g.bench_cpu_start = time.thread_time()


def cpu_header(response: Any) -> Any:
    """Bench only: the CPU this request took inside the app (``X-Server-CPU-Ms``), so the
    benchmark can tell a POST's cost from a GET's and from the bare insert's."""
    from flask import g
    started = g.pop("bench_cpu_start", None)
    if started is not None:
        response.headers["X-Server-CPU-Ms"] = f"{(time.thread_time() - started) * 1000:.3f}"
    return response


@bench_bp.post("/insert/<game_id>")
@door("debug", "the benchmark's baseline insert, registered only with BENCH_ENDPOINTS")
def bench_insert(game_id: str) -> Any:
    """Baseline for bench/http_bench.py: parse JSON, read the last seq, insert one row.

    The same database round trips as a move minus the engine and the hooks;
    it writes into a game the benchmark created for it. Never on in production.
    """
    from sqlalchemy.exc import IntegrityError

    from app.gamelog import store
    from app.db.unit import unit_of_work

    body = _json_body()
    try:
        with unit_of_work() as unit:
            seq = store.last_seq(unit.session, game_id)
            store.append_action(unit, game_id, seq + 1, 0,
                                {"type": "bench", "n": body.get("n")}, "system")
            unit.write()
    except IntegrityError:
        raise services.Conflict("bench insert raced", reason="moved_on") from None
    return jsonify({"seq": seq + 1})
