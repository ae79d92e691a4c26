"""Table talk on the web (issue 20 items 1 and 4): the seat page's talk box, the
creator's hide and spectators switch, a seat's mute, and the JSON routes.

``OPENAPI_PATHS`` describes the JSON routes; ``app.web.api.openapi_document`` merges it.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

bp = Blueprint("talk", __name__)

#: OpenAPI path items of the JSON routes here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {}
