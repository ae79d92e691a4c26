"""Every text colour of every mail kind keeps WCAG AA contrast (4.5:1) with the
backgrounds it can stand on, and nothing is wider than a 390 px phone (issue 19 item 6:
axe-core found the brand line and the footer, #777 on white, at 4.48:1).

The styles are read as mail clients get them: inlined by ``app.mail.layout``. A
colour with a background of its own is checked against it; one without, against
every background the mail sets (the page, the frame, cards, summaries), the worst
case of wherever it may sit.
"""
from __future__ import annotations

import re

import pytest

from tests.summary.mail_kinds import every_kind

MAILS = every_kind()
AA = 4.5
PHONE = 390


def luminance(colour: str) -> float:
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)

    def channel(hex_pair: str) -> float:
        v = int(hex_pair, 16) / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(digits[i:i + 2]) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    low, high = sorted((luminance(one), luminance(other)))
    return (high + 0.05) / (low + 0.05)


def styles(html: str) -> list[str]:
    return re.findall(r'style="([^"]*)"', html)


def prop(style: str, name: str) -> str | None:
    found = re.search(rf"(?:^|;)\s*{name}\s*:\s*(#[0-9a-fA-F]{{3,6}})\b", style)
    return found.group(1) if found else None


def test_the_ratio_is_computed_as_wcag_says():
    assert round(contrast("#000", "#fff"), 1) == 21.0
    assert round(contrast("#777", "#fff"), 2) == 4.48  # axe-core's finding: just under


@pytest.mark.parametrize("kind", sorted(MAILS))
def test_every_text_colour_has_aa_contrast_on_every_background_it_may_sit_on(kind):
    found = styles(MAILS[kind].html)
    backgrounds = {b for s in found
                   if (b := prop(s, "background(?:-color)?")) and not prop(s, "color")}
    assert "#fff" in backgrounds, "the frame is white"
    low = []
    for style in found:
        colour = prop(style, "color")
        if colour is None:
            continue
        own = prop(style, "background(?:-color)?")
        for ground in [own] if own else backgrounds:
            if contrast(colour, ground) < AA:
                low.append(f"{colour} on {ground}: {contrast(colour, ground):.2f} ({style[:60]})")
    assert low == [], "\n".join(low)


@pytest.mark.parametrize("kind", sorted(MAILS))
def test_nothing_is_fixed_wider_than_a_phone(kind):
    html = MAILS[kind].html
    widths = [int(w) for w in re.findall(r'(?<![-\w])width(?:="|:\s*)(\d+)(?:px)?', html)]
    assert [w for w in widths if w > PHONE] == [], "a fixed width over 390 px"
    for table in re.findall(r"<table[^>]*>", html):
        assert "max-width" in table or 'width="100%"' in table, table[:120]
