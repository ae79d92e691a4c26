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


#: Which button a player clicks when it has a choice: quick moves that keep the game going.
PREFERRED = ("peek", "draw", "discard", "exchange", "skip", "done")


def click_a_move(page: Any) -> str:
    """Click one of the offered moves, the way a person would; returns its label."""
    buttons = page.locator('#actions button[name="action"]')
    values = buttons.evaluate_all("bs => bs.map(b => JSON.parse(b.value).type)")
    assert values, "no move offered"
    kind = next((k for k in PREFERRED if k in values), values[0])
    button = buttons.nth(values.index(kind))
    folds = button.locator("xpath=ancestor::details")
    for index in range(folds.count()):            # outermost first, as a person unfolds them
        fold = folds.nth(index)
        if fold.get_attribute("open") is None:
            fold.locator("xpath=./summary").click()
    label = button.inner_text()
    button.click()
    page.wait_for_load_state()
    return label
