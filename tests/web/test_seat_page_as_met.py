"""The seat page as a person meets it (issue 33 item 3): the person away finds "I'm back"
before anything else and is promised no mail that will not come; one box is called "The
table"; notice targets are explained by example, not by the library that sends them.
"""
from __future__ import annotations

from app import engine, services
from app.services import absence
from tests.conftest import PEOPLE
from tests.person_keys import settings_link


def _waiting_seat(gid: str) -> int:
    """A seat with nothing to decide now (the page then says what happens next)."""
    view = services.snapshot(gid).view(None)
    return next(s for s in range(3) if s not in view["to_act"])


def _settle_peeks(gid: str) -> None:
    """The deal's first decisions made (everyone peeks at once), so a seat waits."""
    for _ in range(6):
        snap = services.snapshot(gid)
        view = snap.view(None)
        if len(view["to_act"]) < 3:
            return
        seat = view["to_act"][0]
        step = next(a for a in engine.legal_actions(snap.state, seat)
                    if a["type"] not in ("away", "back"))
        services.submit_action(gid, seat, step, snap.seq)


def test_bob_away_finds_im_back_first_and_no_promise_of_a_turn_mail(client, new_game):
    created = new_game(seats=3)
    gid = created.game_id
    _settle_peeks(gid)
    bob = _waiting_seat(gid)
    token = created.tokens[bob]
    services.submit_action(gid, bob, {"type": "away"}, services.game_info(gid).seq,
                           source="system")
    html = client.get(f"/play/{token}").get_data(as_text=True)
    back = f'action="/play/{token}/back"'
    assert html.count(back) == 1, "one I'm back button, not a second one in a fold"
    assert html.index(back) < html.index('id="decision"'), "above the cards"
    assert html.index(back) < html.index("<details"), "not inside a fold"
    assert "we also email you" not in html
    absence.come_back(gid, bob)
    html = client.get(f"/play/{token}").get_data(as_text=True)
    assert back not in html
    assert bob not in services.snapshot(gid).view(None)["to_act"]
    assert "we also email you when it is your move" in html


def test_one_box_is_called_the_table(client, new_game):
    created = new_game(seats=3)
    html = client.get(f"/play/{created.tokens[1]}").get_data(as_text=True)
    assert html.count(">The table</h2>") == 1


def test_notice_targets_are_explained_by_example_not_by_library(client, new_game):
    created = new_game(seats=2)
    settings = settings_link(client, created.tokens[0], PEOPLE[0][1])
    for path in (f"/play/{created.tokens[0]}", settings):
        html = client.get(path).get_data(as_text=True)
        assert "a Discord webhook address, e.g. <code>discord://" in html, path
        assert "apprise" not in html.lower(), path
