"""Issue 20 item 4 (talk): the JSON API carries the table talk.

``GET /api/play/<token>`` lists it (``talk``: seat, name, text, at...), ``POST
/api/play/<token>/talk`` adds a message, ``GET /api/play/<token>/talk?after=`` reads
what is new; the OpenAPI document describes them. Errors are JSON with words.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from app.config import DEFAULTS
from tests.web.test_talk_page import deal, form_post, page, said_before, talk_rows, HIDE, box


def post(client, token, body, **kwargs):
    return client.post(f"/api/play/{token}/talk", json=body, **kwargs)


def test_a_message_said_by_json_is_in_every_seats_view(client, db):
    game = deal(3)
    answer = post(client, game.tokens[1], {"text": "nice Dracula"})
    assert answer.status_code == 201
    body = answer.get_json()
    assert body["id"] == body["newest"] and [line["text"] for line in body["talk"]] == [
        "nice Dracula"]
    for token in game.tokens:
        view = client.get(f"/api/play/{token}").get_json()
        (line,) = view["talk"]
        assert (line["seat"], line["name"], line["text"], line["hidden"]) == (
            1, "Bob", "nice Dracula", False)
        assert datetime.fromisoformat(line["at"]).utcoffset() == timedelta(0)
        assert line["step"] == view["seq"]
    assert talk_rows(db, game.game_id) == 1


def test_the_page_and_the_api_share_one_table(client):
    game = deal(2)
    post(client, game.tokens[0], {"text": "from a program"})
    form = page(client, game.tokens[1])
    assert "from a program" in box(form)
    lines = client.get(f"/api/play/{game.tokens[0]}/talk").get_json()
    assert [line["text"] for line in lines["talk"]] == ["from a program"]


def test_reading_what_is_new_after_an_id(client):
    game = deal(2)
    first = post(client, game.tokens[0], {"text": "one"}).get_json()["id"]
    post(client, game.tokens[1], {"text": "two"})
    newer = client.get(f"/api/play/{game.tokens[0]}/talk?after={first}").get_json()
    assert [line["text"] for line in newer["talk"]] == ["two"]
    assert newer["newest"] > first
    for bad in ("x", "-1", "1.5", "9" * 12):
        answer = client.get(f"/api/play/{game.tokens[0]}/talk?after={bad}")
        assert answer.status_code == 400 and "message id" in answer.get_json()["message"]


def test_the_same_key_says_it_once(client, db):
    game = deal(2)
    one = post(client, game.tokens[0], {"text": "once", "key": "k-1"}).get_json()["id"]
    two = post(client, game.tokens[0], {"text": "once", "key": "k-1"}).get_json()["id"]
    assert one == two and talk_rows(db, game.game_id) == 1
    # the other seat's "k-1" is its own
    assert post(client, game.tokens[1], {"text": "mine", "key": "k-1"}).status_code == 201
    assert talk_rows(db, game.game_id) == 2
    bad = post(client, game.tokens[0], {"text": "x", "key": 12})
    assert bad.status_code == 400 and "key" in bad.get_json()["message"]


def test_bad_messages_are_refused_with_words_and_say_nothing(client, db):
    game = deal(2)
    token = game.tokens[0]
    cases = [({"text": "x" * 612}, 400, "Your message is 612 characters; the table takes at "
                                        "most 500."),
             ({"text": "   "}, 400, "Your message is empty"),
             ({"text": 5}, 400, "must be text"),
             ({"text": None}, 400, "must be text"),
             ({"words": "hi"}, 400, '{"text": "nice Dracula"}'),
             ({"text": "\ud800 lone surrogate"}, 201, None)]
    for body, status, words in cases:
        answer = post(client, token, body)
        assert answer.status_code == status, (body, answer.get_json())
        if words:
            assert answer.get_json()["error"] == "bad_request"
            assert words in answer.get_json()["message"]
    not_json = client.post(f"/api/play/{token}/talk", data="text=hi",
                           content_type="application/x-www-form-urlencoded")
    assert not_json.status_code == 415 and "JSON" in not_json.get_json()["message"]
    listed = client.post(f"/api/play/{token}/talk", json=["hi"])
    assert listed.status_code == 400
    assert talk_rows(db, game.game_id) == 1      # the surrogate was dropped, the rest kept
    assert client.get(f"/api/play/{token}").get_json()["talk"][0]["text"] == "lone surrogate"


def test_the_51st_message_in_an_hour_is_a_429_with_when(client, db):
    game = deal(2)
    per_hour = DEFAULTS["TALK_PER_SEAT_PER_HOUR"]
    said_before(game.game_id, 1, per_hour, timedelta(minutes=30))
    answer = post(client, game.tokens[1], {"text": "more"})
    assert answer.status_code == 429
    body = answer.get_json()
    assert body["error"] == "too_many" and "You may talk again in" in body["message"]
    assert 0 < int(answer.headers["Retry-After"]) <= 1800
    assert talk_rows(db, game.game_id) == per_hour


def test_a_bad_link_gets_a_403_and_says_nothing(client, db):
    game = deal(2)
    answer = post(client, game.tokens[0][:-2] + "zz", {"text": "hi"})
    assert answer.status_code == 403 and answer.get_json()["error"] == "forbidden"
    assert client.get(f"/api/play/{game.tokens[0][:-2]}zz/talk").status_code == 403
    assert talk_rows(db, game.game_id) == 0


def test_a_hidden_message_has_no_text_in_the_json(client):
    game = deal(2)
    post(client, game.tokens[1], {"text": "oops"})
    path = HIDE.findall(box(page(client, game.tokens[0])))[0][0]
    form_post(client, game.tokens[0], path)
    (line,) = client.get(f"/api/play/{game.tokens[1]}").get_json()["talk"]
    assert line["hidden"] is True and line["text"] is None and line["name"] == "Bob"


def test_the_openapi_document_describes_the_talk(client):
    doc = client.get("/api/openapi.json").get_json()
    talk = doc["paths"]["/api/play/{token}/talk"]
    assert set(talk) == {"get", "post"}
    assert {"201", "400", "403", "415", "429"} <= set(talk["post"]["responses"])
    schemas = doc["components"]["schemas"]
    assert {"TalkLine", "Talk", "TalkPost", "TalkSaid"} <= set(schemas)
    assert schemas["SeatState"]["properties"]["talk"]["items"] == {
        "$ref": "#/components/schemas/TalkLine"}


def test_the_json_replay_carries_the_talk_up_to_its_last_frame(client):
    from tests.web.test_talk_page import play_moves

    game = deal(2)
    post(client, game.tokens[0], {"text": "at the deal"})
    step = play_moves(game, 2)
    post(client, game.tokens[1], {"text": "later"})
    first = client.get(f"/api/games/{game.game_id}/replay?last=0").get_json()
    assert [line["text"] for line in first["talk"]] == ["at the deal"]
    whole = client.get(f"/api/games/{game.game_id}/replay?first={step}").get_json()
    assert [line["text"] for line in whole["talk"]] == ["at the deal", "later"]
    form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/spectators", on="0")
    assert client.get(f"/api/games/{game.game_id}/replay").get_json()["talk"] is None
    own = client.get(f"/api/games/{game.game_id}/replay?token={game.tokens[1]}").get_json()
    assert len(own["talk"]) == 2
