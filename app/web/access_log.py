"""The access log: one line per request that is safe to keep (logger ``app.access``).

Why our own and not gunicorn's: gunicorn's line has the raw path and query, and a
seat's path *is* its key. Ours (gunicorn's access log stays off, gunicorn.conf.py)
names the route (the URL rule, ``/play/<token>/act``) when one matched, else the
path with every token masked (``app.access.masking``), never the query string (its
parameter names only), and no client address (the proxy in front has it, and it
is personal data we need not keep): method, route, masked path, status, duration
in ms, response bytes, and a request id. The
request id comes from the proxy's ``X-Request-Id`` when it is a plain short word,
else is made here, and is sent back in ``X-Request-Id`` so a person's report of a
failure can be found in the log.
"""
from __future__ import annotations

import logging
import re
import uuid
from typing import Any

from flask import request

from app.access import masking
from app.web import metrics

log = logging.getLogger("app.access")

#: A request id a proxy may hand us (anything else is replaced, not logged).
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
#: Where the id is kept: the WSGI environ is the request's own (``g`` may outlive it).
REQUEST_ID_KEY = "silver_eye.request_id"


def request_id() -> str:
    """This request's id (the proxy's, or a fresh one), made once."""
    found = request.environ.get(REQUEST_ID_KEY)
    if found is None:
        given = request.headers.get("X-Request-Id", "")
        found = request.environ[REQUEST_ID_KEY] = (
            given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex)
    return str(found)


def write_line(response: Any) -> Any:
    """``after_request``: the request's line, and its id on the response."""
    ident = request_id()
    response.headers.setdefault("X-Request-Id", ident)
    route = metrics.route_of_request()
    duration_ms = round(metrics.elapsed_seconds() * 1000, 1)
    size = response.calculate_content_length() if not response.is_streamed else None
    path = masking.mask_path(request.path)
    log.info("%s %s %s %sms", request.method, route if route != metrics.UNMATCHED else path,
             response.status_code, duration_ms,
             extra={"method": request.method, "route": route, "path": path,
                    "query_keys": sorted(request.args.keys()),
                    "status": response.status_code, "duration_ms": duration_ms,
                    "bytes": size, "request_id": ident})
    return response


def init_app(app: Any) -> None:
    app.after_request(write_line)
