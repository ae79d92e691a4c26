"""Web Push on the web (issue 49 item 3): the installable app's two files and the JSON
doors that turn "Notify this browser of my turns" on and off.

- ``GET /sw.js``: the service worker, served from the site's root so that its scope is
  the whole site (a file under ``/static/`` could only control ``/static/``). It shows
  a push and opens the seat link on a tap; it has no fetch handler and caches nothing,
  so no page with private cards is ever kept on the device.
- ``GET /manifest.webmanifest``: the web app manifest (also under ``/static/``), linked
  from every page (``templates/base.html``).
- JSON, the body the browser's ``PushSubscription.toJSON()`` gives:
  ``POST|DELETE /api/play/<token>/push`` (a seat link: this game only) and
  ``POST|DELETE /api/settings/<key>/push`` and ``/api/my-games/<token>/push``
  (the person's keys: all their games), answered ``{"subscribed", "scope", "shown"}``.

The pages work without any of it: the button is drawn by ``static/push.js`` only where
the browser has service workers and push, and the server has VAPID keys.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify, request, send_file

from app import services
from app import i18n
from app.services import my_games, push_subscriptions
from app.services import settings_keys as keys
from app.web.doors import door
from app.web.openapi_parts import BAD_LINK, TOKEN, error
from app.web.seat_request import SeatRequest, seat_required

bp = Blueprint("push", __name__)


@bp.app_context_processor
def _push_key() -> dict[str, Any]:
    """``push_key()`` in every template: the server's VAPID public key, None when push
    is not set up (``templates/partials/push_box.html`` then draws nothing)."""
    return {"push_key": push_subscriptions.public_key}


def _static(name: str) -> Path:
    return Path(str(current_app.static_folder)) / name


@bp.get("/sw.js")
@door("none", "the service worker's script (the same for anyone)")
def service_worker() -> Any:
    answer = send_file(_static("sw.js"), mimetype="text/javascript", max_age=0)
    answer.headers["Service-Worker-Allowed"] = "/"
    answer.headers["Cache-Control"] = "no-cache"
    return answer


@bp.get("/manifest.webmanifest")
@door("none", "the web app manifest (the same for anyone)")
def manifest() -> Any:
    return send_file(_static("manifest.webmanifest"), mimetype="application/manifest+json",
                     max_age=3600)


def _body() -> Any:
    if not request.is_json:
        raise services.BadRequest(i18n._('Send the subscription as JSON with '
                                  '"Content-Type: application/json".'))
    return request.get_json(silent=True)


@bp.post("/api/play/<token>/push")
@seat_required
def seat_subscribe(seat: SeatRequest) -> Any:
    return jsonify(push_subscriptions.subscribe_seat(seat.access, _body())), 201


@bp.delete("/api/play/<token>/push")
@seat_required
def seat_unsubscribe(seat: SeatRequest) -> Any:
    return jsonify(push_subscriptions.unsubscribe_seat(seat.access, _body()))


@bp.post("/api/settings/<key>/push")
@door("settings link", "this browser's push subscription for all the address's games")
def key_subscribe(key: str) -> Any:
    opened = keys.open_settings_key(key)
    return jsonify(push_subscriptions.subscribe_address(opened.address, _body(), "settings",
                                                        key_id=opened.id)), 201


@bp.delete("/api/settings/<key>/push")
@door("settings link", "ending this browser's push subscription for all the address's games")
def key_unsubscribe(key: str) -> Any:
    opened = keys.open_settings_key(key)
    return jsonify(push_subscriptions.unsubscribe_address(opened.address, _body(), "settings",
                                                          key_id=opened.id))


def _games_address(token: str) -> str:
    return my_games.read_link(token, str(current_app.config["SECRET_KEY"]))


@bp.post("/api/my-games/<token>/push")
@door("games link", "this browser's push subscription for all the address's games")
def games_subscribe(token: str) -> Any:
    return jsonify(push_subscriptions.subscribe_address(_games_address(token), _body(),
                                                        "games")), 201


@bp.delete("/api/my-games/<token>/push")
@door("games link", "ending this browser's push subscription for all the address's games")
def games_unsubscribe(token: str) -> Any:
    return jsonify(push_subscriptions.unsubscribe_address(_games_address(token), _body(),
                                                          "games"))


# -- OpenAPI ----------------------------------------------------------------------------------

_SUBSCRIPTION = {"type": "object", "required": ["endpoint", "keys"], "properties": {
    "endpoint": {"type": "string", "description": "The push service's https URL"},
    "keys": {"type": "object", "required": ["p256dh", "auth"], "properties": {
        "p256dh": {"type": "string", "description": "The browser's P-256 public key, "
                                                    "base64url (65 bytes)"},
        "auth": {"type": "string", "description": "Its auth secret, base64url (16 bytes)"}}},
    "expirationTime": {"type": ["number", "null"]}}}
_ENDPOINT = {"type": "object", "required": ["endpoint"],
             "properties": {"endpoint": {"type": "string"}}}


def _pair(where: str, parameters: list[Any], refused: dict[str, Any]) -> dict[str, Any]:
    return {
        "post": {"parameters": parameters,
                 "summary": f"Notify this browser by Web Push ({where})",
                 "description": "The body is the browser's PushSubscription.toJSON(). Each "
                                "push carries public words and the seat link only, replaces "
                                "the game's last one (Topic) and expires at its deadline (TTL).",
                 "requestBody": {"required": True, "content": {"application/json": {
                     "schema": {"$ref": "#/components/schemas/PushSubscription"}}}},
                 "responses": {"201": {"description": "Subscribed", "content": {
                     "application/json": {"schema": {
                         "$ref": "#/components/schemas/PushState"}}}},
                     "400": error("Push is not set up here, or the endpoint is not https on "
                                  "a public host, or the keys are not P-256 and 16 bytes"),
                     **refused}},
        "delete": {"parameters": parameters,
                   "summary": f"Stop notifying this browser by Web Push ({where})",
                   "requestBody": {"required": True, "content": {"application/json": {
                       "schema": {"$ref": "#/components/schemas/PushEndpoint"}}}},
                   "responses": {"200": {"description": "Not subscribed (any more)",
                                         "content": {"application/json": {"schema": {
                                             "$ref": "#/components/schemas/PushState"}}}},
                                 "400": error("The body is not a JSON object with the "
                                              "browser's endpoint"),
                                 **refused}}}


_KEY = {"name": "key", "in": "path", "required": True, "schema": {"type": "string"},
        "description": "The settings link's key (mailed to the address)"}
_GAMES = {"name": "token", "in": "path", "required": True, "schema": {"type": "string"},
          "description": "The games page's link token (mailed to the address)"}
_NO_KEY = {"403": error("The key is forged, expired or used up"),
           "404": error("No such key")}

#: OpenAPI path items of the JSON routes here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/play/{token}/push": _pair("this game", [TOKEN], {"403": BAD_LINK}),
    "/api/settings/{key}/push": _pair("all the person's games", [_KEY], _NO_KEY),
    "/api/my-games/{token}/push": _pair("all the person's games", [_GAMES], _NO_KEY),
}
OPENAPI_SCHEMAS: dict[str, Any] = {
    "PushSubscription": _SUBSCRIPTION,
    "PushEndpoint": _ENDPOINT,
    "PushState": {"type": "object", "properties": {
        "subscribed": {"type": "boolean"},
        "scope": {"type": "string", "enum": ["seat", "address"]},
        "shown": {"type": "string", "description": "The endpoint, masked"},
        "removed": {"type": "boolean"}}},
}
