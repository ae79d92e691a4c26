"""What the browser tests share: where chromium is, how it is launched, screenshots."""
from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Screenshots for a human to look at (git-ignored).
SHOTS = Path(__file__).resolve().parent / "screenshots"
PHONE = {"width": 420, "height": 900}
DESKTOP = {"width": 1280, "height": 900}


def shot(page: Any, name: str) -> None:
    """A full-page screenshot under tests/e2e/screenshots/."""
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


#: What a player does when it has a choice: quick moves that keep the game going.
PREFERRED = ("peek", "draw", "discard", "exchange", "skip", "done")


def tap_cards(page: Any, count: int | None = None) -> list[str]:
    """Tap ``count`` cards of the card form (its least by default), as a finger would."""
    form = page.locator("form#choose")
    wanted = int(form.get_attribute("data-least") or 1) if count is None else count
    boxes = page.locator('input.pick-box[form="choose"]')
    if form.get_attribute("data-kind") == "undermine":       # two of one village, two of the pile
        village = page.locator('.village').filter(
            has=page.locator('input.pick-box[form="choose"]')).first
        pile = page.locator('.pile-picks input.pick-box')
        picks = [village.locator('input.pick-box').nth(i) for i in range(max(0, wanted - 2))]
        picks += [pile.nth(i) for i in range(min(2, wanted))]
        for box in picks:
            box.click()
        return [box.get_attribute("value") or "" for box in picks]
    tapped = []
    for index in range(min(wanted, boxes.count())):
        box = boxes.nth(index)
        box.click()
        tapped.append(box.get_attribute("value") or "")
    return tapped


def click_a_move(page: Any) -> str:
    """Make one of the offered moves the way a person would (tap cards or a button);
    returns its words."""
    buttons = page.locator('#actions button[name="action"]')
    values = buttons.evaluate_all("bs => bs.map(b => JSON.parse(b.value).type)")
    form = page.locator("form#choose")
    kind = form.get_attribute("data-kind") if form.count() else None
    offered = values + ([kind] if kind else [])
    assert offered, "no move offered"
    wanted = next((k for k in PREFERRED if k in offered), offered[0])
    if wanted == kind:
        tap_cards(page)
        label = form.locator(".live-line").inner_text()
        with page.expect_navigation():
            form.locator('button[type="submit"]').click()
        return label
    button = buttons.nth(values.index(wanted))
    folds = button.locator("xpath=ancestor::details")
    for index in range(folds.count()):            # outermost first, as a person unfolds them
        fold = folds.nth(index)
        if fold.get_attribute("open") is None:
            fold.locator("xpath=./summary").click()
    label = button.inner_text()
    button.click()
    page.wait_for_load_state()
    return label
