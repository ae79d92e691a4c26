"""A whole game played through the services, its mail received by a real SMTP server."""
from __future__ import annotations

import random
import re
from collections import Counter
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from app import engine, services
from app.runners import clock
from app.engine import bots, cards

from .conftest import is_turn

LABELS = sorted({cards.label(c) for c in range(cards.DECK_SIZE)}, key=len, reverse=True)
#: A turn mail that tells a round's end too (issue 51 item 1).
CARRIED = re.compile(r'^Round \d+ of ".*" is over\.\r?$', re.M)
LABEL_RE = re.compile(r"(?<![\w-])(" + "|".join(re.escape(l) for l in LABELS) + r")(?!\w)")


def card_ids(node: Any) -> set[int]:
    """Every card id shown anywhere in a view (villages, pile, hand, log...)."""
    found: set[int] = set()
    if isinstance(node, dict):
        if {"id", "value"} <= node.keys() and isinstance(node["id"], int):
            found.add(node["id"])
        for value in node.values():
            found |= card_ids(value)
    elif isinstance(node, list):
        for value in node:
            found |= card_ids(value)
    return found


def kind_of(lead: str) -> str:
    """A mail's kind from its first line (every mail of a game has the game's subject)."""
    for words, kind in (("invited", "invitation"), ("the game is over", "over"),
                        ("is over", "round")):
        if words in lead.lower():
            return kind
    return "turn" if is_turn(lead) else "other"


def fresh_turn(view: dict, seat: int) -> bool:
    return (view["phase"] == "play" and view["current"] == seat and view["pending"] == "turn"
            and seat not in view["peeks_pending"])


def village_line(view: dict, seat: int) -> str:
    parts = []
    for i, card in enumerate(view["villages"][seat], start=1):
        label = cards.label(card["id"]) if card["id"] is not None else "?"
        parts.append(f"{i}. {label} ({'face up' if card['faceup'] else 'face down'})")
    return "   ".join(parts)


@pytest.mark.slow  # whole game over real SMTP
def test_each_seat_gets_exactly_its_mails_each_showing_only_what_it_has_seen(
        mail_app, smtp, client, new_game):
    created = new_game(seats=3, seed="2024")
    gid = created.game_id
    emails = {0: "ann@example.com", 1: "bob@example.com", 2: "cid@example.com"}
    seat_of = {address: seat for seat, address in emails.items()}
    rng = random.Random(7)

    state = services.load_state(gid)
    seen = {s: card_ids(engine.view(state, s)) for s in emails}
    expected: Counter = Counter()
    for seat in emails:
        expected[(seat, "invitation")] += 1
    for seat in engine.view(state, None)["to_act"]:
        expected[(seat, "turn")] += 1
    checked_turn_mails = 0

    def deliver_and_check(state: Any) -> None:
        nonlocal checked_turn_mails
        start = len(smtp.received)
        clock.send_mail_due(mail_app, datetime.now(timezone.utc))
        for mail in smtp.received[start:]:
            seat = seat_of[mail.to]
            for body in (mail.text, mail.html_words):
                for label in LABEL_RE.findall(body):
                    assert any(cards.label(c) == label for c in seen[seat]), (
                        f"{mail.subject!r} to seat {seat} names {label}, a card it has not seen")
            if kind_of(mail.lead) == "turn":
                view = engine.view(state, seat)
                assert village_line(view, seat) in mail.text
                token = mail.seat_link().split("/play/", 1)[1]
                assert services.open_seat(token).seat == seat
                page = client.get(f"/play/{token}")
                assert page.status_code == 200
                checked_turn_mails += 1

    deliver_and_check(state)
    while True:
        snap = services.snapshot(gid)
        before = snap.view(None)
        if before["phase"] == "over":
            break
        seat = before["to_act"][0]
        action = bots.choose("greedy", snap.state, seat, rng)
        state = services.submit_action(gid, seat, action, snap.seq).snapshot.state
        after = engine.view(state, None)
        for s in emails:
            seen[s] |= card_ids(engine.view(state, s))
        if after["phase"] == "over":
            for s in emails:
                expected[(s, "over")] += 1
        else:
            for s in after["to_act"]:
                # a new decision, or a new turn of a seat that was busy with
                # something else (not its own move: it is on its page then)
                if s not in before["to_act"] or (
                        fresh_turn(after, s) and not fresh_turn(before, s) and s != seat):
                    expected[(s, "turn")] += 1
            if len(after["round_scores"]) > len(before["round_scores"]):
                for s in emails:
                    expected[(s, "round")] += 1
        deliver_and_check(state)

    # a round's end held for the turn mail of a seat's own next step (issue 51 item 1),
    # whose seat went on from its page, leaves when that mail would have
    clock.send_mail_due(mail_app, datetime.now(timezone.utc) + timedelta(hours=1))
    got = Counter((seat_of[m.to], kind_of(m.lead)) for m in smtp.received)
    # issue 51 item 1: a round's end rides in the seat's next turn mail when one leaves
    # with it (the next round's first decision), instead of a mail of its own
    got.update((seat_of[m.to], "round") for m in smtp.received
               if kind_of(m.lead) == "turn" and CARRIED.search(m.text))
    assert got == expected
    assert expected[(0, "round")] == 3 and expected[(0, "over")] == 1
    assert checked_turn_mails == sum(n for (s, k), n in expected.items() if k == "turn")
    ids = [m.header("Message-ID") for m in smtp.received]
    assert len(ids) == len(set(ids)), "a message was delivered twice"
    # A second pass finds nothing left to send.
    assert clock.send_mail_due(mail_app, datetime.now(timezone.utc)).claimed == 0


def test_mails_of_a_game_thread_together_and_offer_one_click_unsubscribe(
        mail_app, smtp, new_game):
    new_game(seats=2)
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    for address in ("ann@example.com", "bob@example.com"):
        mails = smtp.to(address)
        invitation = next(m for m in mails if kind_of(m.lead) == "invitation")
        root = invitation.header("Message-ID")
        assert invitation.header("In-Reply-To") is None
        others = [m for m in mails if m is not invitation]
        assert others, "the first decision was mailed"
        for mail in mails:
            assert mail.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
            # an invitation's one click is "no more invitations" (issue 17 item 7)
            what = "invitations" if mail is invitation else "unsubscribe"
            assert re.fullmatch(rf"<http://silver-eye\.test/{what}/[\w.-]+>",
                                mail.header("List-Unsubscribe"))
            assert mail.message.get_body(preferencelist=("html",)) is not None
        for mail in others:
            assert mail.header("In-Reply-To") == root
            assert mail.header("References") == root


def test_the_invitation_carries_the_seed_commitment_but_never_the_seed(mail_app, smtp, new_game):
    created = new_game(seats=2, seed="987654321")
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    commitment = created.snapshot.game.commitment
    for mail in smtp.received:
        assert "987654321" not in mail.text and "987654321" not in mail.html
        if kind_of(mail.lead) == "invitation":
            assert commitment in mail.text
