"""Every page, in the states that matter, at phone width (420px) and on a desktop.

Each position is found by a deterministic engine search (tests/e2e/positions.py)
and played into a real game; chromium then opens the page at both widths,
saves a screenshot for a human to look at (tests/e2e/screenshots/screen-*.png)
and checks what a person would notice first: nothing is wider than the
screen, and every button of the decision is on screen and big enough to tap.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from app import engine, services
from tests.e2e import positions
from tests.e2e.browsing import DESKTOP, PHONE, shot

pytestmark = pytest.mark.e2e

#: The smallest button we accept, in CSS pixels: a finger on a phone, a mouse on a desktop.
MIN_TAP = {"phone": 44, "desktop": 36}


def check_layout(page: Any, buttons: str | None, min_tap: int) -> None:
    """Nothing sticks out sideways; the decision's buttons fit the screen and can be tapped."""
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the screen"
    if not buttons:
        return
    width = page.viewport_size["width"]
    boxes = page.locator(buttons).evaluate_all(
        "bs => bs.filter(b => b.checkVisibility()).map(b => {"
        " const r = b.getBoundingClientRect(); return [r.left, r.right, r.height, b.innerText]; })")
    assert boxes, f"no visible {buttons}"
    for left, right, height, label in boxes:
        assert left >= 0 and right <= width, f"button {label!r} is cut off"
        assert height >= min_tap, f"button {label!r} is only {height}px high"


def look(browser: Any, url: str, name: str, buttons: str | None = None,
         cookies: list[dict[str, str]] | None = None) -> dict[str, str]:
    """Open ``url`` at phone width and on a desktop; screenshot and check both."""
    texts = {}
    for label, viewport, extra in (("phone", PHONE, {"is_mobile": True, "has_touch": True}),
                                   ("desktop", DESKTOP, {})):
        context = browser.new_context(viewport=viewport, **extra)
        if cookies:
            context.add_cookies(cookies)
        page = context.new_page()
        answer = page.goto(url)
        assert answer is not None and answer.status < 500, url
        shot(page, f"screen-{name}-{label}")
        check_layout(page, buttons, MIN_TAP[label])
        texts[label] = page.inner_text("body")
        context.close()
    return texts


def seat_url(live: Any, created: services.Created, seat: int) -> str:
    return f"{live.base}/play/{created.tokens[seat]}"


def in_app(live: Any, make: Callable[[], Any]) -> Any:
    with live.app.app_context():
        return make()


MOVES = '#actions button[type="submit"]'

POSITIONS = {
    # name: (seats, what the seat on the page must be deciding, engine options)
    "drawn": (3, positions.pending("drawn"), None),
    "twister": (3, positions.pending("twister"), None),
    "underminer": (3, positions.pending("underminer"), None),
    "ghost-4-seats": (4, positions.pending("ghost"), None),
    "nelly": (3, positions.resolving("nelly"), None),
    "bomb": (3, positions.resolving("bomb"), None),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_a_seat_with_a_decision_sees_it_whole_on_a_phone_and_a_desktop(live, browser, name):
    seats, wanted, options = POSITIONS[name]
    position = positions.find(seats, wanted, options)
    created = in_app(live, lambda: positions.start(seats, position, options=options))
    view = in_app(live, lambda: services.snapshot(created.game_id).view(position.seat))
    assert view["legal_actions"], name
    texts = look(browser, seat_url(live, created, position.seat), f"seat-{name}", MOVES)
    assert "Your move" in texts["phone"]
    others = [s for s in range(seats) if s != position.seat]
    look(browser, seat_url(live, created, others[0]), f"seat-{name}-waiting")


def test_the_first_page_of_a_game_asks_for_a_peek(live, browser):
    created = in_app(live, lambda: positions.start(3))
    texts = look(browser, seat_url(live, created, 0), "seat-peek", MOVES)
    assert "peek at two of your cards" in texts["phone"]


SIMON_OPTIONS = {"simon": ["off", "off"]}


def simon_claim(live: Any) -> tuple[services.Created, int]:
    """A two-seat game (Simon claimed by hand) in which the seat not on turn may claim a
    Simon discard: the game and that seat."""

    def open_claim(state: Any, view: dict[str, Any], seat: int) -> bool:
        return view["phase"] == "play" and any(
            view["current"] != other and any(a["type"] == "simon"
                                             for a in engine.legal_actions(state, other))
            for other in range(2))

    position = positions.find(2, open_claim, SIMON_OPTIONS)
    created = in_app(live, lambda: positions.start(2, position, options=SIMON_OPTIONS))
    state = in_app(live, lambda: services.load_state(created.game_id))
    claimer = next(s for s in range(2) if s != engine.view(state, None)["current"])
    return created, claimer


def test_a_simon_claim_out_of_turn_is_on_screen(live, browser):
    created, claimer = simon_claim(live)
    texts = look(browser, seat_url(live, created, claimer), "seat-simon-claim",
                 '#simon button[type="submit"]')
    assert "not your turn" in texts["phone"]


def test_the_lobby_the_links_page_and_a_bad_link(live, browser):
    texts = look(browser, f"{live.base}/", "lobby", 'button[type="submit"]')
    assert "off: you claim Simon discards yourself" in texts["phone"]
    created = in_app(live, lambda: positions.start(4))
    from app.web.lobby import creator_token
    with live.app.test_request_context():  # the creating browser holds the nonce (issue 9)
        links = creator_token(created.game_id, nonce="e2e-creator")
    texts = look(browser, f"{live.base}/created/{links}", "links",
                 cookies=[{"name": f"created_{created.game_id}", "value": "e2e-creator",
                           "url": f"{live.base}/created/"}])
    assert "The seats" in texts["phone"]  # the page itself, not a 403
    assert "/play/" not in texts["phone"], "every seat has an address: no link shown"
    look(browser, f"{live.base}/play/not-a-real-token", "bad-link")
    look(browser, f"{live.base}/games/{created.game_id}", "public-start")


def test_a_finished_game_its_pages_and_the_open_hand_replay(live, browser):
    created = in_app(live, lambda: positions.start(3))
    last = in_app(live, lambda: positions.play_out(created.game_id))
    texts = look(browser, seat_url(live, created, 0), "seat-over")
    assert "replay" in texts["phone"]
    look(browser, f"{live.base}/games/{created.game_id}", "public-over")
    replay = f"{live.base}/games/{created.game_id}/replay"
    look(browser, f"{replay}?step={last}", "replay-end", ".replay-nav a")
    texts = look(browser, f"{replay}?step={last // 2}&open=1", "replay-open-hand", ".replay-nav a")
    seed = in_app(live, lambda: services.game_info(created.game_id).seed)
    assert seed in texts["desktop"]
    look(browser, f"{replay}?step=0&token={created.tokens[1]}", "replay-seat-deal")


def test_a_running_games_replay_as_a_seat(live, browser):
    position = positions.find(3, positions.pending("twister"))
    created = in_app(live, lambda: positions.start(3, position))
    replay = f"{live.base}/games/{created.game_id}/replay"
    texts = look(browser, f"{replay}?step={len(position.moves)}&token={created.tokens[0]}",
                 "replay-running-seat", ".replay-nav a")
    assert "What Ann could see" in texts["phone"]
    assert "Show all cards" not in texts["desktop"]     # no open hand while it runs
