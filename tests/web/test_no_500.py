"""Issue 9, item 3 and 6: every input the attack used gets a 4xx with words, never a 500.

Run on PostgreSQL too (``TEST_DATABASE_URL``): that is where NUL bytes used to
fail in the driver.
"""
from __future__ import annotations

import pytest

from app import engine, services
from tests.web.test_pages import lobby_form


from tests.web.test_bad_input import game, unchanged  # noqa: E402,F401  (shared fixtures)


def in_words(answer, status: int) -> str:
    """The answer has this 4xx status and says why in a sentence (JSON or a page)."""
    assert answer.status_code == status, answer.get_data(as_text=True)[:300]
    body = answer.get_json(silent=True)
    text = body["message"] if body else answer.get_data(as_text=True)
    assert len(text) > 20
    return text


@pytest.mark.parametrize("name", ["first", "last", "from", "to"])
@pytest.mark.parametrize("value", ["%C2%B2", "%D9%A3", "9" * 5000, "-1", "1e3"])
def test_replay_step_numbers_that_are_not_plain_digits_are_refused(client, game, unchanged,
                                                                    name, value):
    answer = client.get(f"/api/games/{game.game_id}/replay?{name}={value}")
    assert f'"{name}"' in in_words(answer, 400)


def test_a_long_but_plain_step_number_is_clamped_to_the_game(client, game):
    body = client.get(f"/api/games/{game.game_id}/replay?first=0&last=999999999").get_json()
    assert body["steps"] == 0 and len(body["frames"]) == 1


@pytest.mark.parametrize("path", ["/games/a%00b", "/api/games/a%00b", "/api/games/a%00b/replay",
                                  "/play/a%00b", "/api/play/a%00b", "/games/x/replay?step=%00",
                                  "/unsubscribe/%00"])
def test_a_nul_byte_in_a_path_or_query_is_refused(client, unchanged, path):
    assert "NUL" in in_words(client.get(path), 400)


def test_a_nul_byte_in_a_lobby_field_is_refused_and_creates_nothing(client, db):
    for field in ("name", "seat0_name", "seat1_email", "reminders"):
        form = lobby_form([("Ann", "", "human"), ("Bob", "bob@example.com", "human")], client)
        form[field] = form.get(field, "") + "\x00x"
        assert "NUL" in in_words(client.post("/", data=form), 400)
    assert db.count("game") == 0


def test_a_nul_byte_in_a_json_action_is_refused(client, game, unchanged):
    seat = engine.view(game.snapshot.state, None)["to_act"][0]
    answer = client.post(f"/api/play/{game.tokens[seat]}/actions",
                         json={"action": {"type": "draw\u0000"}, "expected_seq": 0})
    assert "NUL" in in_words(answer, 400)


def test_a_nul_byte_in_a_name_given_to_the_service_is_refused(app, db):
    for players, name in (([{"name": "A\x00n"}, {"name": "Bob"}], ""),
                          ([{"name": "Ann", "email": "a\x00@example.com"}, {"name": "Bob"}], ""),
                          ([{"name": "Ann"}, {"name": "Bob"}], "Fri\x00day")):
        with pytest.raises(services.BadRequest, match="control character"):
            services.create_game(players, name=name)
    assert db.count("game") == 0


def test_a_thousand_nested_brackets_in_an_action_body_are_refused(client, game, unchanged):
    seat = engine.view(game.snapshot.state, None)["to_act"][0]
    deep = '{"action": {"type": "draw", "x": ' + "[" * 1000 + "]" * 1000 + '}, "expected_seq": 0}'
    answer = client.post(f"/api/play/{game.tokens[seat]}/actions", data=deep,
                         content_type="application/json")
    assert "nested" in in_words(answer, 400)


def test_brackets_inside_strings_do_not_count_as_nesting():
    from app.web.input_guard import json_depth

    assert json_depth(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[\\"[[["}') == 1
    assert json_depth(b"[[[]]]") == 3


@pytest.mark.parametrize("method", ["TRACE", "PATCH", "DELETE", "BREW"])
@pytest.mark.parametrize("path", ["/", "/api/games/x", "/api/openapi.json"])
def test_unknown_methods_answer_405_with_an_allow_header(client, unchanged, method, path):
    answer = client.open(path, method=method)
    assert answer.status_code == 405
    allowed = {m.strip() for m in answer.headers["Allow"].split(",")}
    assert "GET" in allowed and method not in allowed
