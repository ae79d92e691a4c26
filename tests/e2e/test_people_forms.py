"""Issue 21 in a real browser: every new form, at 390 and 1280 px, with axe-core.

The lobby's clock (a time bank, the running days, more time), the seat page's quiet
hours, its "The table" box (everyone's deadline and bank, the days given, give a day,
end by agreement, hand a seat over, resign), an open vote waiting for an answer, the
rematch offer at game over and the series score, and the spectator's read-only box:
no serious or critical axe violation, headings in order, nothing scrolling sideways.
Then a person uses them: gives a day, answers a vote, resigns after the confirm.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine, services
from app.services import more_time, votes
from tests.e2e.browsing import shot
from tests.e2e.test_a11y import WIDTHS, in_app, problems, report

pytestmark = pytest.mark.e2e

PEOPLE = [("Ann", "ann@example.com"), ("Bob", "bob@example.com"), ("Cid", "cid@example.com")]


def players() -> list[dict[str, str]]:
    return [{"name": n, "email": e} for n, e in PEOPLE]


def running_table(live: Any) -> Any:
    """A three-seat time-bank game on weekdays: Ann gave Bob a day, Cid resigned, and
    Ann asks everyone to end the game (Bob has not answered)."""
    def make() -> Any:
        created = services.create_game(players(), {"bank_days": 2, "allowance_hours": 12,
                                                   "clock_days": [0, 1, 2, 3, 4]},
                                       name="People in the browser", seed="91")
        more_time.give_time(created.game_id, 0, 1)
        services.submit_action(created.game_id, 2, {"type": "resign"},
                               services.game_info(created.game_id).seq)
        votes.start(created.game_id, 0, "abort")
        return created
    return in_app(live, make)


def finished_series(live: Any) -> Any:
    """A game played to its end, whose rematch Ann offered (Bob has not answered)."""
    def make() -> Any:
        created = services.create_game(players()[:2], name="Series in the browser", seed="92")
        rng = random.Random(3)
        for _ in range(3000):
            snap = services.snapshot(created.game_id)
            view = snap.view(None)
            if view["phase"] == "over":
                break
            seat = rng.choice(view["to_act"])
            services.submit_action(created.game_id, seat,
                                   rng.choice(engine.legal_actions(snap.state, seat)), snap.seq)
        votes.start(created.game_id, 0, "rematch")
        return created
    return in_app(live, make)


def open_side(page: Any) -> None:
    """Unfold the side panel ("Scores, this round's log, mail and game details")."""
    page.evaluate("() => { const more = document.getElementById('more'); "
                  "if (more) more.open = true; "
                  "document.querySelectorAll('details.confirm-call, details.confirm-step').forEach(d => d.open = true); }")


def test_every_new_form_has_no_serious_accessibility_problem(live, browser):
    table = running_table(live)
    series = finished_series(live)
    failures = {}
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
        page = context.new_page()
        page.goto(f"{live.base}/")
        page.check("input[name=clock_kind][value=bank]")
        if found := problems(page, width):
            failures[f"lobby@{width}"] = found
        for name, token in (("asked", table.tokens[1]), ("proposer", table.tokens[0]),
                            ("resigned", table.tokens[2]), ("rematch", series.tokens[1])):
            page.goto(f"{live.base}/play/{token}")
            open_side(page)
            if found := problems(page, width):
                failures[f"seat-{name}@{width}"] = found
            if width == 390:
                shot(page, f"people-{name}-390")
        for game in (table.game_id, series.game_id):
            page.goto(f"{live.base}/games/{game}")
            if found := problems(page, width):
                failures[f"spectator-{game}@{width}"] = found
        context.close()
    assert not failures, report(failures)


def test_a_person_gives_a_day_answers_the_vote_and_resigns(live, browser):
    table = running_table(live)
    page = browser.new_context(viewport={"width": 390, "height": 900}).new_page()
    page.goto(f"{live.base}/play/{table.tokens[1]}")
    assert "Ann asks to end the game by agreement" in page.locator("#vote").inner_text()
    with page.expect_navigation():
        page.locator("#vote").get_by_role("button", name="No").click()
    assert "Bob said no." in page.content()
    assert in_app(live, lambda: services.game_info(table.game_id).status) == "running"
    # the answer lands on the page's "#people" anchor: the folded side panel opens at it
    people_box = page.locator("#people")
    people_box.wait_for(state="visible")
    assert "Ann gave Bob one more day" in people_box.inner_text()
    page.select_option("#people form[action$=more-time] select[name=seat]", label="Ann")
    with page.expect_navigation():
        people_box.get_by_role("button", name="Give a day").click()
    assert "You gave one more day" in page.content()
    people_box.wait_for(state="visible")
    page.locator("#people summary", has_text="Resign…").click()
    with page.expect_navigation():
        page.get_by_role("button", name="Yes, resign").click()
    assert "You resigned" in page.content()
    status = in_app(live, lambda: engine.status(services.snapshot(table.game_id).state))
    assert status["resigned"] == [2, 1] or status["phase"] == "over"


def test_quiet_hours_are_set_from_the_seat_page(live, browser):
    """From the seat page's first screen to the person's settings (issue 32: for all
    their games; issue 45: their link is mailed to the address, then opened from the
    mail) and back: the seat's clock says the new zone and hours."""
    from tests.person_keys import SETTINGS_LINK, mails

    table = running_table(live)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{live.base}/play/{table.tokens[0]}")
    line = page.get_by_role("link", name="Your settings: times, quiet hours, mail")
    assert line.bounding_box()["y"] < 844, "in the first phone screen"
    with page.expect_navigation():
        line.click()
    with page.expect_navigation():
        page.get_by_role("button", name="Send me the link to my settings").click()
    assert "is on its way to" in page.content()
    sent = in_app(live, lambda: mails("settings_link"))
    page.goto(live.base + SETTINGS_LINK.search(sent[-1].text).group(1))   # from her mail
    page.select_option("select[name=time_zone]", "Europe/Berlin")
    page.fill("input[name=quiet_start]", "22:00")
    page.fill("input[name=quiet_end]", "08:00")
    with page.expect_navigation():
        page.get_by_role("button", name="Save zone and quiet hours").click()
    assert "quiet hours 22:00–08:00" in page.content()
    assert "We mailed you what changed" in page.content()
    page.set_viewport_size({"width": 1280, "height": 900})  # (wide: the side panel is open)
    page.goto(f"{live.base}/play/{table.tokens[0]}")
    assert "quiet 22:00–08:00 (Europe/Berlin)" in page.locator("#mail-and-clock").inner_text()
