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
