"""A vote that passes costs a bounded number of statements (issue 46 item 4).

The last yes of an abort, or of a hand-over to a substitute, is one unit of work: the
game and its seats read once under the vote lock, the ballot written, the outcome
logged, the news queued for every seat. Counted, never timed: the answer that passes the
vote, as the seat's page sends it (the link checked, the use case, the table read back
for the answer), is held to 26 statements (33 at this issue's start, 26 at turn 4), in a
game of two seats and of four alike, on both stores.
"""
from __future__ import annotations

from typing import Any

import pytest

from app import services
from app.clock import deadlines as dl
from tests.conftest import statements_sent

from .conftest import T0

MOST_PER_PASSING_VOTE = 26


def answer(client: Any, token: str, vote: int, yes: bool = True) -> Any:
    return client.post(f"/api/play/{token}/votes/{vote}", json={"yes": yes})


def open_vote(client: Any, token: str, **vote: Any) -> int:
    asked = client.post(f"/api/play/{token}/votes", json=vote)
    assert asked.status_code in (200, 201), asked.get_json()
    return int(asked.get_json()["vote"]["id"])  # the table as it stands now


def most(app: Any, postgres: int, sqlite: int) -> int:
    """The bound on this store: on PostgreSQL the unit of work sends its writes as one
    statement a table (data-modifying CTEs); SQLite has none, so each row is its own."""
    return postgres if app.config["DATABASE_URL"].startswith("postgresql") else sqlite


@pytest.mark.parametrize("seats", [2, 4])
def test_the_yes_that_ends_a_game_by_agreement(app, client, new_game, seats):
    with dl.at(T0):
        game = new_game(seats=seats)
    vote = open_vote(client, game.tokens[0], kind="abort")
    for token in game.tokens[1:-1]:
        assert answer(client, token, vote).status_code == 200
    sent = statements_sent(app, lambda: answer(client, game.tokens[-1], vote))
    assert services.game_info(game.game_id).status != "running", "the last yes ended it"
    assert len(sent) <= MOST_PER_PASSING_VOTE, "\n".join(sent)


def test_the_yes_that_hands_a_resigned_seat_to_a_substitute(app, client, new_game):
    with dl.at(T0):
        game = new_game(seats=3)
    services.submit_action(game.game_id, 2, {"type": "resign"},
                           services.game_info(game.game_id).seq)
    vote = open_vote(client, game.tokens[0], kind="substitute", seat=2, name="Gus",
                     email="gus@example.com")
    sent = statements_sent(app, lambda: answer(client, game.tokens[1], vote))
    assert services.snapshot(game.game_id).game.names[2] == "Gus", "the seat was handed over"
    # a hand-over is a vote and a move at once: the take-over logged, its tenures, the
    # seat's fresh start (plan, orders, targets, held mail) and four mails (the welcome,
    # the old address's notice, the others' news); the same bound on PostgreSQL, six
    # more on SQLite, where each of those rows is a statement of its own
    assert len(sent) <= most(app, MOST_PER_PASSING_VOTE, MOST_PER_PASSING_VOTE + 6), \
        "\n".join(sent)
