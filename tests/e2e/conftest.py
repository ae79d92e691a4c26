"""Browser fixtures: the app served on 127.0.0.1 in a thread, and Debian's chromium.

``live`` gives the server's address and the app itself (so a test can set up
a game through the services, in the server's own database); ``server`` is
just the address.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.e2e.browsing import CHROMIUM, LAUNCH_ARGS


@dataclass
class Live:
    base: str
    app: Any


@contextmanager
def serving(tmp_path: Path, **config: Any) -> Iterator[Live]:
    """The app on a free 127.0.0.1 port, in a thread, with its own migrated SQLite file."""
    from werkzeug.serving import make_server

    from app import create_app
    from app.db import get_engine, upgrade

    url = f"sqlite:///{tmp_path / 'e2e.db'}"
    upgrade(url)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "e2e-secret",
                      "INSTANCE_PATH": str(tmp_path / "instance"), **config})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    base = f"http://127.0.0.1:{httpd.server_port}"
    app.config["BASE_URL"] = base            # seat links point at this server
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Live(base, app)
    finally:
        httpd.shutdown()
        thread.join()
        get_engine(app).dispose()


@pytest.fixture
def live(tmp_path) -> Iterator[Live]:
    with serving(tmp_path) as served:
        yield served


@pytest.fixture
def live_mailbox(tmp_path) -> Iterator[Live]:
    """The same, with the file mailbox readable at /dev/mail (DEBUG), as under `make run`."""
    # turn mails leave at the next tick (no grace period: the test ticks by hand)
    with serving(tmp_path, DEBUG=True, MAIL_BACKEND="file", TURN_MAIL_DELAY_SECONDS=0) as served:
        yield served


@pytest.fixture
def server(live) -> str:
    return live.base


@pytest.fixture
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()

