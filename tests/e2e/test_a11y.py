"""Accessibility: axe-core on every kind of page, text for every card, play by keyboard.

axe-core comes from npm into tests/e2e/node_modules (``make test-e2e`` installs
it; nothing is fetched while the tests run) and is injected into each page.
A page passes with no serious or critical violation of WCAG 2 A/AA.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from app import services
from tests.e2e import positions
from tests.e2e.browsing import shot

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"


def in_app(live: Any, make: Callable[[], Any]) -> Any:
    with live.app.app_context():
        return make()


def violations(page: Any) -> list[dict[str, Any]]:
    """Serious and critical axe violations of the page as it is now."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make test-e2e` (it installs axe-core from npm)")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {runOnly: {type: 'tag',
            values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}});
        return {passes: result.passes.length, violations: result.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))};
    }""")
    assert found["passes"] > 10, "axe-core did not check the page"     # it really ran
    return [v for v in found["violations"] if v["impact"] in ("serious", "critical")]


def pages(live: Any, cookies: list[dict[str, str]]) -> dict[str, str]:
    """One address per kind of page, in the states a player meets (and, into
    ``cookies``, what the browser that created the games holds)."""
    start = in_app(live, lambda: positions.start(3))
    drawn = positions.find(3, positions.pending("drawn"))
    drawn_game = in_app(live, lambda: positions.start(3, drawn))
    twister = positions.find(3, positions.pending("twister"))
    twister_game = in_app(live, lambda: positions.start(3, twister))
    over = in_app(live, lambda: positions.start(2))
    in_app(live, lambda: positions.play_out(over.game_id))
    from app.web.lobby import creator_token
    with live.app.test_request_context():  # the creating browser holds the nonce (issue 9)
        links = creator_token(start.game_id, nonce="e2e-creator")
    cookies.append({"name": f"created_{start.game_id}", "value": "e2e-creator",
                    "url": f"{live.base}/created/"})
    base = live.base
    return {
        "lobby": f"{base}/",
        "links": f"{base}/created/{links}",
        "rules": f"{base}/rules",
        "seat-peek": f"{base}/play/{start.tokens[0]}",
        "seat-drawn": f"{base}/play/{drawn_game.tokens[drawn.seat]}",
        "seat-twister": f"{base}/play/{twister_game.tokens[twister.seat]}",
        "seat-waiting": f"{base}/play/{start.tokens[1]}",
        "seat-over": f"{base}/play/{over.tokens[0]}",
        "spectator": f"{base}/games/{drawn_game.game_id}",
        "replay": f"{base}/games/{over.game_id}/replay?step=3",
        "replay-open-hand": f"{base}/games/{over.game_id}/replay?step=5&open=1",
        "bad-link": f"{base}/play/not-a-real-token",
        "my-games": f"{base}/my-games",
    }


def test_every_kind_of_page_has_no_serious_accessibility_violation(live, browser):
    failures = {}
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        cookies: list[dict[str, str]] = []
        addresses = pages(live, cookies)
        context.add_cookies(cookies)
        page = context.new_page()
        for name, url in addresses.items():
            page.goto(url)
            found = violations(page)
            if found:
                failures[f"{name}@{width}"] = found
        context.close()
    assert not failures, failures


def test_every_card_has_a_text_alternative(live, browser):
    position = positions.find(3, positions.pending("twister"))
    created = in_app(live, lambda: positions.start(3, position))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    for url in (f"{live.base}/play/{created.tokens[position.seat]}",
                f"{live.base}/games/{created.game_id}", f"{live.base}/rules"):
        page.goto(url)
        silent = page.locator(".card").evaluate_all("""cards => cards.filter(c => {
            const said = (c.getAttribute('aria-label') || '') +
                         (c.querySelector('.sr-only') ? c.querySelector('.sr-only').textContent : '');
            return said.trim().length < 4;
        }).map(c => c.outerHTML.slice(0, 120))""")
        assert page.locator(".card").count() > 0
        assert silent == [], url
    context.close()


def test_a_peek_can_be_made_with_the_keyboard_alone(live, browser):
    created = in_app(live, lambda: positions.start(2))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live.base}/play/{created.tokens[0]}")
    ticked = 0
    for _ in range(80):                                  # Tab through the page, like a person
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.className + '|' + "
                                "document.activeElement.tagName")
        if "pick-box" in focused and ticked < 2:
            page.keyboard.press("Space")
            ticked += 1
        elif ticked == 2 and focused.endswith("BUTTON") and page.evaluate(
                "() => document.activeElement.form && document.activeElement.form.id === 'choose'"):
            break
    assert ticked == 2
    assert "Peek at your #1" in page.locator("form#choose .live-line").inner_text()
    shot(page, "keyboard-peek-desktop")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(".flash.success").inner_text().startswith("You looked at #1:")
    assert in_app(live, lambda: services.game_info(created.game_id).seq) == 1
    context.close()
