"""``rerate`` (issue 47 items 3 and 6): every rated game again, in order, gives exactly the
stored values; a tampered value is corrected; games that ended before standing existed
get their records from their logs, and no rating."""
from __future__ import annotations

import random

import sqlalchemy as sa

from app.db import get_engine
from app.services import standing
from app.standing.models import Result, Standing

from .conftest import play_out, results, standing_of

ADDRESSES = ["ann@example.com", "bob@example.com", "cid@example.com", "dee@example.com"]


def snapshot() -> tuple[list, list]:
    with get_engine().connect() as connection:
        return (list(connection.execute(sa.select(Result.__table__).order_by(
                    Result.__table__.c.id))),
                list(connection.execute(sa.select(Standing.__table__).order_by(
                    Standing.__table__.c.person_id))))


def test_rerate_reproduces_the_stored_ratings_bit_for_bit_and_mends_a_tampered_one(
        new_game):
    for n in range(4):
        game = new_game(seats=2 + n % 3, rated=True, seed=str(900 + n))
        play_out(game.game_id, random.Random(n))
    friendly = new_game(seats=3, seed="77")
    play_out(friendly.game_id, random.Random(9))
    kept = snapshot()
    report = standing.rerate()
    assert (report.games, report.results_fixed, report.people_fixed) == (4, 0, 0)
    assert "already exact" in report.words()
    assert snapshot() == kept
    with get_engine().begin() as connection:  # someone edits Bob's rating by hand
        connection.execute(sa.text("UPDATE standing SET mu = 40.0"))
    report = standing.rerate()
    assert report.people_fixed == 4 and snapshot() == kept
    assert standing.rerate().people_fixed == 0  # idempotent


def test_games_that_ended_before_standing_get_their_records_from_the_log(new_game):
    games = [new_game(seats=3, seed=str(30 + n)) for n in range(3)]
    for n, game in enumerate(games):
        play_out(game.game_id, random.Random(n))
    before = {g.game_id: [tuple(r) for r in results(g.game_id)] for g in games}
    with get_engine().begin() as connection:  # as if they ended before issue 47
        connection.execute(sa.text("DELETE FROM standing_result"))
        connection.execute(sa.text("DELETE FROM standing"))
    report = standing.rerate(from_log=True)
    assert sorted(report.backfilled) == sorted(g.game_id for g in games)
    for game in games:
        again = results(game.game_id)
        assert [(r.seat, r.outcome, r.own_moves, r.clock_moves, r.place) for r in again] == [
            (r[2], r[6], r[7], r[8], r[9]) for r in before[game.game_id]]
        assert all(r.mu_after is None for r in again)  # no old game was rated
    assert standing_of(ADDRESSES[0]).ended == 3
    assert standing.rerate(from_log=True).backfilled == []
