"""Issue 35 on the web: a plan sent by JSON (in words or as JSON), shown and cancelled;
the seat page's box with its CSRF-guarded forms; the OpenAPI document carries the form."""
from __future__ import annotations

import re

from app import services
from tests.people.conftest import post


def _token(created, seat: int) -> str:
    return created.tokens[seat]


def test_r35_a_plan_by_json_waits_for_its_turn_is_shown_and_cancelled(client, new_game):
    created = new_game(seats=2, first=1)     # Bob starts: Ann's turn has not come
    ann = _token(created, 0)
    sent = client.post(f"/api/play/{ann}/plan", json={"words": "PEEK 1 2, DRAW, DISCARD, SKIP"})
    assert sent.status_code == 200, sent.get_data(as_text=True)
    body = sent.get_json()
    assert body["what"] == "waiting"
    assert body["state"]["plan"]["words"] == \
        "Draw; then when you draw: discard it; then skip the ability (if it is offered)."
    got = client.get(f"/api/play/{ann}/plan").get_json()
    assert got["plan"]["at"] == 1                              # the peek was played
    page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert "Your plan waits:" in page and "Cancel this plan" in page
    gone = client.delete(f"/api/play/{ann}/plan")
    assert gone.status_code == 200 and gone.get_json()["plan"] is None


def test_r35_a_plan_that_cannot_start_or_be_read_changes_nothing(client, new_game):
    created = new_game(seats=2, first=0)
    ann = _token(created, 0)
    before = services.snapshot(created.game_id).seq
    bad = client.post(f"/api/play/{ann}/plan", json={"words": "DRAW, FROBNICATE"})
    assert bad.status_code == 400 and "frobnicate" in bad.get_json()["message"]
    refused = client.post(f"/api/play/{ann}/plan", json={"plan": {"steps": [
        {"choices": [{"action": {"type": "exchange", "positions": [0]}}]}]}})
    assert refused.status_code in (400, 422)
    assert services.snapshot(created.game_id).seq == before
    assert client.post(f"/api/play/{ann}/plan", data="x").status_code == 415


def test_r35_orders_from_the_seat_page_with_its_csrf_token(client, new_game):
    created = new_game(seats=2, first=1)
    ann = _token(created, 0)
    answer = post(client, ann, "/plan", words="ALWAYS PEEK 1 2; ALWAYS SKIP SPLIT SEER")
    assert answer.status_code == 303
    state = client.get(f"/api/play/{ann}/plan").get_json()
    assert [o["words"] for o in state["orders"]] == ["Every round: peek at #1 and #2.",
                                                      "Always skip the Split Seer."]
    assert client.post(f"/play/{ann}/plan/orders/clear", data={}).status_code == 403
    assert post(client, ann, "/plan/orders/clear").status_code == 303
    assert client.get(f"/api/play/{ann}/plan").get_json()["orders"] == []


def test_r35_the_openapi_document_describes_the_plan_routes(client):
    document = client.get("/api/openapi.json").get_json()
    item = document["paths"]["/api/play/{token}/plan"]
    assert set(item) == {"get", "post", "delete"}
    assert "Plan" in document["components"]["schemas"]
    assert client.get("/help/mail").status_code == 200
    assert "ALWAYS PEEK 1 2" in client.get("/help/mail").get_data(as_text=True)


def test_r35_a_plan_keeping_a_card_at_0_is_refused_in_words_and_changes_nothing(client,
                                                                                  new_game):
    """Ann types "#0" as a programmer counts: her page's box and the JSON answer in words
    (cards count from 1), where the words used to fail the request."""
    created = new_game(seats=2, first=0)
    ann = _token(created, 0)
    before = services.snapshot(created.game_id).seq
    bad = client.post(f"/api/play/{ann}/plan", json={"words": "DRAW, KEEP AT 0"})
    assert bad.status_code == 400, bad.get_data(as_text=True)
    assert "numbers count from 1" in bad.get_json()["message"]
    box = post(client, ann, "/plan", words="DRAW, KEEP AT 2 IF LESS THAN #0")
    assert box.status_code == 303
    page = client.get(box.headers["Location"]).get_data(as_text=True)
    assert "numbers count from 1" in page
    assert services.snapshot(created.game_id).seq == before
    assert client.get(f"/api/play/{ann}/plan").get_json()["plan"] is None


def test_a_plan_or_order_naming_a_card_that_is_not_there_is_refused_as_it_arrives(
        client, new_game):
    """Issue 51 item 3: "X 9" for a six-card village was kept without a word and failed
    at its turn; now it is refused when it arrives, in a player's numbers."""
    created = new_game(seats=2, first=1)
    ann = _token(created, 0)
    for words in ("PEEK 1 2, DRAW, KEEP AT 9", "ALWAYS PEEK 1 9"):
        refused = client.post(f"/api/play/{ann}/plan", json={"words": words})
        assert refused.status_code == 400, refused.get_data(as_text=True)
        said = refused.get_json()["message"]
        assert re.search(r"names card #9, and your village has (\d) cards \(#1 to #\1\)",
                         said), said
        assert "Nothing was kept" in said
    assert client.get(f"/api/play/{ann}/plan").get_json()["orders"] == []
    assert client.post(f"/api/play/{ann}/plan", json={"words": "ALWAYS PEEK 1 2"}
                       ).status_code == 200
