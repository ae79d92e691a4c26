"""Issue 9, item 1: nothing a link opens outlives a rotation, and the links page is no
standing key to every seat.

The creator's page of links is shown for an hour, only in the browser that created
the game, and never shows a link newer than the one it was made with. Unsubscribe
links are bound to the seat's link version: rotate-link revokes them too.
"""
from __future__ import annotations

import time

from itsdangerous import TimestampSigner

from app import services
from app.access import tokens
from app.services import seat_settings as preferences
from app.mail import notify
from app.config import DEFAULTS
from app.web import lobby
from app.access import unsubscribe as unsubscribe_tokens
from tests.web.test_pages import SEAT_LINK, lobby_form

PLAYERS = [("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human")]
#: Seats whose links the creator hands out themselves (no address): the page shows them.
UNMAILED = [("Ann", "", "human"), ("Bob", "", "human")]


def create(client, players: list[tuple[str, str, str]] = UNMAILED) -> str:
    answer = client.post("/", data=lobby_form(players, client))
    assert answer.status_code == 303, answer.get_data(as_text=True)
    return answer.headers["Location"]


def game_of(links_page: str) -> str:
    return lobby.read_creator_token(links_page.rsplit("/", 1)[1]).game_id


def test_the_creating_browser_sees_the_links_of_seats_without_an_address(client):
    page = client.get(create(client))
    assert page.status_code == 200
    assert len(SEAT_LINK.findall(page.get_data(as_text=True))) == 2
    assert "no-store" in page.headers["Cache-Control"]


def test_a_seat_with_an_address_is_never_shown_its_link_only_where_it_went(client, db):
    """Issue 45: Mallory types Vic's address for a seat of her game; the page she gets
    tells her the link went to v•••@…, and can mail it there again — never shows it."""
    links_page = create(client, [("Mallory", "", "human"), ("Vic", "vic@example.org", "human")])
    text = client.get(links_page).get_data(as_text=True)
    assert len(SEAT_LINK.findall(text)) == 1, "Mallory's own seat (no address) only"
    vic = services.seat_tokens(game_of(links_page))[1]
    assert vic not in text and "vic@example.org" not in text
    assert "v•••@example.org" in text
    invitations = db.count("outbox")
    again = client.post(f"{links_page}/mail/1")
    assert again.status_code == 303 and again.headers["Location"].endswith(links_page)
    assert db.count("outbox") == invitations + 1, "the link went to Vic's address again"
    with db.engine.connect() as conn:
        to, text = conn.exec_driver_sql(
            "SELECT \"to\", text FROM outbox ORDER BY id DESC LIMIT 1").one()
    assert to == "vic@example.org" and vic in text
    assert client.post(f"{links_page}/mail/1").status_code == 303
    assert db.count("outbox") == invitations + 1, "at most one such mail every few minutes"
    # another browser (no cookie) cannot have it mailed
    assert client.application.test_client().post(f"{links_page}/mail/1").status_code == 403


def test_another_browser_with_the_same_address_sees_no_link(app, client):
    links_page = create(client)
    stranger = app.test_client()  # someone who got hold of the address: no cookie
    answer = stranger.get(links_page)
    assert answer.status_code == 403
    text = answer.get_data(as_text=True)
    assert "only in the browser that created the game" in text
    assert not SEAT_LINK.findall(text) and "/play/" not in text


def test_the_page_is_gone_after_an_hour_even_in_the_creating_browser(client, monkeypatch):
    links_page = create(client)
    later = int(time.time()) + DEFAULTS["CREATED_PAGE_SECONDS"] + 1
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: later)
    answer = client.get(links_page)
    assert answer.status_code == 403
    text = answer.get_data(as_text=True)
    assert "is gone now" in text and "/play/" not in text


def test_after_rotate_link_the_page_shows_neither_the_old_nor_the_new_link(client):
    links_page = create(client)
    game_id = game_of(links_page)
    old = SEAT_LINK.findall(client.get(links_page).get_data(as_text=True))
    new_token = services.rotate_link(game_id, 1)
    text = client.get(links_page).get_data(as_text=True)
    shown = SEAT_LINK.findall(text)
    assert shown == [old[0]], "Ann's link stays, Bob's is gone"
    assert new_token not in text and old[1] not in text
    assert "link was replaced" in text


def test_a_links_token_made_without_a_browser_nonce_opens_nothing(app, client, new_game):
    created = new_game()
    with app.test_request_context():
        token = lobby.creator_token(created.game_id, [1, 1])
    assert client.get(f"/created/{token}").status_code == 403


# -- unsubscribe links die with a rotation -------------------------------------------------

def unsubscribe(client, token: str):
    return client.post(f"/unsubscribe/{token}", data="List-Unsubscribe=One-Click",
                       content_type="application/x-www-form-urlencoded")


def test_a_rotation_revokes_the_unsubscribe_links_of_older_mails(client, new_game):
    gid = new_game().game_id
    old = unsubscribe_tokens.unsubscribe_token(gid, 1, version=1)
    services.rotate_link(gid, 1)
    assert client.get(f"/unsubscribe/{old}").status_code == 403
    answer = unsubscribe(client, old)
    assert answer.status_code == 403 and "was replaced" in answer.get_data(as_text=True)
    assert preferences.mode_of(gid, 1) == "every"
    current = unsubscribe_tokens.unsubscribe_token(gid, 1, version=2)
    assert unsubscribe(client, current).status_code == 200
    assert preferences.mode_of(gid, 1) == "none"


def test_mails_carry_unsubscribe_links_of_the_current_version(app, new_game):
    from app.db import read_session
    from app.gamelog import store

    gid = new_game().game_id
    services.rotate_link(gid, 0)
    with read_session() as session:
        game = session.get(store.Game, gid)
        link = notify.Context.load(session, game).unsubscribe(0)
    assert unsubscribe_tokens.unsubscribe_ref(link.rsplit("/", 1)[1]) == (gid, 0, 2)


def test_an_unversioned_unsubscribe_token_counts_as_the_first_version(client, new_game):
    gid = new_game().game_id
    legacy = tokens.sign(tokens.UNSUBSCRIBE, [gid, 0])
    assert client.get(f"/unsubscribe/{legacy}").status_code == 200
    services.rotate_link(gid, 0)
    assert unsubscribe(client, legacy).status_code == 403
