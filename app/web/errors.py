"""Errors in words: JSON for ``/api/``, an HTML page for everything else.

A link that does not open a seat gets a 403 page that explains why and offers
to email the seat's current link; that request is a POST (GET never changes
anything) and only ever mails the address on record.
"""
from __future__ import annotations

import logging
from typing import Any, cast

from flask import Blueprint, Flask, jsonify, make_response, render_template, request
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from app import i18n, services
from app.access import tokens
from app.i18n import N_, _
from app.services import address_move
from app.web import input_guard
from app.web.doors import door

log = logging.getLogger(__name__)
bp = Blueprint("errors", __name__)
bp.before_app_request(input_guard.check_request)

#: Plain words for the HTTP errors Flask raises by itself.
PLAIN_WORDS = {
    400: N_("The request was not understood."),
    403: N_("This link does not open anything here."),
    404: N_("There is nothing at this address."),
    405: N_("This address does not take that kind of request."),
    409: N_("The game moved on; reload to see where it is now."),
    413: N_("The request is too large."),
    415: N_("Send JSON with Content-Type: application/json."),
    422: N_("That move is not allowed now."),
    500: N_("Something went wrong on our side. Please reload the page to see where the game "
            "stands before trying again."),
}


#: Reasons a seat link was refused; these pages offer to mail the current link.
LINK_REASONS = ("invalid", "unknown", "revoked")


def current_app_object() -> Flask:
    """The app behind flask's ``current_app`` proxy, for work that outlives the request
    (a callback after the answer, a worker given the app), where the proxy is unbound.

    Flask declares the proxy as a ``Flask`` (so ``_get_current_object``, werkzeug's way
    to unwrap it, is unknown to the type checker); the cast says what it really is."""
    from flask import current_app
    from werkzeug.local import LocalProxy

    return cast("LocalProxy[Flask]", current_app)._get_current_object()


def wants_json() -> bool:
    return request.path.startswith("/api/")


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None,
                   token: str | None = None, offer: bool = False) -> Any:
    """The error as JSON (API) or as the error page.

    A refused seat link (and a fresh-link request that lacks a field) shows the
    fresh-link form, its game field pre-filled with the game the link names.
    """
    details = details or {}
    if wants_json():
        body = {"error": code, "message": message}
        body.update({k: v for k, v in details.items() if k in ("reason", "seq")})
        return jsonify(body), status
    offer = offer or (status == 403 and details.get("reason") in LINK_REASONS)
    game_id = details.get("game_id") or (tokens.seat_token_game_hint(token) if offer else None)
    return render_template("error.html", status=status, message=message,
                           reason=details.get("reason"), offer_fresh_link=offer,
                           token=token, game_id=game_id, no_referrer=True), status


@bp.app_errorhandler(services.ServiceError)
def service_error(exc: services.ServiceError) -> Any:
    token = (request.view_args or {}).get("token")
    if exc.details.get("reason") == "revoked" and token and _moved_seat(token):
        # an old address's link after its person moved (issue 47 item 5): said in words,
        # the new address never named, and no offer to mail the current link there
        return error_response(exc.status, exc.code, _(address_move.SEAT_MOVED),
                              {"reason": "moved"}, token=token)
    return error_response(exc.status, exc.code, exc.message, exc.details, token=token)


def _moved_seat(token: str) -> bool:
    """Whether a replaced seat link was an old address's, replaced by its person's move."""
    try:
        ref = tokens.read_seat_token(token)
    except tokens.BadToken:
        return False
    return address_move.seat_moved(ref.game, ref.seat, ref.version)


@bp.app_errorhandler(input_guard.InputRefused)
def input_refused(exc: input_guard.InputRefused) -> Any:
    from app.web import language
    i18n.use(language.browser_language())  # refused before the request chose its language
    return error_response(exc.status, exc.code, _(exc.words, **exc.values))


#: What a person is told while the database is unreachable (a restart, a failover).
DATABASE_AWAY = N_("The server lost its database for a moment, so this request could not "
                   "finish, and nothing of it was saved. Reload in a minute to see where the "
                   "game stands, and make your move again if it is not there.")


@bp.app_errorhandler(OperationalError)
def database_away(exc: OperationalError) -> Any:
    """A dropped or refused database connection is a 503 with words and ``Retry-After``,
    never a 500 (issue 17 item 1: a PostgreSQL restart or failover is an outage, not a
    bug; the pool drops the broken connection, so a later request gets a fresh one).
    Only ``OperationalError`` (the server closed or refused the connection, SQLite's
    file locked or gone): a broken constraint or statement is a bug and stays a 500."""
    log.warning("database unreachable: %s", str(exc.orig or exc).splitlines()[0][:200])
    body, status = error_response(503, "database_unavailable", _(DATABASE_AWAY))
    response = make_response(body, status)
    response.headers["Retry-After"] = "30"
    return response


@bp.app_errorhandler(HTTPException)
def http_error(exc: HTTPException) -> Any:
    status = exc.code or 500
    plain = PLAIN_WORDS.get(status)
    message = _(plain) if plain else (exc.description or exc.name)
    if status == 400 and exc.description and "browser (or proxy)" not in exc.description:
        message = exc.description
    code = (exc.name or "error").lower().replace(" ", "_")
    body, status = error_response(status, code, message)
    response = make_response(body, status)
    if isinstance(exc, MethodNotAllowed) and exc.valid_methods:
        # RFC 9110: a 405 says which methods the address does take.
        response.headers["Allow"] = ", ".join(sorted(exc.valid_methods))
    return response


@bp.post("/fresh-link")
@door("none", "mailing a seat's current link to that seat's own address (the same "
      "answer for any game and address)")
def fresh_link() -> Any:
    """Mail a seat's current link to its address: from a replaced link, or game + email."""
    token = (request.form.get("token") or "").strip()
    game_id = (request.form.get("game") or "").strip()
    email = (request.form.get("email") or "").strip()
    seat: int | None = None
    if token:
        try:
            ref = tokens.read_seat_token(token)
        except tokens.BadToken:
            ref = None
        if ref is not None:
            game_id, seat = ref.game, ref.seat
    if not game_id or (seat is None and not email):
        # the form again, with the game the refused link (or the form) named
        return error_response(400, "bad_request",
                              _("Please give the game's id and the email address of your seat."),
                              {"game_id": game_id[:64] or None}, token=token or None, offer=True)
    answer = make_response(render_template(
        "error.html", status=200, notice=True, no_referrer=True,
        message=_("If that seat has an email address, its current link is on its way there. "
                  "Check your inbox in a few minutes (we send at most one such mail every ten "
                  "minutes).")))
    # The answer must not tell a matching address from another, not even by its
    # timing: the lookup and the mail happen after the answer has gone out, so
    # every request does the same work before it (tests/web/test_fresh_link.py).
    app = current_app_object()

    @answer.call_on_close
    def look_up_and_mail() -> None:
        with app.app_context():
            try:
                services.request_fresh_link(game_id, seat=seat, email=email or None)
            except Exception:  # noqa: BLE001 - nobody is waiting for this answer any more
                log.exception("fresh link for game %r failed", game_id[:80])

    return answer
