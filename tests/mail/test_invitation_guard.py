"""A victim's inbox is not for rent (issue 17 item 7).

Measured before: a lobby game could seat one address three times, and 40
creators from 40 source addresses queued 2,340 mails for one victim in 400
games. Now one address holds one seat of a game; an address that never played
gets at most 20 mails a day across all games, and the creator of the game that
would go over is told so up front; and an invitation carries a one-click "no
more invitations to this address" (RFC 8058) that every later creator hears of.
"""
from __future__ import annotations

import html
import re
import threading
from datetime import datetime, timezone

import pytest

from app import services
from app.runners import clock
from app.services import my_games
from app.services import seat_settings as preferences
from app.access import tokens
from app.db import read_session
from app.mail import trust
from tests.conftest import TEST_SECRET_KEY
from tests.web.test_pages import lobby_form

VICTIM = "victim@example.org"


def text_of(answer) -> str:
    """A page as a reader sees it (entities decoded, spaces folded)."""
    return " ".join(html.unescape(answer.get_data(as_text=True)).split())


def create(client, players, source: str = "198.51.100.1"):
    """Press "Create the game" in the lobby from request address ``source``."""
    return client.post("/", data=lobby_form(players, client), environ_base={"REMOTE_ADDR": source})


def mails_queued_for(db, address: str) -> int:
    return db.count("outbox", to=address)


def invitation_to(smtp, address: str):
    """The invitation mail ``address`` received."""
    return next(m for m in smtp.to(address) if "invited" in m.lead)


def one_click(client, url: str):
    """What a mail client sends for ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``."""
    return client.post(url, data="List-Unsubscribe=One-Click",
                       content_type="application/x-www-form-urlencoded")


# -- 40 creators, one victim ---------------------------------------------------------------

def test_forty_creators_from_forty_addresses_queue_at_most_twenty_mails_for_one_victim(client, db):
    """Each game queues two mails for the victim: the invitation and the first turn
    mail (a round opens with every seat's peek), so the 11th creation is the one
    that would go over twenty, and it and every later one are refused."""
    answers = []
    for number in range(40):
        players = [(f"Creator {number}", f"creator{number}@example.net", "human"),
                   ("Vic", VICTIM, "human")]
        answers.append(create(client, players, source=f"198.51.100.{number + 1}"))
    codes = [a.status_code for a in answers]
    assert codes == [303] * 10 + [400] * 30
    assert mails_queued_for(db, VICTIM) == trust.STRANGER_MAILS_PER_DAY == 20
    assert db.count("game") == 10
    refused = answers[10]
    words = text_of(refused)
    assert (f"{VICTIM} (seat 2, Vic) has had 20 mails from games here in the last 24 hours "
            "without ever playing one") in words
    assert "no game was created" in words
    assert ("Invite them again tomorrow, or ask them to play a game they were invited to "
            "first") in words
    assert 'value="Creator 10"' in refused.get_data(as_text=True), "the form comes back as typed"
    # the creators' own addresses were not held up by the victim's count
    assert mails_queued_for(db, "creator0@example.net") == 2


def test_a_game_that_would_take_a_stranger_over_twenty_is_refused_whole(client, db):
    """Nineteen mails so far (nine games and one "all my games" link): the next game
    would send two more, so it is refused, and the creator is told how many."""
    def game(number: int):
        return create(client, [(f"Creator {number}", f"creator{number}@example.net", "human"),
                               ("Vic", VICTIM, "human")], source=f"203.0.113.{number + 1}")

    assert game(0).status_code == 303
    client.post("/my-games", data={"email": VICTIM})
    for number in range(1, 9):
        assert game(number).status_code == 303
    assert mails_queued_for(db, VICTIM) == 19
    games = db.count("game")
    refused = game(9)
    assert refused.status_code == 400
    assert (f"{VICTIM} (seat 2, Vic) has had 19 mails from games here in the last 24 hours "
            "without ever playing one and this game would send 2 more") in text_of(refused)
    assert db.count("game") == games and mails_queued_for(db, VICTIM) == 19
    assert mails_queued_for(db, "creator9@example.net") == 0, "nothing of the refused game stays"


def test_once_the_address_has_played_a_game_it_may_be_invited_again(client, db):
    for number in range(10):
        assert create(client, [("Vic", VICTIM, "human"),
                               (f"C{number}", f"c{number}@example.net", "human")],
                      source=f"192.0.2.{number + 1}").status_code == 303
    refused = create(client, [("Vic", VICTIM, "human"), ("Ann", "ann@example.net", "human")],
                     source="192.0.2.200")
    assert refused.status_code == 400 and "without ever playing one" in text_of(refused)
    # Vic opens a seat link from one invitation and makes the move it asks for
    seat = _a_seat_of(VICTIM)
    menu = client.get(f"/api/play/{seat}/actions").get_json()
    played = client.post(f"/api/play/{seat}/actions",
                         json={"action": menu["legal_actions"][0], "expected_seq": menu["seq"]})
    assert played.status_code == 200
    # no longer refused for its mail; but Ann is a stranger to Vic, and Vic was seated
    # by strangers in ten games today: the bound by people (issue 34 item 2) says no
    again = create(client, [("Vic", VICTIM, "human"), ("Ann", "ann@example.net", "human")],
                   source="192.0.2.201")
    assert again.status_code == 400
    assert "without ever playing one" not in text_of(again)
    assert "by people they have never played with" in text_of(again)


def _a_seat_of(address: str) -> str:
    """The seat link of ``address`` in one game where it is to act."""
    for seat in my_games.games_of(address):
        if seat.my_move:
            return seat.token
    raise AssertionError(f"{address} is to act nowhere")


def test_thirty_creators_at_once_still_queue_at_most_twenty_mails_for_the_victim(app, db):
    """Thirty creators, each from its own address, press "Create" at the same moment:
    each game would queue two mails for the victim, so exactly ten are created (the
    victim's address is locked while its mail is counted: no two see room for one)."""
    forms = [{**lobby_form([(f"Creator {n}", f"creator{n}@example.net", "human"),
                            ("Vic", VICTIM, "human")]),
              "form_token": tokens.lobby_form_token()} for n in range(30)]
    ready = threading.Barrier(len(forms))
    statuses: list[int] = []

    def press(number: int) -> None:
        client = app.test_client()
        ready.wait()
        answer = client.post("/", data=forms[number],
                             environ_base={"REMOTE_ADDR": f"198.18.0.{number + 1}"})
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=press, args=(n,)) for n in range(len(forms))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(statuses) == 30
    assert statuses.count(303) == 10, sorted(statuses)
    assert set(statuses) <= {303, 400, 429}, "refused with words (or busy), never a 500"
    assert db.count("game") == 10 and mails_queued_for(db, VICTIM) == 20


# -- one seat per address --------------------------------------------------------------------

def test_the_same_address_twice_in_one_game_is_refused_and_changes_nothing(client, db):
    players = [("Ann", "Ann@Example.com", "human"), ("Bob", "bob@example.com", "human"),
               ("Cid", "ann@example.com", "human")]
    form = lobby_form(players, client)
    before = db.dump()
    refused = client.post("/", data=form)
    assert refused.status_code == 400
    words = text_of(refused)
    assert ("Seats 1 and 3 (Ann and Cid) have the same address, ann@example.com: one address "
            "holds one seat of a game") in words
    assert db.dump() == before


def test_every_way_to_create_a_game_refuses_a_repeated_address(db):
    before = db.dump()
    with pytest.raises(services.BadRequest, match="Seats 1 and 2 .* same address"):
        services.create_game([{"name": "Ann", "email": "ann@example.com"},
                              {"name": "Bob", "email": " ANN@example.com "}])
    assert db.dump() == before


# -- no more invitations ---------------------------------------------------------------------

def test_an_invitation_carries_a_one_click_no_more_invitations_link(mail_app, smtp, client):
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    mail = invitation_to(smtp, "bob@example.com")
    assert mail.header("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click"
    link = re.fullmatch(r"<(http://silver-eye\.test/invitations/[\w.-]+)>",
                        mail.header("List-Unsubscribe"))
    assert link, mail.header("List-Unsubscribe")
    assert "No more invitations to this address" in mail.text and link.group(1) in mail.text
    assert "No more invitations to this address" in mail.html_words
    assert "except invitations" not in mail.text and "still get invitations" not in mail.text


def test_getting_the_link_only_asks(mail_app, smtp, client, db):
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    path = _guard_path(invitation_to(smtp, "bob@example.com"))
    before = db.dump()
    page = client.get(path)
    assert page.status_code == 200
    assert "No more invitations to bob@example.com?" in text_of(page)
    assert f'action="{path}"' in page.get_data(as_text=True), "a button that posts"
    assert client.head(path).status_code == 200
    assert db.dump() == before
    again = create(client, [("Cid", "cid@example.com", "human"),
                            ("Bob", "bob@example.com", "human")], source="203.0.113.50")
    assert again.status_code == 303, "a GET refused nothing"


def _guard_path(mail) -> str:
    url = re.fullmatch(r"<(.*)>", mail.header("List-Unsubscribe")).group(1)
    return url.removeprefix("http://silver-eye.test")


def test_one_click_refuses_every_later_game_seating_the_address(mail_app, smtp, client, db):
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    invited = invitation_to(smtp, "bob@example.com")
    answer = one_click(client, _guard_path(invited))
    assert answer.status_code == 200 and "No more invitations" in text_of(answer)
    # the game Bob was invited to mails him no more either
    (seat,) = my_games.games_of("bob@example.com")
    assert preferences.mode_of(seat.game_id, seat.seat) == "none"

    # another creator, from another address, tries to seat Bob (typed in capitals, too)
    games = db.count("game")
    for typed in ("bob@example.com", "BOB@Example.com"):
        refused = create(client, [("Cid", "cid@example.com", "human"), ("Bob", typed, "human")],
                         source="203.0.113.77")
        assert refused.status_code == 400
        assert "asked not to be invited to games here, so no game was created" in text_of(refused)
        assert "(seat 2, Bob)" in text_of(refused)
    assert db.count("game") == games
    # pressing it again is fine and changes nothing more
    assert one_click(client, _guard_path(invited)).status_code == 200


def test_the_undo_button_welcomes_invitations_and_the_games_mail_again(mail_app, smtp, client):
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    path = _guard_path(invitation_to(smtp, "bob@example.com"))
    done = client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert f'action="{path}/undo"' in done.get_data(as_text=True)
    undone = client.post(f"{path}/undo")
    assert undone.status_code == 200 and "Invitations allowed again" in text_of(undone)
    (seat,) = my_games.games_of("bob@example.com")
    assert preferences.mode_of(seat.game_id, seat.seat) == "every"
    assert create(client, [("Cid", "cid@example.com", "human"),
                           ("Bob", "bob@example.com", "human")],
                  source="203.0.113.78").status_code == 303


def test_the_games_page_refuses_and_allows_invitations(client, db):
    assert create(client, [("Ann", "ann@example.com", "human"),
                           ("Bob", "bob@example.com", "human")]).status_code == 303
    with read_session() as session:
        token = my_games.make_link_token(session, "bob@example.com", TEST_SECRET_KEY)
    page = client.get(f"/my-games/{token}")
    assert "anyone starting a game here may invite this address" in text_of(page)
    refused = client.post(f"/my-games/{token}/invitations", data={"choice": "refuse"},
                          follow_redirects=True)
    assert "you asked on" in text_of(refused) and "Allow invitations again" in text_of(refused)
    attempt = create(client, [("Cid", "cid@example.com", "human"),
                              ("Bob", "bob@example.com", "human")], source="203.0.113.79")
    assert attempt.status_code == 400 and "asked not to be invited" in text_of(attempt)
    client.post(f"/my-games/{token}/invitations", data={"choice": "allow"})
    assert create(client, [("Cid", "cid@example.com", "human"),
                           ("Bob", "bob@example.com", "human")],
                  source="203.0.113.80").status_code == 303
    before = db.dump()
    assert client.post(f"/my-games/{token}/invitations", data={"choice": "maybe"}).status_code == 400
    assert db.dump() == before


def test_a_forged_invitations_link_is_refused_with_words(client, db):
    before = db.dump()
    for answer in (client.get("/invitations/not-a-token"),
                   one_click(client, "/invitations/not-a-token")):
        assert answer.status_code == 403
        assert "This link is not valid" in text_of(answer)
    assert db.dump() == before


def test_the_no_mail_preference_no_longer_says_except_invitations():
    words = " ".join([*preferences.MODE_WORDS.values(), *preferences.ADDRESS_MODE_WORDS.values()])
    assert "invitation" not in words
