"""In a browser, players follow only the links of their mails (file mailbox, /dev/mail).

A game is created in the lobby; the clock writes its mails to instance/mail;
each player opens the development mailbox, reads their newest "your turn"
mail, follows its link to their seat and moves. Nobody types a seat URL.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browsing import SHOTS, click_a_move

pytestmark = pytest.mark.e2e

def open_newest_turn_mail(page: Any, base: str, who: str) -> bool:
    """In the mailbox, open ``who``'s newest "your turn" mail; False if there is none."""
    page.goto(base + "/dev/mail")
    # every mail of a game has the game's subject (one thread); the file's name says
    # its kind: <outbox id>-turn.eml
    rows = page.locator("table.mailbox tr", has_text=who).filter(
        has=page.locator("a[href$='-turn.eml']"))
    if rows.count() == 0:
        return False
    rows.first.locator("a").click()
    page.wait_for_load_state()
    return True


def test_players_play_by_following_the_links_in_their_mail(live_mailbox, browser):
    from app import services
    from app.runners import clock

    base, app = live_mailbox.base, live_mailbox.app
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
    assert page.locator("table.mailbox a[href$='-invitation.eml']").count() == 2
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
            while page.locator('#actions button[type="submit"]').count():
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

    from app.gamelog import store
    from app.db import read_session

    with read_session() as session:
        return [g.id for g in session.exec(select(store.Game))]
