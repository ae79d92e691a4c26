"""Which language a page is in (issue 50 item 1), from the side of each reader.

Ann in Berlin chose German on her settings page: her seat page and her settings page
are German whatever browser she opens them in. A visitor whose browser asks for
Japanese reads the rules in Japanese until they pick another language at the foot of
the page; that pick is kept by their browser and changes nothing stored. Every answer
says its language (``<html lang>``, ``Content-Language``). Three sides of the setting:
Ann's own settings link sets it; a link to one of her seats (forwarded, or a game a
stranger made for her) may not; a value the server does not speak is refused in words.
"""
from __future__ import annotations

import html
import re

from app import services
from app.clock import deadlines as dl
from app.db import read_session
from app.people.models import Person
from sqlmodel import select
from tests.person_keys import settings_link

from .conftest import T0

ANN, BOB = "ann@example.com", "bob@example.com"
HTML_LANG = re.compile(r'<html lang="([a-z]+)"')


def lang_of(answer) -> tuple[str, str]:
    """(``<html lang>``, ``Content-Language``) of a page."""
    found = HTML_LANG.search(answer.get_data(as_text=True))
    assert found, "a page without <html lang>"
    return found.group(1), answer.headers.get("Content-Language", "")


def text(answer) -> str:
    return html.unescape(answer.get_data(as_text=True))


def chosen(address: str) -> str | None:
    with read_session() as session:
        row = session.exec(select(Person).where(Person.address == address)).first()
        return row.language if row is not None else None


def make() -> services.Created:
    with dl.at(T0):
        return services.create_game([{"name": "Ann", "email": ANN},
                                     {"name": "Bob", "email": BOB}], {}, name="Friday",
                                    seed="50")


def test_a_visitor_reads_the_language_their_browser_asks_for(client):
    assert lang_of(client.get("/rules", headers={"Accept-Language": "ja,en;q=0.5"})) == \
        ("ja", "ja")
    assert lang_of(client.get("/rules", headers={"Accept-Language": "de-AT, en;q=0.8"})) == \
        ("de", "de")
    assert lang_of(client.get("/rules", headers={"Accept-Language": "fr, pt"})) == ("en", "en")
    assert lang_of(client.get("/rules")) == ("en", "en")
    german = text(client.get("/rules", headers={"Accept-Language": "de"}))
    assert "Regeln" in german and "Offene Tische" in german


def test_the_switch_at_the_foot_of_a_page_is_kept_by_the_browser_and_stores_nothing(client):
    page = text(client.get("/rules"))
    assert 'name="lang"' in page and 'method="get"' in page, "the switch is on the page"
    picked = client.get("/rules?lang=ja", headers={"Accept-Language": "de"})
    assert lang_of(picked) == ("ja", "ja")
    assert "lang=ja" in picked.headers.get("Set-Cookie", "")
    later = client.get("/rules", headers={"Accept-Language": "de"})
    assert lang_of(later) == ("ja", "ja"), "the browser keeps the pick"
    assert lang_of(client.get("/rules?lang=xx")) == ("ja", "ja"), "an unknown pick is ignored"


def test_ann_chooses_german_and_her_pages_follow_her_to_any_browser(app, client):
    game = make()
    with dl.at(T0):
        key = settings_link(client, game.tokens[0], ANN)
        saved = client.post(key, data={"language": "de"}, follow_redirects=True)
    assert saved.status_code == 200
    assert chosen(ANN) == "de"
    assert lang_of(saved)[0] == "de", "the settings page answers in her new language"
    other_browser = app.test_client()
    assert lang_of(other_browser.get(f"/play/{game.tokens[0]}",
                                     headers={"Accept-Language": "en-US"})) == ("de", "de")
    assert lang_of(other_browser.get(key, headers={"Accept-Language": "en"}))[0] == "de"
    # Bob never chose: his page follows his browser
    assert lang_of(other_browser.get(f"/play/{game.tokens[1]}",
                                     headers={"Accept-Language": "en"})) == ("en", "en")
    assert chosen(BOB) is None, "reading a page stores no guess"


def test_a_seat_link_cannot_set_its_persons_language(app, client):
    """Bob forwarded nothing, but a stranger holds a link to Ann's seat (a game the
    stranger made for her): the seat's door refuses person-wide fields."""
    game = make()
    page = client.get(f"/play/{game.tokens[0]}/settings")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))
    assert token is not None
    answer = client.post(f"/play/{game.tokens[0]}/settings",
                         data={"csrf_token": token.group(1), "language": "ja"})
    assert answer.status_code in (400, 403), answer.status_code
    assert chosen(ANN) is None


def test_a_language_the_server_does_not_speak_is_refused_in_words(app, client):
    game = make()
    with dl.at(T0):
        key = settings_link(client, game.tokens[0], ANN)
        refused = client.post(key, data={"language": "fr"}, follow_redirects=True)
    assert "Choose one of the languages listed" in text(refused)
    assert chosen(ANN) is None


def test_her_first_post_behind_her_own_key_keeps_the_language_she_read_once(app, client):
    """Nothing chosen: the first settings post through her key keeps the language of the
    page she read (her browser's German); a later post from an English browser changes
    nothing, and only her own choice does."""
    game = make()
    with dl.at(T0):
        key = settings_link(client, game.tokens[0], ANN)
        client.post(key, data={"time_zone": "Europe/Berlin"},
                    headers={"Accept-Language": "de-DE"})
        assert chosen(ANN) == "de"
        client.post(key, data={"time_zone": "Europe/Paris"}, headers={"Accept-Language": "en"})
        assert chosen(ANN) == "de"
        client.post(key, data={"language": "ja"}, headers={"Accept-Language": "en"})
        assert chosen(ANN) == "ja"
