"""Issue 49's leak scan: every notice of a whole game, as the phone's lock screen shows it.

Ann (in Tokyo) plays a whole game against two bots, at random, five minutes a move; her
browser is subscribed to Web Push, and the clock's mail pass runs after every move. Each
push is decrypted as the browser would and scanned: the only card it may name is one
the table can see at that moment (the discard pile, faceup village cards: a turn names
the discard it may take), never one Ann knows privately (her peeks, the card she drew);
each turn notice says the decision and its deadline in her zone.
"""
from __future__ import annotations

import random
import re
from datetime import timedelta

from app import engine, services
from app.clock import deadlines as dl
from app.engine import cards
from app.runners import clock
from app.services import person_settings

from .test_web_push import Browser, ann_game, push_app, push_service, subscribe  # noqa: F401
from .test_when_mail_matters import T0, CheckingMailbox, graced, new_game  # noqa: F401

LABELS = {cards.label(card): card for card in range(52)}
NAMED = re.compile("|".join(sorted((re.escape(label) for label in LABELS), key=len,
                                   reverse=True)))


def public_labels(view: dict) -> set[str]:
    """The card names anyone at the table sees now (a spectator's view)."""
    shown = list(view.get("discard") or [])
    shown += [card for village in view["villages"] for card in village]
    return {cards.label(card["id"]) for card in shown if card.get("id") is not None}


def test_no_notice_of_a_whole_game_names_a_card_the_table_cannot_see(
        push_app, new_game, push_service):
    person_settings.set_time_zone("ann@example.com", "Asia/Tokyo")
    game = ann_game(new_game, seed="41")
    browser = Browser()
    subscribe(game.tokens[0], browser, push_service.endpoint("ann"))
    rng, now, seen = random.Random(7), T0, 0
    read: list[str] = []
    for _ in range(2000):
        now += timedelta(seconds=300)
        clock.send_mail_due(push_app, now, backend=CheckingMailbox())
        snapshot = services.snapshot(game.game_id)
        public = public_labels(snapshot.view(None))
        mine = snapshot.view(0)
        for got in push_service.at("ann")[seen:]:
            body = browser.read(got.body)["body"]
            named = set(NAMED.findall(body))
            assert named <= public, f"{body!r} names {named - public}, not on the table"
            if "Your turn:" in body:
                assert " · due " in body and body.endswith("JST"), body
            read.append(body)
        seen = len(push_service.at("ann"))
        if mine["phase"] == "over":
            break
        if 0 in mine["to_act"]:
            action = rng.choice(engine.legal_actions(snapshot.state, 0))
            with dl.at(now):
                services.submit_action(game.game_id, 0, action, mine["step"])
    assert services.game_info(game.game_id).status == "over"
    assert len(read) > 20, "a push for each of Ann's turns"
    assert any(NAMED.search(body) for body in read), "turns name the discard they may take"
