"""Mail HTML that clients dropping <style> still lay out: every rule is inlined (css-inline),
only the @media tweaks stay in the head, and the frame is fluid (100%, at most 600 px)."""
from __future__ import annotations

import re

import pytest

from tests.summary.mail_kinds import every_mail

MAILS = every_mail()


@pytest.mark.parametrize("kind", sorted(MAILS))
def test_styles_are_inlined_and_the_frame_is_fluid(kind):
    html = MAILS[kind].html
    styles = re.findall(r"<style[^>]*>(.*?)</style>", html, flags=re.S)
    kept = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", " ".join(styles))
    assert kept.strip() == "", f"only @media rules stay in <style>, not {kept.strip()[:80]!r}"
    frame = re.search(r'<table[^>]*class="frame"[^>]*>', html).group(0)
    assert "max-width: 600px" in frame and "width: 100%" in frame
    assert 'width="560"' not in html and "width:560" not in html
    for button in re.findall(r'<a [^>]*class="button"[^>]*>', html):
        assert "background: #2d4f7c" in button, "a button keeps its look without <style>"
    assert re.search(r"<body[^>]*style=", html)


def test_a_round_summary_is_inlined_too():
    html = MAILS["round_end"].html
    chip = re.search(r'<span class="chip up"[^>]*>', html).group(0)
    assert "background: #fffbe6" in chip, "faceup-at-scoring cards stand out in every client"


def test_the_game_over_mail_says_who_won_and_why_on_lines_of_their_own():
    text = MAILS["game_over"].text
    said = next(line for line in text.splitlines() if " is over." in line)
    # the reader's place first (issue 51 item 4), then who won; the reason on its own line
    assert re.search(r"is over\. You (won: first|finished \w+|resigned)", said), said
    assert said.endswith(("won.", "points).")), said
