"""A mail says only what is true (issue 33 item 4), read by the person it is sent to.

Eve is seated in Ann's game by Ann; nobody asks Eve anything first. Measured before: the
invitation's first line said "accept or decline within 2 days", a step that does not
exist (the game has started when it leaves). Now it says her seat is ready, and each
thing it offers works when she does it: the seat link opens a page that already asks her
first decision, the settings link opens her zone and quiet hours, and its "no more
invitations" refuses the next game anyone makes for her. A seat the lobby put on a
digest is not promised a mail every turn. The mail that tells Eve she is marked away
says how to come back, and each way it names works: a reply BACK to that very mail.
"""
from __future__ import annotations

import random
import re
from email.message import EmailMessage

import pytest

from app import engine, services
from app.clock import deadlines as dl
from app.services import absence

from tests.person_keys import settings_link
from .conftest import T0, csrf, hours, lead_of, reply

ANN, EVE, BOB = "ann@example.com", "eve@example.com", "bob@example.com"
LINK = re.compile(r"http://silver-eye\.test(/\S+)")


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def invitation_of(mailbox, address: str) -> EmailMessage:
    (mail,) = [m for m in mailbox.to(address) if "invited" in lead_of(m)]
    return mail


def paths(text: str) -> list[str]:
    return LINK.findall(text)


def create(players, **options):
    with dl.at(T0):
        return services.create_game(players, {"deadline_hours": 48, **options},
                                    name="Friday table", seed="33")


def test_the_invitation_asks_nothing_back_and_every_thing_it_offers_works(
        app, client, tick, mailbox):
    created = create([{"name": "Ann", "email": ANN}, {"name": "Eve", "email": EVE}])
    token = created.tokens[1]
    tick(T0)
    mail = invitation_of(mailbox, EVE)
    words, html = text_of(mail), mail.get_body(("html",)).get_content()
    assert lead_of(mail) == "You are invited to play: your seat is ready, the game has started"
    for untrue in ("accept or decline", "decline within", "Accept"):
        assert untrue not in words and untrue not in html, untrue
    assert "The game has already started: there is nothing to accept or answer" in words
    assert "Each decision has a deadline of 2 days; you get a mail whenever it is your turn" \
        in words
    assert ("after 3 missed deadlines in a row it plays your seat at once until you come "
            "back") in words

    seat, settings, refuse = (f"/play/{token}", f"/play/{token}/settings",
                              next(p for p in paths(words) if p.startswith("/invitations/")))
    assert seat in paths(words) and settings in paths(words)
    # play: her seat already asks her first decision (the peek), nothing to accept first
    assert 0 < len(services.snapshot(created.game_id).view(1)["legal_actions"])
    page = client.get(seat).get_data(as_text=True)
    assert 'id="decision"' in page
    # her zone and quiet hours: the page the invitation names mails her the link to them
    # (issue 45: a seat link opens one seat), and that link has the fields
    page = client.get(settings).get_data(as_text=True)
    assert "Send me the link to my settings" in page
    with dl.at(T0):
        form = client.get(settings_link(client, token, EVE)).get_data(as_text=True)
    assert 'name="time_zone"' in form and 'name="quiet_start"' in form
    # no more invitations: the next game anyone makes for her is refused up front
    assert client.post(refuse, data="List-Unsubscribe=One-Click",
                       content_type="application/x-www-form-urlencoded").status_code == 200
    with pytest.raises(services.BadRequest, match="asked not to be invited"):
        create([{"name": "Bob", "email": BOB}, {"name": "Eve", "email": EVE}])
    assert csrf(client, token)  # (her seat still opens: refusing is not leaving the game)


def test_a_seat_on_a_digest_is_not_promised_a_mail_every_turn(app, tick, mailbox):
    create([{"name": "Ann", "email": ANN},
            {"name": "Eve", "email": EVE, "preferences": {"mail": "digest"}}])
    tick(T0)
    words = text_of(invitation_of(mailbox, EVE))
    assert "whenever it is your turn" not in words
    assert "this game mails you a digest of its news instead of a mail each turn" in words
    assert "whenever it is your turn" in text_of(invitation_of(mailbox, ANN))


def test_the_away_mail_says_how_to_come_back_and_a_reply_back_to_it_does(app, tick, mailbox):
    """Eve misses two deadlines and is marked away. Her mail says to reply BACK to it or
    press "I'm back"; she replies BACK to that mail and is back."""
    created = create([{"name": "Ann", "email": ANN}, {"name": "Eve", "email": EVE}],
                     deadline_hours=2, absent_after=2, first=0)
    now, rng = T0, random.Random(33)
    while not absence.seat_clock_state(created.game_id, 1, now)["absent"]:
        assert now < T0 + hours(48), "Eve was never marked away"
        while 0 in (snap := services.snapshot(created.game_id)).view(None)["to_act"]:
            with dl.at(now):                                  # Ann plays at once
                services.submit_action(created.game_id, 0,
                                       rng.choice(engine.legal_actions(snap.state, 0)), snap.seq)
        now += hours(1)
        tick(now)
    (away,) = [m for m in mailbox.to(EVE) if lead_of(m) == "You are marked away"]
    assert "To play again, reply BACK to this mail, or press \"I'm back\" on your seat page." \
        in text_of(away)
    back_to = str(away["Reply-To"])
    assert back_to.startswith("play+"), back_to
    status, outcome = reply(app, back_to, EVE, "BACK", now=now + hours(0.5))
    assert not absence.seat_clock_state(created.game_id, 1, now + hours(0.5))["absent"], \
        (status, outcome)
