"""The replay is read, not glanced at (issue 51 item 6): every text a person sees on it,
at 390 px (a phone) and at 1280 px (a laptop), is drawn at 12 px or more — the cards'
names, values, spots and tags, the piles, the badges, the timeline, the round's summary.
The replays are of a finished game (the end, with the last round's scoring, and the open
hand halfway) and of a running one as a seat saw it (cards it knows); chromium reports
each visible text's computed size.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.e2e import positions
from tests.e2e.test_screens import in_app

pytestmark = pytest.mark.e2e

SMALLEST = 12.0
SIZES = {"phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
         "laptop": {"viewport": {"width": 1280, "height": 800}}}

#: Every visible, non-blank text node: its words and its computed font size. A text drawn
#: for screen readers only (a 1 px clipped box) is not seen, so not measured.
TEXT_SIZES = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const words = node.textContent.trim();
    const el = node.parentElement;
    if (!words || !el || !el.checkVisibility({visibilityProperty: true})) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    found.push([words.slice(0, 40), parseFloat(getComputedStyle(el).fontSize), el.className]);
  }
  return found;
}"""


def small_texts(browser: Any, url: str) -> list[str]:
    """What is drawn under 12 px, at each size, in words."""
    small = []
    for label, context_args in SIZES.items():
        context = browser.new_context(**context_args)
        page = context.new_page()
        page.goto(url)
        texts = page.evaluate(TEXT_SIZES)
        assert texts, f"{url}: no text seen"
        kinds = {(cls, size): words for words, size, cls in texts if size < SMALLEST}
        small += [f"{label}: {words!r} ({size:g} px, class {cls!r})"
                  for (cls, size), words in kinds.items()]
        context.close()
    return small


def test_every_text_of_the_replay_is_12_px_or_more(live, browser):
    over = in_app(live, lambda: positions.start(3))
    last = in_app(live, lambda: positions.play_out(over.game_id))
    running = positions.find(3, positions.pending("twister"))
    seat_game = in_app(live, lambda: positions.start(3, running))
    replays = {
        "the end": f"{live.base}/games/{over.game_id}/replay?step={last}",
        "open hand": f"{live.base}/games/{over.game_id}/replay?step={last // 2}&open=1",
        "a seat's": f"{live.base}/games/{seat_game.game_id}/replay"
                    f"?step={len(running.moves)}&token={seat_game.tokens[0]}",
    }
    small = {name: small_texts(browser, url) for name, url in replays.items()}
    assert not any(small.values()), "\n".join(
        f"{name}: {line}" for name, lines in small.items() for line in lines[:15])
