"""The headers every response carries: CSP on HTML, HSTS behind TLS, no Referer, no sniffing.

Why each:

- ``Referrer-Policy: no-referrer``: seat links carry their token in the URL, and a
  Referer would hand it to any site a page links to.
- ``Content-Security-Policy`` (HTML only): scripts only from ``/static`` (or an inline
  ``<script nonce="{{ csp_nonce() }}">``: the nonce is fresh per response), no plugins,
  no ``<base>``, forms post only here, and no site may frame a page (clickjacking a
  "Play" button). ``style-src`` allows ``'unsafe-inline'`` because the templates use
  ``style=`` attributes and a ``<style>`` block (the round summary), and the mail HTML
  that ``/dev/mail/<name>`` shows in an ``<iframe srcdoc>`` (which inherits this
  policy) is inline-styled by design: mail clients drop style sheets. Styles cannot
  run code; scripts stay locked. Web Push (issue 49) needs nothing more: the service
  worker ``/sw.js`` is a script of this site (``worker-src`` falls back to
  ``script-src 'self'``), the manifest too (``manifest-src`` to ``default-src``), the
  button is ``/static/push.js`` and posts here (``connect-src 'self'``); the browser
  test (tests/e2e/test_push_browser.py) runs all of it under this policy.
- ``Strict-Transport-Security``: only on a request that came over https (directly, or
  through ``PROXY_FIX``'s trusted ``X-Forwarded-Proto``) or when ``BASE_URL`` is
  https (the site is behind TLS); ``HSTS_MAX_AGE`` (0: never sent).
- ``X-Content-Type-Options: nosniff`` and ``X-Frame-Options: DENY`` (older browsers).
"""
from __future__ import annotations

import secrets
from typing import Any

from flask import request

from app.config import setting

#: The policy, without the per-response script nonce.
POLICY = ("default-src 'self'", "script-src 'self'{nonce}", "style-src 'self' 'unsafe-inline'",
          "img-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
          "form-action 'self'", "frame-ancestors 'none'")

#: The nonce is kept in the WSGI environ: the request's own (``g`` may outlive it).
NONCE_KEY = "silver_eye.csp_nonce"


def csp_nonce() -> str:
    """This response's script nonce (made on first use), for an inline ``<script>``."""
    nonce = request.environ.get(NONCE_KEY)
    if nonce is None:
        nonce = request.environ[NONCE_KEY] = secrets.token_urlsafe(16)
    return str(nonce)


def content_security_policy(nonce: str | None) -> str:
    return "; ".join(POLICY).format(nonce=f" 'nonce-{nonce}'" if nonce else "")


def behind_tls() -> bool:
    """Whether this request reached us over https, or the site says it lives behind TLS."""
    return request.is_secure or str(setting("BASE_URL")).lower().startswith("https://")


def add_headers(response: Any) -> Any:
    """``after_request``: the headers above (a view that set its own keeps it)."""
    headers = response.headers
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    if response.mimetype == "text/html":
        nonce = request.environ.get(NONCE_KEY)  # set when the template asked for one
        headers.setdefault("Content-Security-Policy", content_security_policy(nonce))
    max_age = int(setting("HSTS_MAX_AGE") or 0)
    if max_age > 0 and behind_tls():
        headers.setdefault("Strict-Transport-Security", f"max-age={max_age}")
    return response


def init_app(app: Any) -> None:
    app.after_request(add_headers)
    app.jinja_env.globals["csp_nonce"] = csp_nonce
