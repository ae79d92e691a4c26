"""Playing by tapping cards, in chromium at 390 px (a phone) and 1280 px (a desktop).

Every card decision is made the way a person makes it: tap the cards in the
village picture (checkboxes under the card faces), read the live line, press
the one button. Positions come from the deterministic engine search of
tests/e2e/positions.py. Screenshots of each decision are kept under
tests/e2e/screenshots/ (git-ignored).
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from app import engine, services
from tests.e2e import positions
from tests.e2e.browsing import shot, tap_cards

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def in_app(live: Any, make: Callable[[], Any]) -> Any:
    with live.app.app_context():
        return make()


def seat_page(browser: Any, live: Any, created: services.Created, seat: int,
              phone: bool = True) -> Any:
    context = browser.new_context(**(PHONE if phone else DESKTOP))
    page = context.new_page()
    page.goto(f"{live.base}/play/{created.tokens[seat]}")
    return page


def step_of(live: Any, created: services.Created) -> int:
    return in_app(live, lambda: services.game_info(created.game_id).seq)


def may(kind: str) -> Callable[[Any, dict[str, Any], int], bool]:
    """The seat on turn may make a move of ``kind``."""
    return lambda state, view, seat: (view["phase"] == "play" and seat == view["current"]
                                      and any(a["type"] == kind
                                              for a in engine.legal_actions(state, seat)))


def simon_claim(state: Any, view: dict[str, Any], seat: int) -> bool:
    return view["phase"] == "play" and any(
        view["current"] != other and any(a["type"] == "simon"
                                         for a in engine.legal_actions(state, other))
        for other in range(2))


#: name: (seats, the position wanted, engine options, the card form's kind, phone?)
DECISIONS = {
    "peek": (3, None, None, "peek", True),
    "exchange-drawn": (3, positions.pending("drawn"), None, "exchange", True),
    "exchange-taken": (3, positions.pending("taken"), None, "exchange", False),
    "twister": (3, positions.pending("twister"), None, "twist", True),
    "ghost": (3, positions.pending("ghost"), None, "ghost", False),
    "split-seer": (3, positions.pending("seer"), None, "see", True),
    "underminer": (3, positions.pending("underminer"), None, "undermine", True),
    "gambler-win": (3, positions.pending("gamble_win"), None, "discard", False),
    "nelly": (3, positions.resolving("nelly"), None, "nelly", True),
    "bomb": (3, positions.resolving("bomb"), None, "bomb", False),
    "simon-claim": (2, simon_claim, {"simon": ["off", "off"]}, "simon", True),
}


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_every_card_decision_is_made_by_tapping_cards(live, browser, name):
    seats, wanted, options, kind, phone = DECISIONS[name]
    position = positions.find(seats, wanted, options) if wanted else None
    created = in_app(live, lambda: positions.start(seats, position, options=options))
    if name == "simon-claim":
        state = in_app(live, lambda: services.load_state(created.game_id))
        seat = next(s for s in range(2) if s != engine.view(state, None)["current"])
    else:
        seat = position.seat if position else 0
    page = seat_page(browser, live, created, seat, phone)
    form = page.locator("form#choose")
    assert form.get_attribute("data-kind") == kind
    before = step_of(live, created)
    most = int(form.get_attribute("data-most"))
    tapped = tap_cards(page, most if kind in ("twist", "undermine") else None)
    assert tapped
    line = form.locator(".live-line").inner_text()
    assert "Tick the cards" not in line and line.endswith(".")
    shot(page, f"tap-{name}-{'phone' if phone else 'desktop'}")
    with page.expect_navigation():
        form.locator('button[type="submit"]').click()
    assert page.locator(".flash.success").count() == 1, page.inner_text("main")[:600]
    assert step_of(live, created) >= before + len(tapped if kind in ("twist", "undermine") else [1])
    page.context.close()


def test_a_whole_twister_in_one_form_says_what_it_will_do(live, browser):
    position = positions.find(3, positions.pending("twister"))
    created = in_app(live, lambda: positions.start(3, position))
    page = seat_page(browser, live, created, position.seat, phone=False)
    form = page.locator("form#choose")
    most = int(form.get_attribute("data-most"))
    tap_cards(page, 1)
    assert f"(1 of up to {most})" in form.locator(".live-line").inner_text()
    page.locator('input.pick-box[form="choose"]').nth(0).click()      # untick: choose again
    assert "Tick the cards" in form.locator(".live-line").inner_text()
    tap_cards(page, most)
    before = step_of(live, created)
    with page.expect_navigation():
        form.locator('button[type="submit"]').click()
    assert step_of(live, created) >= before + most                    # all steps, one post
    assert page.locator(".flash.success").inner_text().count("turned") == most
    shot(page, "tap-twister-done-desktop")
    page.context.close()


def test_four_cards_of_a_nine_card_village_are_exchanged_by_tapping(live, browser):
    from tests.web.test_seat_choices import big_village

    position = big_village(9)
    created = in_app(live, lambda: positions.start(2, position))
    page = seat_page(browser, live, created, position.seat)
    mine = page.locator(f'.village.mine input.pick-box[form="choose"]')
    assert mine.count() >= 9
    for index in range(4):
        mine.nth(index).click()
    line = page.locator("form#choose .live-line").inner_text()
    assert line.startswith("Exchange your #1") and "your #4" in line and "for the" in line
    assert "they must match" in line or "they match" in line
    shot(page, "tap-exchange-four-of-nine-phone")
    before = step_of(live, created)
    with page.expect_navigation():
        page.locator('form#choose button[type="submit"]').click()
    assert step_of(live, created) >= before + 1
    action = in_app(live, lambda: services.replay_frames(created.game_id, position.seat,
                                                          first=before + 1, last=before + 1))
    assert action["frames"][0]["action"]["positions"] == [0, 1, 2, 3]
    page.context.close()


def test_calling_for_a_vote_says_the_stakes_and_asks_to_confirm(live, browser):
    position = positions.find(3, may("call"))
    created = in_app(live, lambda: positions.start(3, position))
    page = seat_page(browser, live, created, position.seat)
    assert "call for a vote" in page.locator(".status .turn").inner_text()
    confirm = page.get_by_role("button", name="Yes, call: if you are lowest you score 0, "
                                              "otherwise your sum + 10")
    assert not confirm.is_visible()                        # not one tap away
    page.locator(".confirm-call > summary").click()
    assert confirm.is_visible()
    assert "Everyone else gets one more turn" in page.locator(".confirm-call").inner_text()
    shot(page, "tap-call-confirm-phone")
    with page.expect_navigation():
        confirm.click()
    assert "called for a vote" in page.locator(".flash.success").inner_text()
    page.context.close()


def test_no_call_is_offered_with_a_village_of_five(live, browser):
    position = positions.find(3, may("draw"))
    created = in_app(live, lambda: positions.start(3, position))
    state = in_app(live, lambda: services.load_state(created.game_id))
    assert len(engine.view(state, None)["villages"][position.seat]) == 5
    page = seat_page(browser, live, created, position.seat)
    assert "call" not in page.locator(".status .turn").inner_text()
    assert page.locator(".confirm-call").count() == 0
    page.context.close()


@pytest.mark.parametrize("name, wanted", [
    ("draw-or-take", may("draw")),
    ("exchange", positions.pending("taken")),
    ("discard", positions.pending("drawn")),
])
def test_the_common_decisions_fit_in_two_phone_screens(live, browser, name, wanted):
    position = positions.find(3, wanted)
    created = in_app(live, lambda: positions.start(3, position))
    page = seat_page(browser, live, created, position.seat)
    height = page.evaluate("() => document.documentElement.scrollHeight")
    screen = page.viewport_size["height"]
    shot(page, f"phone-length-{name}")
    print(f"{name}: {height}px at 390px wide, {height / screen:.2f} screens")
    assert height <= 2 * screen, f"{name}: the page is {height}px, more than two {screen}px screens"
    page.context.close()


def test_a_page_updates_itself_when_another_seat_moves(live, browser):
    created = in_app(live, lambda: positions.start(2))
    bob = seat_page(browser, live, created, 1, phone=False)
    watcher = bob.context.new_page()
    watcher.goto(f"{live.base}/games/{created.game_id}")
    for page in (bob, watcher):
        page.evaluate("() => { window.stillHere = true; }")
        assert page.locator("#live").get_attribute("data-seq") == "0"
    in_app(live, lambda: services.submit_action(created.game_id, 0,
                                                {"type": "peek", "positions": [0, 1]}, 0))
    for page in (bob, watcher):
        page.wait_for_function("() => document.getElementById('live').dataset.seq === '1'",
                               timeout=15000)
        assert page.evaluate("() => window.stillHere") is True      # no navigation happened
        assert "Ann looked at cards #1 and #2" in page.inner_text("main")
    shot(bob, "live-updated-desktop")
    bob.context.close()


def test_the_live_line_speaks_the_pages_language(live, browser):
    """Kenji reads Japanese (issue 50): the line under the cards he taps is Japanese,
    its list of cards joined the Japanese way, and so is the Play button of a replay."""
    created = in_app(live, lambda: positions.start(3))
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{live.base}/play/{created.tokens[0]}?lang=ja")
    assert page.locator("html").get_attribute("lang") == "ja"
    form = page.locator("form#choose")
    assert "チェック" in form.locator(".live-line").inner_text()
    tap_cards(page, 2)
    line = form.locator(".live-line").inner_text()
    assert line.endswith("。") and "を見る" in line and "Peek" not in line, line
    page.goto(f"{live.base}/play/{created.tokens[0]}?lang=de")
    tap_cards(page, 2)
    line = page.locator("form#choose .live-line").inner_text()
    assert " und " in line and "ansehen" in line, line
    context.close()
