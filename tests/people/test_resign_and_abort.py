"""Leave properly (issue 21 item 4): resign (R48) and abort by agreement.

A resigned seat is played by the rules' defaults from then on, as an away seat is, and
ranks last; the others are told once. Every person still playing may end the game by
agreement: one no keeps it going, all yes ends it as abandoned by agreement, with its
seed revealed and the replay saying so.
"""
from __future__ import annotations

import random

from sqlmodel import select

from app import engine, services
from app.clock import deadlines as dl
from app.db import read_session
from app.gamelog import store
from app.table.models import Vote
from app.services import votes

from .conftest import T0, hours, leads, play_out, post

ANN, BOB, CID = "ann@example.com", "bob@example.com", "cid@example.com"


def actions_of(gid: str) -> list[tuple[int, str, str]]:
    with read_session() as session:
        return [(r.seat, r.action["type"], r.source) for r in store.load_actions(session, gid)]


def test_R48_a_resigned_seat_is_played_by_the_defaults_and_ranks_last(
        client, new_game, tick, mailbox):
    with dl.at(T0):
        created = new_game(seats=3)
    gid, tokens = created.game_id, created.tokens
    tick(T0)
    mailbox.clear()
    refused = post(client, tokens[2], "/resign")  # the page asks first: no confirm, no change
    assert refused.status_code == 400 and "Yes, resign" in refused.get_data(as_text=True)
    answer = post(client, tokens[2], "/resign", confirm="yes")
    assert answer.status_code == 303
    log = actions_of(gid)
    at = max(i for i, (seat, kind, _) in enumerate(log) if seat == 2 and kind == "resign")
    assert log[at] == (2, "resign", "player")
    with read_session() as session:
        assert dl.open_rows(session, gid, 2) == [], "a resigned seat waits for nothing"
    tick(T0 + hours(1))
    for address in (ANN, BOB):
        assert leads(mailbox, address).count("Cid resigned") == 1
    assert "Cid resigned" not in leads(mailbox, CID)
    # the rest of the game: Cid's decisions are all the rules' defaults, made at once
    play_out(gid, random.Random(48), at=T0 + hours(2))
    later = [(kind, source) for seat, kind, source in actions_of(gid)[at + 1:] if seat == 2]
    assert later and all(source == "timeout" for _, source in later)
    view = services.snapshot(gid).view(None)
    assert view["phase"] == "over" and view["resigned"] == [2]
    assert view["ranking"][-1] == 2 and view["winner"] != 2
    page = client.get(f"/play/{tokens[0]}").get_data(as_text=True)
    assert "resigned" in page
    again = post(client, tokens[2], "/resign", confirm="yes")  # over: nothing to resign
    assert again.status_code in (409, 422)


def test_R48_resigning_a_two_player_game_ends_it_and_the_other_wins(client, new_game, tick,
                                                                     mailbox):
    with dl.at(T0):
        created = new_game(seats=2)
    assert client.post(f"/api/play/{created.tokens[0]}/resign",
                       json={"confirm": False}).status_code == 400
    answer = client.post(f"/api/play/{created.tokens[0]}/resign", json={"confirm": True})
    assert answer.status_code == 200
    snap = services.snapshot(created.game_id)
    assert snap.view(None)["phase"] == "over" and snap.view(None)["winner"] == 1
    assert services.game_info(created.game_id).status == "over"
    tick(T0 + hours(1))
    assert any("over" in lead for lead in leads(mailbox, BOB))


def test_an_abort_vote_with_one_no_fails_and_the_game_goes_on(client, new_game, tick, mailbox):
    with dl.at(T0):
        created = new_game(seats=3)
    gid, tokens = created.game_id, created.tokens
    tick(T0)
    mailbox.clear()
    with dl.at(T0 + hours(1)):
        started = post(client, tokens[0], "/votes", kind="abort")
    assert started.status_code == 303
    tick(T0 + hours(1))
    for address in (BOB, CID):
        assert leads(mailbox, address) == ["Ann asks to end the game by agreement"]
        assert "VOTE YES or VOTE NO" in mailbox.to(address)[0].get_body(
            ("plain",)).get_content()
    assert post(client, tokens[1], "/votes/1", answer="yes").status_code == 303
    assert post(client, tokens[1], "/votes/1", answer="no").status_code == 409, \
        "each person answers once"
    said = post(client, tokens[2], "/votes/1", answer="no")
    assert said.status_code == 303
    assert services.game_info(gid).status == "running"
    with read_session() as session:
        vote = session.exec(select(Vote).where(Vote.game_id == gid)).one()
        session.expunge(vote)
    assert (vote.status, vote.outcome) == ("failed", "Cid said no.")
    mailbox.clear()
    tick(T0 + hours(2))
    assert any("failed" in lead for lead in leads(mailbox, ANN))
    assert any("failed" in lead for lead in leads(mailbox, BOB))
    assert not any("failed" in lead for lead in leads(mailbox, CID)), "Cid decided it"


def test_an_abort_vote_with_all_yes_ends_the_game_and_reveals_the_seed(client, new_game, tick,
                                                                        mailbox):
    with dl.at(T0):
        created = new_game(seats=3, seed="424242")
    gid, tokens = created.game_id, created.tokens
    assert client.get(f"/api/games/{gid}").get_json()["game"]["seed"] is None
    votes.start(gid, 0, "abort", now=T0)
    votes.answer(gid, 1, None, True, now=T0 + hours(1))
    assert services.game_info(gid).status == "running", "Cid has not answered"
    answer = client.post(f"/api/play/{tokens[2]}/votes/1", json={"yes": True})
    assert answer.status_code == 200
    info = services.game_info(gid)
    assert (info.status, info.end_reason) == ("abandoned", "agreement")
    public = client.get(f"/api/games/{gid}").get_json()["game"]
    assert public["seed"] == "424242"
    replay = client.get(f"/api/games/{gid}/replay?reveal=1")
    assert replay.status_code == 200 and "abandoned by agreement" in replay.get_json()["ended"]
    page = client.get(f"/games/{gid}/replay").get_data(as_text=True)
    assert "abandoned by agreement" in page
    with read_session() as session:
        assert dl.open_rows(session, gid) == []
    tick(T0 + hours(2))
    for address in (ANN, BOB):
        assert "The game was ended by agreement" in leads(mailbox, address)
    moved = client.post(f"/api/play/{tokens[0]}/actions",
                        json={"action": {"type": "draw"}, "expected_seq": 0})
    assert moved.status_code == 409


def test_an_abort_vote_nobody_finishes_lapses_at_its_expiry(new_game, tick, mailbox):
    with dl.at(T0):
        gid = new_game(seats=2).game_id
    votes.start(gid, 0, "abort", now=T0)
    tick(T0 + hours(47))
    with read_session() as session:
        assert session.exec(select(Vote)).one().status == "open"
    tick(T0 + hours(48))
    with read_session() as session:
        vote = session.exec(select(Vote)).one()
        session.expunge(vote)
    assert vote.status == "expired" and services.game_info(gid).status == "running"
    assert any("expired" in lead for lead in leads(mailbox, ANN))


def test_only_people_still_playing_vote_and_one_vote_at_a_time(client, new_game):
    with dl.at(T0):
        created = new_game(seats=3)
    gid, tokens = created.game_id, created.tokens
    services.submit_action(gid, 2, {"type": "resign"}, services.game_info(gid).seq)
    refused = post(client, tokens[2], "/votes", kind="abort")
    assert refused.status_code == 403 or "resigned" in refused.get_data(as_text=True)
    votes.start(gid, 0, "abort", now=T0)
    second = client.post(f"/api/play/{tokens[1]}/votes", json={"kind": "abort"})
    assert second.status_code == 409 and "open" in second.get_json()["message"]
    cid = client.post(f"/api/play/{tokens[2]}/votes/1", json={"yes": True})
    assert cid.status_code == 403
    assert client.post(f"/api/play/{tokens[1]}/votes/1", json={"yes": True}).status_code == 200
    assert services.game_info(gid).status == "abandoned", "Ann and Bob are all who play"
    assert engine.status(services.snapshot(gid).state)["resigned"] == [2]
