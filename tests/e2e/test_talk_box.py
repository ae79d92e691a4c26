"""Issue 20 item 1 in a real browser: the talk box on a seat page.

axe-core at 390 and 1280 px on seat pages with a few messages (one hidden, one as
long as the table takes, with an unbroken link in it): no serious or critical
violation, headings in order, nothing scrolling sideways. Then a person types a
message and sends it; the other seat's open page shows it by itself (seat.js asks the
``/seq`` probe, whose answer now carries the newest talk id), and a message half typed
there is still in its box after that update.
"""
from __future__ import annotations

from typing import Any

import pytest

from app import services
from app.clock.time import utcnow
from app.db import write_session
from app.services import talk as talk_service
from tests.e2e.browsing import shot
from tests.e2e.test_a11y import WIDTHS, in_app, problems, report

pytestmark = pytest.mark.e2e

PEOPLE = [("Ann", "ann@example.com"), ("Bob", "bob@example.com"), ("Cid", "cid@example.com")]
LONG = ("Look at this: https://example.com/" + "a" * 120 + " and then " +
        "a fairly long sentence about the werewolves at this table. " * 8)[:500]


def table_with_talk(live: Any) -> Any:
    """A three-seat game where Bob, Cid and Ann said a few things; Ann hid one."""
    def make() -> Any:
        created = services.create_game([{"name": n, "email": e} for n, e in PEOPLE],
                                       name="Talk in the browser", seed="77")
        with write_session() as session:
            for seat, text in ((1, "hello all, gl hf"), (2, "something rude"), (2, LONG),
                               (0, "<b>not bold</b> & fine")):
                talk_service.post(session, created.game_id, seat, text, key=None,
                                  source="page", now=utcnow())
        rude = next(line for line in talk_service.json_lines(created.game_id, 0)[0]
                    if line["text"] == "something rude")
        talk_service.hide(created.tokens[0], rude["id"])
        return created
    return in_app(live, make)


def test_the_talk_box_has_no_serious_accessibility_problem(live, browser):
    created = table_with_talk(live)
    failures = {}
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
        page = context.new_page()
        for name, token in (("creator", created.tokens[0]), ("player", created.tokens[1])):
            page.goto(f"{live.base}/play/{token}#talk")
            box = page.locator("#talk")
            assert "hidden by the creator" in box.inner_text()
            assert box.locator(".talk-text").nth(2).inner_text() == LONG
            assert box.locator("b").count() == 0          # typed HTML stays text
            if found := problems(page, width):
                failures[f"seat-{name}@{width}"] = found
            if width == 390:
                shot(page, f"talk-{name}-390")
        page.goto(f"{live.base}/games/{created.game_id}")
        if found := problems(page, width):
            failures[f"spectator@{width}"] = found
        context.close()
    assert not failures, report(failures)


def test_a_message_typed_and_sent_reaches_the_other_open_page(live, browser):
    created = table_with_talk(live)
    ann = browser.new_context(viewport={"width": 390, "height": 900}).new_page()
    bob = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    bob.goto(f"{live.base}/play/{created.tokens[1]}")
    bob.locator("#talk > summary").click()              # the talk is folded into one line
    bob.fill("#talk-text", "half a thought")             # Bob is typing meanwhile
    ann.goto(f"{live.base}/play/{created.tokens[0]}#talk")  # a link to it opens it
    ann.get_by_label("Say something to the table").fill("nice Dracula, Bob")
    with ann.expect_navigation():
        ann.get_by_role("button", name="Send").click()
    assert "Said at the table." in ann.locator(".flashes").inner_text()
    assert ann.locator("#talk .talk-text").last.inner_text() == "nice Dracula, Bob"
    assert ann.locator("#talk-text").input_value() == ""
    # Bob's page updates itself, and keeps what he was typing
    bob.locator("#talk .talk-text", has_text="nice Dracula, Bob").wait_for(timeout=30000)
    assert bob.locator("#talk-text").input_value() == "half a thought"
    with bob.expect_navigation():
        bob.get_by_role("button", name="Send").click()
    assert bob.locator("#talk .talk-text").last.inner_text() == "half a thought"
