"""Accessibility: axe-core on every kind of page and mail, text for every card, play by keyboard.

axe-core comes from npm into tests/e2e/node_modules (``make test-e2e`` installs
it; nothing is fetched while the tests run) and is injected into each page.
axe runs its whole default rule set (WCAG 2 A/AA and best practices). At 390
and 1280 px, every page kind passes with no serious or critical violation, has
one ``<h1>`` and no skipped heading level (axe's ``page-has-heading-one`` and
``heading-order``: only "moderate" to axe, required by issue 19), and at 390 px
nothing scrolls sideways. Every mail kind (its HTML part as sent, and the
development mailbox's page showing it) passes the same, headings aside: a
mail's headings are the mail client's business.
"""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from app import engine, services
from tests.e2e import positions
from tests.e2e.browsing import shot, tap_cards
from tests.summary.mail_kinds import LINK, NAMES, every_kind

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = (390, 1280)
#: Moderate to axe, but the issue asks for them on every page.
HEADING_RULES = ("page-has-heading-one", "heading-order")


def in_app(live: Any, make: Callable[[], Any]) -> Any:
    with live.app.app_context():
        return make()


def axe(page: Any, full: bool = False) -> dict[str, Any]:
    """axe-core's default rules over the page as it is now (``full``: every rule axe has,
    those off by default too: experimental ones and WCAG AAA), the rule ids that
    passed, and the violations (id, impact, the first nodes)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make test-e2e` (it installs axe-core from npm)")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async (full) => {
        const every = {runOnly: {type: 'rule', values: axe.getRules().map(r => r.ruleId)}};
        const result = await axe.run(document, full ? every : {});
        return {passes: result.passes.map(r => r.id), violations: result.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' +
                                                (n.failureSummary || '').slice(0, 160))}))};
    }""", full)
    assert len(found["passes"]) >= 5, "axe-core did not check the page"     # it really ran
    return found


def problems(page: Any, width: int, headings: bool = True, full: bool = False) -> list[Any]:
    """What is wrong with the page at this width: serious or critical axe violations,
    the heading rules not passed (pages only), sideways scrolling at 390 px."""
    found = axe(page, full)
    wrong: list[Any] = [v for v in found["violations"] if v["impact"] in ("serious", "critical")]
    if headings:
        wrong += [v for v in found["violations"] if v["id"] in HEADING_RULES
                  and v not in wrong]
        if "page-has-heading-one" not in found["passes"]:
            wrong.append("no <h1>")
    if width == 390:
        scroll = page.evaluate("() => document.scrollingElement.scrollWidth")
        if scroll > 390:
            wrong.append(f"{scroll} px wide at 390 px")
    return wrong


def report(failures: dict[str, list[Any]]) -> str:
    """One line per page and problem, for a person to read."""
    return "\n".join(f"{where}: {problem}" for where, found in failures.items()
                     for problem in found)


def seat_decisions(live: Any) -> dict[str, str]:
    """A seat page for each kind of decision the tests can reach, a waiting seat and
    a seat whose game is over."""
    base = live.base
    addresses = {}
    start = in_app(live, lambda: positions.start(3))
    addresses["seat-peek"] = f"{base}/play/{start.tokens[0]}"
    addresses["seat-waiting"] = f"{base}/play/{start.tokens[1]}"
    for name, seats, wanted in (("drawn", 3, positions.pending("drawn")),
                                ("twister", 3, positions.pending("twister")),
                                ("underminer", 3, positions.pending("underminer")),
                                ("ghost", 4, positions.pending("ghost")),
                                ("nelly", 3, positions.resolving("nelly")),
                                ("bomb", 3, positions.resolving("bomb"))):
        position = positions.find(seats, wanted)
        created = in_app(live, lambda: positions.start(seats, position))
        addresses[f"seat-{name}"] = f"{base}/play/{created.tokens[position.seat]}"
    options = {"simon": ["off", "off"]}

    def open_claim(state: Any, view: dict[str, Any], seat: int) -> bool:
        waiting = 1 - view["current"]              # two seats: the one not on turn
        return view["phase"] == "play" and "simon" in {
            a["type"] for a in engine.legal_actions(state, waiting)}

    position = positions.find(2, open_claim, options)
    claim = in_app(live, lambda: positions.start(2, position, options=options))
    current = in_app(live, lambda: services.snapshot(claim.game_id).view(None)["current"])
    addresses["seat-simon-claim"] = f"{base}/play/{claim.tokens[1 - current]}"
    return addresses


def pages(live: Any, cookies: list[dict[str, str]]) -> dict[str, str]:
    """One address per kind of page, in the states a player meets (and, into
    ``cookies``, what the browser that created the games holds)."""
    from app.access.unsubscribe import address_unsubscribe_token, unsubscribe_token
    from app.db import read_session
    from app.mail.invitations import guard_token
    from app.services.my_games import make_link_token
    from app.web.lobby import creator_token

    start = in_app(live, lambda: positions.start(3))
    drawn = positions.find(3, positions.pending("drawn"))
    drawn_game = in_app(live, lambda: positions.start(3, drawn))
    over = in_app(live, lambda: positions.start(2))
    last = in_app(live, lambda: positions.play_out(over.game_id))
    with live.app.test_request_context():  # the creating browser holds the nonce (issue 9)
        links = creator_token(start.game_id, nonce="e2e-creator")
    cookies.append({"name": f"created_{start.game_id}", "value": "e2e-creator",
                    "url": f"{live.base}/created/"})
    secret = str(live.app.config["SECRET_KEY"])

    def list_link() -> str:
        with read_session() as session:
            return make_link_token(session, "ann@example.com", secret)

    my_list = in_app(live, list_link)

    def settings_and_undo() -> tuple[str, str]:  # (issue 45: the keys mailed to an address)
        from app.clock import deadlines as dl
        from app.db.unit import unit_of_work
        from app.people import keys
        from app.services import person_settings
        from sqlmodel import select

        with unit_of_work() as unit:
            key = keys.token_of(keys.issue(unit, "dee@example.com", keys.ASKED_ON_SEAT,
                                           dl.now()))
            unit.write()
        person_settings.save("dee@example.com",
                             person_settings.check({"time_zone": "Europe/Paris"}), "settings")
        with read_session() as session:
            change = session.exec(select(keys.PersonChange)).first()
            return key, keys.undo_token(change.id)

    settings_key, undo = in_app(live, settings_and_undo)
    seat_unsubscribe = in_app(live, lambda: unsubscribe_token(start.game_id, 0, secret))
    all_unsubscribe = in_app(live, lambda: address_unsubscribe_token("bob@example.com", secret))
    guard = in_app(live, lambda: guard_token("cid@example.com", start.game_id, 2, secret))
    base = live.base
    return {
        "lobby": f"{base}/",
        "links": f"{base}/created/{links}",
        "rules": f"{base}/rules",
        "help-mail": f"{base}/help/mail",
        **seat_decisions(live),
        "seat-over": f"{base}/play/{over.tokens[0]}",
        "spectator": f"{base}/games/{drawn_game.game_id}",
        "spectator-over": f"{base}/games/{over.game_id}",
        "replay": f"{base}/games/{over.game_id}/replay?step=3",
        "replay-end": f"{base}/games/{over.game_id}/replay?step={last}",
        "replay-open-hand": f"{base}/games/{over.game_id}/replay?step=5&open=1",
        "replay-as-seat": f"{base}/games/{over.game_id}/replay?step=0&token={over.tokens[1]}",
        "bad-link": f"{base}/play/not-a-real-token",
        "not-found": f"{base}/no-such-page",
        "my-games": f"{base}/my-games",
        "my-games-list": f"{base}/my-games/{my_list}",
        "my-games-bad-link": f"{base}/my-games/not-a-real-link",
        # a person's settings: a seat's door that mails their link, the page a mailed
        # link opens, the games page's door, an undo link (issues 32, 45)
        "person-settings": f"{base}/play/{start.tokens[0]}/settings",
        "person-settings-key": f"{base}/settings/{settings_key}",
        "person-settings-games": f"{base}/my-games/{my_list}/settings",
        "person-settings-undo": f"{base}/settings/undo/{undo}",
        "unsubscribe-seat": f"{base}/unsubscribe/{seat_unsubscribe}",
        "unsubscribe-all-games": f"{base}/unsubscribe/{all_unsubscribe}",
        "invitations": f"{base}/invitations/{guard}",
        "dev-mailbox": f"{base}/dev/mail",
    }


#: Pages reached by pressing a button: (name, the page pressed on (None: the one just
#: reached), the button's words (None: the page's first form button), what its h1 says).
PRESSED = (("lobby-with-errors", "lobby", "Create the game", "Start a game"),
           ("unsubscribed", "unsubscribe-seat", None, "No more mail"),
           ("invitations-refused", "invitations", None, "No more invitations"),
           ("invitations-undone", None, None, "Invitations allowed again"))


def test_every_kind_of_page_has_no_serious_accessibility_problem(live_mailbox, browser):
    live = live_mailbox
    failures = {}
    cookies: list[dict[str, str]] = []
    addresses = pages(live, cookies)
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900},
                                      bypass_csp=True)   # axe is injected inline
        context.add_cookies(cookies)
        page = context.new_page()
        for name, url in addresses.items():
            answer = page.goto(url)
            assert answer is not None and answer.status < 500, url
            if found := problems(page, width):
                failures[f"{name}@{width}"] = found
        for name, start, button, title in PRESSED:
            if start:
                page.goto(addresses[start])
            press = (page.get_by_role("button", name=button) if button
                     else page.locator("main form button[type=submit]").first)
            with page.expect_navigation():
                press.click()
            assert title in page.locator("h1").inner_text(), name
            assert name != "lobby-with-errors" or page.locator("[role=alert] .flash.error").count()
            if found := problems(page, width):
                failures[f"{name}@{width}"] = found
        context.close()
    assert not failures, report(failures)


# -- every state of a seat page, axe's full rule set (issue 33) -----------------------------

def bombed_at_the_end() -> positions.Position:
    """A three-seat game played to its end in which a Mad Bomber removed a card in the last
    round: its game-over page shows the removed card, struck through (measured before:
    3.54:1 contrast)."""
    import random

    from app.engine.summary import last_summary

    for seed in range(1, 400):
        rng, state, moves = random.Random(seed), engine.new_game(3, seed), []
        while (view := engine.view(state, None))["phase"] != "over":
            seat = rng.choice(view["to_act"])
            legal = engine.legal_actions(state, seat)
            bomb = [a for a in legal if a["type"] == "bomb" and "position" in a]
            action = bomb[0] if bomb and view["round"] == engine.ROUNDS else rng.choice(legal)
            state, _ = engine.apply_action(state, seat, action)
            moves.append((seat, action))
        summary = last_summary(engine.view(state, 0))
        if summary and any(s["removed"] for s in summary.words(positions.PEOPLE[:3])["seats"]):
            return positions.Position(seed, moves, 0)
    raise LookupError("no game in the seeds searched ends with a card bombed away")


def seat_states(live: Any) -> dict[str, tuple[str, Callable[[Any], None] | None]]:
    """``{state: (seat page address, what the person does there first)}``: before and after
    a move (its flash), away, back (pressing "I'm back"), taken over by a substitute, the
    game over with a card bombed away, a vote open, the talk muted."""
    from app.services import talk, votes

    base = live.base

    def make(seats: int = 3, position: positions.Position | None = None) -> Any:
        return in_app(live, lambda: positions.start(seats, position))

    def away(game_id: str, seat: int) -> None:
        in_app(live, lambda: services.submit_action(
            game_id, seat, {"type": "away"}, services.game_info(game_id).seq, source="system"))

    def peek(page: Any) -> None:
        assert len(tap_cards(page)) == 2
        with page.expect_navigation():
            page.locator("form#choose button[type=submit]").click()
        assert page.locator(".flash.success").count() == 1, "the move's flash is shown"

    def press_back(page: Any) -> None:
        button = page.locator('form[action$="/back"] button[type=submit]').first
        button.evaluate("""b => { for (let d = b.closest('details'); d;    // (its fold opened)
                                         d = d.parentElement.closest('details')) d.open = true; }""")
        with page.expect_navigation():
            button.click()
        assert page.locator(".flash.success").count() == 1

    states: dict[str, tuple[str, Callable[[Any], None] | None]] = {}
    moving = make()
    states["before-a-move"] = (f"{base}/play/{moving.tokens[1]}", None)
    states["after-a-move"] = (f"{base}/play/{moving.tokens[0]}", peek)
    gone = make()
    away(gone.game_id, 2)
    states["away"] = (f"{base}/play/{gone.tokens[2]}", None)
    returning = make()
    away(returning.game_id, 2)
    states["back"] = (f"{base}/play/{returning.tokens[2]}", press_back)
    handed = make()
    away(handed.game_id, 2)
    in_app(live, lambda: votes.start(handed.game_id, 0, "substitute", subject=2, name="Gus",
                                     email="gus@example.com"))
    in_app(live, lambda: votes.answer(handed.game_id, 1, None, True))
    in_app(live, lambda: votes.answer(handed.game_id, 2, None, True))  # his consent (R51)
    states["taken-over"] = (f"{base}/play/{in_app(live, lambda: services.seat_tokens(handed.game_id))[2]}",
                            None)
    over = make(3, bombed_at_the_end())
    states["game-over-bombed"] = (f"{base}/play/{over.tokens[0]}", None)
    voting = make()
    in_app(live, lambda: votes.start(voting.game_id, 0, "abort"))
    states["vote-open"] = (f"{base}/play/{voting.tokens[1]}", None)
    quiet = make()
    in_app(live, lambda: talk.say_by_link(quiet.tokens[0], "Good luck all!", None, "page"))
    in_app(live, lambda: talk.set_muted(quiet.tokens[1], True))
    states["talk-muted"] = (f"{base}/play/{quiet.tokens[1]}", None)
    return states


def test_every_state_of_a_seat_page_passes_axes_full_rule_set(live, browser):
    """Issue 33: 0 serious and 0 critical findings of every axe rule on each state a seat
    page is met in, at 390 and 1280 px (measured before: the flash list after every move,
    13-15 nodes over 90 runs; removed cards on game-over pages at 3.54:1)."""
    failures = {}
    for width in WIDTHS:
        states = seat_states(live)       # (anew at each width: a move changes its game)
        context = browser.new_context(viewport={"width": width, "height": 844}, bypass_csp=True)
        page = context.new_page()
        for name, (url, do) in states.items():
            answer = page.goto(url)
            assert answer is not None and answer.status == 200, (name, url)
            if do is not None:
                do(page)
            if found := problems(page, width, full=True):
                failures[f"{name}@{width}"] = found
        context.close()
    assert not failures, report(failures)


def every_mail_kind() -> dict[str, Any]:
    """Every kind of mail the server sends: a game's (``every_kind``) and the link to
    all of an address's games."""
    from app.mail import compose
    from app.services.my_games import LINK_DAYS

    return {**every_kind(), "my_games": compose.render(
        "my_games", "Silver Eye · all your games", link=LINK, name=NAMES[0], days=LINK_DAYS)}


MAILS = every_mail_kind()


def test_every_mail_kind_has_no_serious_accessibility_problem(live_mailbox, browser):
    """Each kind's HTML part as a mail client shows it, and the development mailbox's
    page of that mail (its headers, text and the HTML in a frame)."""
    from app.mail.headers import build_message
    from app.mail.backends import mail_folder

    app = live_mailbox.app
    folder = mail_folder(app.config, app.instance_path)
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    for number, (kind, mail) in enumerate(sorted(MAILS.items()), start=1):
        message = build_message(
            to="wolfeschlegelsteinhausenbergerdorff@example.com", to_name=positions.PEOPLE[0],
            subject=mail.subject, text=mail.text, html=mail.html,
            headers={}, sender="Silver Eye Post <post@silver-eye.test>",
            date=datetime(2026, 12, 1, 12, tzinfo=timezone.utc))
        names[kind] = f"{number:09d}-{kind}.eml"
        (folder / names[kind]).write_bytes(message.raw)
    failures = {}
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
        page = context.new_page()
        for kind, mail in sorted(MAILS.items()):
            page.set_content(mail.html, wait_until="load")
            if found := problems(page, width, headings=False):
                failures[f"mail {kind}@{width}"] = found
            page.goto(f"{live_mailbox.base}/dev/mail/{names[kind]}")
            if found := problems(page, width):
                failures[f"/dev/mail {kind}@{width}"] = found
        context.close()
    assert len(names) == 17  # (issue 20 item 2: the talk mail; issue 21: people, rematch;
    #                          issue 51: a turn mail that carries the round's end)
    assert not failures, report(failures)


def test_the_skip_link_lands_on_the_decision_with_its_cards(live, browser):
    """Tab once from the top of a seat page that asks for a peek, press Enter: the
    decision (its cards to tick and its button) has the focus and is on screen, and
    the next Tab reaches a card to tick."""
    created = in_app(live, lambda: positions.start(2))
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 700})
        page = context.new_page()
        page.goto(f"{live.base}/play/{created.tokens[0]}")
        page.keyboard.press("Tab")
        link = page.evaluate("() => [document.activeElement.tagName, "
                             "document.activeElement.getAttribute('href')]")
        assert link == ["A", "#decision"], link
        page.keyboard.press("Enter")
        landed = page.evaluate("""() => {
            const here = document.activeElement, box = here.getBoundingClientRect();
            return {id: here.id, picks: here.querySelectorAll('input.pick-box').length,
                    button: !!here.querySelector('form#choose button[type=submit]'),
                    top: box.top, height: innerHeight};
        }""")
        assert landed["id"] == "decision", landed
        assert landed["picks"] >= 2 and landed["button"], landed
        assert 0 <= landed["top"] < landed["height"], landed    # scrolled to it
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.matches('input.pick-box') && "
                             "!!document.activeElement.closest('#decision')")
        context.close()


def test_every_card_has_a_text_alternative(live, browser):
    position = positions.find(3, positions.pending("twister"))
    created = in_app(live, lambda: positions.start(3, position))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    for url in (f"{live.base}/play/{created.tokens[position.seat]}",
                f"{live.base}/games/{created.game_id}", f"{live.base}/rules"):
        page.goto(url)
        silent = page.locator(".card").evaluate_all("""cards => cards.filter(c => {
            const said = (c.getAttribute('aria-label') || '') +
                         (c.querySelector('.sr-only') ? c.querySelector('.sr-only').textContent : '');
            return said.trim().length < 4;
        }).map(c => c.outerHTML.slice(0, 120))""")
        assert page.locator(".card").count() > 0
        assert silent == [], url
    context.close()


def test_a_peek_can_be_made_with_the_keyboard_alone(live, browser):
    created = in_app(live, lambda: positions.start(2))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live.base}/play/{created.tokens[0]}")
    ticked = 0
    for _ in range(80):                                  # Tab through the page, like a person
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.className + '|' + "
                                "document.activeElement.tagName")
        if "pick-box" in focused and ticked < 2:
            page.keyboard.press("Space")
            ticked += 1
        elif ticked == 2 and focused.endswith("BUTTON") and page.evaluate(
                "() => document.activeElement.form && document.activeElement.form.id === 'choose'"):
            break
    assert ticked == 2
    assert "Peek at your #1" in page.locator("form#choose .live-line").inner_text()
    shot(page, "keyboard-peek-desktop")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(".flash.success").inner_text().startswith("You looked at #1:")
    assert in_app(live, lambda: services.game_info(created.game_id).seq) == 1
    context.close()
