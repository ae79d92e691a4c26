"""Issue 48 in a real browser: a stranger finds a game at /tables and sits down by address.

Ann opens a three-seat table from the lobby with two seats left open, and confirms her
own seat from her mail. Bea finds it at /tables in a browser without JavaScript, asks
to sit down, reads her mail in the file mailbox (/dev/mail), opens its link and presses
"Sit down". Cai, on a 390 px phone, does the same for the last seat: his click deals
the game and lands him on his own seat page. Nobody types a link: each is read from the
mail it came in. At 390 px neither /tables nor the link's page scrolls sideways; no
page shows anyone's address. Chromium measures, nothing is timed.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.browsing import shot

pytestmark = pytest.mark.e2e

ANN, BEA, CAI = "ann@example.org", "bea@example.net", "cai@example.com"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def deliver(live: Any) -> None:
    """One clock tick: the outbox goes to the file mailbox (instance/mail)."""
    from app.runners import clock

    clock.tick(live.app)


def open_mail(page: Any, base: str, to: str, kind: str) -> None:
    """In the mailbox, open ``to``'s newest mail of ``kind`` (its file: <id>-<kind>.eml)."""
    page.goto(base + "/dev/mail")
    rows = page.locator("table.mailbox tr", has_text=to).filter(
        has=page.locator(f"a[href$='-{kind}.eml']"))
    assert rows.count() >= 1, f"no {kind} mail to {to}"
    with page.expect_navigation():
        rows.first.locator("a").click()


def follow_table_link(page: Any) -> None:
    """Follow the one open-table link of the mail shown (one short mail, one link)."""
    links = page.locator("pre.mail-text a[href*='/tables/seat/']")
    assert links.count() == 1, page.locator("pre.mail-text").inner_text()
    with page.expect_navigation():
        links.first.click()
    assert "/tables/seat/" in page.url


def wide(page: Any) -> int:
    return int(page.evaluate("() => document.scrollingElement.scrollWidth"))


def table_section(page: Any) -> Any:
    sections = page.locator("section.open-table")
    assert sections.count() == 1, page.content()[:3000]
    return sections.first


def game_status(live: Any, url: str) -> tuple[str, str]:
    """(the game's status, the seat's name) behind a seat page's address."""
    from app import services
    from app.access import tokens

    token = url.split("/play/", 1)[1].split("?", 1)[0].split("#", 1)[0]
    with live.app.app_context():
        seat = tokens.read_seat_token(token)
        info = services.game_info(seat.game)
        return info.status, info.seats[seat.seat].name


def test_a_stranger_sits_down_from_tables_by_mail_and_lands_on_the_started_game(
        live_mailbox, browser):
    live = live_mailbox
    base = live.base

    # Ann opens the table in the lobby: her own seat, two open ones
    ann = browser.new_context(**DESKTOP).new_page()
    ann.goto(base + "/")
    ann.fill("#name", "Friday table")
    ann.fill("#seat0-name", "Ann")
    ann.fill("#seat0-email", ANN)
    ann.check("input[name=seat1_kind][value=open]")
    ann.check("input[name=seat2_kind][value=open]")
    with ann.expect_navigation():
        ann.get_by_role("button", name="Create the game").click()
    assert "/tables" in ann.url, ann.content()[:3000]
    assert "Your table is open" in ann.content()
    listed = table_section(ann)
    assert "Friday table" in listed.inner_text() and "2 of 3 seats left" in listed.inner_text()
    deliver(live)
    open_mail(ann, base, ANN, "table_seat")
    follow_table_link(ann)
    with ann.expect_navigation():
        ann.get_by_role("button", name="Confirm my seat").click()
    assert "You are seated" in ann.content()

    # Bea, with JavaScript off: the list and its form work as plain HTML
    bea_context = browser.new_context(java_script_enabled=False, **DESKTOP)
    bea = bea_context.new_page()
    bea.goto(base + "/tables")
    listed = table_section(bea)
    assert "Ann" in listed.inner_text() and ANN not in bea.content()
    listed.get_by_label("Your name at the table").fill("Bea")
    listed.get_by_label("Your email address (never shown)").fill(BEA)
    with bea.expect_navigation():
        listed.get_by_role("button", name="Sit down").click()
    assert "/tables" in bea.url
    said = bea.content()
    assert "We mailed a link to" in said and "/tables/seat/" not in said and BEA not in said
    assert "Held for someone confirming by mail" in table_section(bea).inner_text()
    deliver(live)
    open_mail(bea, base, BEA, "table_seat")
    follow_table_link(bea)
    assert "A seat is held for you" in bea.content()
    with bea.expect_navigation():
        bea.get_by_role("button", name="Sit down").click()
    assert "You are seated at Friday table" in bea.content()
    assert "waiting for 1 more" in bea.content()
    bea_context.close()

    # Cai, on a phone: the last open seat
    cai_context = browser.new_context(**PHONE)
    cai = cai_context.new_page()
    cai.goto(base + "/tables")
    assert wide(cai) <= 390, f"/tables is {wide(cai)} px wide at 390 px"
    shot(cai, "open-table-list-390")
    listed = table_section(cai)
    text = listed.inner_text()
    assert "1 of 3 seats left" in text and "Ann" in text and "Bea" in text
    for address in (ANN, BEA):
        assert address not in cai.content()
    listed.get_by_label("Your name at the table").fill("Cai")
    listed.get_by_label("Your email address (never shown)").fill(CAI)
    with cai.expect_navigation():
        listed.get_by_role("button", name="Sit down").click()
    assert "We mailed a link to c•••@example.com" in cai.content()
    assert wide(cai) <= 390
    deliver(live)
    open_mail(cai, base, CAI, "table_seat")
    follow_table_link(cai)
    assert wide(cai) <= 390, f"the link's page is {wide(cai)} px wide at 390 px"
    shot(cai, "open-table-link-390")
    assert "A seat is held for you" in cai.content()
    for address in (ANN, BEA):
        assert address not in cai.content()
    with cai.expect_navigation():
        cai.get_by_role("button", name="Sit down").click()

    # the click dealt the game: Cai is on his own seat page of a running game
    assert "/play/" in cai.url, cai.content()[:3000]
    assert "You took the last seat" in cai.content()
    assert game_status(live, cai.url) == ("running", "Cai")
    assert wide(cai) <= 390
    shot(cai, "open-table-seat-390")
    # the table left the list; each seat's own link went to its own address
    cai.goto(base + "/tables")
    assert cai.locator("section.open-table").count() == 0
    assert "No table is waiting for players" in cai.content()
    deliver(live)
    for address in (ANN, BEA, CAI):
        open_mail(cai, base, address, "invitation")
    cai_context.close()
