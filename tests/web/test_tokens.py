"""Signed tokens: one purpose each, one seat each, revoked by a version bump."""
from __future__ import annotations

import pytest

from app.access import tokens

KEY = "k" * 32


def test_a_seat_link_names_its_game_seat_and_version():
    token = tokens.seat_token("abc", 2, 5, KEY)
    assert tokens.read_seat_token(token, KEY) == tokens.SeatRef("abc", 2, 5)
    assert tokens.seat_url(token, "https://eye.example/") == f"https://eye.example/play/{token}"


def test_a_token_of_one_purpose_is_worthless_as_another():
    payload = ["abc", 0, 1]
    for made, read in [(tokens.CSRF, tokens.SEAT_LINK), (tokens.UNSUBSCRIBE, tokens.SEAT_LINK),
                       (tokens.SEAT_LINK, tokens.CSRF)]:
        with pytest.raises(tokens.BadToken):
            tokens.unsign(read, tokens.sign(made, payload, KEY), KEY)


def test_another_servers_key_or_a_changed_character_is_refused():
    token = tokens.seat_token("abc", 0, 1, KEY)
    with pytest.raises(tokens.BadToken):
        tokens.read_seat_token(token, "another key entirely, also long")
    flipped = token[:-1] + ("A" if token[-1] != "A" else "B")
    with pytest.raises(tokens.BadToken):
        tokens.read_seat_token(flipped, KEY)


def test_a_well_signed_payload_of_the_wrong_shape_is_refused():
    for payload in (["abc", 0], ["abc", "0", 1], [1, 0, 1], ["abc", True, 1], {"g": "abc"}):
        with pytest.raises(tokens.BadToken):
            tokens.read_seat_token(tokens.sign(tokens.SEAT_LINK, payload, KEY), KEY)


def test_the_csrf_token_is_bound_to_the_seat_and_its_version_not_to_time():
    token = tokens.csrf_token("abc", 1, 3, KEY)
    assert token == tokens.csrf_token("abc", 1, 3, KEY), "stable for the life of the link"
    assert tokens.check_csrf(token, "abc", 1, 3, KEY)
    assert not tokens.check_csrf(token, "abc", 0, 3, KEY)
    assert not tokens.check_csrf(token, "abc", 1, 4, KEY)
    assert not tokens.check_csrf(token, "xyz", 1, 3, KEY)
    assert not tokens.check_csrf(None, "abc", 1, 3, KEY)


def test_unknown_purposes_are_a_programming_error():
    with pytest.raises(ValueError):
        tokens.sign("everything", [1], KEY)


def test_a_link_read_once_is_still_refused_under_keys_that_did_not_sign_it():
    """Checked links are remembered per key set: a link accepted before a key was
    dropped from the rotation is refused after, and a refused one stays refused."""
    old, new = "o" * 32, "n" * 32
    token = tokens.seat_token("abc", 1, 3, old)
    assert tokens.read_seat_token(token, old) == tokens.SeatRef("abc", 1, 3)  # now remembered
    with pytest.raises(tokens.BadToken):
        tokens.read_seat_token(token, new)
    forged = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    for _ in range(2):
        with pytest.raises(tokens.BadToken):
            tokens.read_seat_token(forged, old)


def test_a_remembered_signature_is_the_one_the_key_makes():
    """Signing is remembered too (no timestamp: the same payload and key always give the
    same token), and never across keys or purposes."""
    first = tokens.sign(tokens.UNSUBSCRIBE, ["abc", 0, 1], KEY)
    assert tokens.sign(tokens.UNSUBSCRIBE, ["abc", 0, 1], KEY) == first
    assert tokens.sign(tokens.UNSUBSCRIBE, ["abc", 0, 1], "x" * 32) != first
    assert tokens.sign(tokens.CSRF, ["abc", 0, 1], KEY) != first
    assert tokens.unsign(tokens.UNSUBSCRIBE, first, KEY) == ["abc", 0, 1]
