"""Bad input gets a clear 4xx in words a player understands, and changes nothing."""
from __future__ import annotations

import pytest
from itsdangerous import URLSafeSerializer

from app import engine, services
from app.access import tokens
from tests.conftest import PEOPLE


@pytest.fixture
def game(app):
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    return services.create_game(players, seed="99")


@pytest.fixture
def unchanged(db):
    """Everything in the store must be the same after the test's request."""
    before = db.dump()
    yield
    assert db.dump() == before


def mover(game) -> int:
    return engine.view(game.snapshot.state, None)["to_act"][0]


def refused(answer, status: int, *words: str) -> dict:
    assert answer.status_code == status, answer.get_data(as_text=True)
    body = answer.get_json()
    assert body["error"] and len(body["message"]) > 10, "a sentence, not a code"
    for word in words:
        assert word.lower() in body["message"].lower(), body["message"]
    return body


def post(client, token, body=None, **kwargs):
    return client.post(f"/api/play/{token}/actions", json=body, **kwargs)


def test_malformed_json_is_refused(client, game, unchanged):
    token = game.tokens[0]
    answer = client.post(f"/api/play/{token}/actions", data="{not json",
                         content_type="application/json")
    refused(answer, 400, "JSON")


def test_a_body_that_is_not_json_at_all_is_refused(client, game, unchanged):
    answer = client.post(f"/api/play/{game.tokens[0]}/actions", data="action=draw")
    refused(answer, 415, "application/json")


@pytest.mark.parametrize("body, words", [
    ([1, 2, 3], ["JSON object"]),
    ({"expected_seq": 0}, ["action", "expected_seq"]),
    ({"action": {"type": "draw"}}, ["expected_seq"]),
    ({"action": "draw", "expected_seq": 0}, ["type"]),
    ({"action": {"kind": "draw"}, "expected_seq": 0}, ["type"]),
    ({"action": {"type": "draw"}, "expected_seq": "0"}, ["step"]),
    ({"action": {"type": "draw"}, "expected_seq": True}, ["step"]),
    ({"action": {"type": "draw"}, "expected_seq": -1}, ["step"]),
])
def test_missing_or_mistyped_fields_are_refused(client, game, unchanged, body, words):
    refused(post(client, game.tokens[mover(game)], body), 400, *words)


def test_an_unknown_action_type_is_refused_in_the_engines_words(client, game, unchanged):
    body = refused(post(client, game.tokens[mover(game)],
                        {"action": {"type": "fly"}, "expected_seq": 0}), 422)
    assert body["error"] == "illegal_action"


@pytest.mark.parametrize("positions", [[0, 99], [-1, 0], ["a", "b"], [0], [0, 0], None])
def test_out_of_range_positions_are_refused(client, game, unchanged, positions):
    seat = mover(game)
    legal = engine.legal_actions(game.snapshot.state, seat)
    assert any(a["type"] == "peek" for a in legal), "the game opens with a peek"
    refused(post(client, game.tokens[seat],
                 {"action": {"type": "peek", "positions": positions}, "expected_seq": 0}), 422)


def test_a_move_on_an_old_or_future_step_is_refused(client, game, db):
    seat = mover(game)
    action = engine.legal_actions(game.snapshot.state, seat)[0]
    assert post(client, game.tokens[seat], {"action": action, "expected_seq": 0}).status_code == 200
    before = db.dump()
    refused(post(client, game.tokens[seat], {"action": action, "expected_seq": 0}), 409,
            "already applied")
    other = 1 - seat
    state = services.load_state(game.game_id)
    other_action = (engine.legal_actions(state, other) or [{"type": "draw"}])[0]
    refused(post(client, game.tokens[other], {"action": other_action, "expected_seq": 0}),
            409, "moved on")
    refused(post(client, game.tokens[other], {"action": other_action, "expected_seq": 50}),
            409, "ahead")
    assert db.dump() == before


def test_a_seat_cannot_make_another_seats_move(client, app, db):
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    game = services.create_game(players, seed="99")
    snap = game.snapshot
    # play the opening peeks so that exactly one seat has the turn
    while len(engine.view(snap.state, None)["to_act"]) != 1:
        seat = engine.view(snap.state, None)["to_act"][0]
        snap = services.submit_action(game.game_id, seat, engine.legal_actions(snap.state, seat)[0],
                                      snap.seq).snapshot
    (turn,) = engine.view(snap.state, None)["to_act"]
    idle = 1 - turn
    their_move = engine.legal_actions(snap.state, turn)[0]
    before = db.dump()
    body = refused(post(client, game.tokens[idle], {"action": their_move, "expected_seq": snap.seq}),
                   422)
    assert body["error"] == "illegal_action"
    assert db.dump() == before


def tampered(token: str) -> str:
    middle = len(token) // 2
    return token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1:]


def test_tampered_foreign_unknown_and_revoked_links_open_nothing(client, game, app, db):
    action = {"action": {"type": "draw"}, "expected_seq": 0}
    foreign = URLSafeSerializer("another server's key", salt="silver-eye:seat-link").dumps(
        [game.game_id, 0, 1])
    unsubscribe = tokens.sign(tokens.UNSUBSCRIBE, [game.game_id, 0, 1])
    nobody = tokens.seat_token("no-such-game", 0, 1)
    no_seat = tokens.seat_token(game.game_id, 3, 1)
    old = game.tokens[0]
    services.rotate_link(game.game_id, 0)
    before = db.dump()
    for token, reason in [(tampered(game.tokens[1]), "invalid"), (foreign, "invalid"),
                          (unsubscribe, "invalid"), ("garbage", "invalid"),
                          (nobody, "unknown"), (no_seat, "unknown"), (old, "revoked")]:
        for answer in (client.get(f"/api/play/{token}"),
                       client.get(f"/api/play/{token}/actions"),
                       post(client, token, action),
                       client.get(f"/api/games/{game.game_id}/replay?token={token}")):
            body = refused(answer, 403)
            assert body["reason"] == reason, (token, body)
    assert db.dump() == before


def test_the_403_page_explains_and_offers_a_fresh_link(client, game, monkeypatch):
    from app.services import reactions as hooks

    asked = []
    monkeypatch.setattr(hooks, "fresh_link_requested",
                        lambda session, g, seat: asked.append((g.id, seat)))
    old = game.tokens[1]
    services.rotate_link(game.game_id, 1)
    page = client.get(f"/play/{old}")
    assert page.status_code == 403 and page.headers["Referrer-Policy"] == "no-referrer"
    html = page.get_data(as_text=True)
    assert "replaced by a newer one" in html and "Email me the current link" in html
    assert asked == [], "showing the page sends nothing (GET is safe)"
    # buffered: the test client closes the answer at once, which is when the link is looked up
    sent = client.post("/fresh-link", data={"token": old}, buffered=True)
    assert sent.status_code == 200 and "on its way" in sent.get_data(as_text=True)
    assert asked == [(game.game_id, 1)]
    forged = client.get(f"/play/{tampered(old)}")
    assert forged.status_code == 403 and 'name="email"' in forged.get_data(as_text=True)
    client.post("/fresh-link", data={"game": game.game_id, "email": "ann@example.com"},
                buffered=True)
    assert asked == [(game.game_id, 1), (game.game_id, 0)]
    assert client.post("/fresh-link", data={}).status_code == 400


def test_unknown_games_and_oversized_bodies_are_refused(client, game, unchanged):
    refused(client.get("/api/games/unknown-game"), 404, "no game")
    refused(client.get("/api/nowhere"), 404)
    big = {"action": {"type": "draw", "junk": "x" * 100_000}, "expected_seq": 0}
    refused(post(client, game.tokens[0], big), 413)
