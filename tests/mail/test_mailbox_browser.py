"""In a browser, players follow only the links of their mails (file mailbox, /dev/mail).

A game is created in the lobby; the clock writes its mails to instance/mail;
each player opens the development mailbox, reads their newest "your turn"
mail, follows its link to their seat and moves. Nobody types a seat URL.
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(__file__).resolve().parent.parent / "e2e" / "screenshots"
PREFERRED = ("peek", "draw", "discard", "exchange", "skip", "done")


@pytest.fixture
def live(tmp_path) -> Iterator[tuple[str, Any]]:
    """The app (DEBUG on, file mailbox) on a free 127.0.0.1 port, and the app itself."""
    from werkzeug.serving import make_server

    from app import create_app
    from app.db import get_engine, upgrade

    url = f"sqlite:///{tmp_path / 'mailbox.db'}"
    upgrade(url)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "e2e-mail", "DEBUG": True,
                      "MAIL_BACKEND": "file", "INSTANCE_PATH": str(tmp_path / "instance")})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    base = f"http://127.0.0.1:{httpd.server_port}"
    app.config["BASE_URL"] = base
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield base, app
    finally:
        httpd.shutdown()
        thread.join()
        get_engine(app).dispose()


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


def click_a_move(page: Any) -> None:
    buttons = page.locator('#actions button[name="action"]')
    values = buttons.evaluate_all("bs => bs.map(b => JSON.parse(b.value).type)")
    assert values, "the mail's link opened a seat with no move to make"
    kind = next((k for k in PREFERRED if k in values), values[0])
    button = buttons.nth(values.index(kind))
    folds = button.locator("xpath=ancestor::details")
    for index in range(folds.count()):
        fold = folds.nth(index)
        if fold.get_attribute("open") is None:
            fold.locator("xpath=./summary").click()
    button.click()
    page.wait_for_load_state()


def open_newest_turn_mail(page: Any, base: str, who: str) -> bool:
    """In the mailbox, open ``who``'s newest "your turn" mail; False if there is none."""
    page.goto(base + "/dev/mail")
    rows = page.locator("table.mailbox tr", has_text=who).filter(has_text="your turn")
    if rows.count() == 0:
        return False
    rows.first.locator("a").click()
    page.wait_for_load_state()
    return True


def test_players_play_by_following_the_links_in_their_mail(live, browser):
    from app import clock, services

    base, app = live
    page = browser.new_context().new_page()
    page.goto(base + "/")
    page.fill("#name", "Mailbox game")
    page.fill("#seat0-name", "Ann")
    page.fill("#seat0-email", "ann@example.com")
    page.fill("#seat1-name", "Bob")
    page.fill("#seat1-email", "bob@example.com")
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_load_state()
    clock.tick(app)

    page.goto(base + "/dev/mail")
    assert page.locator("table.mailbox tr", has_text="you are invited").count() == 2
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "mail-01-mailbox.png"), full_page=True)

    moves = 0
    opened: set[str] = set()
    for _ in range(12):
        progressed = False
        for who, name in (("ann@example.com", "Ann"), ("bob@example.com", "Bob")):
            if not open_newest_turn_mail(page, base, who):
                continue
            mail_url = page.url
            if mail_url in opened:
                continue  # already acted on this mail: wait for a newer one
            opened.add(mail_url)
            if moves == 0:
                page.screenshot(path=str(SHOTS / "mail-02-turn-mail.png"), full_page=True)
            page.locator("pre.mail-text a[href*='/play/']").first.click()
            page.wait_for_load_state()
            assert f"playing as {name}" in page.content()
            # The player makes moves until it is no longer their decision.
            while page.locator('#actions button[name="action"]').count():
                click_a_move(page)
                moves += 1
            clock.tick(app)
            progressed = True
        if moves >= 6:
            break
        assert progressed, "no new turn mail arrived for anyone"
    assert moves >= 6
    with app.app_context():
        (game_id,) = _game_ids(app)
        assert services.game_info(game_id).seq >= moves


def _game_ids(app: Any) -> list[str]:
    from sqlmodel import select

    from app import store
    from app.db import read_session

    with read_session() as session:
        return [g.id for g in session.exec(select(store.Game))]
