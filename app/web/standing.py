"""Standing pages (issue 47 item 4): a person's public page, the leaderboard, and their
JSON. No key opens them, because nothing on them is private: the name a person chose,
their record in words, their rating and their last ended games, addressed by a random
public id; never an address, never a seat link. A person who hides their standing shows
only their tier here (``app.services.standing``).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, render_template

from app.services import standing
from app.standing.record import tier_word
from app.web.doors import door

bp = Blueprint("standing", __name__)


@bp.get("/people/<public_id>")
@door("none", "a person's public standing: chosen name, record in words, rating, last "
      "ended games (only the tier when they hide it); never an address")
def person(public_id: str) -> Any:
    return render_template("standing_person.html", p=standing.person_page(public_id),
                           tier_word=tier_word)


@bp.get("/api/people/<public_id>")
@door("none", "a person's public standing: chosen name, record in words, rating, last "
      "ended games (only the tier when they hide it); never an address")
def person_json(public_id: str) -> Any:
    return jsonify(standing.person_page(public_id))


@bp.get("/leaderboard")
@door("none", "the rated people with enough rated games, best first (names, ratings, "
      "records; never an address)")
def leaderboard() -> Any:
    return render_template("leaderboard.html", board=standing.leaderboard(),
                           min_games=standing.LEADERBOARD_MIN_GAMES)


@bp.get("/api/leaderboard")
@door("none", "the rated people with enough rated games, best first (names, ratings, "
      "records; never an address)")
def leaderboard_json() -> Any:
    return jsonify({"min_games": standing.LEADERBOARD_MIN_GAMES,
                    "people": standing.leaderboard()})


#: The routes above, merged into the OpenAPI document (``api.openapi_document``).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/people/{public_id}": {"get": {
        "summary": "A person's standing: the name they chose, their reliability record in "
                   "words, their rating (provisional while unsure) and last ended games; "
                   "only the tier (new, reliable, unreliable) when they hide it",
        "parameters": [{"name": "public_id", "in": "path", "required": True,
                        "schema": {"type": "string", "maxLength": 24}}],
        "responses": {"200": {"description": "The person's standing",
                              "content": {"application/json": {"schema": {
                                  "$ref": "#/components/schemas/Standing"}}}},
                      "404": {"description": "Nobody has this id"}}}},
    "/api/leaderboard": {"get": {
        "summary": "Rated people with at least `min_games` rated games, best first",
        "responses": {"200": {"description": "The leaderboard",
                              "content": {"application/json": {"schema": {
                                  "type": "object", "properties": {
                                      "min_games": {"type": "integer"},
                                      "people": {"type": "array", "items": {
                                          "$ref": "#/components/schemas/Standing"}}}}}}}}}},
}

OPENAPI_SCHEMAS: dict[str, Any] = {"Standing": {"type": "object", "properties": {
    "public_id": {"type": "string"}, "name": {"type": "string"},
    "tier": {"type": "string", "enum": ["new", "reliable", "unreliable"]},
    "record": {"type": "string"}, "rating": {"type": ["integer", "null"]},
    "provisional": {"type": "boolean"}, "rated_games": {"type": "integer"},
    "hidden": {"type": "boolean"}, "games": {"type": "array", "items": {"type": "object"}}}}}
