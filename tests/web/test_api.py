"""The JSON API, driven like a program would: only HTTP, only seat tokens."""
from __future__ import annotations

import random

from app import engine, services
from tests.conftest import PEOPLE


def create(seats: int = 2, bots=(), seed="2024") -> services.Created:
    """A game made by the service (the lobby's job is tested with the pages)."""
    players = [{"name": PEOPLE[i][0], "email": PEOPLE[i][1]} if i not in bots
               else {"name": f"Robo{i}", "kind": "bot"} for i in range(seats)]
    return services.create_game(players, {"memory": False}, seed=seed)


def post_move(client, token, action, expected_seq):
    return client.post(f"/api/play/{token}/actions",
                       json={"action": action, "expected_seq": expected_seq})


def test_a_seat_sees_its_own_view_and_the_players_names(app, client):
    created = create()
    answer = client.get(f"/api/play/{created.tokens[1]}")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["seat"] == 1 and body["names"] == ["Ann", "Bob"] and body["seq"] == 0
    assert body["view"] == created.snapshot.view(1)
    assert body["game"]["commitment"] == created.snapshot.game.commitment
    assert body["game"]["seed"] is None
    assert "example.com" not in answer.get_data(as_text=True), "no email addresses leak"
    assert answer.headers["Referrer-Policy"] == "no-referrer"


def test_legal_actions_are_the_engines(app, client):
    created = create()
    body = client.get(f"/api/play/{created.tokens[0]}/actions").get_json()
    assert body["legal_actions"] == engine.legal_actions(created.snapshot.state, 0)
    assert body["seq"] == 0


def test_two_people_play_a_whole_game_through_the_api(app, client, db):
    created = create(seed="555")
    rng = random.Random(8)
    seq, steps = 0, 0
    while True:
        states = [client.get(f"/api/play/{t}").get_json() for t in created.tokens]
        assert {s["seq"] for s in states} == {seq}
        if states[0]["game"]["status"] != "running":
            break
        movers = [s for s in states if s["view"]["legal_actions"]]
        mover = rng.choice(movers)
        action = rng.choice(mover["view"]["legal_actions"])
        answer = post_move(client, created.tokens[mover["seat"]], action, seq)
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        assert body["seq"] == seq + 1 and body["applied"][0]["seat"] == mover["seat"]
        assert body["view"]["step"] == seq + 1
        seq, steps = body["seq"], steps + 1
        assert steps < 3000
    assert states[0]["view"]["phase"] == "over" and states[0]["game"]["seed"] == "555"
    assert db.count("action", game_id=created.game_id) == seq
    spectator = client.get(f"/api/games/{created.game_id}").get_json()
    assert spectator["view"]["winner"] == states[0]["view"]["winner"]
    replay = client.get(f"/api/games/{created.game_id}/replay?reveal=1").get_json()
    assert len(replay["frames"]) == seq + 1 and replay["game"]["seed"] == "555"
    rebuilt = engine.replay(2, 555, [tuple(pair) for pair in replay["log"]])
    assert replay["frames"][-1]["view"] == engine.view(rebuilt, None, reveal=True)


def test_bots_answer_within_the_same_request(app, client):
    created = create(2, bots=(1,))
    token = created.tokens[0]
    for _ in range(40):
        body = client.get(f"/api/play/{token}").get_json()
        if body["game"]["status"] != "running":
            break
        assert body["view"]["legal_actions"], "a human alone always has the move"
        answer = post_move(client, token, body["view"]["legal_actions"][0], body["seq"])
        assert answer.status_code == 200
        sources = [item["source"] for item in answer.get_json()["applied"]]
        assert sources[0] == "player" and set(sources[1:]) <= {"system"}


def test_the_spectator_view_hides_every_private_card(app, client):
    created = create()
    body = client.get(f"/api/games/{created.game_id}").get_json()
    assert body["view"] == created.snapshot.view(None)
    assert body["view"]["legal_actions"] == []
    assert client.get("/api/games/nope").status_code == 404


def test_a_seats_replay_needs_its_own_games_link(app, client):
    mine, other = create(), create()
    ok = client.get(f"/api/games/{mine.game_id}/replay?token={mine.tokens[0]}")
    assert ok.status_code == 200 and ok.get_json()["seat"] == 0
    foreign = client.get(f"/api/games/{mine.game_id}/replay?token={other.tokens[0]}")
    assert foreign.status_code == 403
    assert foreign.get_json()["message"] == "This link belongs to another game."
    early = client.get(f"/api/games/{mine.game_id}/replay?reveal=1")
    assert early.status_code == 403 and "over" in early.get_json()["message"]


def test_the_openapi_document_describes_every_api_route(app, client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    documented = {path.replace("{", "<").replace("}", ">") for path in doc["paths"]}
    routes = {rule.rule for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/")}
    assert routes == documented
    for path, methods in doc["paths"].items():
        for operation in methods.values():
            assert operation["responses"], f"{path} documents its answers"


def test_the_bench_baseline_exists_only_when_asked_for(app, client, database_url, tmp_path):
    assert client.post("/api/bench/insert/x", json={}).status_code == 404
    from app import create_app
    bench_app = create_app({"DATABASE_URL": database_url, "SECRET_KEY": "k",
                            "BENCH_ENDPOINTS": True, "INSTANCE_PATH": str(tmp_path / "b")})
    game = create()
    answer = bench_app.test_client().post(f"/api/bench/insert/{game.game_id}", json={"n": 1})
    bench_app.extensions["silver_eye_db"].dispose()
    assert answer.status_code == 200 and answer.get_json() == {"seq": 1}
    # and each answer says the CPU it took, so the benchmark can tell requests apart
    assert float(answer.headers["X-Server-CPU-Ms"]) >= 0
    assert "X-Server-CPU-Ms" not in client.get("/api/openapi.json").headers


def test_replay_frames_come_in_pages(app, client):
    game = create(2, bots=(0, 1))
    whole = client.get(f"/api/games/{game.game_id}/replay").get_json()
    page = client.get(f"/api/games/{game.game_id}/replay?from=10&to=19").get_json()
    assert page["steps"] == whole["steps"] == len(whole["frames"]) - 1
    assert [f["step"] for f in page["frames"]] == list(range(10, 20))
    assert page["frames"] == whole["frames"][10:20]
    assert client.get(f"/api/games/{game.game_id}/replay?from=x").status_code == 400


def test_a_crash_is_answered_in_json_on_the_api_and_logged(app, client, monkeypatch, caplog):
    game = create()
    app.testing = False  # answer as in production instead of raising into the test

    def broken(game_id):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(services, "snapshot", broken)
    answer = client.get(f"/api/games/{game.game_id}")
    assert answer.status_code == 500
    assert answer.get_json()["message"].startswith("Something went wrong on our side")
    assert "disk on fire" not in answer.get_data(as_text=True)
    assert "disk on fire" in caplog.text


def test_a_moves_answer_leaves_out_the_history_the_client_decided_on(app, client, db):
    """Ann draws: the answer is her new view without the round's log (she holds
    it from the view she decided on), with what the move added in ``applied``;
    ``?log=1`` gives the whole view, and a bad flag is a 400 that changes nothing."""
    created = create(seed="555")
    ann = created.tokens[0]
    before = client.get(f"/api/play/{ann}").get_json()
    action = before["view"]["legal_actions"][0]
    refused = client.post(f"/api/play/{ann}/actions?log=yes",
                          json={"action": action, "expected_seq": 0})
    assert refused.status_code == 400 and "?log=" in refused.get_json()["message"]
    assert db.count("action", game_id=created.game_id) == 0
    body = post_move(client, ann, action, 0).get_json()
    full = client.get(f"/api/play/{ann}").get_json()["view"]
    assert "log" not in body["view"] and "previous_log" not in body["view"]
    assert body["view"] == {k: v for k, v in full.items() if k not in ("log", "previous_log")}
    assert [item["seq"] for item in body["applied"]] == [1] and body["applied"][0]["text"]
    mover = created.tokens[body["view"]["to_act"][0]]
    action = client.get(f"/api/play/{mover}/actions").get_json()["legal_actions"][0]
    with_log = client.post(f"/api/play/{mover}/actions?log=1",
                           json={"action": action, "expected_seq": 1}).get_json()
    assert with_log["view"] == client.get(f"/api/play/{mover}").get_json()["view"]
    assert with_log["view"]["log"]
