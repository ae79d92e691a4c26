"""Votes nobody can abuse (issue 32 item 4, R51): a player at the table is not trusted
with another seat.

Each scenario is told twice where it matters: from the side of the person whose seat a
vote would hand over (the subject: told when it opens, may veto, keeps the seat by
coming back) and from the side of a player at the table who would like a second seat
(Ann proposing "Mallory", who may be her own second address).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import html

import pytest
from sqlmodel import select

from app import services
from app.clock import deadlines as dl
from app.db import read_session
from app.table.models import Vote

from .conftest import T0, hours, leads, post, reply

ANN, BOB, CID = "ann@example.com", "bob@example.com", "cid@example.com"
MALLORY = "mallory@example.com"
#: A Friday noon (T0 is Monday 7 January 2030, 09:00 UTC).
FRIDAY = datetime(2030, 1, 11, 12, 0, tzinfo=timezone.utc)


def away_by_click(client: Any, token: str, gid: str) -> None:
    """The seat's person says "away" once, from their page (the JSON the page posts)."""
    answer = client.post(f"/api/play/{token}/actions", json={
        "action": {"type": "away"}, "expected_seq": services.game_info(gid).seq})
    assert answer.status_code == 200, answer.get_json()


def propose(client: Any, token: str, seat: int, name: str = "Mallory",
            email: str = MALLORY) -> Any:
    """A seat proposes a substitute on its page, as the form does."""
    return post(client, token, "/votes", kind="substitute", seat=str(seat), name=name,
                email=email)


def cid_away_ann_proposes(client: Any, new_game: Any, tick: Any, mailbox: Any
                          ) -> tuple[str, list[str]]:
    """Ann, Bob and Cid play; at T0 + 1h Cid says away once and Ann proposes Mallory for
    his seat; the clock ticks then (its mail leaves). Returns the game and its links."""
    with dl.at(T0):
        created = new_game(seats=3)
    gid, tokens = created.game_id, list(created.tokens)
    tick(T0)
    mailbox.clear()
    with dl.at(T0 + hours(1)):
        away_by_click(client, tokens[2], gid)
        assert propose(client, tokens[0], 2).status_code == 303
    tick(T0 + hours(1))
    return gid, tokens


def the_vote(gid: str) -> Vote:
    with read_session() as session:
        vote = session.exec(select(Vote).where(Vote.game_id == gid)
                            .order_by(Vote.id.desc())).first()  # type: ignore[union-attr]
        assert vote is not None
        session.expunge(vote)
        return vote


def holder(gid: str, seat: int) -> str:
    return services.snapshot(gid).game.names[seat]


def reply_to(mailbox: Any, address: str, lead: str) -> str:
    """The reply address of the mail to ``address`` whose first line is ``lead``."""
    mail = next(m for m in mailbox.to(address)
                if m.get_body(("plain",)).get_content().splitlines()[0] == lead)
    return str(mail["Reply-To"])


# -- the three thefts of the issue ----------------------------------------------------

def test_R51_two_people_and_a_bot_one_click_of_away_does_not_give_anns_second_address_bobs_seat(
        client, new_game, tick, mailbox):
    """Ann would like Bob's seat too. Bob clicked "away" once; Ann proposes Mallory. Her
    own yes is not enough: the vote stays open, Bob is mailed at once and keeps his link,
    and his "I'm back" ends it."""
    with dl.at(T0):
        created = new_game(seats=3, bots=(2,))
    gid, tokens = created.game_id, created.tokens
    tick(T0)
    mailbox.clear()
    with dl.at(T0 + hours(1)):
        away_by_click(client, tokens[1], gid)
        assert propose(client, tokens[0], 1).status_code == 303
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("open", None), "one other person's yes is not enough"
    tick(T0 + hours(1))
    assert leads(mailbox, BOB)[-1] == "Ann proposes Mallory to take over your seat"
    assert mailbox.to(MALLORY) == []
    assert client.get(f"/play/{tokens[1]}").status_code == 200, "Bob's link still works"
    # Ann cannot push it through: she answered already, and nobody else is asked
    again = client.post(f"/api/play/{tokens[0]}/votes/{vote.id}", json={"yes": True})
    assert again.status_code == 409
    tick(T0 + hours(23))
    assert the_vote(gid).status == "open" and holder(gid, 1) == "Bob"
    # Bob is back before a running day has passed: the vote fails, in words
    with dl.at(T0 + hours(23)):
        assert post(client, tokens[1], "/back").status_code == 303
    tick(T0 + hours(23))
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("failed", "Bob came back, so the seat stays Bob's.")
    tick(T0 + hours(30))
    assert holder(gid, 1) == "Bob" and client.get(f"/play/{tokens[1]}").status_code == 200
    assert "Ann proposes Mallory to take over Bob's seat: failed" in leads(mailbox, ANN)
    assert mailbox.to(MALLORY) == [], "Mallory never heard of the seat"


def test_R51_three_people_carl_comes_back_and_his_veto_counts(client, new_game, tick, mailbox):
    """Cid (the issue's Carl) said away; Ann proposes Mallory for his seat. Cid is mailed,
    comes back, and vetoes: his veto is taken, not refused, and the seat stays his."""
    gid, tokens = cid_away_ann_proposes(client, new_game, tick, mailbox)
    assert leads(mailbox, CID)[-1] == "Ann proposes Mallory to take over your seat"
    told = mailbox.to(CID)[-1].get_body(("plain",)).get_content()
    assert tokens[2] in told and "VETO" in told, "the mail says how to keep the seat"
    assert "Ann proposes Mallory to take over Cid's seat" in leads(mailbox, BOB)
    with dl.at(T0 + hours(2)):
        assert post(client, tokens[2], "/back").status_code == 303
        veto = client.post(f"/api/play/{tokens[2]}/votes/{the_vote(gid).id}",
                           json={"yes": False})
    assert veto.status_code == 200, veto.get_json()
    assert veto.get_json()["votes"][0]["outcome"] == "Cid came back, so the seat stays Cid's."
    assert veto.get_json()["vote"] is None
    tick(T0 + hours(30))
    assert the_vote(gid).status == "failed" and holder(gid, 2) == "Cid"
    assert client.get(f"/play/{tokens[2]}").status_code == 200, "Cid's link still works"
    assert mailbox.to(MALLORY) == []


@pytest.mark.parametrize("again_away", [False, True], ids=["back", "back-then-away-again"])
def test_R51_expiry_after_the_subject_came_back_keeps_the_seat(client, new_game, tick, mailbox,
                                                               again_away):
    """Ann's vote would pass at its expiry if nobody vetoed. Cid came back meanwhile
    (and may even have said away again since): the expiry checks again, and fails it."""
    gid, tokens = cid_away_ann_proposes(client, new_game, tick, mailbox)
    assert "Ann proposes Mallory to take over your seat" in leads(mailbox, CID)
    with dl.at(T0 + hours(3)):
        back = client.post(f"/api/play/{tokens[2]}/actions", json={
            "action": {"type": "back"}, "expected_seq": services.game_info(gid).seq})
        assert back.status_code == 200
        if again_away:
            away_by_click(client, tokens[2], gid)
    tick(T0 + hours(26))   # past the vote's day: nobody vetoed, nobody answered
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("failed", "Cid came back, so the seat stays Cid's.")
    assert holder(gid, 2) == "Cid" and client.get(f"/play/{tokens[2]}").status_code == 200
    assert mailbox.to(MALLORY) == []


def test_R51_cid_replies_back_to_the_vote_mail_and_the_seat_stays_his(app, client, new_game,
                                                                    tick, mailbox):
    """Cid reads only his mail: he answers the vote's mail with "I'm back" (R29 by reply,
    as the page's button). He is back, told so in words, and the vote fails at the clock's
    next tick: the seat, its link and its cards stay his."""
    gid, tokens = cid_away_ann_proposes(client, new_game, tick, mailbox)
    to = reply_to(mailbox, CID, "Ann proposes Mallory to take over your seat")

    status, outcome = reply(app, to, CID, "I'm back", now=T0 + hours(2))

    assert (status, outcome) == ("answered", "came back")
    tick(T0 + hours(2.1))
    answer = next(m.get_body(("plain",)).get_content() for m in mailbox.to(CID)
                  if "Welcome back" in m.get_body(("plain",)).get_content())
    assert "the seat stays yours" in answer
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("failed", "Cid came back, so the seat stays Cid's.")
    assert holder(gid, 2) == "Cid" and client.get(f"/play/{tokens[2]}").status_code == 200
    assert mailbox.to(MALLORY) == []


# -- the rules that hold it --------------------------------------------------------------

def test_R51_a_weekdays_only_games_vote_does_not_lapse_on_a_saturday(client, new_game, tick,
                                                                     mailbox):
    """Bob went away for the weekend without saying so, in a game whose clock runs on
    weekdays only. Ann's vote on Friday noon is open until Monday noon: a running day."""
    with dl.at(FRIDAY):
        created = new_game(seats=3, bots=(2,), clock_days=[0, 1, 2, 3, 4])
        gid, tokens = created.game_id, created.tokens
        away_by_click(client, tokens[1], gid)
        assert propose(client, tokens[0], 1).status_code == 303
    monday = FRIDAY + timedelta(days=3)
    assert dl.as_utc(the_vote(gid).expires_at) == monday
    for moment in (FRIDAY + hours(24), FRIDAY + hours(48), monday - timedelta(minutes=1)):
        tick(moment)
        assert the_vote(gid).status == "open", moment
    assert "Ann proposes Mallory to take over your seat" in leads(mailbox, BOB)
    tick(monday)
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("passed", "Ann agreed; Bob did not answer.")
    assert holder(gid, 1) == "Mallory", "away a full running day, told, no veto: handed over"


def test_R51_an_away_seat_waits_for_its_player_whatever_the_yes(client, new_game, tick):
    """Two others agree at once: the seat does not change hands before its player had
    twelve running hours since their mail left (issue 45 item 4:
    tests/people/test_time_to_say_no.py), here at the vote's end; one other person alone
    waits a running day too (the subject told meanwhile)."""
    with dl.at(T0):
        three = new_game(seats=3)
    with dl.at(T0 + hours(1)):
        away_by_click(client, three.tokens[2], three.game_id)
        assert propose(client, three.tokens[0], 2).status_code == 303
        yes = client.post(f"/api/play/{three.tokens[1]}/votes/{the_vote(three.game_id).id}",
                          json={"yes": True})
    assert yes.status_code == 200
    assert (the_vote(three.game_id).status, holder(three.game_id, 2)) == ("open", "Cid")
    tick(T0 + hours(1))
    tick(T0 + hours(24.9))
    assert (the_vote(three.game_id).status, holder(three.game_id, 2)) == ("open", "Cid")
    tick(T0 + hours(25))
    assert (the_vote(three.game_id).status, holder(three.game_id, 2)) == ("passed", "Mallory")

    with dl.at(T0):
        alone = new_game(seats=3, bots=(2,), people=[("Ann", ANN), ("Bob", BOB)] * 2)
    with dl.at(T0 + hours(1)):
        away_by_click(client, alone.tokens[1], alone.game_id)
        assert propose(client, alone.tokens[0], 1, name="Gus",
                       email="gus@example.com").status_code == 303
    tick(T0 + hours(1))  # Bob's mail leaves
    tick(T0 + hours(24))
    assert the_vote(alone.game_id).status == "open", "one yes waits a full running day"
    tick(T0 + hours(25))
    assert (the_vote(alone.game_id).status, holder(alone.game_id, 1)) == ("passed", "Gus")


def test_R51_a_seat_its_own_player_gives_away_or_resigned_needs_no_wait(client, new_game):
    """Bob hands his seat to his sister himself (his yes is his consent), and a seat
    whose player resigned (R48) changes hands on the others' yes, as before."""
    with dl.at(T0):
        created = new_game(seats=3, bots=(2,))
    gid, tokens = created.game_id, created.tokens
    with dl.at(T0 + hours(1)):
        away_by_click(client, tokens[1], gid)
        assert propose(client, tokens[1], 1, name="Bea", email="bea@example.com") \
            .status_code == 303
        assert the_vote(gid).status == "open", "the others are still asked"
        answer = client.post(f"/api/play/{tokens[0]}/votes/{the_vote(gid).id}",
                             json={"yes": True})
    assert answer.status_code == 200 and holder(gid, 1) == "Bea"

    with dl.at(T0):
        other = new_game(seats=3, bots=(2,))
    with dl.at(T0 + hours(1)):
        services.submit_action(other.game_id, 1, {"type": "resign"},
                               services.game_info(other.game_id).seq)
        assert propose(client, other.tokens[0], 1).status_code == 303
    assert (the_vote(other.game_id).status, holder(other.game_id, 1)) == ("passed", "Mallory")


# -- the subject's veto, every way -------------------------------------------------------

@pytest.mark.parametrize("how", ["page", "json", "mail"])
def test_R51_the_subject_sees_the_vote_about_their_seat_and_vetoes_it(app, client, new_game,
                                                                     tick, mailbox, how):
    """Cid is away; Ann proposes Mallory. Cid's page and JSON say the vote is about his
    seat, and he vetoes it from the page, by JSON or by replying VETO to its mail."""
    gid, tokens = cid_away_ann_proposes(client, new_game, tick, mailbox)
    vote_id = the_vote(gid).id
    page = html.unescape(client.get(f"/play/{tokens[2]}").get_data(as_text=True))
    assert "Ann proposes Mallory to take over Cid's seat: your seat" in page
    assert "Veto: keep my seat" in page
    table = client.get(f"/api/play/{tokens[2]}/table").get_json()
    assert table["vote"]["about_you"] is True and table["vote"]["may_answer"] is True
    others = client.get(f"/api/play/{tokens[1]}/table").get_json()
    assert others["vote"]["about_you"] is False
    with dl.at(T0 + hours(2)):
        if how == "page":
            assert post(client, tokens[2], f"/votes/{vote_id}", answer="no").status_code == 303
        elif how == "json":
            assert client.post(f"/api/play/{tokens[2]}/votes/{vote_id}",
                               json={"yes": False}).status_code == 200
        else:
            to = reply_to(mailbox, CID, "Ann proposes Mallory to take over your seat")
            status, outcome = reply(app, to, CID, "VETO", now=T0 + hours(2))
            assert outcome == f"voted no (vote {vote_id})"
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("failed", "Cid vetoed it.")
    tick(T0 + hours(30))
    assert holder(gid, 2) == "Cid" and client.get(f"/play/{tokens[2]}").status_code == 200
    for address in (ANN, BOB):
        assert "Ann proposes Mallory to take over Cid's seat: failed" in leads(mailbox, address)
