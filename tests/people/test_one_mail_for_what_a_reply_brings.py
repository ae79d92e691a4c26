"""Issue 51 item 1, from the side of a player who plays by reply: one mail where two came.

- R24, R5: a round's end and the next round's first decision (the peek) come in one
  mail; a seat that peeks on its page before that mail leaves gets the round's end alone.
- R52 (deciding ahead): standing orders sent by reply are answered in the turn mail they
  bring, never in a second mail beside it.
- R52: every turn mail lists the standing orders in force, and offers the one-line order
  that would have answered its decision ("Reply ALWAYS SKIP TWISTER to stop these"), in
  its text and its HTML; replying it answers this decision and every later one.
"""
from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

from app import services
from app.clock import deadlines as dl
from app.engine import bots
from app.engine.meaning import decision_of
from app.engine.plans import ABILITY_NAMES
from tests.clock.conftest import T0
from tests.mail.conftest import lead_of
from tests.people.conftest import newest_unread, reply
from tests.people.test_plans_by_reply import _first_command, _text

ANN = "ann@example.com"
ORDERS = "ALWAYS PEEK 1 2; ALWAYS SKIP SPLIT SEER"
OFFER = re.compile(r"Reply (ALWAYS [A-Z0-9 ]+?) to stop these")


def _html(mail: Any) -> str:
    return mail.get_body(preferencelist=("html",)).get_content()


def _play_to_round_two(game_id: str, source: str) -> None:
    """Ann's moves (by ``source``) and the bots' until round 1 is scored."""
    rng = random.Random(3)
    with dl.at(T0):
        for _ in range(500):
            snap = services.snapshot(game_id)
            view = snap.view(None)
            if view["round"] > 1:
                return
            services.submit_action(game_id, 0, bots.choose("greedy", snap.state, 0, rng),
                                   snap.seq, source=source)
    raise AssertionError("round 1 did not end")


def test_r24_r5_the_rounds_end_rides_in_the_mail_that_asks_for_the_next_peek(
        app, game_at_t0, mailbox, tick):
    created = game_at_t0(seats=3, bots=(1, 2), seed="35")
    tick(T0)
    _play_to_round_two(created.game_id, "mail")
    mailbox.clear()
    tick(T0 + timedelta(minutes=5))
    mails = mailbox.to(ANN)
    assert [lead_of(m).split(" · ")[0] for m in mails] == [
        "Your turn: peek at two of your cards (round 2)"]
    text, html = _text(mails[0]), _html(mails[0])
    assert 'Round 1 of "Test game" is over.' in text and "Round 1: how it was scored" in text
    assert "Round 1 is over" in html and "how it was scored" in html
    tick(T0 + timedelta(hours=1))  # and the round's own mail never follows
    assert len(mailbox.to(ANN)) == 1


def test_r24_a_seat_that_peeks_on_its_page_before_the_mail_leaves_gets_the_rounds_end_alone(
        app, game_at_t0, mailbox, tick):
    app.config["TURN_MAIL_DELAY_SECONDS"] = 120
    created = game_at_t0(seats=3, bots=(1, 2), seed="35")
    tick(T0)
    _play_to_round_two(created.game_id, "player")
    mailbox.clear()
    snap = services.snapshot(created.game_id)
    assert "peek" in str(snap.view(0).get("pending")) or 0 in snap.view(None)["to_act"]
    with dl.at(T0 + timedelta(seconds=30)):  # on the page, within the grace period
        services.submit_action(created.game_id, 0, {"type": "peek", "positions": [0, 1]},
                               snap.seq)
    tick(T0 + timedelta(hours=1))
    leads = [lead_of(m) for m in mailbox.to(ANN)]
    assert "Round 1 is over: how it was scored, and the totals" in leads
    assert not any("peek at two of your cards" in lead for lead in leads)


def test_r52_orders_sent_by_reply_are_answered_in_the_turn_mail_they_bring(
        app, game_at_t0, mailbox, tick):
    created = game_at_t0(seats=3, bots=(1, 2), seed="35", first=1)
    tick(T0)
    to = str([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]["Reply-To"])
    mailbox.clear()
    with dl.at(T0):
        status, outcome = reply(app, to, ANN, ORDERS, now=T0)
    assert status == "answered" and outcome == "orders kept (answered in its turn mail)"
    tick(T0 + timedelta(minutes=1))
    mails = mailbox.to(ANN)
    assert len(mails) == 1, [lead_of(m) for m in mails]  # the turn mail, no answer beside it
    text, html = _text(mails[0]), _html(mails[0])
    assert lead_of(mails[0]).startswith("Your turn: draw")
    assert f"About your reply “{ORDERS}”: your standing orders are changed" in text
    assert "About your reply" in html
    assert ("Your standing orders: Every round: peek at #1 and #2. Always skip the Split "
            "Seer.") in text
    assert "Always skip the Split Seer." in html


def test_r52_a_turn_mail_offers_the_order_that_would_have_spared_it_and_replying_it_does(
        app, game_at_t0, mailbox, tick):
    created = game_at_t0(seats=3, bots=(1, 2), seed="35")
    tick(T0)
    first = [m for m in mailbox.to(ANN) if m["Reply-To"]][-1]
    # the round's peek: no order answers it yet, so the mail offers one
    assert OFFER.search(_text(first)).group(1) == "ALWAYS PEEK 1 2"
    assert "Reply <code>ALWAYS PEEK 1 2</code> to stop these" in _html(first)
    now, answered = T0, {str(first["Message-ID"])}
    with dl.at(now):
        reply(app, str(first["Reply-To"]), ANN, ORDERS, now=now)
    offered = None
    for _ in range(300):
        now += timedelta(minutes=5)
        tick(now)
        mail = newest_unread(mailbox, ANN, answered)
        if mail is None:
            continue
        # the orders in force are listed in every turn mail, and none offers what they answer
        assert "Always skip the Split Seer." in _text(mail)
        assert not OFFER.search(_text(mail)) or "PEEK" not in OFFER.search(_text(mail)).group(1)
        if OFFER.search(_text(mail)):
            offered = OFFER.search(_text(mail)).group(1)
            kind = lead_of(mail)
            assert f"Reply <code>{offered}</code> to stop these" in _html(mail)
            break
        command = ("D, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD"
                   if "draw a card" in lead_of(mail) else _first_command(mail))
        with dl.at(now):
            reply(app, str(mail["Reply-To"]), ANN, command, now=now)
    assert offered is not None and offered.startswith("ALWAYS SKIP ")
    with dl.at(now):  # the offered order answers this decision at once...
        status, outcome = reply(app, str(mail["Reply-To"]), ANN, offered, now=now)
    assert status == "answered" and outcome.startswith("orders kept")
    ability = offered.removeprefix("ALWAYS SKIP ").title()  # e.g. "Underminer"
    decision = next(on for on, name in ABILITY_NAMES.items() if name.title() == ability)
    assert decision_of(services.snapshot(created.game_id).view(0), 0) != decision
    # ... and every later one: no mail asks it again, however long the game runs
    for _ in range(400):
        now += timedelta(minutes=5)
        tick(now)
        if services.game_info(created.game_id).status != "running":
            break
        mail = newest_unread(mailbox, ANN, answered)
        if mail is None:
            continue
        assert lead_of(mail).split(" (round")[0] != kind.split(" (round")[0]
        assert f"Always skip the {ability}." in _text(mail)
        command = ("D, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD"
                   if "draw a card" in lead_of(mail) else
                   OFFER.search(_text(mail)).group(1) if OFFER.search(_text(mail))
                   else _first_command(mail))
        with dl.at(now):
            reply(app, str(mail["Reply-To"]), ANN, command, now=now)


def test_r52_a_turn_mail_written_before_the_orders_changed_says_them_in_its_answer_line():
    """A turn mail composed already, which lists the orders of before (or none), carries
    the whole answer, the new orders in it: it never says "listed below" of orders it
    does not list."""
    from app.inbound.answers import ORDERS_KEPT, Verdict, answer_line

    why = "Your standing orders: Always skip the Twister."
    verdict = Verdict("answered", "orders kept", answer=(why, "ALWAYS SKIP TWISTER", "view"))
    assert answer_line(verdict, "...\nYour standing orders: Always skip the Twister.\n") == \
        f"About your reply “ALWAYS SKIP TWISTER”: {ORDERS_KEPT}"
    assert answer_line(verdict, None).endswith(ORDERS_KEPT)  # composed as it leaves
    for before in ("...\nYour standing orders: Every round: peek at #1 and #2.\n", "..."):
        assert answer_line(verdict, before) == f"About your reply “ALWAYS SKIP TWISTER”: {why}"


def test_r52_orders_whose_turn_mail_left_before_the_answer_get_no_answer_beside_it(
        app, game_at_t0, mailbox, tick, monkeypatch):
    """The sender may take the turn mail the orders brought before the reply's answer is
    decided (its own transaction, right after): that mail lists the orders, so no answer
    follows it."""
    from app.inbound import answers

    game_at_t0(seats=3, bots=(1, 2), seed="35", first=1)
    tick(T0)
    to = str([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]["Reply-To"])
    mailbox.clear()
    answer = answers.answer

    def sender_first(*args: Any, **kwargs: Any) -> None:
        tick(T0)  # the sender wins the race
        answer(*args, **kwargs)

    monkeypatch.setattr(answers, "answer", sender_first)
    with dl.at(T0):
        status, outcome = reply(app, to, ANN, ORDERS, now=T0)
    assert (status, outcome) == ("answered", "orders kept (its turn mail lists them)")
    tick(T0 + timedelta(minutes=1))
    mails = mailbox.to(ANN)
    assert [lead_of(m).split(", or take the ")[0] for m in mails] == ["Your turn: draw"]
    assert "Your standing orders: Every round: peek at #1 and #2." in _text(mails[0])
