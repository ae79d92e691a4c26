"""Standing attributed by tenure (issue 47 item 2): the person whose seat was handed over
gets the abandoned mark and keeps their rating; the newcomer takes the seat's result.
And a record in words that matches the log of a scripted history."""
from __future__ import annotations

import random

from app import engine, services
from app.clock import deadlines as dl
from app.standing.record import NEW, RELIABLE, summed

from tests.people.conftest import post

from .conftest import T0, hours, play_out, results, standing_of

ANN, BOB, CID, MAL = ("ann@example.com", "bob@example.com", "cid@example.com",
                      "mallory@example.com")
PEOPLE = [("Ann", ANN), ("Bob", BOB), ("Cid", CID)]


def own_move(gid: str, seat: int) -> None:
    snap = services.snapshot(gid)
    services.submit_action(gid, seat, engine.legal_actions(snap.state, seat)[0], snap.seq)


def test_R49_bob_handed_over_is_marked_abandoned_and_mallory_takes_the_result(
        client, new_game, tick, mailbox):
    with dl.at(T0):
        created = new_game(seats=3, people=PEOPLE, seed="4711", first=1, rated=True)
        gid, links = created.game_id, list(created.tokens)
        own_move(gid, 1)  # Bob played himself: his stretch counts
    tick(T0)
    with dl.at(T0 + hours(1)):
        away = client.post(f"/api/play/{links[1]}/actions", json={
            "action": {"type": "away"}, "expected_seq": services.game_info(gid).seq})
        assert away.status_code == 200, away.get_json()
        assert post(client, links[0], "/votes", kind="substitute", seat="1", name="Mallory",
                    email=MAL).status_code == 303
        assert client.post(f"/api/play/{links[2]}/votes/1", json={"yes": True}).status_code == 200
    for later in (1, 14, 26, 50):
        tick(T0 + hours(later))
        if services.game_info(gid).names[1] == "Mallory":
            break
    assert services.game_info(gid).names[1] == "Mallory"
    play_out(gid, random.Random(2), at=T0 + hours(60))
    found = {(r.name, r.outcome): r for r in results(gid)}
    bob = found[("Bob", "handed_over")]
    assert bob.place is None and bob.mu_after is None  # no rating change
    mallory = next(r for r in results(gid) if r.name == "Mallory")
    assert mallory.place is not None and mallory.mu_after is not None
    assert standing_of(BOB).mu is None and standing_of(BOB).recent_left == 1
    assert standing_of(MAL).rated_games == 1


def test_the_record_in_words_matches_a_scripted_history():
    """Ann finished 3 games (the clock played 2 of her moves in one of them) and had one
    seat handed over while she was away."""
    history = [("handed_over", 6, 3), ("finished", 40, 2), ("finished", 38, 0),
               ("finished", 41, 0)]
    record = summed(history, ended=4)
    assert record.tier == RELIABLE
    assert record.words() == ("Finished 3 of their last 4 games; "
                              "the clock played 5 of their 130 moves.")
    assert record.words("you").startswith("Finished 3 of your last 4 games")
    assert summed(history[:2], ended=2).tier == NEW
