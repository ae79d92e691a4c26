"""Inbound mail over HTTP, and the page that explains playing by replying.

``POST /inbound/mail`` is the form every inbound-mail relay can forward: the
raw RFC 5322 message as the body, the shared secret in ``X-Inbound-Secret``
(config ``INBOUND_SECRET``; without one the route is off), optionally the
envelope in ``X-Envelope-From`` / ``X-Envelope-To``. It stores the message
in the same inbox as the SMTP receiver and applies it at once. What the receiver
refuses is refused here too, with a 4xx and words, never a 500 (issue 17 item 5):
413 over 1 MB, 422 for too many MIME parts, parts nested too deep (measured without
recursion before anything parses the message) or no reply address of ours.
``GET /help/mail`` documents the commands.
"""
from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint, current_app, jsonify, render_template, request
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.exceptions import RequestEntityTooLarge

from app import i18n
from app.clock import deadlines as dl
from app.i18n import _
from app.db import get_engine
from app.inbound import inbox
from app.mail import commands, menu
from app.plans import aliases
from app.access.reply_address import mail_domain
from app.runners import inbound as runners_inbound
from app.web.errors import current_app_object
from app.web.doors import door

bp = Blueprint("inbound", __name__)

SECRET_HEADER = "X-Inbound-Secret"


def _error(status: int, message: str) -> Any:
    return jsonify({"error": message}), status


@bp.post("/inbound/mail")
@door("inbound secret", "storing a message for the reply reader, which checks it as SMTP mail")
def receive() -> Any:
    secret = str(current_app.config["INBOUND_SECRET"] or "")
    if not secret:
        return _error(404, "Inbound mail over HTTP is not enabled here (no INBOUND_SECRET).")
    given = request.headers.get(SECRET_HEADER, "")
    if not hmac.compare_digest(given.encode(), secret.encode()):
        return _error(403, f"The {SECRET_HEADER} header is missing or wrong.")
    request.max_content_length = inbox.MAX_BYTES
    try:
        raw = request.get_data(cache=False)
    except RequestEntityTooLarge:
        return _error(413, f"The message is larger than {inbox.MAX_BYTES} bytes.")
    if not raw.strip():
        return _error(400, "The body must be a raw RFC 5322 message.")
    mail_from = request.headers.get("X-Envelope-From")
    rcpt = [part.strip() for part in request.headers.get("X-Envelope-To", "").split(",")
            if part.strip()]
    domain = mail_domain()
    if rcpt and not any(r.rsplit("@", 1)[-1].lower().rstrip(".") == domain for r in rcpt):
        return _error(422, f"None of the recipients is in our mail domain ({domain}).")
    if rcpt and not any(inbox.is_reply_address(r) for r in rcpt):
        return _error(422, "None of the recipients is a reply address of ours "
                           f"(play+<token>@{domain}).")
    try:
        stored = inbox.store(get_engine(), raw, via="http", mail_from=mail_from, rcpt=rcpt,
                             now=dl.now())
    except inbox.Refused as exc:
        return _error(exc.http, f"Refused: {exc}.")
    except SQLAlchemyError:
        current_app.logger.exception("could not store an inbound message")
        answer, status = _error(503, "The message could not be stored now; send it again later.")
        answer.headers["Retry-After"] = "60"
        return answer, status
    if stored.to_apply:
        try:
            runners_inbound.apply_one(current_app_object(), stored.id)
        except Exception:  # noqa: BLE001 - it is stored: the clock applies it later
            current_app.logger.exception("applying inbox row %s failed", stored.id)
    return jsonify({"stored": True, "duplicate": stored.duplicate, "id": stored.id}), 202


@bp.get("/help/mail")
@door("none", "how to play by mail")
def help_mail() -> Any:
    rows = []
    for kind, words in menu.WORDS.items():
        example = (_(menu.PATTERNS[kind]) if kind in menu.PATTERNS
                   else commands.command_for({"type": kind}))
        short = commands.command_for({"type": kind}) if kind in ("draw", "take", "call",
                                                                 "skip") else ""
        rows.append({"kind": kind, "words": _(words), "form": example, "short": short})
    # each language's words for the commands (issue 50): every game reads them all
    languages = [{"code": code, "name": i18n.NAMES[code], "example": _EXAMPLES[code],
                  "words": list(aliases.ALIASES[code].items())}
                 for code in i18n.LANGUAGES if code in aliases.ALIASES]
    return render_template("help_mail.html", rows=rows, domain=mail_domain(),
                           aliases=commands.ALIASES, command_languages=languages)


#: A whole turn in one reply, in each language's words (``/help/mail``).
_EXAMPLES = {"de": "ZIEHEN, BEHALTEN AUF 2 WENN 3 ODER WENIGER, SONST ABLEGEN",
             "ja": "引く、3以下なら2にキープ、それ以外は捨てる"}
