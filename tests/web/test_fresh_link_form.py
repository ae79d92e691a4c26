"""Issue 8: the fresh-link form on the 403 page of a refused seat link is pre-filled
with the game the link names. The game is read from the link itself without
trusting its signature, and nothing is looked up, so the page says nothing about
whether that game or seat exists (docs/security.md)."""
from __future__ import annotations

import html
import re

from app import services
from app.access import tokens
from tests.conftest import PEOPLE


def game_field(page: str) -> str | None:
    """The value of the fresh-link form's game field, or None when there is no such field."""
    found = re.search(r'<input name="game" value="([^"]*)"', page)
    return html.unescape(found.group(1)) if found else None


def a_game(app):
    with app.app_context():
        return services.create_game([{"name": n, "email": e} for n, e in PEOPLE[:2]], seed="5")


def test_a_link_with_a_broken_signature_offers_the_form_with_its_game(app, client):
    game = a_game(app)
    token = game.tokens[1]
    broken = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    answer = client.get(f"/play/{broken}")
    assert answer.status_code == 403
    assert game_field(answer.get_data(as_text=True)) == game.game_id


def test_a_link_signed_elsewhere_names_its_game_and_the_page_does_not_say_if_it_exists(app, client):
    game = a_game(app)
    real = tokens.seat_token(game.game_id, 1, 1, secret_key="another server's key")
    made_up_id = "zzzzzzzzzz"[:len(game.game_id)]
    made_up = tokens.seat_token(made_up_id, 1, 1, secret_key="another server's key")
    pages = {}
    for name, token, game_id in (("real", real, game.game_id), ("made up", made_up, made_up_id)):
        answer = client.get(f"/play/{token}")
        assert answer.status_code == 403
        page = answer.get_data(as_text=True)
        assert game_field(page) == game_id
        pages[name] = page.replace(token, "TOKEN").replace(game_id, "GAME")
    assert pages["real"] == pages["made up"]


def test_a_seat_that_does_not_exist_still_gets_the_form_with_the_game(app, client):
    game = a_game(app)
    with app.app_context():
        no_seat = tokens.seat_token(game.game_id, 3, 1)
    answer = client.get(f"/play/{no_seat}")
    assert answer.status_code == 403 and game_field(answer.get_data(as_text=True)) == game.game_id


def test_a_link_cut_inside_its_payload_or_naming_no_game_id_leaves_the_field_empty(app, client):
    game = a_game(app)
    with app.app_context():
        odd = tokens.seat_token('"><script>alert(1)</script>', 0, 1, secret_key="elsewhere")
    for token in (game.tokens[1][:6], odd):
        answer = client.get(f"/play/{token}")
        page = answer.get_data(as_text=True)
        assert answer.status_code == 403 and game_field(page) == "", token
        assert "<script>alert" not in page


def test_posting_the_form_without_an_email_shows_it_again_with_the_game(app, client, db):
    game = a_game(app)
    broken = game.tokens[0][:-3] + "xyz"
    answer = client.post("/fresh-link", data={"token": broken})
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert "Please give the game" in page and game_field(page) == game.game_id
    answer = client.post("/fresh-link", data={"game": game.game_id})
    assert answer.status_code == 400 and game_field(answer.get_data(as_text=True)) == game.game_id
    assert db.count("outbox", kind="link") == 0, "nothing is mailed for an incomplete form"
