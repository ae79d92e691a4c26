"""Games outlive the code (issue 10): a store made by the code of rules version 1,
migrated to head, keeps its games playable under their rules, and
`flask --app app check-games` replays every game and reports, never rewrites.

The fixture tests/golden/games_v1.sqlite was made once by
tests/golden/make_db_fixture.py (today's code at revision 0004) and is frozen.
"""
from __future__ import annotations

import pickle
import random
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from app import create_app, engine, services
from app.gamelog import states, store
from app.gamelog import warm_states
from app.db import get_engine, upgrade
from tests.conftest import TEST_SECRET_KEY, random_move

FIXTURE = Path(__file__).resolve().parents[1] / "golden" / "games_v1.sqlite"


@pytest.fixture
def old_store(tmp_path):
    """The v1 store copied, migrated to head, with an app on it."""
    path = tmp_path / "games.sqlite"
    shutil.copyfile(FIXTURE, path)
    url = f"sqlite:///{path}"
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": TEST_SECRET_KEY,
                      "BASE_URL": "http://silver-eye.test",
                      "INSTANCE_PATH": str(tmp_path / "instance")})
    upgrade(url)
    with app.app_context():
        yield app
    get_engine(app).dispose()


def everything(app) -> list:
    """Every row of the tables check-games reads, to prove it wrote nothing."""
    with get_engine(app).connect() as conn:
        return [list(conn.execute(sa.select(table).order_by(*table.primary_key.columns)))
                for table in (store.Game.__table__, store.Action.__table__,
                              store.StateCache.__table__)]


def without_append_only_guard(session: Session) -> None:
    """Drop the log's append-only triggers (SQLite): a restore gone wrong, say."""
    for verb in ("update", "delete"):
        session.exec(sa.text(f"DROP TRIGGER IF EXISTS action_no_{verb}"))


def games(app, status: str | None = None) -> list[store.Game]:
    with Session(get_engine(app)) as session:
        query = select(store.Game).order_by(store.Game.created)
        return [g for g in session.exec(query) if status is None or g.status == status]


def test_old_games_get_rules_version_1_and_every_one_replays(old_store):
    assert {g.rules_version for g in games(old_store)} == {1}
    assert {g.status for g in games(old_store)} == {"over", "running", "abandoned"}
    before = everything(old_store)
    result = old_store.test_cli_runner().invoke(args=["check-games"])
    assert result.exit_code == 0, result.output
    assert "6 games checked, 0 failed" in result.output
    # the old caches were written before engine versions: the server ignores them
    assert result.output.count("ignored by the server") == 6
    assert everything(old_store) == before


def test_an_old_game_goes_on_under_its_rules_and_a_new_one_gets_the_newest(old_store):
    running = games(old_store, "running")[0]
    with Session(get_engine(old_store)) as session:
        assert states.read_cache(session, running.id) is None     # another engine pickled it
    snap = services.snapshot(running.id)
    assert snap.state.rules == 1
    seat, action = random_move(snap.state, random.Random(2))
    snap = services.submit_action(running.id, seat, action, snap.seq).snapshot
    assert snap.state.rules == 1
    with Session(get_engine(old_store)) as session:
        row = session.get(store.StateCache, running.id)
        assert row.engine_version == engine.ENGINE_VERSION and row.seq == snap.seq
    created = services.create_game([{"name": "Ann"}, {"name": "Bo"}], {}, seed="9")
    assert created.snapshot.state.rules == engine.RULES_VERSION
    assert games(old_store)[-1].rules_version == engine.RULES_VERSION
    result = old_store.test_cli_runner().invoke(args=["check-games", "--game", running.id])
    assert result.exit_code == 0 and "1 games checked, 0 failed" in result.output
    assert "note" not in result.output                       # its cache is current and agrees


def test_a_tampered_log_or_cache_is_reported_and_left_as_it_is(old_store):
    running = games(old_store, "running")[0]
    snap = services.snapshot(running.id)
    seat, action = random_move(snap.state, random.Random(3))
    services.submit_action(running.id, seat, action, snap.seq)    # a cache of this engine
    over = games(old_store, "over")[0]
    with Session(get_engine(old_store)) as session:
        cache = session.get(store.StateCache, running.id)
        earlier = engine.replay(running.seats, services.engine_seed(running.seed),
                                store.as_pairs(store.load_actions(session, running.id))[:-1],
                                rules=running.rules_version)
        cache.state = pickle.dumps(earlier)                      # the state one step behind
        session.add(cache)
        without_append_only_guard(session)
        first = store.load_actions(session, over.id)[0]
        first.action = {"type": "call"}                          # not legal at a first peek
        session.add(first)
        session.commit()
    before = everything(old_store)
    result = old_store.test_cli_runner().invoke(args=["check-games", "--quiet"])
    assert result.exit_code == 1
    assert "6 games checked, 2 failed" in result.output
    assert f"FAIL {running.id}" in result.output and "differs from the replay" in result.output
    assert f"FAIL {over.id}" in result.output and "action 1 (seat" in result.output
    assert "ok  " not in result.output                          # --quiet: failures only
    assert everything(old_store) == before


def test_a_gap_in_the_log_and_an_unknown_rules_version_fail(old_store):
    abandoned = games(old_store, "abandoned")[0]
    started = [g for g in games(old_store, "running")][-1]
    with Session(get_engine(old_store)) as session:
        without_append_only_guard(session)
        session.delete(store.load_actions(session, abandoned.id)[-1 - 5])
        game = session.get(store.Game, started.id)
        game.rules_version = 99
        session.add(game)
        session.commit()
    result = old_store.test_cli_runner().invoke(args=["check-games"])
    assert result.exit_code == 1 and "2 failed" in result.output
    assert "the log's seq is not 1..51" in result.output
    assert "rules version 99 cannot be replayed" in result.output


def test_a_cache_pickled_by_other_engine_code_is_ignored(new_game, app):
    created = new_game(seats=2)
    rng = random.Random(4)
    snap = services.snapshot(created.game_id)
    for _ in range(6):
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(created.game_id, seat, action, snap.seq).snapshot
    expected = [snap.view(seat) for seat in (None, 0, 1)]
    with Session(get_engine(app)) as session:
        row = session.get(store.StateCache, created.game_id)
        assert row.engine_version == engine.ENGINE_VERSION
        # same seq, but another engine's idea of the state (here: another deal)
        row.state = pickle.dumps(engine.new_game(2, 54321))
        row.engine_version = "1-0123456789abcdef"
        session.add(row)
        session.commit()
    warm_states.forget()  # read as a fresh worker reads it: from the cache and the log
    assert [services.snapshot(created.game_id).view(s) for s in (None, 0, 1)] == expected
    result = app.test_cli_runner().invoke(args=["check-games"])
    assert result.exit_code == 0 and "differs from the replay (written by engine 1-0123" in result.output


def test_the_game_says_which_rules_it_is_played_under(old_store):
    old = games(old_store, "over")[0]
    assert services.game_info(old.id).public()["rules"] == 1
    created = services.create_game([{"name": "Ann"}, {"name": "Bo"}], {}, seed="5")
    assert services.game_info(created.game_id).public()["rules"] == engine.RULES_VERSION
    replay = services.replay_frames(old.id, reveal=True, first=0, last=0)
    assert replay["game"]["rules"] == 1 and "rules=1)" in replay["how_to_verify"]
