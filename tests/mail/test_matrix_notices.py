"""A notice to Matrix reads as words, not Markdown (issue 34 item 5): apprise's Matrix
plugin put "# " before every title in the text a client shows ("# Your turn in …").

A homeserver double on 127.0.0.1 answers the client-server API as Synapse would (login,
join, send, logout) and keeps what it was sent; the notice goes through the real
``apprise_send`` with a ``matrix://`` target, the way the notice runner sends it."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app.runners import notices


@pytest.fixture
def homeserver() -> Iterator[tuple[int, list[tuple[str, str, Any]]]]:
    said: list[tuple[str, str, Any]] = []

    class Synapse(BaseHTTPRequestHandler):
        def answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8") if length else "{}"
            said.append((self.command, self.path, json.loads(raw or "{}")))
            body = json.dumps({"access_token": "t0ken", "user_id": "@ann:localhost",
                               "device_id": "DEV", "home_server": "localhost",
                               "room_id": "!table:localhost", "event_id": "$1",
                               "joined_rooms": ["!table:localhost"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = answer

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Synapse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], said
    finally:
        server.shutdown()
        server.server_close()


def test_a_turn_notice_to_matrix_has_no_stray_markdown_heading(homeserver):
    port, said = homeserver
    link = "http://silver-eye.test/play/abc"

    failed = notices.apprise_send(f"matrix://ann:secret@127.0.0.1:{port}/#table",
                                  "Your turn in Friday game", f"Draw a card: {link}")

    assert failed is None
    sent = [body for method, path, body in said
            if method == "PUT" and "/send/m.room.message/" in path]
    assert len(sent) == 1
    text = sent[0]["body"]
    assert not text.startswith("#") and "# " not in text, text
    assert text.splitlines() == ["Your turn in Friday game", f"Draw a card: {link}"]
