"""R47 (rules 2) through the server and the clock: a Simon claim that holds a round's
end is a decision of its own, with a deadline; when it passes, the claim is declined
in one logged action and the round ends."""
from __future__ import annotations

import random
from datetime import timedelta

from app.clock import deadlines as dl
from app import engine, services
from app.db import read_session
from tests.clock.conftest import T0
from tests.conftest import random_move

SEED = 12   # 2 seats, Simon `off` for both: random play reaches a held round end at step 51


def test_a_held_round_end_gets_a_deadline_and_its_timeout_declines_the_claim(game_at_t0, tick):
    created = game_at_t0(seats=2, seed=str(SEED), simon=["off", "off"], deadline_hours=24)
    rng = random.Random(SEED)
    snap = services.snapshot(created.game_id)
    with dl.at(T0):
        while snap.state.round_end is None:
            assert snap.state.round == 1
            seat, action = random_move(snap.state, rng)
            snap = services.submit_action(created.game_id, seat, action, snap.seq).snapshot
    view = snap.view(None)
    assert view["pending"] == "simon_claims" and view["round_scores"] == []
    claimant = view["to_act"][0]
    with read_session() as session:
        rows = dl.open_rows(session, created.game_id, claimant, dl.DECISION)
    assert len(rows) == 1
    tick(T0 + timedelta(hours=25))
    after = services.snapshot(created.game_id)
    step = snap.seq + 1
    frame = services.replay_frames(created.game_id, seat=claimant, first=step, last=step)["frames"][0]
    assert frame["seat"] == claimant and frame["source"] == "timeout"
    assert frame["action"] == {"type": "pass"}               # one row settles it (R38)
    skip, ended = frame["events"][:2]
    assert skip["type"] == "skip" and skip["what"] == "simon_claim" and skip["timeout"]
    assert ended["type"] == "round_end"                      # then the round-end choices, R24
    assert after.state.rules == engine.RULES_VERSION
