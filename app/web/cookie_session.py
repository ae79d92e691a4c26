"""The signed-cookie session (a page's flashed words), opened only when there is one.

Flask opens its session on every request, and its cookie interface builds an
itsdangerous signer before it looks for the cookie: about 2 % of a web worker's CPU in
``python -m bench peer-lived`` (issue 30), on requests that never carry the cookie (the
JSON calls of every move, a mail link's first visit). A request without the cookie gets
the same empty session Flask would give it, without the signer; one with it is read by
Flask's own code. Without a secret key Flask's answer (no session) is kept too.
"""
from __future__ import annotations

from typing import Any

from flask.sessions import SecureCookieSession, SecureCookieSessionInterface


class LeanCookieSessionInterface(SecureCookieSessionInterface):
    """Flask's interface, but a request with no session cookie is answered first."""

    def open_session(self, app: Any, request: Any) -> SecureCookieSession | None:
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)


def init_app(app: Any) -> None:
    app.session_interface = LeanCookieSessionInterface()
