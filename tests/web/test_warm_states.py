"""A worker keeps the states it computed (``app.gamelog.warm_states``): its next request
about the game reads only the log rows after that state, never the cache's blob,
and the cache is written every ``CACHE_EVERY`` steps instead of every move.
These scenarios check that what is held never disagrees with the log."""
from __future__ import annotations

import random

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from app import services
from app.gamelog import store
from app.gamelog import warm_states
from app.db import get_engine
from app.db.unit import unit_of_work
from app.services import games as game_service
from app.services import moves
from tests.conftest import random_move, statements_sent


def cold_views(game_id: str, seats: int = 2) -> list[dict]:
    """The views as a process holding no state reads them (the cache and the log)."""
    warm_states.forget()
    snap = services.snapshot(game_id)
    return [snap.view(s) for s in (None, *range(seats))]


def play(game_id: str, moves_to_make: int, rng: random.Random) -> services.Snapshot:
    snap = services.snapshot(game_id)
    for _ in range(moves_to_make):
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(game_id, seat, action, snap.seq).snapshot
    return snap


def cache_seq(app, game_id: str) -> int:
    with Session(get_engine(app)) as session:
        return session.get(store.StateCache, game_id).seq


def test_the_worker_that_made_the_last_move_reads_no_blob_for_the_next_request(new_game, app):
    created = new_game(seats=2)
    snap = play(created.game_id, 5, random.Random(1))
    sent = statements_sent(app, lambda: services.snapshot(created.game_id))
    assert sent and not any("state_cache" in statement for statement in sent)
    assert services.snapshot(created.game_id).view(0) == snap.view(0)
    # a process without the state reads the cache (and the rows after it): same views
    sent = statements_sent(app, lambda: cold_views(created.game_id))
    assert any("state_cache" in statement for statement in sent)
    assert cold_views(created.game_id) == [snap.view(s) for s in (None, 0, 1)]


def test_moves_made_by_another_worker_are_applied_to_the_held_state(new_game, app):
    created = new_game(seats=2)
    rng = random.Random(2)
    play(created.game_id, 3, rng)
    held = warm_states.get(created.game_id)
    snap = play(created.game_id, 4, rng)   # "another worker": then this one still holds step 3
    warm_states.forget(created.game_id)
    warm_states.put(created.game_id, held)
    assert warm_states.get(created.game_id).seq == held.seq == snap.seq - 4
    again = services.snapshot(created.game_id)
    assert again.seq == snap.seq
    assert [again.view(s) for s in (None, 0, 1)] == [snap.view(s) for s in (None, 0, 1)]


def test_the_cache_is_written_every_few_steps_and_when_the_game_ends(new_game, app):
    every = game_service.CACHE_EVERY
    created = new_game(seats=2)
    rng = random.Random(3)
    snap = services.snapshot(created.game_id)
    assert cache_seq(app, created.game_id) == snap.seq == 0      # written at creation
    while snap.game.status == "running":
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(created.game_id, seat, action, snap.seq).snapshot
        if snap.game.status == "running":
            assert cache_seq(app, created.game_id) == snap.seq // every * every
        if snap.seq % 7 == 0:   # now and then, a fresh process reads the same game
            assert cold_views(created.game_id) == [snap.view(s) for s in (None, 0, 1)]
    assert cache_seq(app, created.game_id) == snap.seq > every   # the final state is cached


def test_a_move_whose_transaction_rolls_back_leaves_no_state_behind(new_game, app, monkeypatch):
    created = new_game(seats=2)
    rng = random.Random(4)
    snap = play(created.game_id, 3, rng)
    seat, action = random_move(snap.state, rng)

    def fails(*_args, **_kwargs):
        raise RuntimeError("the database went away before the commit")

    monkeypatch.setattr(moves, "_game_info", fails)   # after the state is computed
    with pytest.raises(RuntimeError):
        services.submit_action(created.game_id, seat, action, snap.seq)
    monkeypatch.undo()
    assert warm_states.get(created.game_id).seq == snap.seq
    again = services.snapshot(created.game_id)
    assert again.seq == snap.seq and again.view(seat) == snap.view(seat)
    assert services.submit_action(created.game_id, seat, action, snap.seq).seq == snap.seq + 1


def test_after_commit_runs_only_when_the_work_is_committed(app):
    ran: list[str] = []
    with pytest.raises(RuntimeError):
        with unit_of_work() as unit:
            unit.after_commit(lambda: ran.append("rolled back"))
            raise RuntimeError("refused")
    with unit_of_work() as unit:
        unit.after_commit(lambda: ran.append("committed"))
    assert ran == ["committed"]


def without_append_only_guard(session: Session) -> None:
    """Drop the log's append-only triggers: a restore from a backup, say."""
    if session.get_bind().dialect.name == "postgresql":
        session.exec(sa.text("DROP TRIGGER IF EXISTS action_append_only ON action"))
        return
    for verb in ("update", "delete"):
        session.exec(sa.text(f"DROP TRIGGER IF EXISTS action_no_{verb}"))


def test_a_state_held_of_a_log_that_was_replaced_is_not_used(new_game, app):
    """A database restored to step 4 and played on differently to step 8: the
    state a worker held of the old step 8 does not fit the new row 8."""
    created = new_game(seats=2)
    play(created.game_id, 8, random.Random(5))
    old = warm_states.get(created.game_id)
    assert old.seq == 8
    with Session(get_engine(app)) as session:
        without_append_only_guard(session)
        session.exec(sa.delete(store.Action).where(store.Action.game_id == created.game_id,
                                                   store.Action.seq > 4))
        session.exec(sa.update(store.StateCache).where(
            store.StateCache.game_id == created.game_id).values(engine_version="restored"))
        session.commit()
    warm_states.forget()
    snap = play(created.game_id, 4, random.Random(6))
    assert snap.seq == 8
    warm_states.forget()
    warm_states.put(created.game_id, old)   # the old step 8, still in some worker's memory
    again = services.snapshot(created.game_id)
    assert [again.view(s) for s in (None, 0, 1)] == [snap.view(s) for s in (None, 0, 1)]
    assert warm_states.get(created.game_id) is not old


def test_a_held_state_is_never_handed_out_itself(new_game, app):
    created = new_game(seats=2)
    snap = play(created.game_id, 2, random.Random(7))
    first = services.snapshot(created.game_id).state
    first.deck.clear()                      # a caller that spoils its copy
    first.totals.append(99)
    assert services.snapshot(created.game_id).view(0) == snap.view(0)
