"""Table talk on the web (issue 20 items 1 and 4): the seat page's talk box, the
creator's hide and spectators switch, a seat's mute, and the JSON routes.

- ``POST /play/<token>/talk`` says a message (``text``, the form's ``key``, the seat's
  CSRF token) and goes back to the page's talk box (POST-redirect-GET); a message
  refused (empty, too long, too many this hour) shows the page again with the reason
  and the text as typed.
- ``POST /play/<token>/talk/<id>/hide``: the creator hides a message (kept, shown as
  "hidden by the creator"); ``.../talk/mute`` (``muted=1|0``) folds the talk away on
  the seat's page; ``.../talk/spectators`` (``on=1|0``, the creator) lets spectators
  read it or not.
- ``GET|POST /api/play/<token>/talk``: the talk as JSON, and a message said by JSON.

``OPENAPI_PATHS`` describes the JSON routes; ``app.web.api.openapi_document`` merges it.
The page's box is what the seat page's presenter read with the rest of the page.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, request, url_for

from app import services
from app import i18n
from app.i18n import _
from app.services import talk as talk_service
from app.talk.models import API, PAGE
from app.web.seat_request import Check, SeatRequest, seat_required
from app.web.openapi_parts import BAD_LINK, TOKEN, answer, error

bp = Blueprint("talk", __name__)


class NotJson(services.ServiceError):
    """A talk POST to the API that is not JSON (``app.web.api`` has its own, for moves:
    the two modules do not import each other)."""

    status, code = 415, "unsupported_media_type"


#: Ids above this are no message (and PostgreSQL's integer could not hold them).
MAX_ID = 2**31 - 1


def _again(token: str, exc: services.ServiceError, draft: str) -> Any:
    """The seat page again, the refused message's reason above it and in the talk box,
    its text kept in the box (nothing was said)."""
    from app.web import play

    seat = play.page_again(token)
    seat.page.talk_draft = (draft, exc.message)
    body, status = play.render_seat(seat, exc.message, exc.status)
    headers = {}
    if "retry_after" in exc.details:
        headers["Retry-After"] = str(exc.details["retry_after"])
    return body, status, headers


def _talk_anchor(token: str) -> Any:
    """Back to the seat page with its talk open (``talk=1``: the box is folded otherwise)."""
    return redirect(url_for("play.show", token=token, talk=1) + "#talk", code=303)


@bp.post("/play/<token>/talk")
@seat_required(in_unit=True)
def say(token: str, check: Check) -> Any:
    """Say a message at the table from the seat page, then back to the talk box."""
    text = request.form.get("text", "")
    key = request.form.get("key") or None
    try:
        talk_service.say_by_link(token, text, key, PAGE, check=check)
    except (services.BadRequest, services.TooMany) as exc:
        return _again(token, exc, text[:4000])
    flash(_("Said at the table."), "success")
    return _talk_anchor(token)


@bp.post("/play/<token>/talk/<int:talk_id>/hide")
@seat_required(in_unit=True)
def hide(token: str, check: Check, talk_id: int) -> Any:
    """The creator hides one message; anyone else gets a 403 with words."""
    if talk_id > MAX_ID:
        raise services.NotFound(_("There is no such message at this table."))
    if talk_service.hide(token, talk_id, check=check):
        flash(_("The message is hidden: everyone now sees “hidden by the creator” in its "
              "place."), "success")
    else:
        flash(_("That message was hidden already."), "success")
    return _talk_anchor(token)


def _switch(name: str) -> bool:
    value = request.form.get(name, "")
    if value not in ("0", "1"):
        raise services.BadRequest(_("That switch was not understood. Reload your page and "
                                  "press the button again."))
    return value == "1"


@bp.post("/play/<token>/talk/mute")
@seat_required(in_unit=True)
def mute(token: str, check: Check) -> Any:
    """Fold the table talk away on this seat's page (``muted=1``), or bring it back."""
    muted = _switch("muted")
    talk_service.set_muted(token, muted, check=check)
    flash(_("You muted the table talk: it stays folded away until you unmute it.") if muted
          else _("The table talk is back on your page."), "success")
    return _talk_anchor(token)


@bp.post("/play/<token>/talk/spectators")
@seat_required(in_unit=True)
def spectators(token: str, check: Check) -> Any:
    """The creator lets spectators read the talk (``on=1``), or not."""
    on = _switch("on")
    talk_service.set_spectators(token, on, check=check)
    flash(_("Spectators may read the table talk.") if on
          else _("Spectators no longer read the table talk; the players still do."), "success")
    return _talk_anchor(token)


# -- JSON -------------------------------------------------------------------------

def _after() -> int:
    raw = request.args.get("after", "").strip()
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        raise services.BadRequest(i18n._('"after" must be a message id, like 12.'))
    return int(raw)


@bp.get("/api/play/<token>/talk")
@seat_required
def api_lines(seat: SeatRequest) -> Any:
    """The table talk for a seat: every message after ``?after=`` (an id; default: the
    newest ``PAGE_LINES``), oldest first."""
    after = _after()
    access = seat.access
    lines, newest = talk_service.json_lines(access.game_id, access.seat, after_id=after,
                                            limit=None if after else talk_service.PAGE_LINES)
    return jsonify({"talk": lines, "newest": newest})


@bp.post("/api/play/<token>/talk")
@seat_required(in_unit=True)
def api_say(token: str, check: Check) -> Any:
    """Say a message by JSON: ``{"text": "...", "key": "optional"}`` -> 201."""
    def check_body(access: services.SeatAccess) -> None:  # the link accepted: now the body
        check(access)
        if not request.is_json:
            raise NotJson('Send the message as JSON with "Content-Type: application/json", '
                          'like {"text": "nice Dracula"}.')
        if "text" not in _body():
            raise services.BadRequest(i18n._('Send the message as a JSON object like '
                                      '{"text": "nice Dracula"}.'))

    body = _body()
    try:
        access, talk_id = talk_service.say_by_link(token, body.get("text"), body.get("key"),
                                                   API, check=check_body)
    except services.TooMany as exc:
        answer = jsonify({"error": exc.code, "message": exc.message})
        answer.status_code = exc.status
        answer.headers["Retry-After"] = str(exc.details.get("retry_after", 60))
        return answer
    lines, newest = talk_service.json_lines(access.game_id, access.seat)
    answer = jsonify({"id": talk_id, "newest": newest, "talk": lines})
    answer.status_code = 201
    return answer


def _body() -> dict[str, Any]:
    """The JSON object posted, or {} (its shape is refused with words by ``check``, after
    the link; the text and key by the use case)."""
    body = request.get_json(silent=True) if request.is_json else None
    return body if isinstance(body, dict) else {}


_LINE = {"$ref": "#/components/schemas/TalkLine"}


#: OpenAPI path items of the JSON routes here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/play/{token}/talk": {
        "get": {
            "summary": "The table talk",
            "description": "Every message of the game's table, oldest first: after the "
                           "message id `after`, or (without it) the newest 300. A hidden "
                           "message has `hidden: true` and `text: null`.",
            "parameters": [TOKEN, {"name": "after", "in": "query", "required": False,
                                    "schema": {"type": "integer", "minimum": 0},
                                    "description": "Only the messages after this id"}],
            "responses": {"200": answer("Talk", "The talk"),
                          "400": error(
                              "Malformed input (a bad `after`, a NUL byte)"),
                          "403": BAD_LINK}},
        "post": {
            "summary": "Say a message at the table",
            "description": "Plain text, at most 500 characters (TALK_MAX_CHARS), at most 50 "
                           "messages an hour per seat (TALK_PER_SEAT_PER_HOUR). The same "
                           "`key` again says nothing new and answers the earlier id. Only "
                           "the game's people talk, while it runs and after it ended.",
            "parameters": [TOKEN],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/TalkPost"}}}},
            "responses": {
                "201": answer("TalkSaid", "Said (or said already, with this key)"),
                "400": error("Empty, too long, not text, or a bad key (the message says "
                              "which); nothing was said"),
                "403": error("The link is forged, belongs to no seat or to a bot, was "
                              "replaced, or the game was abandoned"),
                "413": error("The body is larger than 64 kB"),
                "415": error("Not JSON"),
                "429": error("The seat said 50 messages in the last hour; the message "
                              "says when it may talk again (and Retry-After)")}},
    },
}

#: The schemas those paths name (merged into the document's components).
OPENAPI_SCHEMAS: dict[str, Any] = {
    "TalkLine": {"type": "object", "required": ["id", "seat", "name", "text", "at", "hidden"],
                 "properties": {
                     "id": {"type": "integer"}, "seat": {"type": "integer"},
                     "name": {"type": "string"},
                     "text": {"type": ["string", "null"],
                              "description": "As typed (plain text: escape it to show "
                                             "it); null when the creator hid it"},
                     "at": {"type": "string", "format": "date-time"},
                     "hidden": {"type": "boolean"},
                     "step": {"type": "integer", "description": "The game's step then"}}},
    "Talk": {"type": "object", "required": ["talk", "newest"], "properties": {
        "talk": {"type": "array", "items": _LINE},
        "newest": {"type": "integer", "description": "The game's newest message id"}}},
    "TalkPost": {"type": "object", "required": ["text"], "properties": {
        "text": {"type": "string", "maxLength": 500},
        "key": {"type": "string", "maxLength": 100,
                "description": "Any text of yours: the same key again says it once"}}},
    "TalkSaid": {"type": "object", "required": ["id", "talk"], "properties": {
        "id": {"type": "integer"}, "newest": {"type": "integer"},
        "talk": {"type": "array", "items": _LINE}}},
}
