"""Issue 9, item 3: schemathesis against the app's own /api/openapi.json, on this store.

Every operation of the document gets a fixed budget of generated requests
(valid and invalid ones, with random and with real tokens and game ids),
from a fixed seed: no answer may be a 5xx, and every answer must match the
document (status code, content type, body schema, Allow header of a 405).
The budget, the seed and the counts are printed (``pytest -s`` shows them).
Runs on SQLite in ``make test`` and on PostgreSQL in ``make test-pg``.
"""
from __future__ import annotations

import collections
import random
from typing import Any

import hypothesis.strategies as st
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from schemathesis import GenerationMode
from schemathesis.checks import (content_type_conformance, not_a_server_error,
                                 response_schema_conformance, status_code_conformance)

from app import services
from tests.conftest import PEOPLE, random_move

SEED = 20261201
#: Generated requests per operation (spread over valid, invalid and real-id cases).
EXAMPLES_PER_OPERATION = 60
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture
def real_ids(app) -> dict[str, list[str]]:
    """A running game some moves in, a finished game of bots, and a replaced link."""
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    running = services.create_game(players, seed="11")
    snap, rng = running.snapshot, random.Random(11)
    for _ in range(6):
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(running.game_id, seat, action, snap.seq).snapshot
    over = services.create_game([{"name": "R1", "kind": "bot"}, {"name": "R2", "kind": "bot"}],
                                seed="12")
    old = running.tokens[1]
    services.rotate_link(running.game_id, 1)
    fresh = services.seat_tokens(running.game_id)
    return {"token": [running.tokens[0], fresh[1], old, over.tokens[0]],
            "game_id": [running.game_id, over.game_id]}


def strategies(operation: Any, real: dict[str, list[str]]) -> Any:
    """Random, invalid, and real-id cases of one operation, mixed."""
    mixed = [operation.as_strategy(GenerationMode.POSITIVE),
             operation.as_strategy(GenerationMode.NEGATIVE)]
    names = [p.name for p in operation.iter_parameters() if p.location == "path"]
    for name in names:
        for value in real.get(name, []):
            mixed.append(operation.as_strategy(GenerationMode.POSITIVE,
                                               path_parameters={name: value}))
    return st.one_of(mixed)


@pytest.mark.slow  # schemathesis fuzz: hundreds of generated requests
def test_the_api_never_answers_5xx_and_always_answers_as_documented(app, real_ids, capsys):
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    counts: dict[str, collections.Counter] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        seen = counts.setdefault(operation.label, collections.Counter())

        @seed(SEED)
        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                  phases=[Phase.explicit, Phase.generate, Phase.shrink],
                  suppress_health_check=list(HealthCheck))
        @given(case=strategies(operation, real_ids))
        def run(case: Any) -> None:
            response = case.call()
            seen[response.status_code] += 1
            case.validate_response(response, checks=CHECKS)

        run()
    total = sum(sum(c.values()) for c in counts.values())
    with capsys.disabled():
        print(f"\nschemathesis seed={SEED} budget={EXAMPLES_PER_OPERATION}/operation "
              f"operations={len(counts)} requests={total}")
        for label, seen in sorted(counts.items()):
            print(f"  {label}: " + ", ".join(f"{k}×{v}" for k, v in sorted(seen.items())))
    assert len(counts) >= 5 and total >= len(counts) * 10
    assert not any(status >= 500 for seen in counts.values() for status in seen)
