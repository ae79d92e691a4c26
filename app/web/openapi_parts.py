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
