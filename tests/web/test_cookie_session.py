"""The flash cookie is read only when a request carries one (issue 30): a move's JSON
call gets the empty session Flask would give it, and a page's flashed words still
reach the next page."""
from __future__ import annotations

from flask import flash, get_flashed_messages, request

from app.web.cookie_session import LeanCookieSessionInterface


def test_a_request_without_the_cookie_gets_an_empty_session_and_no_cookie_back(app):
    assert isinstance(app.session_interface, LeanCookieSessionInterface)
    with app.test_request_context("/api/openapi.json"):
        opened = app.session_interface.open_session(app, request)
        assert opened is not None and dict(opened) == {} and not opened.modified
    answer = app.test_client().get("/api/openapi.json")
    assert "Set-Cookie" not in answer.headers


def test_words_flashed_on_one_request_are_read_on_the_next(app):
    @app.get("/_flash_test/say")
    def say():
        flash("Said at the table.", "success")
        return "ok"

    @app.get("/_flash_test/read")
    def read():
        return {"said": get_flashed_messages(with_categories=True)}

    client = app.test_client()
    assert "Set-Cookie" in client.get("/_flash_test/say").headers
    assert client.get("/_flash_test/read").json == {"said": [["success", "Said at the table."]]}
    assert client.get("/_flash_test/read").json == {"said": []}  # (read once)


def test_a_forged_cookie_opens_an_empty_session(app):
    with app.test_request_context("/", headers={"Cookie": "session=not-signed.by-us"}):
        assert dict(app.session_interface.open_session(app, request)) == {}
