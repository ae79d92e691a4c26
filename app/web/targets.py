"""Notice targets on the web (issue 20 items 3 and 4): a seat lists, adds, tests and
removes its targets (Discord, Slack, Matrix, ntfy, Telegram, JSON webhooks), on its
page and by JSON, and says whether mail still comes beside them.

``OPENAPI_PATHS`` describes the JSON routes; ``app.web.api.openapi_document`` merges it.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

bp = Blueprint("targets", __name__)

#: OpenAPI path items of the JSON routes here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {}
