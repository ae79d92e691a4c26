"""Racing submissions: exactly one row per step, everybody else a clear 409."""
from __future__ import annotations

import threading
from typing import Any

import pytest

from app import engine, services
from tests.conftest import PEOPLE, TEST_DATABASE_URL

THREADS = 20


def race(app: Any, token_and_moves: list[tuple[str, dict]], expected_seq: int) -> list[Any]:
    """Post every move at once (a barrier lines the threads up); return the answers."""
    barrier = threading.Barrier(len(token_and_moves))
    answers: list[Any] = [None] * len(token_and_moves)

    def submit(index: int, token: str, action: dict) -> None:
        client = app.test_client()
        barrier.wait()
        response = client.post(f"/api/play/{token}/actions",
                               json={"action": action, "expected_seq": expected_seq})
        answers[index] = (response.status_code, response.get_json())

    threads = [threading.Thread(target=submit, args=(i, token, action))
               for i, (token, action) in enumerate(token_and_moves)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return answers


def two_player_game() -> services.Created:
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    return services.create_game(players, seed="8080")


@pytest.mark.postgres
@pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs TEST_DATABASE_URL pointing at PostgreSQL")
def test_twenty_identical_moves_at_once_make_one_row(app, db):
    game = two_player_game()
    seat = engine.view(game.snapshot.state, None)["to_act"][0]
    action = engine.legal_actions(game.snapshot.state, seat)[0]
    answers = race(app, [(game.tokens[seat], action)] * THREADS, 0)
    statuses = sorted(status for status, _ in answers)
    assert statuses == [200] + [409] * (THREADS - 1)
    for status, body in answers:
        if status == 409:
            assert body["message"].startswith("Already applied: this move was made at step 1")
    assert db.actions(game.game_id) == [(1, seat, "player")]


def test_both_seats_racing_for_the_same_step_leave_one_row(app, db):
    """At the start both seats owe a peek: whoever loses is told the game moved on."""
    game = two_player_game()
    state = game.snapshot.state
    assert sorted(engine.view(state, None)["to_act"]) == [0, 1]
    moves = [(game.tokens[seat], engine.legal_actions(state, seat)[0]) for seat in (0, 1)]
    answers = race(app, moves * (THREADS // 2), 0)
    winners = [i for i, (status, _) in enumerate(answers) if status == 200]
    assert len(winners) == 1
    winning_seat = winners[0] % 2
    for index, (status, body) in enumerate(answers):
        if index in winners:
            continue
        assert status == 409, body
        expected = ("Already applied" if index % 2 == winning_seat else "The game moved on")
        assert body["message"].startswith(expected), body["message"]
    assert [seat for _, seat, _ in db.actions(game.game_id)] == [winning_seat]
