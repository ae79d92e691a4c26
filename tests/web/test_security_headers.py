"""CSP on every HTML page, HSTS only behind TLS, never a Referer (issue 19 item 5)."""
from __future__ import annotations

import re
from datetime import datetime, timezone

from flask import render_template_string

from app import create_app
from app.runners import clock
from tests.conftest import TEST_SECRET_KEY


def policy(response) -> dict[str, str]:
    header = response.headers["Content-Security-Policy"]
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in header.split("; ")}


def test_an_html_page_carries_a_policy_that_runs_only_our_own_scripts(client, new_game):
    token = new_game().tokens[0]
    for page in (client.get("/"), client.get(f"/play/{token}"), client.get("/rules")):
        assert page.status_code == 200
        csp = policy(page)
        sources = csp["script-src"].split()
        assert sources[0] == "'self'", csp["script-src"]
        # beyond our own files, only the one script this response marked (the seat
        # page's time-zone preselect): never inline script at large, never eval
        assert all(re.fullmatch(r"'nonce-[A-Za-z0-9_-]{16,}'", extra) for extra in sources[1:])
        for extra in sources[1:]:
            assert f'nonce="{extra[7:-1]}"' in page.get_data(as_text=True)
        assert csp["object-src"] == "'none'" and csp["base-uri"] == "'none'"
        assert csp["frame-ancestors"] == "'none'" and csp["form-action"] == "'self'"
        assert csp["default-src"] == "'self'"
        assert page.headers["X-Content-Type-Options"] == "nosniff"
        assert page.headers["Referrer-Policy"] == "no-referrer"
        assert "Strict-Transport-Security" not in page.headers  # plain http, BASE_URL http


def test_json_answers_carry_no_policy_but_the_other_headers(client):
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200
    assert "Content-Security-Policy" not in answer.headers
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "no-referrer"


def test_an_error_page_has_the_policy_too(client):
    answer = client.get("/play/not-a-token")
    assert answer.status_code == 403 and policy(answer)["script-src"] == "'self'"


def test_hsts_over_https_only_and_never_when_switched_off(app, client):
    assert client.get("/", base_url="https://silver-eye.test").headers[
        "Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in client.get("/").headers
    app.config["BASE_URL"] = "https://silver-eye.test"  # the site lives behind TLS
    assert client.get("/").headers["Strict-Transport-Security"] == "max-age=31536000"
    app.config["HSTS_MAX_AGE"] = 0
    assert "Strict-Transport-Security" not in client.get(
        "/", base_url="https://silver-eye.test").headers


def test_a_trusted_proxy_saying_https_gets_hsts_an_untrusted_one_does_not(
        database_url, tmp_path):
    from app.db import upgrade

    upgrade(database_url)
    settings = {"TESTING": True, "DATABASE_URL": database_url, "SECRET_KEY": TEST_SECRET_KEY,
                "BASE_URL": "http://silver-eye.test", "INSTANCE_PATH": str(tmp_path / "i")}
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    behind = create_app({**settings, "PROXY_FIX": 1}).test_client()
    assert behind.get("/healthz", headers=https).headers[
        "Strict-Transport-Security"] == "max-age=31536000"
    bare = create_app(settings).test_client()
    assert "Strict-Transport-Security" not in bare.get("/healthz", headers=https).headers


def test_an_inline_script_runs_only_with_the_responses_own_nonce(app, client):
    @app.get("/test-nonce")
    def with_nonce() -> str:
        return render_template_string('<script nonce="{{ csp_nonce() }}">1</script>')

    first, second = client.get("/test-nonce"), client.get("/test-nonce")
    nonces = []
    for page in (first, second):
        nonce = re.search(r'nonce="([^"]+)"', page.get_data(as_text=True)).group(1)
        assert policy(page)["script-src"] == f"'self' 'nonce-{nonce}'"
        nonces.append(nonce)
    assert nonces[0] != nonces[1], "a fresh nonce per response"


def test_the_dev_mailbox_still_shows_the_mail_html_under_the_policy(app, client, new_game):
    new_game()
    clock.send_mail_due(app, datetime.now(timezone.utc))  # the file backend (default)
    app.config["DEBUG"] = True
    listing = client.get("/dev/mail")
    name = re.search(r"/dev/mail/(\d{9}-[a-z_]+\.eml)", listing.get_data(as_text=True)).group(1)
    message = client.get(f"/dev/mail/{name}")
    assert message.status_code == 200 and b"<iframe" in message.data and b"srcdoc=" in message.data
    csp = policy(message)
    # the srcdoc frame inherits this policy: the mail's inline styles must be allowed,
    # and a mail carries no script, so scripts stay our own only
    assert "'unsafe-inline'" in csp["style-src"] and csp["script-src"] == "'self'"
    assert b"&lt;script" not in message.data
