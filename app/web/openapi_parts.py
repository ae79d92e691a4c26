"""The pieces every OpenAPI path item of the JSON routes is built from (``api``,
``talk``, ``targets`` describe their routes beside them; ``api.openapi_document``
merges them): one seat-token parameter, one error answer, one JSON answer."""
from __future__ import annotations

from typing import Any

#: The ``{token}`` path parameter of every seat route.
TOKEN: dict[str, Any] = {"name": "token", "in": "path", "required": True,
                         "schema": {"type": "string"},
                         "description": "The signed token of a seat link (/play/<token>)."}


def error(description: str) -> dict[str, Any]:
    """An error answer: ``{"error", "message"}`` (components/schemas/Error)."""
    return answer("Error", description)


def answer(ref: str, description: str) -> dict[str, Any]:
    """A JSON answer whose body is the schema ``ref`` of components/schemas."""
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


#: The 403 of every seat route.
BAD_LINK = error("The link is forged, belongs to no seat, or was replaced.")


# -- deciding ahead (issue 35): a plan for the rest of a turn, standing orders -----------

_PLAN_BODY = {"type": "object", "description": (
    "Either `words` as in a reply (\"DRAW, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD\"; "
    "\"ALWAYS PEEK 1 2; ALWAYS SKIP SPLIT SEER\"; \"NO ORDERS\"), or the JSON form: a "
    "`plan` of steps, each a list of choices (an action, optionally `if` a condition on "
    "the card held: `{\"compare\": \"le\", \"value\": 3}`, `{\"compare\": \"lt\", "
    "\"mine\": 2}` for your card #3, `{\"name\": \"Simon\"}`), the first whose condition "
    "holds taken; `orders` (each a step with `on`, the decision it answers: peek, drawn, "
    "seer...); `clear_orders`; `cancel` (the waiting plan). Positions count from 0."),
    "properties": {
        "words": {"type": "string", "maxLength": 200},
        "plan": {"$ref": "#/components/schemas/Plan"},
        "orders": {"type": "array", "maxItems": 8, "items": {"$ref": "#/components/schemas/Step"}},
        "clear_orders": {"type": "boolean"}, "cancel": {"type": "boolean"},
        "expected_seq": {"type": "integer", "minimum": 0,
                         "description": "When the plan's first step is your decision now: "
                                        "the step it was decided on"}}}

#: The plan routes (``app.web.api``), merged into the OpenAPI document.
PLAN_PATHS: dict[str, Any] = {"/api/play/{token}/plan": {
    "get": {"summary": "The seat's plan, standing orders and what they last did",
            "parameters": [TOKEN],
            "responses": {"200": answer("PlanState", "Plan, orders, told"), "403": BAD_LINK}},
    "post": {"summary": "Decide ahead: a plan for the rest of the turn and/or standing orders",
             "description": "A plan whose first step is the seat's decision now is played at "
                            "once as the seat's own moves, as far as it goes; one whose turn "
                            "has not come waits (and is shown, and may be cancelled). A step "
                            "the rules refuse stops the plan, in words.",
             "parameters": [TOKEN],
             "requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"$ref": "#/components/schemas/PlanBody"}}}},
             "responses": {"200": answer("PlanSent", "Played, kept or changed"),
                           "400": error("The words or the JSON cannot be read (why)"),
                           "403": BAD_LINK, "409": error("The game moved on"),
                           "415": error("Not JSON"),
                           "422": error("The plan cannot start now (why)")}},
    "delete": {"summary": "Cancel the waiting plan (standing orders stay)",
               "parameters": [TOKEN],
               "responses": {"200": answer("PlanState", "What is left"), "403": BAD_LINK,
                             "422": error("The game is over: no plan is kept for it")}}}}

PLAN_SCHEMAS: dict[str, Any] = {
    "PlanBody": _PLAN_BODY,
    "Choice": {"type": "object", "required": ["action"], "properties": {
        "action": {"$ref": "#/components/schemas/Action"},
        "if": {"type": "object", "properties": {
            "compare": {"type": "string", "enum": ["le", "ge", "lt", "gt", "eq", "ne"]},
            "value": {"type": "integer"}, "mine": {"type": "integer", "minimum": 0},
            "name": {"type": "string"}}}}},
    "Step": {"type": "object", "required": ["choices"], "properties": {
        "on": {"type": "string"}, "text": {"type": "string"},
        "choices": {"type": "array", "minItems": 1, "maxItems": 4,
                    "items": {"$ref": "#/components/schemas/Choice"}}}},
    "Plan": {"type": "object", "required": ["steps"], "properties": {
        "text": {"type": "string"},
        "steps": {"type": "array", "minItems": 1, "maxItems": 8,
                  "items": {"$ref": "#/components/schemas/Step"}}}},
    "PlanState": {"type": "object", "properties": {
        "plan": {"type": ["object", "null"], "description": "The waiting plan: text, words "
                 "(what it will do), at (steps played), plan (its JSON)"},
        "orders": {"type": "array", "items": {"type": "object"}},
        "told": {"type": "array", "items": {"type": "string"},
                 "description": "What the last plan or order did, in words"}}},
    "PlanSent": {"type": "object", "properties": {
        "what": {"type": "string", "enum": ["played", "waiting", "orders", "already"]},
        "words": {"type": "array", "items": {"type": "string"}},
        "seq": {"type": ["integer", "null"], "description": "The step after what was played "
                "now (null: nothing was played yet)"},
        "state": {"$ref": "#/components/schemas/PlanState"}}},
}
