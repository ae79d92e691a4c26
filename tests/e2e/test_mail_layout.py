"""Every kind of mail fits a phone: no sideways scrolling at 390 px, nor at 1280 px.

Each mail's HTML part (as composed for the outbox, styles inlined) is opened
in Debian's chromium at both widths; the page must not be wider than the
window (``scrollWidth <= clientWidth``), and the mail's frame must use the
width it has: all of it on a phone, at most 600 px on a desktop. Screenshots
land in tests/e2e/screenshots/mail/ (git-ignored) for a person to look at.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browsing import SHOTS
from tests.summary.mail_kinds import every_mail

pytestmark = pytest.mark.e2e

WIDTHS = {"phone": 390, "desktop": 1280}
MAILS = every_mail()
MEASURE = """() => {
  const root = document.documentElement;
  const frame = document.querySelector('table.frame');
  return {scroll: root.scrollWidth, client: root.clientWidth,
          body: document.body.scrollWidth, frame: frame ? frame.getBoundingClientRect().width : -1};
}"""


@pytest.fixture(scope="module")
def pages(request: Any) -> Any:
    from playwright.sync_api import sync_playwright

    from tests.e2e.browsing import CHROMIUM, LAUNCH_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield {name: browser.new_context(viewport={"width": width, "height": 800},
                                             java_script_enabled=True).new_page()
                   for name, width in WIDTHS.items()}
        finally:
            browser.close()


def test_every_mail_kind_is_checked():
    assert set(MAILS) == {"invitation", "turn", "reminder", "digest", "round_end", "game_over",
                          "notice_absent", "notice_you_absent", "notice_abandoned",
                          "notice_fresh_link", "talk", "people", "invitation_rematch",
                          "turn_round_over"}  # (issue 51: a turn mail carrying a round's end)


@pytest.mark.parametrize("screen", sorted(WIDTHS))
@pytest.mark.parametrize("kind", sorted(MAILS))
def test_the_mail_never_scrolls_sideways(pages, kind, screen):
    page = pages[screen]
    page.set_content(MAILS[kind].html, wait_until="load")
    size = page.evaluate(MEASURE)
    folder = SHOTS / "mail"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{kind}-{screen}.png"), full_page=True)
    assert size["scroll"] <= size["client"], f"{kind} at {WIDTHS[screen]} px: {size}"
    assert size["body"] <= size["client"], f"{kind} at {WIDTHS[screen]} px: {size}"
    if screen == "phone":
        assert size["frame"] == size["client"], "on a phone the mail uses the whole width"
    else:
        assert size["frame"] == 600, "on a desktop the mail is 600 px wide"
