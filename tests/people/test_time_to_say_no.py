"""Time to say no (issue 45 items 2 and 4, R51): a seat only away is never handed over
before its player has had twelve running hours since the vote's mail to them left.

The finding as written: three people; Carl (Cid here) says away with one click, Ann
proposes a substitute, Bob says yes, and the vote passed 0.1 s after it opened with
"Everyone agreed.", before the mail to Cid had even left: he could neither veto nor come
back. Now the vote stays open whatever the count of yes; the twelve hours start when
Cid's mail leaves (held by his quiet hours, when they end; a person who asked for no
mail counts from the vote's opening); after them the next answer, or the vote's end,
passes it, with words saying who agreed and who did not answer. His veto reaches Ann,
who proposed it; his "I'm back" ends it on every page at once.

Each flow is told from Cid's side (the person whose seat it is), from Ann's (a player at
the table who would like a second seat, under her own second address) and from a
stranger's who created a game and kept the link of its one seat without an address.
"""
from __future__ import annotations

import json

import html
from typing import Any

import pytest
from sqlmodel import select

from app import services
from app.clock import deadlines as dl
from app.db import read_session, write_session
from app.people.models import Person
from app.table.models import Vote

from tests.web.test_pages import lobby_form

from .conftest import T0, hours, leads, post
from .test_votes_nobody_can_abuse import (away_by_click, cid_away_ann_proposes, holder,
                                          propose, the_vote)

ANN, BOB, CID, DEE = "ann@example.com", "bob@example.com", "cid@example.com", "dee@example.com"
MALLORY = "mallory@example.com"
VETO_BUTTON = "Veto: keep my seat"


def plain(message: Any) -> str:
    return message.get_body(("plain",)).get_content()


def page_of(client: Any, token: str) -> str:
    return html.unescape(client.get(f"/play/{token}").get_data(as_text=True))


def vote_mail(mailbox: Any) -> Any:
    """The mail that asked Cid about the vote on his seat, if it left."""
    return next((m for m in mailbox.to(CID)
                 if plain(m).startswith("Ann proposes Mallory to take over your seat")), None)


def answer(client: Any, token: str, gid: str, yes: bool, at: Any) -> Any:
    with dl.at(at):
        return client.post(f"/api/play/{token}/votes/{the_vote(gid).id}", json={"yes": yes})


def the_issues_table(client: Any, new_game: Any, tick: Any, mailbox: Any
                     ) -> tuple[str, list[str]]:
    """Ann, Bob and Cid; at T0 + 1h Cid says away (one click), Ann proposes Mallory for
    his seat, the vote's mails leave, and Bob says yes at once."""
    gid, links = cid_away_ann_proposes(client, new_game, tick, mailbox)
    assert answer(client, links[1], gid, True, T0 + hours(1)).status_code == 200
    assert (the_vote(gid).status, the_vote(gid).outcome) == ("open", None), \
        "two yes do not hand a seat over before its player had time to say no"
    return gid, links


# -- the finding as written, from Cid's side -----------------------------------------------

def test_R51_carl_away_ann_proposes_bob_agrees_and_nothing_passes_before_carl_was_told(
        client, new_game, tick, mailbox):
    gid, links = the_issues_table(client, new_game, tick, mailbox)
    told = " ".join(plain(vote_mail(mailbox)).split())
    assert "your seat is not handed over sooner than 12 hours after this mail was sent" in told
    asked = next(" ".join(plain(m).split()) for m in mailbox.to(BOB)
                 if plain(m).startswith("Ann proposes Mallory to take over Cid's seat"))
    assert "not sooner than 12 hours after its player was mailed about it" in asked
    page = page_of(client, links[2])
    assert VETO_BUTTON in page and "not handed over sooner than 12 hours" in page
    for moment in (T0 + hours(1.1), T0 + hours(12.9), T0 + hours(24.9)):
        tick(moment)
        assert the_vote(gid).status == "open" and holder(gid, 2) == "Cid", moment
    assert client.get(f"/play/{links[2]}").status_code == 200, "Cid's link still works"
    tick(T0 + hours(25))  # the vote's end, twelve hours and more after his mail left
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("passed", "Ann and Bob agreed; Cid did not answer.")
    assert holder(gid, 2) == "Mallory"


def test_R51_carl_vetoes_half_a_day_later_and_ann_who_proposed_it_is_told(
        client, new_game, tick, mailbox):
    gid, links = the_issues_table(client, new_game, tick, mailbox)
    mailbox.clear()
    veto = answer(client, links[2], gid, False, T0 + hours(12.5))
    assert veto.status_code == 200, veto.get_json()
    assert (the_vote(gid).status, the_vote(gid).outcome) == ("failed", "Cid vetoed it.")
    tick(T0 + hours(12.5))
    for address in (ANN, BOB):  # Ann proposed it: she hears of the veto, as Bob does
        said = [plain(m) for m in mailbox.to(address)
                if "Ann proposes Mallory to take over Cid's seat: failed" in plain(m)]
        assert len(said) == 1 and "Cid vetoed it." in said[0], address
    assert mailbox.to(CID) == [], "Cid, who vetoed it, is looking at the result"
    tick(T0 + hours(30))
    assert holder(gid, 2) == "Cid" and mailbox.to(MALLORY) == []


def test_R51_after_carls_return_every_page_shows_the_vote_ended_before_the_clock_closes_it(
        client, new_game, tick, mailbox):
    gid, links = the_issues_table(client, new_game, tick, mailbox)
    with dl.at(T0 + hours(2)):
        assert post(client, links[2], "/back").status_code == 303
        ended = "Ann proposes Mallory to take over Cid's seat: failed — Cid came back, so " \
                "the seat stays Cid's."
        for link in links:
            page = page_of(client, link)
            assert ended in page, link
            assert VETO_BUTTON not in page and 'id="vote"' not in page, "no live button"
        table = client.get(f"/api/play/{links[0]}/table").get_json()
        assert table["vote"] is None
        assert table["votes"][0]["outcome"] == "Cid came back, so the seat stays Cid's."
    tick(T0 + hours(2))  # the clock closes it with the words the pages showed
    vote = the_vote(gid)
    assert (vote.status, vote.outcome) == ("failed", "Cid came back, so the seat stays Cid's.")
    assert "Ann proposes Mallory to take over Cid's seat: failed" in leads(mailbox, ANN)


def test_R51_a_new_vote_after_carls_return_ends_the_old_one_instead_of_being_refused(
        client, new_game, tick, mailbox):
    """Ann's page shows the substitute vote ended and offers to end the game by
    agreement; pressing it before the clock's tick works: the old vote closes first."""
    gid, links = the_issues_table(client, new_game, tick, mailbox)
    with dl.at(T0 + hours(2)):
        assert post(client, links[2], "/back").status_code == 303
        assert "Ask everyone to end the game" in page_of(client, links[0])
        assert post(client, links[0], "/votes", kind="abort").status_code == 303
    with read_session() as session:
        found = [(v.kind, v.status, v.outcome) for v in session.exec(
            select(Vote).where(Vote.game_id == gid).order_by(Vote.id))]  # type: ignore[arg-type]
    assert found == [("substitute", "failed", "Cid came back, so the seat stays Cid's."),
                     ("abort", "open", None)]


# -- when the twelve hours start -------------------------------------------------------------

def quiet_nights(address: str) -> None:
    """The person at ``address`` set quiet hours 22:00-08:00 (UTC) for all their games."""
    with write_session() as session:
        person = session.exec(select(Person).where(Person.address == address)).first() \
            or Person(address=address)
        person.time_zone, person.quiet_start, person.quiet_end = "UTC", 22 * 60, 8 * 60
        session.add(person)


@pytest.mark.parametrize("dee_answers, passes", [(30, False), (35, True)],
                         ids=["7h-after-his-mail", "12h-after-his-mail"])
def test_R51_the_twelve_hours_start_when_carls_mail_leaves_his_quiet_hours(
        client, new_game, tick, mailbox, dee_answers, passes):
    """Cid's nights are quiet. He says away at 23:00 on Monday and Ann proposes Mallory at
    once; Bob agrees. Cid's mail is held until 08:00 on Tuesday, and his twelve hours
    start then: Dee's yes at 15:00 (sixteen hours after the vote opened, seven after the
    mail left) does not pass it; her yes at 20:00 does."""
    with dl.at(T0):
        created = new_game(seats=4)
    gid, links = created.game_id, list(created.tokens)
    quiet_nights(CID)
    tick(T0)
    monday_23h = T0 + hours(14)
    with dl.at(monday_23h):
        away_by_click(client, links[2], gid)
        assert propose(client, links[0], 2).status_code == 303
    assert answer(client, links[1], gid, True, monday_23h).status_code == 200
    mailbox.clear()
    tick(monday_23h)
    assert vote_mail(mailbox) is None, "held by his quiet hours"
    tick(T0 + hours(23))  # Tuesday 08:00: his mail leaves
    assert vote_mail(mailbox) is not None
    assert answer(client, links[3], gid, True, T0 + hours(dee_answers)).status_code == 200
    vote = the_vote(gid)
    if passes:
        assert (vote.status, vote.outcome) == ("passed",
                                               "Ann, Bob and Dee agreed; Cid did not answer.")
        assert holder(gid, 2) == "Mallory"
    else:
        assert vote.status == "open" and holder(gid, 2) == "Cid"
        tick(T0 + hours(34.9))
        assert the_vote(gid).status == "open"
        tick(dl.as_utc(vote.expires_at))  # its end (out of his quiet hours): it passes
        assert (the_vote(gid).status, holder(gid, 2)) == ("passed", "Mallory")


def test_R51_a_vote_whose_end_comes_before_carls_twelve_hours_waits_for_them(
        client, new_game, tick, mailbox):
    """Cid's mail could not leave for most of the vote's day (the clock did not run):
    at its end he has had less than twelve hours, so the vote stays open until he has,
    and its page says until when."""
    with dl.at(T0):
        created = new_game(seats=3)
    gid, links = created.game_id, list(created.tokens)
    with dl.at(T0 + hours(1)):
        away_by_click(client, links[2], gid)
        assert propose(client, links[0], 2).status_code == 303
    assert answer(client, links[1], gid, True, T0 + hours(1)).status_code == 200
    tick(T0 + hours(20))  # his mail leaves nineteen hours late
    assert "Ann proposes Mallory to take over your seat" in leads(mailbox, CID)
    tick(T0 + hours(25))  # the vote's day is over, his twelve hours are not
    vote = the_vote(gid)
    assert vote.status == "open" and dl.as_utc(vote.expires_at) == T0 + hours(32)
    assert "Open until Tue 8 Jan, 17:00 UTC" in page_of(client, links[2])
    tick(T0 + hours(31.9))
    assert the_vote(gid).status == "open"
    tick(T0 + hours(32))
    assert (the_vote(gid).status, the_vote(gid).outcome, holder(gid, 2)) == \
        ("passed", "Ann and Bob agreed; Cid did not answer.", "Mallory")


@pytest.mark.parametrize("dee_answers, passes", [(12.5, False), (13, True)],
                         ids=["11h-after-it-opened", "12h-after-it-opened"])
def test_R51_a_person_who_asked_for_no_mail_has_twelve_hours_from_the_votes_opening(
        client, new_game, tick, mailbox, dee_answers, passes):
    """Cid asked this game for no mail: nothing can be sent to him, his page tells him
    (that is what he chose), and his twelve hours count from the vote's opening."""
    with dl.at(T0):
        created = new_game(seats=4)
    gid, links = created.game_id, list(created.tokens)
    services.seat_settings.set_mode(gid, 2, "none")
    with dl.at(T0 + hours(1)):
        away_by_click(client, links[2], gid)
        assert propose(client, links[0], 2).status_code == 303
    assert answer(client, links[1], gid, True, T0 + hours(1)).status_code == 200
    tick(T0 + hours(1))
    assert vote_mail(mailbox) is None, "no mail, as he asked"
    assert VETO_BUTTON in page_of(client, links[2]), "his page tells him"
    assert answer(client, links[3], gid, True, T0 + hours(dee_answers)).status_code == 200
    assert the_vote(gid).status == ("passed" if passes else "open")
    assert holder(gid, 2) == ("Mallory" if passes else "Cid")


def test_R51_a_resigned_seat_needs_no_wait(client, new_game):
    """Resigning gives the seat up (R48): the others' yes hands it over at once."""
    with dl.at(T0):
        resigned = new_game(seats=3)
    with dl.at(T0 + hours(1)):
        services.submit_action(resigned.game_id, 2, {"type": "resign"},
                               services.game_info(resigned.game_id).seq)
        assert propose(client, resigned.tokens[0], 2).status_code == 303
    assert answer(client, resigned.tokens[1], resigned.game_id, True,
                  T0 + hours(1)).status_code == 200
    assert (the_vote(resigned.game_id).status, the_vote(resigned.game_id).outcome) == \
        ("passed", "Ann and Bob agreed; Cid did not answer.")
    assert holder(resigned.game_id, 2) == "Mallory"


def test_R51_carls_own_yes_is_his_consent_and_needs_no_wait(client, new_game, tick, mailbox):
    """Cid lets the seat go from his page (its "Let it go" button): his own yes is his
    consent, so it passes at once."""
    gid, links = the_issues_table(client, new_game, tick, mailbox)
    with dl.at(T0 + hours(1.5)):
        assert post(client, links[2], f"/votes/{the_vote(gid).id}",
                    answer="yes").status_code == 303
    assert (the_vote(gid).status, the_vote(gid).outcome) == \
        ("passed", "Ann and Bob agreed; Cid let the seat go.")


def test_R51_cids_own_yes_by_json_is_answered_with_what_it_did(client, new_game, tick, mailbox):
    """By JSON, Cid's yes hands his seat over in the same request: its answer says so
    (200, handed over, the vote passed), not "your link was replaced"."""
    gid, links = the_issues_table(client, new_game, tick, mailbox)
    with dl.at(T0 + hours(1.5)):
        said = client.post(f"/api/play/{links[2]}/votes/{the_vote(gid).id}",
                           json={"yes": True})
    assert said.status_code == 200, said.get_json()
    body = said.get_json()
    assert body["handed_over"] is True and body["vote"]["status"] == "passed"
    assert body["vote"]["outcome"] == "Ann and Bob agreed; Cid let the seat go."
    assert "villages" not in json.dumps(body), "the earlier holder reads no table"


# -- one person, one seat: Ann's second address ----------------------------------------------

@pytest.mark.parametrize("second", ["ann+2@example.com", "ANN@Example.com",
                                    "Ann+seat@EXAMPLE.com", "bob+cards@example.com"])
def test_R51_ann_cannot_hand_cids_seat_to_her_own_second_address(client, new_game, second):
    with dl.at(T0):
        created = new_game(seats=3)
    gid, links = created.game_id, created.tokens
    with dl.at(T0 + hours(1)):
        away_by_click(client, links[2], gid)
        refused = client.post(f"/api/play/{links[0]}/votes", json={
            "kind": "substitute", "seat": 2, "name": "Annie", "email": second})
    assert refused.status_code == 400
    words = refused.get_json()["message"]
    assert "already holds a seat of this game" in words and "one" in words, words
    with read_session() as session:
        assert session.exec(select(Vote).where(Vote.game_id == gid)).first() is None
    form = post(client, links[0], "/votes", kind="substitute", seat="2", name="Annie",
                email=second)
    assert form.status_code == 400 and "already holds a seat" in html.unescape(
        form.get_data(as_text=True))


def test_the_lobby_refuses_one_persons_two_addresses_as_a_substitute_is_refused(app, client,
                                                                                 db):
    """A stranger making a game cannot seat one person twice under two spellings either
    (the lobby's form and the service ask ``addresses.same_person`` too)."""
    before = db.dump()
    with pytest.raises(services.BadRequest, match=r"Seats 1 and 3 .* same address, "
                                                  r"ann\+2@example.com \(as ann@example.com"):
        services.create_game([{"name": "Ann", "email": "ann@example.com"},
                              {"name": "Bob", "email": "bob@example.com"},
                              {"name": "Annie", "email": "ann+2@example.com"}])
    refused = client.post("/", data=lobby_form([("Ann", "Ann@Example.com", "human"),
                                                ("Annie", "ann+cards@example.com", "human")],
                                               client))
    assert refused.status_code == 400
    assert "Seats 1 and 2 (Ann and Annie) have the same address, ann+cards@example.com " \
        "(as Ann@example.com is: a +tag reaches the same inbox): one address holds one " \
        "seat of a game" in " ".join(html.unescape(refused.get_data(as_text=True)).split())
    assert db.dump() == before


# -- a stranger who made the game and kept one link ------------------------------------------

def test_R51_a_stranger_who_made_the_game_cannot_take_vics_seat_before_vic_was_told(
        client, new_game, tick, mailbox):
    """Mallory made a game with Vic, Ann and a seat without an address whose link she
    kept. Vic says away once; from her seat Mallory proposes herself for his, and Ann,
    talked into it, says yes at once. Vic is told, his seat stays his for at least
    twelve hours after, and his veto keeps it."""
    with dl.at(T0):
        created = new_game(seats=3, people=[("Vic", "vic@example.com"), ("Ann", ANN),
                                            ("Mal", "")])
    gid, links = created.game_id, created.tokens
    tick(T0)
    with dl.at(T0 + hours(1)):
        away_by_click(client, links[0], gid)
        assert propose(client, links[2], 0, name="Mallory", email=MALLORY).status_code == 303
    again = answer(client, links[2], gid, True, T0 + hours(1))
    assert again.status_code == 409, "she answered by proposing it"
    assert answer(client, links[1], gid, True, T0 + hours(1)).status_code == 200
    assert the_vote(gid).status == "open"
    tick(T0 + hours(1))
    assert "Mal proposes Mallory to take over your seat" in leads(mailbox, "vic@example.com")
    tick(T0 + hours(13))
    assert the_vote(gid).status == "open" and holder(gid, 0) == "Vic"
    assert answer(client, links[0], gid, False, T0 + hours(20)).status_code == 200
    assert (the_vote(gid).status, holder(gid, 0)) == ("failed", "Vic")
    tick(T0 + hours(30))
    assert mailbox.to(MALLORY) == [] and holder(gid, 0) == "Vic"
