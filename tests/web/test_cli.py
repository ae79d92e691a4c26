"""``flask --app app`` commands, run like an operator would."""
from __future__ import annotations

import re

from app import services


def test_db_upgrade_is_repeatable(runner):
    for _ in range(2):
        result = runner.invoke(args=["db-upgrade"])
        assert result.exit_code == 0 and "up to date" in result.output


def test_create_game_prints_a_working_link_per_human_seat(runner, client):
    result = runner.invoke(args=["create-game", "-p", "Ann:ann@example.com", "-p", "Bob",
                                 "-p", "bot:Robo", "--memory", "--option", "deadline_hours=24",
                                 "--name", "Friday", "--seed", "77"])
    assert result.exit_code == 0, result.output
    game_id = re.search(r"game (\w+) \"Friday\"", result.output).group(1)
    links = re.findall(r"http://silver-eye\.test/play/(\S+)", result.output)
    assert len(links) == 2 and "seat 2 Robo: (bot)" in result.output
    info = services.game_info(game_id)
    assert info.options == {"memory": True, "deadline_hours": 24}
    assert [s.kind for s in info.seats] == ["human", "human", "bot"]
    for seat, token in enumerate(links):
        assert client.get(f"/api/play/{token}").get_json()["seat"] == seat


def test_create_game_explains_a_bad_player_list(runner, db):
    result = runner.invoke(args=["create-game", "-p", "Solo"])
    assert result.exit_code != 0 and "2 to 4 players" in result.output
    assert db.count("game") == 0


def test_rotate_link_revokes_the_old_one(runner, client):
    created = services.create_game([{"name": "Ann"}, {"name": "Bob"}])
    result = runner.invoke(args=["rotate-link", created.game_id, "1"])
    assert result.exit_code == 0, result.output
    new_token = result.output.strip().rsplit("/", 1)[1]
    assert client.get(f"/api/play/{created.tokens[1]}").status_code == 403
    assert client.get(f"/api/play/{new_token}").status_code == 200
    missing = runner.invoke(args=["rotate-link", created.game_id, "7"])
    assert missing.exit_code != 0 and "no such seat" in missing.output


def test_show_game_prints_the_public_facts_and_never_the_seed_early(runner):
    created = services.create_game([{"name": "Ann"}, {"name": "Bob"}], seed="31")
    result = runner.invoke(args=["show-game", created.game_id, "--links"])
    assert result.exit_code == 0, result.output
    assert "running" in result.output and "seat 1 Bob (human)" in result.output
    assert created.snapshot.game.commitment in result.output and "seed 31" not in result.output
    assert created.tokens[0] in result.output
    assert runner.invoke(args=["show-game", "nope"]).exit_code != 0


def test_abandon_game_stops_it(runner):
    created = services.create_game([{"name": "Ann"}, {"name": "Bob"}])
    assert runner.invoke(args=["abandon-game", created.game_id]).exit_code == 0
    assert services.game_info(created.game_id).status == "abandoned"
