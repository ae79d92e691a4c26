"""Notice targets on the web (issue 20 items 3 and 4): a seat lists, adds, tests and
removes its targets (Discord, Slack, Matrix, ntfy, Telegram, JSON webhooks), on its
page and by JSON, and says whether mail still comes beside them.

- Page forms (the seat's CSRF token, POST-redirect-GET to ``/play/<token>#notices``
  with a flash; a refusal is a flash in words and changes nothing):
  ``POST /play/<token>/targets`` (``url``; ``scope`` seat: a seat link opens this game's
  targets alone, issue 45; the targets of all the person's games are their settings),
  ``.../targets/<id>/test``, ``.../targets/<id>/resume``, ``.../targets/<id>/remove``,
  ``.../targets/mail`` (``by_mail``: the "Also mail me" checkbox).
- JSON: ``GET|POST /api/play/<token>/targets``, ``DELETE /api/play/<token>/targets/<id>``,
  ``POST /api/play/<token>/targets/<id>/test`` (and ``/resume``).

A target's URL is never shown, only ``shown`` (service, host, last four characters).
``OPENAPI_PATHS`` describes the JSON routes; ``app.web.api.openapi_document`` merges it.
The page's box is what the seat page's presenter read with the rest of the page.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, request, url_for

from app import services
from app import i18n
from app.i18n import _
from app.services import notice_targets
from app.web.seat_request import SeatRequest, seat_required
from app.web.openapi_parts import BAD_LINK, TOKEN, error

bp = Blueprint("targets", __name__)

#: Ids above this are no target (and PostgreSQL's integer could not hold them).
MAX_ID = 2**31 - 1


# -- the page's forms ---------------------------------------------------------------------


def _back(access: services.SeatAccess) -> Any:
    return redirect(url_for("play.show", token=access.token, _anchor="notices"), code=303)


def _refused(access: services.SeatAccess, exc: services.ServiceError) -> Any:
    flash(exc.message, "error")
    return _back(access)


def _checked_id(target_id: str) -> int:
    """A target's id from the path: digits, within an integer (else: no such target)."""
    number = (int(target_id) if target_id.isascii() and target_id.isdigit()
              and len(target_id) < 12 else 0)
    if not 0 < number <= MAX_ID:
        raise services.NotFound(_("There is no such notice target on this seat."))
    return number


@bp.post("/play/<token>/targets")
@seat_required
def add_form(seat: SeatRequest) -> Any:
    """Add a target from the page's form."""
    access = seat.access
    try:
        added = notice_targets.add(access, request.form.get("url", ""),
                                   request.form.get("scope", notice_targets.SEAT))
    except (services.BadRequest, services.NotFound, services.Forbidden) as exc:
        return _refused(access, exc)
    flash(_("Added: your notices now go to %(shown)s as well. Send a test notice "
            "to see one arrive.", shown=added['shown']), "success")
    return _back(access)


@bp.post("/play/<token>/targets/<target_id>/<any(test, resume, remove):what>")
@seat_required
def target_form(seat: SeatRequest, target_id: str, what: str) -> Any:
    """Test, resume or remove one target from the page."""
    access = seat.access
    try:
        number = _checked_id(target_id)
        if what == "test":
            notice_targets.test(access, number)
            said = _("A test notice is on its way: it should arrive within a minute.")
        elif what == "resume":
            shown = notice_targets.resume(access, number)["shown"]
            said = _("Resumed: your next notices go to %(shown)s again.", shown=shown)
        else:
            said = _("Removed: no more notices go to %(shown)s.",
                     shown=notice_targets.remove(access, number))
    except (services.BadRequest, services.NotFound, services.Forbidden) as exc:
        return _refused(access, exc)
    flash(said, "success")
    return _back(access)


@bp.post("/play/<token>/targets/mail")
@seat_required
def mail_form(seat: SeatRequest) -> Any:
    """The "Also mail me" checkbox: mail beside the targets, or targets instead."""
    access = seat.access
    # (the box posts a hidden "0" before the checkbox: a form without the box is "off")
    by_mail = any(v in ("1", "on", "true", "yes") for v in request.form.getlist("by_mail"))
    scope = request.form.get("scope", "game")
    if scope not in ("game", "address"):
        raise services.BadRequest(_("Choose whether this is for this game or all your games."))
    try:
        notice_targets.set_by_mail(access, by_mail, everywhere=scope == "address")
    except services.Forbidden as exc:
        return _refused(access, exc)
    flash(_("Saved: your mail comes beside your notices.") if by_mail else
          _("Saved: while one of your notice targets works, your notices go there instead "
            "of mail (mail comes again if they all stop working)."), "success")
    return _back(access)


# -- JSON -----------------------------------------------------------------------------------

def _json_object() -> dict[str, Any]:
    if not request.is_json:
        raise services.BadRequest(i18n._('Send JSON like {"url": "ntfy://ntfy.sh/my-topic"} with '
                                  '"Content-Type: application/json".'))
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise services.BadRequest(i18n._('The body is not a JSON object like '
                                  '{"url": "ntfy://ntfy.sh/my-topic", "scope": "seat"}.'))
    return body


def _public(status: dict[str, Any]) -> dict[str, Any]:
    return {"targets": [_target_json(t) for t in status["targets"]],
            "elsewhere": status["elsewhere"], "by_mail": status["by_mail"],
            "limit": status["limit"]}


def _target_json(target: dict[str, Any]) -> dict[str, Any]:
    def when(value: Any) -> str | None:
        return value.isoformat() if value is not None else None
    return {"id": target["id"], "service": target["service"], "shown": target["shown"],
            "scope": target["scope"], "state": target["state"],
            "paused_at": when(target["paused_at"]), "last_error": target["last_error"],
            "last_ok_at": when(target["last_ok_at"])}


@bp.get("/api/play/<token>/targets")
@seat_required
def list_json(seat: SeatRequest) -> Any:
    """The seat's targets, masked (its address's are its person's settings: counted)."""
    return jsonify(_public(notice_targets.read_status(seat.access)))


@bp.post("/api/play/<token>/targets")
@seat_required
def add_json(seat: SeatRequest) -> Any:
    """Add a target: ``{"url": ..., "scope": "seat", "by_mail": bool?}`` (``address`` is
    refused with words: the person's settings, issue 45)."""
    access = seat.access
    body = _json_object()
    by_mail = body.get("by_mail")
    if by_mail is not None and not isinstance(by_mail, bool):
        raise services.BadRequest(i18n._('"by_mail" is true or false.'))
    added = notice_targets.add(access, body.get("url"), body.get("scope") or "seat")
    if by_mail is not None:
        notice_targets.set_by_mail(access, by_mail)
    return jsonify(_target_json(added)), 201


@bp.delete("/api/play/<token>/targets/<target_id>")
@seat_required
def remove_json(seat: SeatRequest, target_id: str) -> Any:
    access = seat.access
    shown = notice_targets.remove(access, _checked_id(target_id))
    return jsonify({"removed": int(target_id), "shown": shown})


@bp.post("/api/play/<token>/targets/<target_id>/test")
@seat_required
def test_json(seat: SeatRequest, target_id: str) -> Any:
    """Queue a test notice; the notice runner sends it within seconds."""
    access = seat.access
    queued = notice_targets.test(access, _checked_id(target_id))
    return jsonify({"queued": True, "target_id": queued["target_id"]}), 202


@bp.post("/api/play/<token>/targets/<target_id>/resume")
@seat_required
def resume_json(seat: SeatRequest, target_id: str) -> Any:
    access = seat.access
    return jsonify(_target_json(notice_targets.resume(access, _checked_id(target_id))))


# -- OpenAPI ----------------------------------------------------------------------------------

_ID = {"name": "target_id", "in": "path", "required": True,
       "schema": {"type": "integer", "minimum": 1}}
_ONE = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Target"}}}}
_NO_TARGET = error("No such target on this seat.")

#: OpenAPI path items of the JSON routes here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/play/{token}/targets": {
        "get": {"parameters": [TOKEN],
                "summary": "The seat's notice targets, masked (its person's targets for all "
                           "games are counted in elsewhere: they are the person's settings)",
                "responses": {"200": {"description": "The targets", "content": {
                    "application/json": {"schema": {"type": "object", "properties": {
                        "targets": {"type": "array",
                                    "items": {"$ref": "#/components/schemas/Target"}},
                        "by_mail": {"type": "boolean", "description":
                                    "false: notices go to the targets instead of mail while "
                                    "one of them is active"},
                        "elsewhere": {"type": "integer", "description":
                                      "targets of all the person's games (not listed)"},
                        "limit": {"type": "integer"}}}}}},
                    "403": BAD_LINK}},
        "post": {"parameters": [TOKEN],
                 "summary": "Add a notice target (an apprise URL: discord://, slack://, "
                            "ntfy://, tgram://, matrixs://, json://...)",
                 "requestBody": {"required": True, "content": {"application/json": {
                     "schema": {"type": "object", "required": ["url"], "properties": {
                         "url": {"type": "string", "examples": ["ntfy://ntfy.sh/my-topic"]},
                         "scope": {"type": "string", "enum": ["seat", "address"],
                                   "description": "seat: this game. address (all the "
                                                  "person's games) is refused (403): it "
                                                  "opens with the settings link only"},
                         "by_mail": {"type": "boolean"}}}}}},
                 "responses": {"201": {"description": "Added", **_ONE},
                               "400": error("Not a URL we take (not understood, not "
                                             "http(s), a private or loopback host, too many "
                                             "targets), said in words."),
                               "403": error("The link is forged or replaced, or the "
                                            "target was asked for all the person's games "
                                            "(the settings link's door)")}},
    },
    "/api/play/{token}/targets/{target_id}": {
        "delete": {"parameters": [TOKEN, _ID], "summary": "Remove a notice target",
                   "responses": {"200": {"description": "Removed"}, "403": BAD_LINK,
                                 "404": _NO_TARGET}},
    },
    "/api/play/{token}/targets/{target_id}/test": {
        "post": {"parameters": [TOKEN, _ID],
                 "summary": "Send a test notice to the target (within seconds)",
                 "responses": {"202": {"description": "Queued"}, "403": BAD_LINK,
                               "404": _NO_TARGET}},
    },
    "/api/play/{token}/targets/{target_id}/resume": {
        "post": {"parameters": [TOKEN, _ID], "summary": "Resume a paused target",
                 "responses": {"200": {"description": "Resumed", **_ONE}, "403": BAD_LINK,
                               "404": _NO_TARGET}},
    },
}

#: OpenAPI schemas of the routes here.
OPENAPI_SCHEMAS: dict[str, Any] = {
    "Target": {"type": "object", "properties": {
        "id": {"type": "integer"},
        "service": {"type": "string", "examples": ["Discord"]},
        "shown": {"type": "string", "description": "service, host and the last four "
                                                   "characters: never the whole URL"},
        "scope": {"type": "string", "enum": ["seat", "address"]},
        "state": {"type": "string", "enum": ["active", "paused"]},
        "paused_at": {"type": ["string", "null"], "format": "date-time"},
        "last_error": {"type": ["string", "null"]},
        "last_ok_at": {"type": ["string", "null"], "format": "date-time"}}},
}
