"""Which language a request is answered in (issue 50 item 1), chosen once per request.

The order: a person's own choice once a route knows whose page it is (the seat page,
the settings and games pages call ``for_person``); else the ``lang`` cookie the switch
on every page sets; else the browser's ``Accept-Language``; else English. The answer
says it: ``<html lang>`` and ``Content-Language``.

Flask-Babel chooses (``locale_selector``) and formats in templates; the catalogues and
the language being written in live in ``app.i18n``, below every package, so that a
mail composed in this request for another reader is written in that reader's language
(``i18n.in_language``) and the page goes on in its own.

The switch at the foot of every page is a GET form to the page itself (``?lang=de``):
no action URL is written into the page (a seat page's link stays out of its HTML), the
page answers in that language and the browser keeps it in the ``lang`` cookie. Nothing
stored changes: a mail scanner opening such a link changes no one's setting.
"""
from __future__ import annotations

from typing import Any
from flask import Response, has_request_context, request
from flask_babel import Babel, refresh

from app import i18n
COOKIE = "lang"
YEAR = 365 * 24 * 3600


def asked() -> str | None:
    """The language the switch asked for in this very request (``?lang=``), if any."""
    return i18n.supported(request.args.get("lang"))


def browser_language() -> str:
    """The switch's, else the cookie's, else the browser's, else English."""
    return (asked() or i18n.supported(request.cookies.get(COOKIE))
            or i18n.negotiate(request.headers.get("Accept-Language")) or i18n.DEFAULT)


def for_person(chosen: str | None) -> str:
    """Answer this request in a person's chosen language (None: the browser's); the
    switch, used on this very request, wins."""
    code = asked() or i18n.supported(chosen) or browser_language()
    i18n.use(code)
    return code


def _choose() -> None:
    i18n.use(browser_language())


def _say(response: Response) -> Response:
    response.headers.setdefault("Content-Language", i18n.current())
    code = asked()
    if code is not None and request.cookies.get(COOKIE) != code:
        response.set_cookie(COOKIE, code, max_age=YEAR, samesite="Lax",
                            secure=request.is_secure, httponly=True)
    vary = response.headers.get("Vary", "")
    if "Accept-Language" not in vary:
        response.headers["Vary"] = f"{vary}, Accept-Language" if vary else "Accept-Language"
    return response


def _done(_exc: BaseException | None) -> None:
    i18n.use(i18n.DEFAULT)  # a worker thread's next request starts from nothing


def _refresh_if_in_request() -> None:
    if has_request_context():
        refresh()


def script_words() -> dict[str, str]:
    """What the pages' scripts say (static/seat.js, push.js, replay.js), in the page's
    language: written into every page as JSON (``<script type="application/json"
    id="words">``, data, never run), filled in by the scripts with ``%(name)s`` as here.
    Lists are joined by the browser's ``Intl.ListFormat`` in ``<html lang>``."""
    _ = i18n.gettext
    return {
        "tick_first": _("Tick the cards, then press the button."),
        "too_many": _("That is %(count)s cards: tick at most %(most)s."),
        "exchange": _("Exchange %(cards)s"),
        "exchange_for": _("Exchange %(cards)s for the %(hand)s"),
        "they_match": _("%(sentence)s: they match, so they all go to the pile"),
        "must_match": _("%(sentence)s: they must match (if they don't, all stay and the new "
                        "card joins an end)"),
        "peek": _("Peek at %(cards)s"),
        "undermine": _("Underminer: swap %(cards)s with %(pile)s"),
        "two_village": _("two village cards"),
        "two_pile": _("two pile cards"),
        "titled": _("%(title)s: %(cards)s"),
        "of_most": _("%(sentence)s (%(count)s of up to %(most)s)"),
        "more": _("%(sentence)s — tick %(count)s more"),
        "end": _("%(sentence)s."),
        "push_stop": _("Stop notifying this browser"),
        "push_start": _("Notify this browser of my turns"),
        "push_no": _("The server said no."),
        "push_stopped": _("Done: this browser gets no more notices from here."),
        "push_refused": _("Your browser did not allow notices: nothing changed. Mail comes "
                          "as before."),
        "push_done": _("Done: your turns come to this browser (%(shown)s)."),
        "push_failed": _("That did not work: %(error)s"),
        "pause": _("❚❚ Pause"),
        "play": _("▶ Play"),
    }


def init_app(app: Any) -> None:
    Babel(app, locale_selector=i18n.current, default_translation_directories=str(
        i18n.TRANSLATIONS), default_domain=i18n.DOMAIN)
    i18n.install(app.jinja_env)
    i18n.on_switch(_refresh_if_in_request)
    app.before_request(_choose)
    app.after_request(_say)
    app.teardown_request(_done)
    app.jinja_env.globals.update(html_lang=i18n.current, languages=i18n.NAMES,
                                 script_words=script_words)
