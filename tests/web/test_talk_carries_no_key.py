"""Issue 45 item 5: table talk never carries a mail address, a reply address or a link
that opens a seat (or anyone's settings), whichever way it is said: the seat page, the
JSON API or a reply (``services.talk.clean``, one check for the three). Everyone at the
table reads the talk, and a seat link plays the seat: such a message is refused in
words and nothing is said."""
from __future__ import annotations

import html

import pytest

from tests.web.test_talk_page import deal, say, talk_rows


def _api(client, token, text):
    return client.post(f"/api/play/{token}/talk", json={"text": text})


@pytest.mark.parametrize("text, what", [
    ("mail me at bob.smith+games@example.co.uk", "a mail address"),
    ("reply to play+abc123.0.1.4.k3j4h5k6j7h8@silver-eye.test", "a mail address"),
    ("my seat: http://localhost/play/WyJhYmMiLDAsMV0.c2lnbmF0dXJlLXNpZw", "a link"),
    ("https://post.example/my-games/abcdefghijkl", "a link"),
    ("https://post.example/api/play/abcdefghijkl/table", "a link"),
    ("WyJ4Y3Z5IiwxLDJd.Zm9vYmFyYmF6cXV4cXV1eA", "a link"),
])
def test_talk_with_an_address_or_a_keyed_link_is_refused_in_words_on_page_and_json(
        client, db, text, what):
    game = deal(2)
    answer = _api(client, game.tokens[0], text)
    assert answer.status_code == 400
    message = answer.get_json()["message"]
    assert f"Your message holds {what}" in message and message.endswith("Nothing was said.")
    form = say(client, game.tokens[1], text)
    assert form.status_code == 400
    assert f"Your message holds {what}" in html.unescape(form.get_data(as_text=True))
    assert talk_rows(db, game.game_id) == 0


def test_talk_with_a_spectators_link_or_plain_words_is_said(client, db):
    """The control: the game's public page (no key) and words with an "at" are talk."""
    game = deal(2)
    for text in ("watch at https://post.example/games/abc123", "meet at 5 @ the pub"):
        assert _api(client, game.tokens[0], text).status_code == 201, text
    assert talk_rows(db, game.game_id) == 2
