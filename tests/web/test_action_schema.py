"""Issue 9, item 5: the engine's action schema decides what the append-only log stores,
and a seat cannot flood the table with "away"/"back".

Before: any extra field was stored forever (60 kB of junk per action), and 60
away/back posts in a second mailed the other player 30 times.
"""
from __future__ import annotations

import random

import pytest

from app import engine, services
from app.engine import action_schema
from tests.conftest import PEOPLE, random_move


@pytest.fixture
def game(app):
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    return services.create_game(players, seed="99")


def post(client, token: str, action: dict, seq: int):
    return client.post(f"/api/play/{token}/actions", json={"action": action, "expected_seq": seq})


def refused_in_words(answer, status: int, *words: str) -> str:
    assert answer.status_code == status, answer.get_data(as_text=True)
    message = answer.get_json()["message"]
    for word in words:
        assert word in message, message
    return message


@pytest.mark.parametrize("extra, words", [
    ({"junk": "x" * 60_000}, ["no field “junk”", "Nothing was stored"]),
    ({"comment": "hello"}, ["no field “comment”"]),
    ({"positions": [0, 1] * 100}, ["“positions”", "list of 1 to"]),
    ({"positions": [0, 10 ** 12]}, ["“positions”"]),
    ({"positions": [0, True]}, ["“positions”"]),
])
def test_a_move_with_fields_its_type_does_not_have_is_refused_and_nothing_stored(
        client, db, game, extra, words):
    seat = engine.view(game.snapshot.state, None)["to_act"][0]
    legal = engine.legal_actions(game.snapshot.state, seat)[0]
    assert legal["type"] == "peek"
    before = db.dump()
    answer = post(client, game.tokens[seat], {**legal, **extra}, 0)
    refused_in_words(answer, 422, *words)
    assert db.dump() == before


def test_an_unknown_type_is_refused_before_the_engine(game):
    with pytest.raises(services.Illegal, match="There is no action “fly”"):
        services.submit_action(game.game_id, 0, {"type": "fly"}, 0)
    with pytest.raises(action_schema.ActionRefused, match="no action “xxxxxxxxxxxxxxxxxxxx…”"):
        action_schema.check({"type": "x" * 5000})


def test_every_action_the_engine_offers_or_defaults_to_fits_the_schema(app):
    """Random games of 2 to 4 seats: the schema never refuses what the engine lists."""
    checked = set()
    for seats in (2, 3, 4):
        for options in ({}, {"memory": True, "simon": ["off"] * seats}):
            rng = random.Random(seats * 7 + len(options))
            state = engine.new_game(seats, rng.randrange(10 ** 6), options=options)
            for _ in range(400):
                view = engine.view(state, None)
                if view["phase"] == "over":
                    break
                for seat in view["to_act"]:
                    for action in engine.legal_actions(state, seat):
                        assert action_schema.check(action) == action
                        checked.add(action["type"])
                    default = engine.default_action(state, seat)
                    if default is not None:
                        assert action_schema.check(default) == default
                seat, action = random_move(state, rng)
                state, _ = engine.apply_action(state, seat, action)
    assert {"peek", "draw", "exchange", "discard"} <= checked


# -- away / back ----------------------------------------------------------------------

def say(game, seat: int, kind: str) -> services.Submitted:
    return services.submit_action(game.game_id, seat, {"type": kind},
                                  services.game_info(game.game_id).seq)


def test_a_seat_saying_away_and_back_too_often_gets_429_and_nothing_is_stored(client, db, game):
    for kind in ("away", "back") * (services.PRESENCE_PER_HOUR // 2):
        say(game, 0, kind)
    before = db.dump()
    seq = services.game_info(game.game_id).seq
    answer = post(client, game.tokens[0], {"type": "away"}, seq)
    message = refused_in_words(answer, 429, "every other player is told", "Nothing was changed")
    assert "minutes" in message
    assert db.dump() == before
    # The other seat is not held up by Ann's limit.
    say(game, 1, "away")


def test_the_presence_limit_counts_the_last_hour_only(app, game, monkeypatch):
    from datetime import timedelta

    from app.gamelog import store

    for kind in ("away", "back") * (services.PRESENCE_PER_HOUR // 2):
        say(game, 0, kind)
    with pytest.raises(services.TooMany):
        say(game, 0, "away")
    real = store.utcnow
    monkeypatch.setattr(store, "utcnow", lambda: real() + timedelta(hours=1, minutes=1))
    say(game, 0, "away")


def test_the_clock_marking_a_seat_away_is_not_limited(app, game):
    for kind in ("away", "back") * (services.PRESENCE_PER_HOUR // 2):
        say(game, 0, kind)
    seq = services.game_info(game.game_id).seq
    services.submit_action(game.game_id, 0, {"type": "away"}, seq, source="system")
