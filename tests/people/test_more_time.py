"""More time (issue 21 item 3): any seat may give another seat's current decision one
more day, once per round per giver (the game's option), and everyone sees who gave what.
"""
from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from app import services
from app.clock import deadlines as dl
from app.db import read_session
from app.table.models import Gift
from app.services import more_time

from .conftest import T0, hours, leads, post

DAY = timedelta(days=1)


def due_of(gid: str, seat: int):
    with read_session() as session:
        rows = dl.open_rows(session, gid, seat, dl.DECISION)
        return dl.as_utc(rows[0].due_at) if rows else None


def reminders_of(gid: str, seat: int):
    with read_session() as session:
        return [dl.as_utc(r.due_at) for r in dl.open_rows(session, gid, seat, dl.REMINDER)]


def test_one_more_day_moves_the_deadline_and_everyone_sees_who_gave_it(
        client, new_game, tick, mailbox):
    with dl.at(T0):
        created = new_game(seats=3, deadline_hours=48, reminders=["half", 2])
    gid, tokens = created.game_id, created.tokens
    tick(T0)
    mailbox.clear()
    before = due_of(gid, 1)
    assert before == T0 + hours(48)
    with dl.at(T0 + hours(5)):
        answer = post(client, tokens[0], "/more-time", seat="1")
    assert answer.status_code == 303
    assert due_of(gid, 1) == before + DAY
    assert reminders_of(gid, 1) == [T0 + hours(36), T0 + hours(70)], \
        "the reminders follow the new deadline"
    tick(T0 + hours(5))
    assert leads(mailbox, "bob@example.com") == ["Ann gave you one more day"]
    assert "Ann gave you one more day" not in leads(mailbox, "cid@example.com")
    # everyone sees it: Cid's page, the public page, the JSON
    for page in (client.get(f"/play/{tokens[2]}"), client.get(f"/games/{gid}")):
        assert "Ann gave Bob one more day" in page.get_data(as_text=True)
    table = client.get(f"/api/play/{tokens[2]}/table").get_json()
    assert [(g["giver"], g["receiver"]) for g in table["gifts"]] == [(0, 1)]
    # the giver's limit holds: once per round; Cid may still give
    again = client.post(f"/api/play/{tokens[0]}/more-time", json={"seat": 1})
    assert again.status_code == 429 and "next round" in again.get_json()["message"]
    assert client.post(f"/api/play/{tokens[2]}/more-time", json={"seat": 1}).status_code == 200
    assert due_of(gid, 1) == before + 2 * DAY
    with read_session() as session:
        assert len(session.exec(select(Gift)).all()) == 2


def test_more_time_is_refused_in_words_where_it_means_nothing(client, new_game):
    with dl.at(T0):
        created = new_game(seats=2, more_time_per_round=0)
        other = new_game(seats=2, people=[("Eve", "eve@example.com"),
                                          ("Fay", "fay@example.com")])
    off = client.post(f"/api/play/{created.tokens[0]}/more-time", json={"seat": 1})
    assert off.status_code == 409 and "turned it off" in off.get_json()["message"]
    mine = client.post(f"/api/play/{other.tokens[0]}/more-time", json={"seat": 0})
    assert mine.status_code == 400 and "vacation" in mine.get_json()["message"]
    bad = client.post(f"/api/play/{other.tokens[0]}/more-time", json={"seat": "x"})
    assert bad.status_code == 400
    # a seat with no decision waiting: the seat that does not start peeks, then has
    # nothing to do until its turn
    from app import engine
    snap = services.snapshot(other.game_id)
    start = snap.view(None)["current"]
    waiter = 1 - start
    assert waiter in snap.view(None)["to_act"]
    services.submit_action(other.game_id, waiter, engine.legal_actions(snap.state, waiter)[0],
                           snap.seq)
    none = client.post(f"/api/play/{other.tokens[start]}/more-time", json={"seat": waiter})
    assert none.status_code == 409 and "no decision waiting" in none.get_json()["message"]


def test_a_time_bank_decision_given_a_day_keeps_its_bank(new_game):
    """The day given is not taken from the receiver's bank (its budget grows by it)."""
    with dl.at(T0):
        gid = new_game(seats=2, bank_days=1, allowance_hours=2, reminders=[]).game_id
    more_time.give_time(gid, 0, 1, now=T0 + hours(1))
    with dl.at(T0 + hours(30)):  # 28 hours past the allowance, 24 of them given
        from app import engine
        for _ in range(6):
            snap = services.snapshot(gid)
            if 1 not in snap.view(None)["to_act"]:
                break
            legal = engine.legal_actions(snap.state, 1)
            action = next((a for a in legal if a["type"] in ("peek", "draw", "discard")),
                          legal[0])
            services.submit_action(gid, 1, action, snap.seq)
    with read_session() as session:
        clock = session.exec(select(dl.SeatClock).where(dl.SeatClock.game_id == gid,
                                                        dl.SeatClock.seat == 1)).one()
        assert clock.bank_used_seconds == 4 * 3600


def test_an_open_page_hears_of_a_vote_and_a_day_given_through_the_seq_probe(client, new_game):
    """The /seq probe's answer grows when a vote opens, is answered or closes, or a day is
    given: an open page (seat.js) redraws itself, as when the game moves."""
    from app.services import votes

    with dl.at(T0):
        created = new_game(seats=3)
    url = f"/games/{created.game_id}/seq"
    first = client.get(url)
    assert first.get_json()["people"] == 0
    page = client.get(f"/play/{created.tokens[1]}").get_data(as_text=True)
    assert 'data-people="0"' in page
    seen = [first.headers["ETag"]]
    for change in (lambda: more_time.give_time(created.game_id, 0, 1, now=T0 + hours(1)),
                   lambda: votes.start(created.game_id, 0, "abort", now=T0 + hours(1)),
                   lambda: votes.answer(created.game_id, 1, None, True, now=T0 + hours(1)),
                   lambda: votes.answer(created.game_id, 2, None, False, now=T0 + hours(1))):
        change()
        answer = client.get(url, headers={"If-None-Match": seen[-1]})
        assert answer.status_code == 200, "the probe did not change"
        seen.append(answer.headers["ETag"])
    assert client.get(url, headers={"If-None-Match": seen[-1]}).status_code == 304
