"""A hand-over right for both people (issue 32 item 3, R49): Kenji, whose seat the others
handed to Dana, and Dana, who took it.

Dana is greeted by her own name and her page says whose seat she took and when. Kenji
gets one goodbye addressed to him, whose unsubscribe stops this game's mail to him and
nothing else; a reply he sends from an old mail is answered to him alone, with no card
and no seat link; his old link says what happened and offers to watch the game.
"""
from __future__ import annotations

import re
from typing import Any

from sqlmodel import select

from app import services
from app.access.reply_address import reply_address
from app.clock import deadlines as dl
from app.db import read_session
from app.mail.models import Outbox
from app.people.models import Person
from app.services import votes
from tests.web.test_leak_http import mail_problems

from .conftest import T0, hours, leads, reply

ANN, BOB, KENJI, DANA = ("ann@example.com", "bob@example.com", "kenji@example.com",
                         "dana@example.com")
PEOPLE = [("Ann", ANN), ("Bob", BOB), ("Kenji", KENJI)]
SEAT_LINK = re.compile(r"/play/[A-Za-z0-9_.-]{20,}")


def plain(message: Any) -> str:
    return message.get_body(("plain",)).get_content()


def hand_kenjis_seat_to_dana(client: Any, new_game: Any, tick: Any) -> dict[str, Any]:
    """Kenji resigns; Ann proposes Dana for his seat and Bob agrees: it passes (R49)."""
    with dl.at(T0):
        created = new_game(seats=3, people=PEOPLE)
    gid, links = created.game_id, created.tokens
    tick(T0)
    old_reply = reply_address(gid, 2, 1, services.game_info(gid).seq)
    with dl.at(T0 + hours(1)):
        assert client.post(f"/api/play/{links[2]}/resign",
                           json={"confirm": True}).status_code == 200
    votes.start(gid, 0, "substitute", subject=2, name="Dana", email=DANA, now=T0 + hours(2))
    with dl.at(T0 + hours(2)):
        client.post(f"/api/play/{links[1]}/votes/1", json={"yes": True})
    for later in (3, 27, 51):  # whatever the vote's rules ask, it passes by its expiry
        if services.game_info(gid).names[2] == "Dana":
            break
        tick(T0 + hours(later))
    assert services.game_info(gid).names[2] == "Dana"
    return {"gid": gid, "links": links, "old_reply": old_reply,
            "dana": services.seat_tokens(gid)[2]}


def test_kenji_gets_one_goodbye_to_his_own_name_and_dana_is_greeted_by_hers(
        client, new_game, tick, mailbox):
    game = hand_kenjis_seat_to_dana(client, new_game, tick)
    tick(T0 + hours(60))
    goodbye = [m for m in mailbox.to(KENJI) if "handed to another" in plain(m)]
    assert len(goodbye) == 1
    text = plain(goodbye[0])
    assert text.startswith("Your seat was handed to another player")
    assert "Hello Kenji," in text and "Hello Dana" not in text
    assert not SEAT_LINK.search(text), "a goodbye opens no seat"
    welcome = [m for m in mailbox.to(DANA) if "take over Kenji's seat" in plain(m)]
    assert len(welcome) == 1 and "Hello Dana," in plain(welcome[0])
    assert game["dana"] in plain(welcome[0])


def test_the_goodbyes_unsubscribe_stops_this_games_mail_to_kenji_and_nothing_else(
        client, new_game, tick, mailbox):
    """Kenji also plays another game: one click on the goodbye's unsubscribe leaves its
    mail, his address's choices and Dana's seat as they were."""
    with dl.at(T0):
        other = new_game(seats=2, people=[("Kenji", KENJI), ("Eve", "eve@example.com")])
    game = hand_kenjis_seat_to_dana(client, new_game, tick)
    with read_session() as session:
        goodbye = session.exec(select(Outbox).where(Outbox.to == KENJI,
                                                    Outbox.kind == "handed_over")).one()
        link = (goodbye.headers or {}).get("List-Unsubscribe", "")
    path = re.search(r"https?://[^/]+(/left/[^>\s]+)", link).group(1)
    asked = client.get(path)
    assert asked.status_code == 200
    words = " ".join(re.sub(r"<[^>]+>", " ", asked.get_data(as_text=True)).split())
    assert "Unsubscribe from this game's mail" in words and "Only this game" in words
    done = client.post(path)
    assert done.status_code == 200 and "no more mail from this game" in done.get_data(as_text=True)
    assert client.post(path[:-4]).status_code == 403, "a cut-short link does nothing"
    with read_session() as session:
        person = session.exec(select(Person).where(Person.address == KENJI)).first()
        assert person is None or person.mode != "none", "not every game: only this one"
    # his other game still mails him; Dana's seat is untouched by his click
    assert services.seat_settings.status(other.game_id, 0)["mode"] != "none"
    assert services.seat_settings.status(game["gid"], 2)["mode"] != "none"
    # the seat's own unsubscribe link of Kenji's time stays refused (it is Dana's seat)
    assert client.post(path.replace("/left/", "/unsubscribe/")).status_code == 403


def test_a_reply_from_kenjis_old_mail_is_answered_to_kenji_alone_without_card_or_link(
        app, client, new_game, tick, mailbox):
    game = hand_kenjis_seat_to_dana(client, new_game, tick)
    tick(T0 + hours(60))
    mailbox.clear()
    status, outcome = reply(app, game["old_reply"], KENJI, "D", now=T0 + hours(61))
    assert outcome.startswith("retired reply address: answered to the seat's earlier holder")
    tick(T0 + hours(61))
    to_kenji, to_dana = mailbox.to(KENJI), mailbox.to(DANA)
    assert to_dana == [], "never to the newcomer"
    assert leads(mailbox, KENJI) == ["Your seat is now played by Dana"]
    text = plain(to_kenji[0])
    assert "Hello Kenji," in text and "nothing was changed" in text
    assert f"/games/{game['gid']}" in text, "he may watch the game"
    # the leak scan's mail check: no card at all (he holds no seat), no seat link, no
    # reply address that would play it
    assert mail_problems(to_kenji, set(), "Kenji") == []
    assert not SEAT_LINK.search(text) and game["dana"] not in text
    assert "play+" not in str(to_kenji[0].get("Reply-To", ""))
    # the same reply sent again is not answered twice
    reply(app, game["old_reply"], KENJI, "D", now=T0 + hours(61))
    tick(T0 + hours(62))
    assert len(mailbox.to(KENJI)) == 1


def test_kenjis_old_link_says_what_happened_and_offers_to_watch(client, new_game, tick):
    game = hand_kenjis_seat_to_dana(client, new_game, tick)
    before = services.game_info(game["gid"]).seq
    page = client.get(f"/play/{game['links'][2]}")
    body = page.get_data(as_text=True)
    words = " ".join(re.sub(r"<[^>]+>", " ", body).split())
    assert page.status_code == 403
    assert "Your seat is now played by Dana" in words
    assert "Kenji's seat" in words and "handed to Dana in round 1" in words
    assert f'href="/games/{game["gid"]}"' in body, "the game to watch"
    assert game["dana"] not in body and not SEAT_LINK.search(body), "no link of the seat"
    assert 'class="card' not in body, "no card of the seat"
    assert services.game_info(game["gid"]).seq == before, "a GET changed nothing"
    # the JSON still refuses plainly
    assert client.get(f"/api/play/{game['links'][2]}").status_code == 403
