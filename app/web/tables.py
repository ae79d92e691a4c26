"""Open tables (issue 48): the doors of ``app.services.open_tables`` and ``table_seats``.

- ``GET /tables`` and ``GET /api/tables``: the open tables, newest first, a page at a
  time: options, the names and reliability lines of those seated, the seats left. No
  key: nothing on them is private (never an address, never a link).
- ``POST /tables/<id>/join`` (the list's form) and ``POST /api/tables/<id>/join``
  (``{"name", "email"}``, answered 202 with words): ask to sit down. Nothing is seated:
  one mail with one link goes to the address. Counted per network address and per
  address (``OPEN_TABLE_ASKS_PER_*``).
- ``GET /tables/seat/<token>``: the mailed link's page (a GET changes nothing: mail
  scanners open links); ``POST`` there sits down, and ``/leave``, ``/start`` (the
  creator's, after a day: bots in the open seats) and ``/close`` (the creator's).
"""
from __future__ import annotations

from typing import Any

from flask import (Blueprint, flash, jsonify, redirect, render_template, request,
                   url_for)

from app import services
from app.i18n import _
from app.seating import rules
from app.services import open_tables, table_seats
from app.web import view_helpers
from app.web.doors import door
from app.web.lobby import creator_key

bp = Blueprint("tables", __name__)
bp.record_once(view_helpers.install)

LIST = "the open tables: options, seated names with their reliability lines, seats left"
ASK = ("asking to sit down: holds a seat for a few hours and mails one link to the address "
       "given (never answered with a link)")


def _page() -> int:
    text = request.args.get("page", "1")
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 6 else 1


def _render_list(status: int = 200, error: str | None = None, at: str | None = None,
                 typed: dict[str, str] | None = None) -> Any:
    page = _page()
    tables, total = open_tables.listing(page)
    return render_template(
        "tables.html", tables=tables, total=total, page=page,
        pages=max(1, -(-total // open_tables.PAGE_SIZE)), error=error, error_at=at,
        typed=typed or {}, gates=rules.GATE_MEANING, gate_words=rules.GATE_WORDS), status


@bp.get("/tables")
@door("none", LIST)
def index() -> Any:
    return _render_list()


@bp.get("/api/tables")
@door("none", LIST)
def index_json() -> Any:
    page = _page()
    tables, total = open_tables.listing(page)
    return jsonify({"tables": tables, "total": total, "page": page,
                    "page_size": open_tables.PAGE_SIZE})


@bp.post("/tables/<table_id>/join")
@door("none", ASK)
def join(table_id: str) -> Any:
    name, email = request.form.get("name", ""), request.form.get("email", "")
    try:
        asked = open_tables.sit_down(table_id, name, email, creator_key(request.remote_addr))
    except services.ServiceError as exc:
        if exc.status == 404:
            raise
        return _render_list(exc.status, exc.message, table_id, {"name": name, "email": email})
    flash(asked.words, "success")
    return redirect(url_for("tables.index", _anchor=f"table-{table_id}"), code=303)


@bp.post("/api/tables/<table_id>/join")
@door("none", ASK)
def join_json(table_id: str) -> Any:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise services.BadRequest(_('Send a JSON object: {"name": "Your name", "email": '
                                    '"you@example.org"}.'))
    asked = open_tables.sit_down(table_id, body.get("name"), body.get("email"),
                                 creator_key(request.remote_addr))
    return jsonify({"message": asked.words, "held_until": asked.held_until.isoformat()}), 202


def _seat_page(token: str, done: table_seats.Done | None = None, status: int = 200) -> Any:
    return render_template("table_seat.html", link=table_seats.page(token), token=token,
                           done=done, no_referrer=True), status


@bp.get("/tables/seat/<token>")
@door("table link", "the table it was mailed for, and what its button would do (read)")
def seat(token: str) -> Any:
    return _seat_page(token)


@bp.post("/tables/seat/<token>")
@door("table link", "sitting its person down at that table (the last seat starts the game "
      "and answers with that person's own seat link)")
def sit(token: str) -> Any:
    done = table_seats.confirm(token)
    if done.seat_url:
        flash(done.words, "success")
        return redirect(done.seat_url, code=303)
    return _seat_page(token, done)


@bp.post("/tables/seat/<token>/leave")
@door("table link", "giving its person's seat at that table up, before the start")
def leave(token: str) -> Any:
    return _seat_page(token, table_seats.leave(token))


@bp.post("/tables/seat/<token>/start")
@door("table link", "the creator's: after a day, bots in the open seats and the game started")
def start(token: str) -> Any:
    done = table_seats.start_now(token)
    flash(done.words, "success")
    return redirect(done.seat_url or url_for("tables.seat", token=token), code=303)


@bp.post("/tables/seat/<token>/close")
@door("table link", "the creator's: closing the table before it starts (those seated told)")
def close(token: str) -> Any:
    return _seat_page(token, table_seats.close(token))


_TABLE = {"type": "object", "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "seats": {"type": "integer"},
    "seated": {"type": "array", "items": {"type": "object", "properties": {
        "seat": {"type": "integer"}, "name": {"type": "string"},
        "kind": {"type": "string", "enum": ["person", "bot"]},
        "confirmed": {"type": "boolean"},
        "standing": {"type": "object"}}}},
    "held": {"type": "integer"}, "seats_left": {"type": "integer"},
    "gate": {"type": "string", "enum": list(rules.GATES)}, "gate_words": {"type": "string"},
    "rated": {"type": "boolean"}, "clock": {"type": "string"}, "options": {"type": "object"},
    "created_at": {"type": "string"}, "wait_until": {"type": "string"}}}

#: The JSON routes above, merged into ``/api/openapi.json``.
OPENAPI_PATHS: dict[str, Any] = {
    "/api/tables": {"get": {
        "summary": "The open tables, newest first, a page at a time (never an address)",
        "parameters": [{"name": "page", "in": "query", "required": False,
                        "schema": {"type": "integer", "minimum": 1}}],
        "responses": {"200": {"description": "A page of open tables", "content": {
            "application/json": {"schema": {"type": "object", "properties": {
                "tables": {"type": "array", "items": {"$ref": "#/components/schemas/OpenTable"}},
                "total": {"type": "integer"}, "page": {"type": "integer"},
                "page_size": {"type": "integer"}}}}}}}}},
    "/api/tables/{table_id}/join": {"post": {
        "summary": "Ask to sit down: a seat is held and one link is mailed to the address; "
                   "its click seats the person. Never answered with a link",
        "parameters": [{"name": "table_id", "in": "path", "required": True,
                        "schema": {"type": "string", "maxLength": 24}}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["name", "email"], "properties": {
                "name": {"type": "string", "maxLength": 60},
                "email": {"type": "string", "maxLength": 320}}}}}},
        "responses": {
            "202": {"description": "A link is on its way to the address", "content": {
                "application/json": {"schema": {"type": "object", "properties": {
                    "message": {"type": "string"}, "held_until": {"type": "string"}}}}}},
            "400": {"description": "Refused in words (gate, address, cap, full, closed)"},
            "404": {"description": "No such table"},
            "429": {"description": "Too many asks from this network or for this address"}}}},
}

OPENAPI_SCHEMAS: dict[str, Any] = {"OpenTable": _TABLE}
