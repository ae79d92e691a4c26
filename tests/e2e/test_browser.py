"""A real browser (Debian's chromium, driven by Playwright) plays a game from the lobby.

Two people create a game, each opens their own link in a separate browser
context (separate cookies, like two phones), they play several turns by
clicking the buttons, then one opens the replay viewer and steps through it
with the links and the keyboard. Screenshots land in tests/e2e/screenshots/
(git-ignored) for a human to look at.
"""
from __future__ import annotations


import pytest

from tests.e2e.browsing import click_a_move, shot

pytestmark = pytest.mark.e2e


def test_two_people_play_from_the_lobby_and_watch_the_replay(server, browser):
    lobby_ctx = browser.new_context()
    lobby = lobby_ctx.new_page()
    lobby.goto(server + "/")
    lobby.fill("#name", "Browser game")
    lobby.fill("#seat0-name", "Ann")
    lobby.fill("#seat1-name", "Bob")
    shot(lobby, "01-lobby")
    lobby.get_by_role("button", name="Create the game").click()
    lobby.wait_for_load_state()
    assert "/created/" in lobby.url
    links = lobby.locator("input.link").evaluate_all("inputs => inputs.map(i => i.value)")
    assert len(links) == 2 and all(link.startswith(server + "/play/") for link in links)
    shot(lobby, "02-links")

    ann_ctx = browser.new_context()
    bob_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    ann, bob = ann_ctx.new_page(), bob_ctx.new_page()
    ann.goto(links[0])
    bob.goto(links[1])
    assert "playing as Ann" in ann.content() and "playing as Bob" in bob.content()
    shot(ann, "03-ann-start")
    shot(bob, "04-bob-start-phone")

    moves = []
    for _ in range(40):
        if len(moves) >= 10:
            break
        for page in (ann, bob):
            page.reload()
            if page.locator('#actions button[type="submit"]').count():
                moves.append(click_a_move(page))
                flash = page.locator(".flash.success")
                assert flash.count() == 1 and flash.inner_text().strip()
                break
        else:
            pytest.fail("nobody had a move to make")
    assert len(moves) >= 10
    shot(ann, "05-ann-after-moves")
    shot(bob, "06-bob-after-moves-phone")
    assert ann.locator(".village.mine .card").count() >= 5

    ann.get_by_role("link", name="Replay what you saw").click()
    ann.wait_for_load_state()
    assert "/replay" in ann.url and "token=" in ann.url
    assert "Move 0 of" in ann.locator(".replay-nav .pos").inner_text()
    ann.locator("#next").click()
    ann.wait_for_load_state()
    assert "Move 1 of" in ann.locator(".replay-nav .pos").inner_text()
    ann.locator("#next").click()
    ann.wait_for_load_state()
    assert "Move 2 of" in ann.locator(".replay-nav .pos").inner_text()
    ann.locator("#prev").click()
    ann.wait_for_load_state()
    assert "Move 1 of" in ann.locator(".replay-nav .pos").inner_text()
    assert ann.locator(".frame-move").inner_text().strip()
    shot(ann, "07-replay")

    # The script adds play/pause and keys: the arrow key follows the "next" link.
    assert ann.locator("#play").is_visible()
    with ann.expect_navigation():
        ann.keyboard.press("ArrowRight")
    assert "Move 2 of" in ann.locator(".replay-nav .pos").inner_text()
    ann.fill("#jump", "5")
    ann.get_by_role("button", name="Go").click()
    ann.wait_for_load_state()
    assert "Move 5 of" in ann.locator(".replay-nav .pos").inner_text()
    shot(ann, "08-replay-jump")

    # Play follows the "next" link by itself, frame after frame, until paused.
    with ann.expect_navigation():
        ann.locator("#play").click()
    assert "Move 6 of" in ann.locator(".replay-nav .pos").inner_text()
    assert ann.locator("#play").get_attribute("aria-pressed") == "true"
    ann.locator("#play").click()
    assert ann.locator("#play").get_attribute("aria-pressed") == "false"

    public = bob_ctx.new_page()
    game_link = lobby.get_by_role("link", name="Public page of the game").get_attribute("href")
    public.goto(server + game_link)
    assert "You are watching" in public.content()
    shot(public, "09-public-phone")
    for ctx in (lobby_ctx, ann_ctx, bob_ctx):
        ctx.close()
