"""Issue 35 through the server: a plan sent by reply is played as the seat's own moves
in the move's transaction, stops in words where the rules refuse a step, never outlives
its turn, and a plan sent twice is played once."""
from __future__ import annotations

import email.policy
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from app import services
from app.clock import deadlines as dl
from app.db import get_engine
from app.inbound import inbox
from app.runners import inbound as runners_inbound
from app.services import plans
from tests.clock.conftest import T0, hours
from tests.mail.conftest import lead_of
from tests.people.conftest import reply

ANN, BOB = "ann@example.com", "bob@example.com"


def _text(mail: Any) -> str:
    return mail.get_body(preferencelist=("plain",)).get_content()


def _mine(game_id: str, seat: int = 0) -> list[tuple[dict, str]]:
    from tests.people.test_plans_by_reply import _log
    from flask import current_app
    return [(a, src) for _, s, a, src in _log(current_app, game_id) if s == seat]


def test_r35_r14_an_obsessor_on_the_pile_refuses_the_planned_discard(app, game_at_t0, mailbox,
                                                                       tick):
    """Seed 90: the Odd Obsessor starts the pile and an 8 Split Seer tops the deck. Ann's
    "PEEK 1 2, DRAW, DISCARD, SKIP" peeks and draws; the discard is refused (R14), so the
    plan stops there and her turn mail for the card in her hand says which step and why."""
    created = game_at_t0(seats=3, bots=(1, 2), seed="90", first=0)
    tick(T0)
    mail = [m for m in mailbox.to(ANN) if m["Reply-To"]][-1]
    with dl.at(T0):
        status, _ = reply(app, str(mail["Reply-To"]), ANN, "PEEK 1 2, DRAW, DISCARD, SKIP", now=T0)
    assert status == "applied"
    assert [a["type"] for a, _ in _mine(created.game_id)] == ["peek", "draw"]
    assert {src for _, src in _mine(created.game_id)} == {"mail"}
    tick(T0 + timedelta(minutes=1))
    last = [m for m in mailbox.to(ANN) if m["Reply-To"]][-1]
    assert "keep the drawn card or discard it" in lead_of(last)
    said = " ".join(_text(last).split())
    assert "Your plan “PEEK 1 2, DRAW, DISCARD, SKIP” stopped at “DISCARD”" in said
    assert "Odd Obsessor" in said and "Before that, you peeked at #1" in said
    assert plans.state_of(created.game_id, 0)["plan"] is None


def test_r35_a_plan_sent_twice_is_played_once(app, game_at_t0, mailbox, tick):
    """The same mail delivered twice (one Message-ID) is stored once; the same words sent
    again in a new mail to the same turn mail change nothing either."""
    created = game_at_t0(seats=3, bots=(1, 2), seed="35", first=0)
    tick(T0)
    to = str([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]["Reply-To"])
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = ANN, to, "Re: your game"
    message["Message-ID"] = make_msgid(domain="player.example")
    message.set_content("PEEK 1 2, DRAW, KEEP AT 1 IF 3 OR LESS, ELSE DISCARD, SKIP\n")
    raw = message.as_bytes(policy=email.policy.SMTP)
    with dl.at(T0):
        first = inbox.store(get_engine(app), raw, via="smtp", mail_from=ANN, rcpt=[to], now=T0)
        again = inbox.store(get_engine(app), raw, via="smtp", mail_from=ANN, rcpt=[to], now=T0)
        runners_inbound.apply_pending(app, T0)
    assert again.id == first.id and again.duplicate and not first.duplicate
    played = _mine(created.game_id)
    assert [a["type"] for a, _ in played][:2] == ["peek", "draw"]
    with dl.at(T0 + hours(1)):
        status, outcome = reply(app, to, ANN,
                                "PEEK 1 2, DRAW, KEEP AT 1 IF 3 OR LESS, ELSE DISCARD, SKIP",
                                now=T0 + hours(1))
    assert _mine(created.game_id) == played, outcome


def test_r35_r29_the_seat_times_out_while_its_plan_waits(app, game_at_t0, mailbox, tick):
    """Bob starts; Ann sends her next turn ahead ("DRAW, DISCARD") from the page before she
    peeked. Her turn comes and her plan waits behind her peek (R5). Her time runs out:
    the clock plays only the decision that timed out, the peek (R29: the two leftmost),
    and the plan that waited behind it plays her turn at once, as her own moves; her
    next mail says both (R52). (A timeout that passes the turn itself ends the plan instead:
    tests/engine/test_plans.py::test_r35_r29_a_timeout_passes_the_turn_a_plan_waited_for.)"""
    created = game_at_t0(seats=2, seed="35", first=1)
    gid = created.game_id
    with dl.at(T0):
        sent = plans.send(gid, 0, {"plan": {"steps": [
            {"choices": [{"action": {"type": "draw"}}]},
            {"choices": [{"action": {"type": "exchange", "positions": [4]}}]}]}}, None)
        assert sent.what == "waiting"
        assert plans.state_of(gid, 0)["plan"]["words"] == "Draw; then when you draw: keep it at #5."
        snap = services.snapshot(gid)
        services.submit_action(gid, 1, {"type": "peek", "positions": [0, 1]}, snap.seq)
        services.submit_action(gid, 1, {"type": "draw"}, snap.seq + 1)
        services.submit_action(gid, 1, {"type": "exchange", "positions": [0]}, snap.seq + 2)
    view = services.snapshot(gid).view(0)
    assert view["current"] == 0 and 0 in view["peeks_pending"]
    assert plans.state_of(gid, 0)["plan"] is not None           # waiting behind the peek
    tick(T0 + hours(60))
    assert [(a["type"], src) for a, src in _mine(gid)] == [
        ("peek", "timeout"), ("draw", "player"), ("exchange", "player")]
    shown = plans.state_of(gid, 0)
    assert shown["plan"] is None
    assert shown["told"] == [
        "Time ran out: cards #1 and #2 of your village were looked at for you.",
        "Your plan “DRAW, KEEP IT AT #5”: you drew a 10 Dracula, kept it at #5."]
    with dl.at(T0 + hours(61)):
        snap = services.snapshot(gid)
        services.submit_action(gid, 1, {"type": "draw"}, snap.seq)
        services.submit_action(gid, 1, {"type": "exchange", "positions": [0]}, snap.seq + 1)
    tick(T0 + hours(62))
    said = " ".join(_text([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]).split())
    assert "Time ran out: cards #1 and #2 of your village were looked at for you." in said
    assert "Your plan “DRAW, KEEP IT AT #5”: you drew a 10 Dracula, kept it at #5." in said


def test_r35_standing_orders_by_reply_are_answered_and_play_at_once(app, game_at_t0, mailbox,
                                                                     tick):
    created = game_at_t0(seats=3, bots=(1, 2), seed="35", first=1)
    tick(T0)
    to = str([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]["Reply-To"])
    with dl.at(T0):
        status, outcome = reply(app, to, ANN, "ALWAYS PEEK 1 2; ALWAYS SKIP SPLIT SEER", now=T0)
    # (issue 51 item 1: the turn mail the peek brought carries the answer, and lists the
    # orders in force)
    assert status == "answered" and outcome == "orders kept (answered in its turn mail)"
    assert [a for a, _ in _mine(created.game_id)][0] == {"type": "peek", "positions": [0, 1]}
    tick(T0 + timedelta(minutes=1))
    answer = [m for m in mailbox.to(ANN) if "Always skip the Split Seer." in _text(m)]
    assert answer, [lead_of(m) for m in mailbox.to(ANN)]
    with dl.at(T0 + hours(1)):
        status, outcome = reply(app, to, ANN, "NO ORDERS", now=T0 + hours(1))
    assert plans.state_of(created.game_id, 0)["orders"] == []


def test_r35_a_plan_sent_mid_turn_ends_with_that_turn(app, new_game):
    """Ann drew on her page, then sends "KEEP AT 1, SKIP": the exchange ends her turn, the
    SKIP was not needed, and nothing of the plan waits for her next turn."""
    created = new_game(seats=2, bots=(1,), first=0)
    gid = created.game_id
    snap = services.snapshot(gid)
    services.submit_action(gid, 0, {"type": "peek", "positions": [0, 1]}, snap.seq)
    services.submit_action(gid, 0, {"type": "draw"}, snap.seq + 1)
    sent = plans.send(gid, 0, {"plan": {"steps": [
        {"choices": [{"action": {"type": "exchange", "positions": [0]}}], "text": "KEEP AT 1"},
        {"choices": [{"action": {"type": "skip"}}], "text": "SKIP"}]}}, None)
    assert sent.what == "played"
    shown = plans.state_of(gid, 0)
    assert shown["plan"] is None
    assert shown["told"][-1].endswith("(SKIP was not needed.)")
    assert [a["type"] for a, _ in _mine(gid)] == ["peek", "draw", "exchange"]


def test_r35_the_answer_to_a_plan_that_waits_says_what_it_will_do(app, game_at_t0, mailbox,
                                                                  tick):
    """Bob starts; Ann answers her round-start mail with her peek and her whole first turn:
    the peek is played now, and the answer says, once, what the plan will do."""
    created = game_at_t0(seats=2, seed="35", first=1)
    tick(T0)
    to = str([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]["Reply-To"])
    with dl.at(T0):
        status, outcome = reply(app, to, ANN, "PEEK 1 2, DRAW, KEEP AT 2 IF 3 OR LESS, ELSE "
                                              "DISCARD", now=T0)
    assert status == "applied", outcome
    assert [a["type"] for a, _ in _mine(created.game_id)] == ["peek"]
    tick(T0 + timedelta(minutes=1))
    said = " ".join(_text(mailbox.to(ANN)[-1]).split())
    assert ("Your plan waits for its turn: Draw; then when you draw: keep it at #2 if it is "
            "3 or less, else discard it.") in said


def test_r35_a_reply_keeping_a_card_at_0_is_answered_with_why_and_changes_nothing(
        app, game_at_t0, mailbox, tick):
    """Ann answers her round-start mail with "PEEK 1 2, DRAW, KEEP AT 0": the reply is
    answered, in words, that cards count from 1; nothing is played and no plan is kept."""
    created = game_at_t0(seats=2, seed="35", first=1)
    tick(T0)
    to = str([m for m in mailbox.to(ANN) if m["Reply-To"]][-1]["Reply-To"])
    with dl.at(T0):
        status, outcome = reply(app, to, ANN, "PEEK 1 2, DRAW, KEEP AT 0", now=T0)
    assert status == "answered", outcome
    assert _mine(created.game_id) == []
    assert plans.state_of(created.game_id, 0)["plan"] is None
    tick(T0 + timedelta(minutes=1))
    said = " ".join(_text(mailbox.to(ANN)[-1]).split())
    assert '"0" is not a card number: numbers count from 1' in said
