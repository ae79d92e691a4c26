"""A hand-over starts clean (issue 45 item 3, R49, R52): what the seat's earlier player
decided ahead does not play the newcomer's cards.

The finding as written: Bob sends ``ALWAYS DISCARD IF 9 OR MORE``, says away, and the
others hand his seat to Mallory; her first draw (a 9 or more) was followed in the same
request by a ``discard`` played by Bob's order, and nothing told her the order existed.
Now the take-over clears the seat's plan and standing orders in the vote's own unit of
work (``presence.leaving.forget_plan``), and her welcome says none were carried over.
Told from Mallory's side (her draw stays hers), Bob's (his old link cannot give the seat
orders again) and the table's (the log holds no move of Bob's orders after he left).
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from app import engine, services
from app.clock import deadlines as dl
from tests.people.test_plans_by_reply import _log

from .conftest import T0, hours, lead_of, post, reply

PEOPLE = [("Ann", "ann@example.com"), ("Bob", "bob@example.com"), ("Cid", "cid@example.com")]
BOB, MALLORY = "bob@example.com", "mallory@example.com"
ORDER = "ALWAYS DISCARD IF 9 OR MORE"
WORDS = "When you draw: discard it if it is 9 or more."
#: A deal (Bob starts) whose first card Mallory draws after the hand-over is a 9 or more:
#: the order, had it survived, would discard it.
SEED = "3"


def plain(message: Any) -> str:
    return message.get_body(("plain",)).get_content()


def bob_orders_then_leaves_and_mallory_takes_over(app: Any, client: Any, new_game: Any,
                                                  tick: Any, mailbox: Any, how: str,
                                                  before_leaving: Any = None
                                                  ) -> tuple[str, list[str]]:
    """Bob gives his seat the standing order (``how``: by replying to his mail, or by
    JSON), says away; Ann proposes Mallory, Cid agrees, and the vote passes (after the
    time Bob is given to say no: issue 45 item 4). Returns the game and its first links."""
    with dl.at(T0):
        created = new_game(seats=3, people=PEOPLE, seed=SEED, first=1)
    gid, links = created.game_id, list(created.tokens)
    tick(T0)
    if how == "mail":
        to = str([m for m in mailbox.to(BOB) if m["Reply-To"]][-1]["Reply-To"])
        status, outcome = reply(app, to, BOB, ORDER, now=T0)
        assert status in ("applied", "answered"), outcome
    else:
        sent = client.post(f"/api/play/{links[1]}/plan", json={"words": ORDER})
        assert sent.status_code == 200, sent.get_json()
    orders = client.get(f"/api/play/{links[1]}/plan").get_json()["orders"]
    assert [o["words"] for o in orders] == [WORDS], "Bob's seat holds his order"
    if before_leaving is not None:
        before_leaving(links[1])
    with dl.at(T0 + hours(1)):
        away = client.post(f"/api/play/{links[1]}/actions", json={
            "action": {"type": "away"}, "expected_seq": services.game_info(gid).seq})
        assert away.status_code == 200, away.get_json()
        assert post(client, links[0], "/votes", kind="substitute", seat="1", name="Mallory",
                    email=MALLORY).status_code == 303
        assert client.post(f"/api/play/{links[2]}/votes/1", json={"yes": True}).status_code == 200
    for later in (1, 14, 26, 50):  # whatever the vote's rules ask, it passes by its expiry
        tick(T0 + hours(later))
        if services.game_info(gid).names[1] == "Mallory":
            break
    assert services.game_info(gid).names[1] == "Mallory"
    return gid, links


def until_mallorys_draw(client: Any, gid: str, mallory: str) -> None:
    """The others play at random (Mallory peeks when asked) until Mallory is to draw."""
    rng = random.Random(1)
    for _ in range(200):
        snap = services.snapshot(gid)
        view = engine.view(snap.state, 1)
        if view.get("current") == 1 and view.get("pending") == "turn" and 1 in view["to_act"]:
            return
        others = [s for s in view["to_act"] if s != 1]
        if others:
            seat = others[0]
            services.submit_action(gid, seat, rng.choice(engine.legal_actions(snap.state, seat)),
                                   snap.seq)
        else:
            peek = next(a for a in engine.legal_actions(snap.state, 1) if a["type"] == "peek")
            assert client.post(f"/api/play/{mallory}/actions", json={
                "action": peek, "expected_seq": snap.seq}).status_code == 200
    raise AssertionError("Mallory's turn never came")


@pytest.mark.parametrize("how", ["mail", "json"])
def test_R49_bobs_standing_order_does_not_discard_mallorys_first_draw(app, client, new_game,
                                                                      tick, mailbox, how):
    gid, links = bob_orders_then_leaves_and_mallory_takes_over(app, client, new_game, tick,
                                                               mailbox, how)
    mallory = services.seat_tokens(gid)[1]
    with dl.at(T0 + hours(50)):
        until_mallorys_draw(client, gid, mallory)
        before = len(_log(app, gid))
        drew = client.post(f"/api/play/{mallory}/actions", json={
            "action": {"type": "draw"}, "expected_seq": services.game_info(gid).seq})
    assert drew.status_code == 200, drew.get_json()
    assert [(seat, action["type"]) for _, seat, action, _ in _log(app, gid)[before:]] == \
        [(1, "draw")], "nothing played Mallory's card for her"
    view = engine.view(services.snapshot(gid).state, 1)
    assert view.get("hand_seat") == 1 and int(view["hand"]["value"]) >= 9, \
        "the deal gives Mallory a card Bob's order would have discarded"
    assert 1 in view["to_act"], "the card waits for Mallory's own decision"
    assert client.get(f"/api/play/{mallory}/plan").get_json()["orders"] == [], \
        "the seat came without Bob's orders"


def test_R49_mallorys_welcome_says_no_orders_were_carried_over(app, client, new_game, tick,
                                                               mailbox):
    gid, _ = bob_orders_then_leaves_and_mallory_takes_over(app, client, new_game, tick,
                                                           mailbox, "json")
    tick(T0 + hours(51))
    welcome = [plain(m) for m in mailbox.to(MALLORY) if "take over Bob's seat" in plain(m)]
    assert len(welcome) == 1
    said = " ".join(welcome[0].split())
    assert "No plan or standing order of Bob's was carried over" in said
    page = client.get(f"/play/{services.seat_tokens(gid)[1]}").get_data(as_text=True)
    assert "Always discard" not in page, "her page shows no order of Bob's"


def test_R49_bobs_old_link_cannot_give_the_seat_orders_again(app, client, new_game, tick,
                                                             mailbox):
    """Bob keeps his old link (a stranger to the seat now, holding one link): it neither
    sets an order for Mallory's seat nor reads hers."""
    gid, links = bob_orders_then_leaves_and_mallory_takes_over(app, client, new_game, tick,
                                                               mailbox, "json")
    again = client.post(f"/api/play/{links[1]}/plan", json={"words": ORDER})
    assert again.status_code == 403
    assert client.get(f"/api/play/{links[1]}/plan").status_code == 403
    mallory = services.seat_tokens(gid)[1]
    assert client.get(f"/api/play/{mallory}/plan").get_json()["orders"] == []


def test_R49_bobs_mail_choices_for_the_seat_are_not_mallorys(app, client, new_game, tick,
                                                           mailbox):
    """Bob asked this game for no mail and sent its notices to his webhook; Mallory's seat
    starts with a new seat's defaults: her turns are mailed to her, nothing goes to his
    webhook (issue 45 item 3: a hand-over starts clean)."""
    from sqlmodel import select

    from app.channels.models import NoticeTarget
    from app.db import read_session
    from app.services import seat_settings

    app.config.update(NOTICE_ALLOW_PRIVATE=True)

    def no_mail_and_a_webhook(bob: str) -> None:
        assert post(client, bob, "/prefs", mode="none").status_code == 303
        assert client.post(f"/api/play/{bob}/targets",
                           json={"url": "json://127.0.0.1:9/bobs-hook"}).status_code == 201

    gid, _ = bob_orders_then_leaves_and_mallory_takes_over(
        app, client, new_game, tick, mailbox, "json", before_leaving=no_mail_and_a_webhook)
    assert seat_settings.status(gid, 1)["mode"] == "every"
    with read_session() as session:
        assert session.exec(select(NoticeTarget).where(NoticeTarget.game_id == gid)).all() == []
    mallory = services.seat_tokens(gid)[1]
    with dl.at(T0 + hours(50)):
        until_mallorys_draw(client, gid, mallory)
    tick(T0 + hours(52))
    leads = [lead_of(m) for m in mailbox.to(MALLORY)]
    assert any(lead.startswith("Your turn") for lead in leads), leads
