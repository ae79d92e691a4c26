"""The lobby's guards, which need no login: a signed, timestamped form token, and a
limit of games per hour per address counted in the database (so every worker agrees).
Also the per-seat Simon preference (R16) the lobby hands to the engine."""
from __future__ import annotations

import html
import itertools
import json
import re
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa
from itsdangerous import TimestampSigner

from app import services
from app.gamelog import store
from app.access import tokens
from app.config import DEFAULTS
from app.web import lobby
from tests.web.test_pages import FORM_TOKEN, SEAT_LINK, lobby_form, lobby_token

PLAYERS = [("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human")]


def text_of(answer) -> str:
    return html.unescape(answer.get_data(as_text=True))


def token_made_hours_ago(monkeypatch, hours: float) -> str:
    """A genuine lobby token whose signature says it was made ``hours`` ago."""
    then = int(time.time() - hours * 3600)
    with monkeypatch.context() as patch:
        patch.setattr(TimestampSigner, "get_timestamp", lambda self: then)
        return tokens.lobby_form_token()


def stored_options(db) -> dict:
    with db.engine.connect() as conn:
        options = conn.exec_driver_sql("SELECT options FROM game").scalar_one()
    return json.loads(options) if isinstance(options, str) else options


# -- the form token ------------------------------------------------------------------

def test_a_form_from_the_lobby_page_creates_the_game(client, db):
    answer = client.post("/", data=lobby_form(PLAYERS, client))
    assert answer.status_code == 303 and answer.headers["Location"].startswith("/created/")
    assert db.count("game") == 1


def test_each_lobby_page_gets_its_own_token(client):
    assert lobby_token(client) != lobby_token(client)


@pytest.mark.parametrize("token, words", [
    (None, "could not be checked"),
    ("", "could not be checked"),
    ("not-a-token", "could not be checked"),
])
def test_a_form_without_a_good_token_is_shown_again_and_creates_nothing(client, db, token, words):
    form = lobby_form(PLAYERS)
    if token is not None:
        form["form_token"] = token
    answer = client.post("/", data=form)
    assert answer.status_code == 400
    text = text_of(answer)
    assert words in text and "no game was created" in text
    assert 'value="Friday wolves"' in text and 'value="ann@example.com"' in text
    assert FORM_TOKEN.search(answer.get_data(as_text=True)), "a fresh token to try again with"
    assert db.count("game") == 0


def test_a_changed_token_or_another_purposes_token_is_refused(client, db, new_game):
    good = lobby_token(client)
    # a character inside the signature (the last one may carry only padding bits)
    changed = good[:-5] + ("A" if good[-5] != "A" else "B") + good[-4:]
    seat_token = new_game().tokens[0]
    before = db.count("game")
    for token in (changed, seat_token, tokens.csrf_token("g", 0, 1)):
        answer = client.post("/", data={**lobby_form(PLAYERS), "form_token": token})
        assert answer.status_code == 400
        assert "could not be checked" in text_of(answer)
    assert db.count("game") == before


def test_a_form_left_open_too_long_has_expired_and_says_so(client, db, monkeypatch):
    stale = token_made_hours_ago(monkeypatch, DEFAULTS["LOBBY_FORM_MAX_AGE"] / 3600 + 1)
    answer = client.post("/", data={**lobby_form(PLAYERS), "form_token": stale})
    assert answer.status_code == 400
    text = text_of(answer)
    assert "expired" in text and "no game was created" in text
    assert db.count("game") == 0
    fresh = FORM_TOKEN.search(answer.get_data(as_text=True)).group(1)
    again = client.post("/", data={**lobby_form(PLAYERS), "form_token": fresh})
    assert again.status_code == 303 and db.count("game") == 1


def test_a_form_a_few_hours_old_still_works(client, db, monkeypatch):
    older = token_made_hours_ago(monkeypatch, DEFAULTS["LOBBY_FORM_MAX_AGE"] / 3600 - 1)
    answer = client.post("/", data={**lobby_form(PLAYERS), "form_token": older})
    assert answer.status_code == 303 and db.count("game") == 1


# -- games per hour per address ------------------------------------------------------

_GAMES = itertools.count()


def create_from(client, address: str):
    """A game from request address ``address``, seating two addresses no game seated
    before: a never-played address gets at most 20 mails a day from all games
    (issue 17 item 7, tests/web/test_invitation_guard.py), which is not this guard."""
    number = next(_GAMES)
    players = [(name, email.replace("@", f"+{number}@"), kind) for name, email, kind in PLAYERS]
    return client.post("/", data=lobby_form(players, client),
                       environ_base={"REMOTE_ADDR": address})


def test_one_address_may_start_ten_games_an_hour_then_is_told_to_wait(client, db):
    for number in range(DEFAULTS["LOBBY_GAMES_PER_HOUR"]):
        assert create_from(client, "198.51.100.7").status_code == 303, number
    refused = create_from(client, "198.51.100.7")
    assert refused.status_code == 429
    text = text_of(refused)
    assert "Too many games" in text and "try again later" in text
    assert 'value="Friday wolves"' in text
    assert db.count("game") == DEFAULTS["LOBBY_GAMES_PER_HOUR"]
    # another address is not held up
    assert create_from(client, "203.0.113.9").status_code == 303
    # an hour later the first address may start games again
    with db.engine.begin() as conn:
        conn.execute(sa.text("UPDATE game SET created = :then"),
                     {"then": store.utcnow() - timedelta(hours=1, minutes=1)})
    assert create_from(client, "198.51.100.7").status_code == 303


def test_the_limit_comes_from_the_config_and_counts_in_the_database(app, client, db):
    app.config["LOBBY_GAMES_PER_HOUR"] = 2
    assert create_from(client, "198.51.100.7").status_code == 303
    # a game made by another worker process is a row like any other: it counts too
    services.create_game([{"name": "Cid"}, {"name": "Dee"}], {},
                         creator=lobby.creator_key("198.51.100.7"))
    assert create_from(client, "198.51.100.7").status_code == 429
    assert db.count("game") == 2


def test_the_address_is_kept_only_as_a_keyed_hash(client, db, app):
    assert create_from(client, "198.51.100.7").status_code == 303
    with db.engine.connect() as conn:
        kept = conn.exec_driver_sql("SELECT created_by FROM game").scalar_one()
    assert re.fullmatch(r"[0-9a-f]{64}", kept)
    assert kept == lobby.creator_key("198.51.100.7")
    assert "198.51.100.7" not in json.dumps(db.dump())
    app.config["SECRET_KEY"] = "another server's key, just as long"
    assert lobby.creator_key("198.51.100.7") != kept


def test_an_ipv6_address_counts_by_its_network(app):
    same = lobby.creator_key("2001:db8:1:2::1")
    assert lobby.creator_key("2001:db8:1:2:ffff::9") == same
    assert lobby.creator_key("2001:db8:1:3::1") != same
    assert lobby.creator_key("::ffff:198.51.100.7") == lobby.creator_key("198.51.100.7")


# -- Simon preference (R16) ------------------------------------------------------------

def test_each_seat_chooses_simon_auto_or_off_and_the_engine_gets_it(client, db):
    form = lobby_form([("Ann", "", "human"), ("Bob", "", "human"), ("", "", "bot")], client,
                      seat1_simon="off", seat2_simon="off")
    answer = client.post("/", data=form)
    assert answer.status_code == 303
    # Bob claims his own; the bot always plays them automatically
    assert stored_options(db)["simon"] == ["auto", "off", "auto"]
    links = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert len(SEAT_LINK.findall(links)) == 2


def test_an_unknown_simon_choice_means_auto(client, db):
    answer = client.post("/", data=lobby_form(PLAYERS, client, seat0_simon="sometimes"))
    assert answer.status_code == 303
    assert stored_options(db)["simon"] == ["auto", "auto"]


def test_a_rejected_form_keeps_the_simon_choice(client):
    answer = client.post("/", data=lobby_form([("Ann", "", "human")], client, seat0_simon="off"))
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert re.search(r'name="seat0_simon".*?<option value="off" selected', page, re.S)
