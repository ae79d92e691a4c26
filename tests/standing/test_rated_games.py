"""Rated games (issue 47 items 2-3): played out through the services, their people's
ratings move in finish order, exactly as ``openskill`` itself rates the same places."""
from __future__ import annotations

import random

from openskill.models import PlackettLuce

from app import services
from app.services import votes
from app.standing.rating import START_MU, START_SIGMA

from .conftest import T0, hours, play_out, results, standing_of

ADDRESSES = ["ann@example.com", "bob@example.com", "cid@example.com", "dee@example.com"]


def test_a_rated_four_person_game_rates_in_finish_order_as_openskill_does(new_game):
    game = new_game(seats=4, rated=True)
    play_out(game.game_id, random.Random(3))
    rows = results(game.game_id)
    assert sorted(r.seat for r in rows) == [0, 1, 2, 3]
    assert all(r.outcome == "finished" and r.mu_before == START_MU for r in rows)
    by_place = sorted(rows, key=lambda r: (r.place, r.seat))
    assert by_place[0].place == 1 and by_place[0].mu_after > START_MU  # the winner's μ up
    assert by_place[-1].mu_after < START_MU                             # the last's down
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in rows],
                          ranks=[float(r.place) for r in sorted(rows, key=lambda r: r.seat)])
    for row, (team,) in zip(sorted(rows, key=lambda r: r.seat), expected):
        assert (row.mu_after, row.sigma_after) == (team.mu, team.sigma)  # bit for bit
        kept = standing_of(ADDRESSES[row.seat])
        assert (kept.mu, kept.sigma, kept.rated_games, kept.rated_by) == (
            team.mu, team.sigma, 1, game.game_id)
        assert kept.ended == 1 and kept.recent == 1 and kept.recent_left == 0


def test_a_friendly_game_changes_no_rating_but_counts_for_the_record(new_game):
    game = new_game(seats=3)  # friendly by default
    play_out(game.game_id, random.Random(4))
    rows = results(game.game_id)
    assert len(rows) == 3 and all(r.mu_after is None for r in rows)
    ann = standing_of(ADDRESSES[0])
    assert ann.mu is None and ann.rated_games == 0 and ann.ended == 1


def test_a_game_where_only_one_person_moved_themselves_is_unrated(new_game):
    """Ann against a bot: one person, nobody to be rated against."""
    game = new_game(seats=2, bots=(1,), rated=True)
    play_out(game.game_id, random.Random(5))
    rows = results(game.game_id)
    assert [r.seat for r in rows] == [0] and rows[0].mu_after is None
    assert standing_of(ADDRESSES[0]).mu is None


def test_a_rematch_keeps_the_choice_and_rates_again(new_game):
    """Ann and Bob finish a rated game and agree to a rematch: it is rated too, and its
    end moves the ratings the first game left."""
    game = new_game(seats=2, rated=True)
    play_out(game.game_id, random.Random(6))
    first = {r.seat: r for r in results(game.game_id)}
    votes.start(game.game_id, 0, "rematch", now=T0 + hours(2))
    again = votes.answer(game.game_id, 1, None, True, now=T0 + hours(2)).new_game_id
    assert services.game_info(again).options["rated"] is True
    play_out(again, random.Random(7), at=T0 + hours(2))
    second = {r.seat: r for r in results(again)}
    assert {(r.mu_before, r.sigma_before) for r in second.values()} == {
        (r.mu_after, r.sigma_after) for r in first.values()}
    assert standing_of(ADDRESSES[0]).rated_games == 2
