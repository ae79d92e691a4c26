"""Scenarios of the service layer: the one place where games change."""
from __future__ import annotations

import hashlib
import pickle
import random

import pytest
from sqlmodel import Session

from app import engine, services
from app.services import reactions as hooks
from app.gamelog import store
from app.gamelog import warm_states
from app.db import get_engine
from app.db.unit import unit_of_work
from tests.conftest import random_move


def play_to_the_end(game_id: str, rng: random.Random, limit: int = 3000) -> services.Snapshot:
    """Random legal moves of whoever has to act, through submit_action, until the end."""
    snap = services.snapshot(game_id)
    for _ in range(limit):
        if snap.game.status != "running":
            return snap
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(game_id, seat, action, snap.seq).snapshot
    raise AssertionError("the game did not end")


def test_a_new_game_commits_to_its_seed_and_keeps_it_secret(new_game):
    created = new_game(seats=3, seed="987654321")
    info = created.snapshot.game
    assert info.status == "running" and info.names == ["Ann", "Bob", "Cid"]
    assert info.commitment == hashlib.sha256(b"987654321").hexdigest()
    assert info.seed is None and info.public()["seed"] is None
    assert services.game_info(created.game_id).seed is None
    # every seat gets a token that opens exactly that seat
    for seat, token in enumerate(created.tokens):
        access = services.open_seat(token)
        assert (access.game_id, access.seat) == (created.game_id, seat)


def test_a_full_game_is_its_log_and_reveals_the_seed_at_the_end(new_game, db):
    created = new_game(seats=3, seed="4242")
    final = play_to_the_end(created.game_id, random.Random(7))
    assert final.game.status == "over" and final.game.seed == "4242"
    log = db.actions(created.game_id)
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1)) == list(range(1, final.seq + 1))
    assert all(source == "player" for _, _, source in log)
    # the state is the replay of the log: anyone with the seed can re-derive it
    replay = services.replay_frames(created.game_id, reveal=True)
    rebuilt = engine.replay(3, 4242, [tuple(pair) for pair in replay["log"]])
    assert engine.view(rebuilt, None) == final.view(None)
    assert replay["frames"][-1]["view"] == engine.view(rebuilt, None, reveal=True)
    assert "4242" in replay["how_to_verify"]


def cold_views(game_id: str) -> list[dict]:
    """The views of a game as a process that holds no state of it reads them (a
    fresh worker: from the state cache and the log)."""
    warm_states.forget()
    return [services.snapshot(game_id).view(s) for s in (None, 0, 1)]


def test_the_state_is_rebuilt_from_the_log_when_the_cache_is_missing_or_stale(new_game, app):
    created = new_game(seats=2)
    rng = random.Random(3)
    snap = services.snapshot(created.game_id)
    for _ in range(12):
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(created.game_id, seat, action, snap.seq).snapshot
    expected = [snap.view(seat) for seat in (None, 0, 1)]
    assert cold_views(created.game_id) == expected  # the cache (step 0) and twelve rows
    with Session(get_engine(app)) as session:
        row = session.get(store.StateCache, created.game_id)
        log = store.as_pairs(store.load_actions(session, created.game_id))
        row.seq, row.state = 5, pickle.dumps(engine.replay(2, 12345, log[:5]))
        session.add(row)
        session.commit()
    assert cold_views(created.game_id) == expected
    with Session(get_engine(app)) as session:
        row = session.get(store.StateCache, created.game_id)
        row.state = b"not a pickle"
        session.add(row)
        session.commit()
    assert cold_views(created.game_id) == expected
    with Session(get_engine(app)) as session:
        session.delete(session.get(store.StateCache, created.game_id))
        session.commit()
    assert cold_views(created.game_id) == expected
    # and a move made on the rebuilt state is appended as usual
    seat, action = random_move(snap.state, rng)
    assert services.submit_action(created.game_id, seat, action, snap.seq).seq == snap.seq + 1


def test_a_stale_move_gets_the_game_moved_on_and_a_repeat_already_applied(new_game, db):
    created = new_game(seats=2)
    snap = created.snapshot
    seat, action = random_move(snap.state, random.Random(1))
    services.submit_action(created.game_id, seat, action, snap.seq)
    with pytest.raises(services.Conflict) as repeat:
        services.submit_action(created.game_id, seat, action, snap.seq)
    assert repeat.value.message.startswith("Already applied")
    other = 1 - seat
    other_action = engine.legal_actions(snap.state, other)[0]
    with pytest.raises(services.Conflict) as stale:
        services.submit_action(created.game_id, other, other_action, snap.seq)
    assert stale.value.message.startswith("The game moved on")
    with pytest.raises(services.Conflict) as ahead:
        services.submit_action(created.game_id, other, other_action, snap.seq + 5)
    assert "ahead" in ahead.value.message
    assert len(db.actions(created.game_id)) == 1


def test_an_illegal_move_is_refused_in_the_engines_words_and_not_stored(new_game, db):
    created = new_game(seats=2)
    with pytest.raises(services.Illegal) as refused:
        services.submit_action(created.game_id, 0, {"type": "call"}, 0)
    assert refused.value.message
    assert db.count("action") == 0


def test_a_racing_writer_that_wins_leaves_one_row_and_a_clear_answer(new_game, db, app,
                                                                     monkeypatch):
    """Another process appends the same step between our load and our insert."""
    created = new_game(seats=2)
    snap = created.snapshot
    seat, action = random_move(snap.state, random.Random(5))
    real_apply = engine.apply_action
    raced = []

    def apply_after_a_rival(state, who, what):
        if not raced:
            raced.append(True)
            with unit_of_work(get_engine(app)) as rival:
                store.append_action(rival, created.game_id, snap.seq + 1, seat, action)
                rival.write()
        return real_apply(state, who, what)

    monkeypatch.setattr(engine, "apply_action", apply_after_a_rival)
    with pytest.raises(services.Conflict) as lost:
        services.submit_action(created.game_id, seat, action, snap.seq)
    assert lost.value.message.startswith("Already applied")
    assert len(db.actions(created.game_id)) == 1


def test_hooks_run_inside_the_transaction_so_a_failing_hook_stores_nothing(new_game, db,
                                                                           monkeypatch):
    created = new_game(seats=2)
    seat, action = random_move(created.snapshot.state, random.Random(2))
    seen = []

    def failing_hook(session, game, seq, *rest):
        seen.append(seq)
        raise RuntimeError("mail server on fire")

    monkeypatch.setattr(hooks, "after_action", failing_hook)
    with pytest.raises(RuntimeError):
        services.submit_action(created.game_id, seat, action, 0)
    assert seen == [1] and db.count("action") == 0
    assert services.snapshot(created.game_id).seq == 0


def test_bots_play_as_soon_as_they_have_a_decision_and_deterministically(new_game, db):
    first = new_game(seats=3, bots=(1, 2), seed="77")
    view = first.snapshot.view(None)
    assert set(view["to_act"]) <= {0}, "bots have made every decision open to them"
    final = play_to_the_end(first.game_id, random.Random(11))
    log = db.actions(first.game_id)
    assert final.game.status == "over"
    assert {source for _, seat, source in log if seat in (1, 2)} == {"system"}
    assert {source for _, seat, source in log if seat == 0} == {"player"}
    # the same seed and the same human moves give the same bot moves
    second = new_game(seats=3, bots=(1, 2), seed="77")
    play_to_the_end(second.game_id, random.Random(11))
    assert db.actions(second.game_id) == log


def test_a_game_of_bots_only_plays_itself_to_the_end(new_game, db):
    created = new_game(seats=2, bots=(0, 1))
    assert created.snapshot.game.status == "over"
    assert db.count("action", game_id=created.game_id) == created.snapshot.seq > 0


def test_absent_seats_get_their_default_action_at_once(new_game, db, monkeypatch):
    monkeypatch.setattr(hooks, "is_absent", lambda session, game, seat: seat == 1)
    created = new_game(seats=2)
    final = play_to_the_end(created.game_id, random.Random(4))
    assert final.game.status == "over"
    sources = {source for _, seat, source in db.actions(created.game_id) if seat == 1}
    assert sources == {"timeout"}


def test_a_timeout_is_the_engines_default_logged_as_such_and_a_stale_one_is_refused(
        new_game, db):
    # R29: what the clock submits for a late seat (app.services.absence.auto_pass).
    created = new_game(seats=2)
    state = created.snapshot.state
    seat = engine.view(state, None)["to_act"][0]
    expected = engine.default_action(state, seat)
    result = services.submit_action(created.game_id, seat, expected, 0, source="timeout")
    assert result.applied[0].action == expected and result.applied[0].source == "timeout"
    with pytest.raises(services.Conflict):
        services.submit_action(created.game_id, 1 - seat, expected, 0, source="timeout")


def test_rotating_a_link_revokes_the_old_one(new_game):
    created = new_game(seats=2)
    old = created.tokens[1]
    new = services.rotate_link(created.game_id, 1)
    assert services.open_seat(new).seat == 1
    with pytest.raises(services.Forbidden) as refused:
        services.open_seat(old)
    assert refused.value.details == {"reason": "revoked", "game_id": created.game_id, "seat": 1}
    assert services.open_seat(created.tokens[0]).seat == 0


def test_a_fresh_link_goes_only_to_the_address_on_record(new_game, monkeypatch):
    created = new_game(seats=3, bots=(2,))
    asked = []
    monkeypatch.setattr(hooks, "fresh_link_requested",
                        lambda session, game, seat: asked.append((game.id, seat)))
    services.request_fresh_link(created.game_id, email="BOB@example.com")
    services.request_fresh_link(created.game_id, seat=0)
    services.request_fresh_link(created.game_id, email="mallory@example.com")
    services.request_fresh_link(created.game_id, seat=2)  # a bot has no address
    services.request_fresh_link("no-such-game", seat=0)
    assert asked == [(created.game_id, 1), (created.game_id, 0)]


def test_a_seats_replay_shows_what_that_seat_saw_at_each_step(new_game):
    created = new_game(seats=2, seed="31337")
    rng = random.Random(9)
    snap = created.snapshot
    for _ in range(15):
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(created.game_id, seat, action, snap.seq).snapshot
    frames = services.replay_frames(created.game_id, seat=0)["frames"]
    actions = [(a["seat"], a["action"]) for a in
               services.replay_frames(created.game_id, seat=None)["frames"][1:]]
    assert len(frames) == snap.seq + 1
    with Session(get_engine()) as session:
        log = store.as_pairs(store.load_actions(session, created.game_id))
    for step, frame in enumerate(frames):
        state = engine.replay(2, 31337, log[:step])
        assert frame["view"] == engine.view(state, 0)
        if step:
            assert (frame["action"] is not None) == (log[step - 1][0] == 0)
    assert all(action is None for _, action in actions), "others' raw moves stay hidden"
    with pytest.raises(services.Forbidden):
        services.replay_frames(created.game_id, reveal=True)


def test_player_lists_are_checked_before_anything_is_stored(app, db):
    bad = [
        [],
        [{"name": "Solo"}],
        [{"name": "A"}] * 5,
        [{"name": "Ann"}, {"name": "ann"}],
        [{"name": ""}, {"name": "Bob"}],
        [{"name": "Ann", "email": "not-an-address"}, {"name": "Bob"}],
        [{"name": "Ann", "kind": "alien"}, {"name": "Bob"}],
        [{"name": "x" * 200}, {"name": "Bob"}],
    ]
    for players in bad:
        with pytest.raises(services.BadRequest):
            services.create_game(players)
    assert db.count("game") == 0 and db.count("seat") == 0


def test_options_reach_the_engine_and_the_rest_is_kept_for_the_clock(app):
    created = services.create_game([{"name": "Ann"}, {"name": "Bob"}],
                                   {"memory": True, "deadline_hours": 24})
    assert created.snapshot.game.options == {"memory": True, "deadline_hours": 24}
    assert services.engine_options(created.snapshot.game.options) == {"memory": True}


def test_a_bot_that_chooses_an_illegal_move_does_not_block_the_game(new_game, db, monkeypatch,
                                                                      caplog):
    from app.engine import bots

    monkeypatch.setattr(bots, "choose", lambda kind, state, seat, rng: {"type": "fly"})
    created = new_game(seats=2, bots=(1,))
    log = db.actions(created.game_id)
    assert log and {seat for _, seat, _ in log} == {1}, "the bot made its opening peek"
    assert "chose an illegal" in caplog.text


def test_automatic_moves_stop_when_a_hook_abandons_the_game(new_game, db, monkeypatch):
    """R29: when nobody plays any more the clock's hook may end the game mid-request."""
    monkeypatch.setattr(hooks, "is_absent", lambda session, game, seat: True)
    real = hooks.after_action

    def abandon_after_three(unit, game, seq, *rest):
        real(unit, game, seq, *rest)
        if seq == 3:
            store.set_status(unit, game, "abandoned")

    monkeypatch.setattr(hooks, "after_action", abandon_after_three)
    created = new_game(seats=2)
    assert created.snapshot.game.status == "abandoned"
    assert len(db.actions(created.game_id)) == 3
