"""Web Push delivery (issue 49, part of ``make bench``): due → handed to the push endpoint.

Mails of a seat that has a Web Push subscription are committed at random moments while
the production waker runs (``runners.waker.Waker``: the mail, then the notices); a local
push endpoint (plain HTTP on loopback, ``PUSH_ALLOW_LOOPBACK``) plays the push service,
decrypts each push as the browser would (``http_ece``) and notes when it arrived. The
server's whole path is timed: the waker's wake-up, the sender's checks, the fan-out,
the notice runner's checks, the encryption and VAPID signature, the POST. p50/p99 when
idle (one seat, nothing else running), beside the mail of the same rows.

SQLite in a temp folder, and PostgreSQL when ``BENCH_DATABASE_URL`` or
``TEST_DATABASE_URL`` reaches one. Timings only: what is right is the tests' business
(tests/mail/test_web_push.py).
"""
from __future__ import annotations

import base64
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.talk_bench import (MARKER, _app, _stores, ann_against_a_bot, beside_mail,
                               smtp_sink, waking)

PUSHES = 60
SPREAD_SECONDS = 12.0


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _run(url: str) -> tuple[list[float], list[float]]:
    """(mail seconds, push seconds) from commit to arrival, for ``PUSHES`` rows."""
    import http_ece
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from app.channels import push

    mailed: dict[int, float] = {}
    pushed: dict[int, float] = {}
    key = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    point = key.public_key().public_bytes(serialization.Encoding.X962,
                                          serialization.PublicFormat.UncompressedPoint)

    class PushService(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            arrived = time.time()
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()
            words = http_ece.decrypt(body, private_key=key, auth_secret=auth,
                                     version="aes128gcm").decode("utf-8", "replace")
            found = MARKER.search(words)
            if found:
                pushed.setdefault(int(found.group(1)), arrived)

        def log_message(self, *args: Any) -> None:
            pass

    smtp, smtp_port = smtp_sink(mailed)
    endpoint = ThreadingHTTPServer(("127.0.0.1", 0), PushService)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    private, public = push.generate_keys()
    app = _app(url, MAIL_BACKEND="smtp", SMTP_URL=f"smtp://127.0.0.1:{smtp_port}",
               MAIL_PER_ADDRESS_PER_HOUR=0, PUSH_ALLOW_LOOPBACK=True,
               VAPID_PRIVATE_KEY=private, VAPID_PUBLIC_KEY=public)
    with app.app_context():
        created = ann_against_a_bot(app, "3001")
        client = app.test_client()
        answer = client.post(f"/api/play/{created.tokens[0]}/push", json={
            "endpoint": f"http://127.0.0.1:{endpoint.server_address[1]}/push/ann",
            "keys": {"p256dh": _b64(point), "auth": _b64(auth)}})
        assert answer.status_code == 201, answer.get_json()
        # a kind the browser is pushed (``push.KINDS``: a round summary is not) that waits
        # for no deadline: "you are marked away"
        due = waking(app, created.game_id, "push", PUSHES, SPREAD_SECONDS,
                     {"mails": mailed, "pushes": pushed}, kind="you_absent")
    smtp.stop()
    endpoint.shutdown()
    return ([mailed[n] - due[n] for n in mailed], [pushed[n] - due[n] for n in pushed])


def main() -> None:
    print(f"push delivery, due -> handed to the push endpoint: {PUSHES} mails of a seat with "
          f"a Web Push subscription, committed at random moments over {SPREAD_SECONDS:.0f} s, "
          "the production waker sending")
    for name, url in _stores():
        beside_mail(name, "push", *_run(url))


if __name__ == "__main__":
    main()
