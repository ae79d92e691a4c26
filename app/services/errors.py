"""What a use case says when it cannot be carried out: an HTTP-like status and
words for the person who asked. Nothing here ever turns a race into a 500."""
from __future__ import annotations
from app.i18n import N_

from typing import Any



class ServiceError(Exception):
    """A request that cannot be carried out, with words for the person who made it."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class BadRequest(ServiceError):
    status, code = 400, "bad_request"


class Forbidden(ServiceError):
    """A link that does not open a seat (forged, foreign or replaced)."""

    status, code = 403, "forbidden"


class NotFound(ServiceError):
    status, code = 404, "not_found"


class Conflict(ServiceError):
    """The request was decided on an old state: "the game moved on" or "already applied"."""

    status, code = 409, "conflict"


class TooMany(ServiceError):
    """Too many requests of one kind from one place for now: try again later."""

    status, code = 429, "too_many"


class Illegal(ServiceError):
    """The engine refused the action; the message is the engine's."""

    status, code = 422, "illegal_action"


MOVED_ON = "The game moved on: {what} since this page was loaded (it is now at step {seq}). Nothing was changed; reload to see the current position."


ALREADY_APPLIED = "Already applied: this move was made at step {step}. Nothing was changed."


FORM_USED = N_("This form already created a game, so it was not used again. Check the "
               "details below and press “Create the game” to start another.")
