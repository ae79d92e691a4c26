"""Games on stacked decks through the whole server (services, mail, pages).

The server deals from a game's seed only; ``stacked`` makes ``engine.new_game``
and ``engine.replay`` (the only ways the server makes a state) deal round 1
from a scenario's deck instead, for this test only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest

from app import engine, services
from tests.summary.scenarios import Scenario


@dataclass
class Played:
    """A scenario played through the services: the game, its seat tokens, the scoring step."""

    game_id: str
    tokens: list[str]
    scored_at: int


@pytest.fixture
def stacked(app, monkeypatch) -> Callable[[Scenario], Played]:
    def play(scenario: Scenario) -> Played:
        seed = scenario.seed()
        real_new, real_replay = engine.new_game, engine.replay

        def new_game(seats: int, seed: Any, decks: Any = None, options: Any = None,
                     **rest: Any) -> Any:
            return real_new(seats, seed, decks or [scenario.deck], options, **rest)

        def replay(seats: int, seed: Any, actions: Any, decks: Any = None, options: Any = None,
                   **rest: Any) -> Any:
            return real_replay(seats, seed, actions, decks or [scenario.deck], options, **rest)

        monkeypatch.setattr(engine, "new_game", new_game)
        monkeypatch.setattr(engine, "replay", replay)
        people = [("Ann", "ann@example.com"), ("Bob", "bob@example.com"), ("Cid", "cid@example.com")]
        created = services.create_game(
            [{"name": n, "email": e, "kind": "human"} for n, e in people[:scenario.seats]],
            {}, name="Stacked", seed=str(seed))
        scored_at = 0
        for seat, action in scenario.moves:
            done = services.submit_action(created.game_id, seat, action,
                                          services.snapshot(created.game_id).seq)
            if any(e["type"] == "round_scored" for e in done.events):
                scored_at = done.applied[0].seq
        assert scored_at, f"{scenario.name}: the round was not scored"
        return Played(created.game_id, created.tokens, scored_at)

    return play
