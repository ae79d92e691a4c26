"""The table's people on the web (issue 21 items 3-7): resign, give more time, votes
(end by agreement, a substitute, a rematch), on the seat page without JavaScript and
as JSON.

Page forms (each checks the seat's CSRF token, then back to the page's "The table"
box with what happened in words; a refusal shows the page again with the reason):

- ``POST /play/<token>/resign`` (``confirm=yes``: the page asks first);
- ``POST /play/<token>/more-time`` (``seat``: whose decision gets one more day);
- ``POST /play/<token>/votes`` (``kind`` abort | substitute | rematch; a substitute's
  ``seat``, ``name`` and ``email``);
- ``POST /play/<token>/votes/<id>`` (``answer`` yes | no) and ``.../withdraw``.

JSON: ``GET /api/play/<token>/table`` and the same actions under ``/api/play/<token>/``,
described by ``OPENAPI_PATHS`` (merged into ``/api/openapi.json``). The seat page's box
reads ``services.table`` with the page's one session.
"""
from __future__ import annotations

from typing import Any, Callable

from flask import Blueprint, flash, jsonify, redirect, request, url_for

from app import services
from app import i18n
from app.i18n import _
from app.services import leaving, table, votes
from app.services.more_time import give_time
from app.web import seat_page
from app.web.seat_request import SeatRequest, seat_required
from app.web.openapi_parts import BAD_LINK, TOKEN, answer, error
from app.people.calendar import zone_of

bp = Blueprint("table", __name__)


class NotJson(services.ServiceError):
    """A POST to these JSON routes that is not JSON."""

    status, code = 415, "unsupported_media_type"


#: The kinds of vote a form or a body may name.
KINDS = ("abort", "substitute", "rematch")
#: Ids above this are no vote (PostgreSQL's integer could not hold them).
MAX_ID = 2**31 - 1


def _back(token: str) -> Any:
    return redirect(url_for("play.show", token=token) + "#people", code=303)


def _seat_action(seat: SeatRequest, work: Callable[[services.SeatAccess], str]) -> Any:
    """A form of the box (its link and CSRF token checked by ``seat_required``): ``work``
    done and said in a flash; a refusal shows the page again with the reason (nothing
    changed)."""
    from app.web import play

    try:
        said = work(seat.access)
    except (services.BadRequest, services.Conflict, services.TooMany, services.NotFound,
            services.Illegal) as exc:
        return play.render_seat(play.page_again(seat.token), exc.message, exc.status)
    flash(said, "success")
    return _back(seat.token)


def _seat_arg(value: Any) -> int:
    if isinstance(value, bool):
        raise services.BadRequest(_("Choose a player."))
    try:
        seat = int(value)
    except (TypeError, ValueError):
        raise services.BadRequest(_("Choose a player.")) from None
    if not 0 <= seat < 8:
        raise services.BadRequest(_("Choose a player of this game."))
    return seat


# -- page forms -----------------------------------------------------------------------

@bp.post("/play/<token>/resign")
@seat_required
def resign(seat: SeatRequest) -> Any:
    """R48: resign, after the page's confirm."""
    def work(access: services.SeatAccess) -> str:
        if request.form.get("confirm") != "yes":
            raise services.BadRequest(_("Press “Yes, resign” to resign: nothing was changed."))
        leaving.resign(access.game_id, access.seat)
        return (_("You resigned: the rules' defaults play your seat from now on, and the others "
                "are told. You can still read the table and talk."))
    return _seat_action(seat, work)


@bp.post("/play/<token>/more-time")
@seat_required
def more_time(seat: SeatRequest) -> Any:
    """One more day for another seat's decision."""
    def work(access: services.SeatAccess) -> str:
        receiver = _seat_arg(request.form.get("seat"))
        given = give_time(access.game_id, access.seat, receiver)
        return _("You gave one more day: the move is now due %(when)s.",
                 when=_when(access, given.after))
    return _seat_action(seat, work)


@bp.post("/play/<token>/votes")
@seat_required
def start_vote(seat: SeatRequest) -> Any:
    """Start a vote (the proposer's own answer is yes)."""
    def work(access: services.SeatAccess) -> str:
        kind = request.form.get("kind", "")
        if kind not in KINDS:
            raise services.BadRequest(_("Choose what to vote on: ending the game, a substitute "
                                      "or a rematch."))
        subject = _seat_arg(request.form.get("seat")) if kind == "substitute" else None
        vote = votes.start(access.game_id, access.seat, kind, subject=subject,
                           name=request.form.get("name"), email=request.form.get("email"))
        return _vote_said(vote, started=True)
    return _seat_action(seat, work)


@bp.post("/play/<token>/votes/<vote_id>")
@seat_required
def answer_vote(seat: SeatRequest, vote_id: str) -> Any:
    """Answer the open vote: ``answer=yes`` or ``answer=no``."""
    def work(access: services.SeatAccess) -> str:
        yes = _answer(request.form.get("answer"))
        vote = votes.answer(access.game_id, access.seat, _vote_id(vote_id), yes)
        return _vote_said(vote, started=False)
    return _seat_action(seat, work)


@bp.post("/play/<token>/votes/<vote_id>/withdraw")
@seat_required
def withdraw_vote(seat: SeatRequest, vote_id: str) -> Any:
    def work(access: services.SeatAccess) -> str:
        votes.withdraw(access.game_id, access.seat, _vote_id(vote_id))
        return _("You withdrew your vote; everyone asked is told.")
    return _seat_action(seat, work)


def _answer(value: Any) -> bool:
    if value not in ("yes", "no"):
        raise services.BadRequest(_("Answer yes or no."))
    return value == "yes"


def _vote_id(raw: str) -> int:
    """A vote's id from the path: ASCII digits of a number a vote can have."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 10 or not 0 < int(raw) <= MAX_ID:
        raise services.NotFound(_("There is no such vote in this game."), reason="no_vote")
    return int(raw)


def _vote_said(vote: Any, started: bool) -> str:
    """What the person who started or answered a vote is told at once."""
    if vote.status == "open":
        return (_("Your vote is open: everyone it asks is mailed, and the page shows who "
                "answered.") if started else _("Your answer is in; the vote is still open."))
    status = {"passed": _("passed"), "failed": _("failed"), "expired": _("expired"),
              "withdrawn": _("withdrawn")}.get(vote.status, vote.status)
    return _("The vote is decided (%(status)s): %(outcome)s", status=status,
             outcome=vote.outcome)


def _when(access: services.SeatAccess, moment: Any) -> str:
    from app.mail.compose import local_time_words
    from app.services import seat_settings

    zone = seat_settings.status(access.game_id, access.seat)["time_zone"]
    return local_time_words(moment, zone_of(zone))


# -- JSON -----------------------------------------------------------------------------

def _body() -> dict[str, Any]:
    if not request.is_json:
        raise NotJson('Send JSON with "Content-Type: application/json".')
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise services.BadRequest(i18n._("The body is not a JSON object."))
    return body


def _read_table(session: Any, access: services.SeatAccess, snap: services.Snapshot) -> Any:
    """The table as the seat sees it, and its own zone and quiet hours: the seat page's
    own reading of both boxes (``seat_page.read_table``), on the one read session."""
    boxes = seat_page.read_table(session, access, snap)
    mine = boxes.mail
    me = {"time_zone": mine["time_zone"], "quiet_start": mine["quiet_start"] or None,
          "quiet_end": mine["quiet_end"] or None, "calendar": mine["calendar_words"]}
    return {"seat": access.seat, "seq": snap.seq, "me": me,
            "game": snap.game.public(zone_of(mine["time_zone"])),  # (issue 33: her zone)
            **(table.about_me(boxes.people, access.seat) or {})}


def _table_json(token: str) -> dict[str, Any]:
    """The table after a change (read afresh: the change was its own transaction)."""
    return services.seat_page(token, _read_table)[2]


@bp.get("/api/play/<token>/table")
@seat_required(read=_read_table)
def api_table(seat: SeatRequest) -> Any:
    """The table's people and clocks as this seat sees them."""
    return jsonify(seat.page)


@bp.post("/api/play/<token>/resign")
@seat_required
def api_resign(seat: SeatRequest) -> Any:
    access, token = seat.access, seat.token
    body = _body()
    if body.get("confirm") is not True:
        raise services.BadRequest(i18n._('Send {"confirm": true} to resign: nothing was changed.'))
    leaving.resign(access.game_id, access.seat)
    return jsonify(_table_json(token))


@bp.post("/api/play/<token>/more-time")
@seat_required
def api_more_time(seat: SeatRequest) -> Any:
    access, token = seat.access, seat.token
    body = _body()
    give_time(access.game_id, access.seat, _seat_arg(body.get("seat")))
    return jsonify(_table_json(token))


@bp.post("/api/play/<token>/votes")
@seat_required
def api_start_vote(seat: SeatRequest) -> Any:
    access, token = seat.access, seat.token
    body = _body()
    kind = body.get("kind")
    if kind not in KINDS:
        raise services.BadRequest(i18n._('"kind" is one of "abort", "substitute", "rematch".'))
    subject = _seat_arg(body.get("seat")) if kind == "substitute" else None
    for field in ("name", "email"):
        if field in body and not isinstance(body[field], str):
            raise services.BadRequest(f'"{field}" must be text.')
    votes.start(access.game_id, access.seat, str(kind), subject=subject,
                name=body.get("name"), email=body.get("email"))
    answer_ = jsonify(_table_json(token))
    answer_.status_code = 201
    return answer_


@bp.post("/api/play/<token>/votes/<vote_id>")
@seat_required
def api_answer_vote(seat: SeatRequest, vote_id: str) -> Any:
    access, token = seat.access, seat.token
    body = _body()
    if not isinstance(body.get("yes"), bool):
        raise services.BadRequest(i18n._('Send {"yes": true} or {"yes": false}.'))
    vote = votes.answer(access.game_id, access.seat, _vote_id(vote_id), body["yes"],
                        source="api")
    try:
        return jsonify(_table_json(token))
    except services.Forbidden:
        # the seat's own yes handed it over (R51): the link that answered is an earlier
        # holder's now, so the table is not its to read; say what its answer did
        return jsonify({"seat": access.seat, "handed_over": True,
                        "vote": {"id": vote.id, "status": vote.status,
                                 "outcome": vote.outcome}})


@bp.delete("/api/play/<token>/votes/<vote_id>")
@seat_required
def api_withdraw_vote(seat: SeatRequest, vote_id: str) -> Any:
    access, token = seat.access, seat.token
    votes.withdraw(access.game_id, access.seat, _vote_id(vote_id))
    return jsonify(_table_json(token))


_TABLE = answer("Table", "The table's people and clocks, as this seat sees them")
_VOTE_ID = {"name": "vote_id", "in": "path", "required": True,
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID}}
_REFUSED = error("Not possible now (the message says why: the game is over, a vote is "
                 "open already, the seat has no decision waiting...); nothing changed")


def _post(summary: str, description: str, schema: str | None, ok: str = "200",
          extra: dict[str, Any] | None = None, params: list[Any] | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "summary": summary, "description": description, "parameters": params or [TOKEN],
        "responses": {ok: _TABLE, "400": error("Malformed body; nothing changed"),
                      "403": BAD_LINK, "404": error("No such vote"), "409": _REFUSED,
                      "413": error("The body is larger than 64 kB"),
                      "415": error("Not JSON"), **(extra or {})}}
    if schema is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": {"$ref": f"#/components/schemas/{schema}"}}}}
    return operation


#: OpenAPI path items of the JSON routes here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/play/{token}/table": {"get": {
        "summary": "The table's people and clocks",
        "description": "Each seat's deadline (and time bank), the days given, the open vote "
                       "and the past ones, what this seat may do, the series score.",
        "parameters": [TOKEN],
        "responses": {"200": _TABLE, "400": error("Malformed input"), "403": BAD_LINK}}},
    "/api/play/{token}/resign": {"post": _post(
        "Resign (R48)", "From then on the rules' defaults play the seat and it ranks last; "
        "the others are told. Needs {\"confirm\": true}.", "Resign",
        extra={"429": error("Said away/back/resign too often this hour")})},
    "/api/play/{token}/more-time": {"post": _post(
        "Give another seat one more day", "Moves the deadline of that seat's current "
        "decision one day of its running time later; limited per round and giver.",
        "MoreTime", extra={"429": error("This seat gave its days for this round")})},
    "/api/play/{token}/votes": {"post": _post(
        "Start a vote", "abort (end as abandoned by agreement: everyone still playing says "
        "yes), substitute (hand an away or resigned seat to a new address, R51: its own "
        "player is asked too and may veto; their return fails it; passes on the others' yes "
        "(a seat only away: two of them) or after a running day without a veto), rematch "
        "(once over: everyone accepts).", "VoteStart",
        ok="201", extra={"429": error("Too many votes started by this seat today")})},
    "/api/play/{token}/votes/{vote_id}": {
        "post": _post("Answer the open vote", "Once per seat.", "VoteAnswer",
                      params=[TOKEN, _VOTE_ID]),
        "delete": _post("Withdraw a vote you started", "Everyone asked is told.", None,
                        params=[TOKEN, _VOTE_ID])},
}

#: The schemas those paths name.
OPENAPI_SCHEMAS: dict[str, Any] = {
    "Resign": {"type": "object", "required": ["confirm"],
               "properties": {"confirm": {"type": "boolean", "const": True}}},
    "MoreTime": {"type": "object", "required": ["seat"],
                 "properties": {"seat": {"type": "integer", "minimum": 0, "maximum": 3}}},
    "VoteStart": {"type": "object", "required": ["kind"], "properties": {
        "kind": {"type": "string", "enum": list(KINDS)},
        "seat": {"type": "integer", "minimum": 0, "maximum": 3,
                 "description": "substitute: the seat handed over"},
        "name": {"type": "string", "maxLength": 60, "description": "substitute: their name"},
        "email": {"type": "string", "maxLength": 320,
                  "description": "substitute: their address"}}},
    "VoteAnswer": {"type": "object", "required": ["yes"],
                   "properties": {"yes": {"type": "boolean"}}},
    "Table": {"type": "object", "additionalProperties": True, "properties": {
        "seat": {"type": "integer"}, "seq": {"type": "integer"},
        "game": {"type": "object", "additionalProperties": True},
        "clock": {"type": "object", "additionalProperties": True},
        "seats": {"type": "array", "items": {"type": "object", "properties": {
            "seat": {"type": "integer"}, "name": {"type": "string"},
            "due": {"type": ["string", "null"], "format": "date-time"},
            "bank": {"type": ["object", "null"]}, "resigned": {"type": "boolean"},
            "away": {"type": "boolean"},
            "travelling_until": {"type": ["string", "null"], "format": "date-time",
                                 "description": "until when its clock stands still (its "
                                                "vacation, or its person away from all "
                                                "their games), in the reader's zone"},
            "travelling_words": {"type": ["string", "null"]}},
            "additionalProperties": True}},
        "gifts": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        "vote": {"type": ["object", "null"], "additionalProperties": True},
        "votes": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        "rematch": {"type": "object", "additionalProperties": True},
        "series": {"type": ["object", "null"], "additionalProperties": True}}},
}
