"""A move reads its seats' mail and clock rows and its game as plain values
(``app.db.unit.Row``) and queues its changes to them on its unit of work: one
identity per row, no ORM object made of them. These scenarios check that every change
still lands: the game's end and its abandonment, a run of timeouts reset by the
player's own move, a seat row changed twice in a move, read back at once and written
in one statement.
"""
from __future__ import annotations

import random

from sqlmodel import select

from app.clock import deadlines as dl
from app import engine, services
from app.db import read_session
from app.db.unit import Row, unit_of_work
from app.mail import seat_prefs
from app.mail.models import SeatMail
from tests.clock.conftest import T0, hours
from tests.conftest import random_move, statements_sent

DAY = 24


def post(client, token: str, action: dict, seq: int):
    return client.post(f"/api/play/{token}/actions", json={"action": action, "expected_seq": seq})


def clock_row(game_id: str, seat: int) -> dict:
    with read_session() as session:
        return session.exec(select(dl.SeatClock).where(dl.SeatClock.game_id == game_id,
                                                       dl.SeatClock.seat == seat)).one().model_dump()


def test_a_game_played_to_its_end_by_links_is_over_in_the_store(client, new_game):
    game, rng = new_game(seats=3), random.Random(7)
    state, seq = game.snapshot.state, 0
    while engine.status(state)["phase"] != "over":
        seat, action = random_move(state, rng)
        answer = post(client, game.tokens[seat], action, seq)
        assert answer.status_code == 200, answer.get_json()
        state, seq = services.snapshot(game.game_id).state, answer.get_json()["seq"]
    assert answer.get_json()["game"]["status"] == "over"
    assert services.game_info(game.game_id).status == "over"
    assert services.game_info(game.game_id).seed == "12345", "the seed is shown once it is over"


def test_both_players_saying_away_by_their_links_abandon_the_game(client, new_game):
    """R29: the game a move reads as values is still abandoned when nobody is left."""
    game = new_game(seats=2)
    first = post(client, game.tokens[0], {"type": "away"}, 0).get_json()
    assert first["game"]["status"] == "running"
    second = post(client, game.tokens[1], {"type": "away"}, first["seq"])
    assert second.status_code == 200, second.get_json()
    assert second.get_json()["game"]["status"] == "abandoned"
    assert services.game_info(game.game_id).status == "abandoned"
    with read_session() as session:
        assert dl.open_rows(session, game.game_id) == []


def test_the_players_own_move_ends_the_run_of_timeouts(client, game_at_t0, tick):
    game = game_at_t0(deadline_hours=DAY, reminders=[], absent_after=3)
    seat = engine.status(game.snapshot.state)["to_act"][0]
    tick(T0 + hours(DAY))  # one deadline passes: a default is taken for the seat
    assert clock_row(game.game_id, seat)["consecutive_timeouts"] == 1
    snap = services.snapshot(game.game_id)
    while seat not in snap.view(None)["to_act"]:  # the others play until it is the seat's turn
        other = snap.view(None)["to_act"][0]
        services.submit_action(game.game_id, other, engine.legal_actions(snap.state, other)[0],
                               snap.seq)
        snap = services.snapshot(game.game_id)
    answer = post(client, game.tokens[seat], engine.legal_actions(snap.state, seat)[0], snap.seq)
    assert answer.status_code == 200, answer.get_json()
    assert clock_row(game.game_id, seat)["consecutive_timeouts"] == 0
    assert clock_row(game.game_id, seat)["absent"] is False


def test_a_seat_row_changed_in_a_move_reads_back_at_once_and_lands_in_one_write(new_game,
                                                                              app):
    game = new_game(seats=2)
    with unit_of_work() as unit:
        row = seat_prefs.mail_row(unit, game.game_id, 1)
        assert isinstance(row, Row), "read as values: no ORM object of it"
        unit.update(row, last_acted_step=41)
        unit.update(row, talk_mode="never")  # the same row again: merged
        assert seat_prefs.mail_row(unit, game.game_id, 1).last_acted_step == 41
        assert not unit.session.identity_map, "nothing of the move's rows is an ORM object"
        sent = statements_sent(app, unit.write)
        assert len(sent) == 1, sent
    with read_session() as session:
        stored = session.exec(select(SeatMail).where(SeatMail.game_id == game.game_id,
                                                     SeatMail.seat == 1)).one()
        assert (stored.last_acted_step, stored.talk_mode) == (41, "never")
