"""A substitute takes over a dropped seat (issue 21 item 5, R49).

Any seat proposes a new person for a seat that is away or resigned; the others confirm
(or it passes after a running day without a veto; a seat only away, not before its
player has had twelve running hours to say no since their mail left). The seat's own
player is told and may veto (R51: tests/people/test_votes_nobody_can_abuse.py). The
newcomer gets an invitation with a fresh link; the seat's old link, reply addresses and
unsubscribe links die; the seat keeps its cards, its knowledge and its score; the log
and the replay say who took it over.
"""
from __future__ import annotations

import random
import re

from sqlmodel import select

from app import engine, services
from app.access.reply_address import reply_address
from app.access.unsubscribe import unsubscribe_token
from app.clock import deadlines as dl
from app.db import read_session
from app.gamelog import store
from app.mail.models import PENDING, Outbox
from app.table.models import Vote
from app.services import votes

from .conftest import T0, hours, leads, post, reply

CID, GUS = "cid@example.com", "gus@example.com"
#: What a seat's view holds that a take-over must not change (R49: its cards, what it
#: has seen, its score); the log, the step and the legal moves follow the game.
KEPT = ("villages", "discard", "hand", "hand_seat", "deck_known", "totals", "round_scores",
        "silver_eye", "round", "phase")


def away(gid: str, seat: int) -> None:
    """The seat missed its deadlines (R29): logged away, as the clock does."""
    services.submit_action(gid, seat, {"type": "away"}, services.game_info(gid).seq,
                           source="system")


def kept(view: dict) -> dict:
    return {key: view.get(key) for key in KEPT}


def test_R49_a_substitute_takes_over_an_away_seat(app, client, new_game, tick, mailbox):
    with dl.at(T0):
        created = new_game(seats=3)
    gid, tokens = created.game_id, created.tokens
    play_out_some(gid, 12)
    away(gid, 2)
    tick(T0 + hours(1))
    mailbox.clear()
    old_reply = reply_address(gid, 2, 1, services.game_info(gid).seq)
    before = kept(engine.view(services.snapshot(gid).state, 2))
    with dl.at(T0 + hours(2)):
        proposed = post(client, tokens[0], "/votes", kind="substitute", seat="2", name="Gus",
                        email=GUS)
    assert proposed.status_code == 303
    tick(T0 + hours(2))
    assert leads(mailbox, "bob@example.com") == ["Ann proposes Gus to take over Cid's seat"]
    assert leads(mailbox, CID) == ["Ann proposes Gus to take over your seat"], \
        "R51: the seat's own player is told when the vote opens"
    mailbox.clear()
    # issue 45 item 4: Cid is only away, so Bob's yes passes it only once Cid has had
    # twelve running hours since his mail left (at T0 + 2h)
    with dl.at(T0 + hours(14)):
        assert client.post(f"/api/play/{tokens[1]}/votes/1",
                           json={"yes": True}).status_code == 200
    with read_session() as session:
        vote = session.exec(select(Vote)).one()
        session.expunge(vote)
    assert (vote.status, vote.outcome) == ("passed", "Ann and Bob agreed; Cid did not answer.")
    # the seat is Gus's now, with its cards, knowledge and score
    snap = services.snapshot(gid)
    assert snap.game.names[2] == "Gus"
    assert kept(engine.view(snap.state, 2)) == before
    with read_session() as session:
        log = [(r.seat, r.action, r.source) for r in store.load_actions(session, gid)]
        pending = [row.kind for row in session.exec(select(Outbox).where(
            Outbox.to == CID, Outbox.status == PENDING))]
    assert log[-1][:2] == (2, {"type": "take_over", "name": "Gus", "was": "Cid"}) \
        or any(a == {"type": "take_over", "name": "Gus", "was": "Cid"} for _, a, _ in log)
    assert pending == ["handed_over"], "no mail of the seat is left for the old address"
    # the old link, reply address and unsubscribe link are refused
    assert client.get(f"/play/{tokens[2]}").status_code == 403
    old_unsub = unsubscribe_token(gid, 2, app.config["SECRET_KEY"], version=1)
    assert client.get(f"/unsubscribe/{old_unsub}").status_code == 403
    status, outcome = reply(app, old_reply, CID, "D", now=T0 + hours(15))
    assert outcome == "retired reply address: answered to the seat's earlier holder", \
        "issue 32: Cid's reply is answered to Cid (tests/people/test_hand_over_for_both.py)"
    # the mails: Gus his link, the others the news, the old address the one goodbye
    tick(T0 + hours(15))
    welcome = mailbox.to(GUS)
    assert [m for m in leads(mailbox, GUS) if "take over Cid's seat" in m]
    new_link = re.search(r"https?://\S+/play/(\S+)", welcome[0].get_body(("plain",))
                         .get_content()).group(1)
    assert new_link == services.seat_tokens(gid)[2]
    for address in ("ann@example.com", "bob@example.com"):
        assert "Gus took over Cid's seat" in leads(mailbox, address)
    goodbye = mailbox.to(CID)
    assert [m.get_body(("plain",)).get_content().splitlines()[0] for m in goodbye] == \
        ["Your seat was handed to another player", "Your seat is now played by Gus"]
    assert "/play/" not in goodbye[0].get_body(("plain",)).get_content()
    # Gus plays the seat: his page is the seat's, its knowledge and all
    page = client.get(f"/play/{new_link}")
    assert page.status_code == 200 and "playing as Gus" in page.get_data(as_text=True)
    assert client.get(f"/api/play/{new_link}").get_json()["view"]["villages"] == \
        engine.view(services.snapshot(gid).state, 2)["villages"]
    # the log and the replay name the hand-over; earlier frames keep Cid's name
    replay = client.get(f"/api/games/{gid}/replay?token={new_link}").get_json()
    took = next(f for f in replay["frames"] if any("took over" in t for t in f["text"]))
    assert f"Gus took over Cid's seat in round {took['view']['round']}." in \
        " ".join(took["text"])
    assert replay["frames"][1]["names"][2] == "Cid" and took["names"][2] == "Gus"
    page = client.get(f"/games/{gid}/replay?step={took['step']}").get_data(as_text=True)
    assert "Gus took over Cid" in page


def play_out_some(gid: str, moves: int) -> None:
    rng = random.Random(5)
    with dl.at(T0):
        for _ in range(moves):
            snap = services.snapshot(gid)
            seat = rng.choice(snap.view(None)["to_act"])
            services.submit_action(gid, seat, rng.choice(engine.legal_actions(snap.state, seat)),
                                   snap.seq)


def test_a_substitute_passes_after_a_day_without_a_veto(client, new_game, tick):
    with dl.at(T0):
        created = new_game(seats=3)
    gid = created.game_id
    services.submit_action(gid, 2, {"type": "resign"}, services.game_info(gid).seq)
    votes.start(gid, 0, "substitute", subject=2, name="Gus", email=GUS, now=T0)
    tick(T0 + hours(23))
    assert services.snapshot(gid).game.names[2] == "Cid"
    tick(T0 + hours(24))
    snap = services.snapshot(gid)
    assert snap.game.names[2] == "Gus"
    assert snap.view(None)["resigned"] == [], "R49: the seat plays again"
    with read_session() as session:
        assert session.exec(select(Vote)).one().outcome == \
            "Nobody vetoed it in time: Ann agreed; Bob and Cid did not answer."


def test_one_veto_keeps_the_seat_and_the_wrong_substitutes_are_refused(client, new_game):
    with dl.at(T0):
        created = new_game(seats=3)
    gid, tokens = created.game_id, created.tokens
    playing = client.post(f"/api/play/{tokens[0]}/votes",
                          json={"kind": "substitute", "seat": 2, "name": "Gus", "email": GUS})
    assert playing.status_code == 409 and "still playing" in playing.get_json()["message"]
    away(gid, 2)
    for body, words in (({"name": "Gus", "email": "bob@example.com"}, "already holds"),
                        ({"name": "Gus", "email": "not an address"}, "does not look right"),
                        ({"name": "", "email": GUS}, "name"),
                        ({"name": "Bob", "email": GUS}, "tell them apart")):
        answer = client.post(f"/api/play/{tokens[0]}/votes",
                             json={"kind": "substitute", "seat": 2, **body})
        assert answer.status_code == 400 and words in answer.get_json()["message"], body
    votes.start(gid, 0, "substitute", subject=2, name="Gus", email=GUS, now=T0)
    veto = client.post(f"/api/play/{tokens[1]}/votes/1", json={"yes": False})
    assert veto.status_code == 200
    assert veto.get_json()["votes"][0]["outcome"] == "Bob vetoed it."
    assert services.snapshot(gid).game.names[2] == "Cid"
    assert client.get(f"/play/{tokens[2]}").status_code == 200, "Cid's link still works"
