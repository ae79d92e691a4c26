"""The finish a newcomer's browser checks first (issue 51 item 6): every page names an
icon and says what the site is (a meta description), the icon is there, every button
looks like one, and a ``<time datetime>`` holds a moment HTML accepts (no microseconds:
the Nu HTML Checker refused Python's six digits)."""
from __future__ import annotations

import re
from typing import Any

DATETIME = re.compile(r'<time[^>]*datetime="([^"]+)"')
#: HTML's "valid global date and time string", at most three digits of a fraction.
HTML_MOMENT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$")


def test_every_page_names_an_icon_and_says_what_the_site_is(client: Any) -> None:
    for path in ("/", "/tables", "/help", "/rules", "/help/mail", "/my-games"):
        page = client.get(path).get_data(as_text=True)
        assert 'rel="icon"' in page and '<meta name="description" content="Play' in page, path
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and b"<svg" in icon.data


def test_the_moments_on_a_seat_page_are_whole_html_moments(client: Any, new_game: Any) -> None:
    game = new_game(seats=2, deadline_hours=24)
    client.post(f"/api/play/{game.tokens[0]}/talk", json={"text": "Good luck!"})
    page = client.get(f"/play/{game.tokens[0]}").get_data(as_text=True)
    moments = DATETIME.findall(page)
    assert moments, "the seat page shows its deadline as a <time>"
    for moment in moments:
        assert HTML_MOMENT.match(moment), moment


def test_the_settings_buttons_are_styled_like_every_other(client: Any) -> None:
    css = client.get("/static/style.css").get_data(as_text=True)
    assert re.search(r"\.btn, button\.btn, \.button \{", css)
    assert ".button.secondary" in css
