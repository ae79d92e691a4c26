"""Issue 8: playing by replying (/help/mail) is found from the rules page and from the
seat page's mail box, and the link leads to the commands."""
from __future__ import annotations

import re

from tests.web.test_pages import seat_path


def links_in(page: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', page)


def test_the_rules_page_links_to_playing_by_mail(client):
    rules = client.get("/rules")
    assert rules.status_code == 200
    assert "/help/mail" in links_in(rules.get_data(as_text=True))
    help_page = client.get("/help/mail")
    assert help_page.status_code == 200 and "draw" in help_page.get_data(as_text=True)


def test_the_seat_pages_mail_box_links_to_playing_by_mail(client, new_game):
    page = client.get(seat_path(new_game(), 0)).get_data(as_text=True)
    box = re.search(r'<section class="panel seat-mail" id="mail-and-clock">(.*?)</section>',
                    page, re.S)
    assert box, "the seat page has its mail box"
    assert "/help/mail" in links_in(box.group(1))
