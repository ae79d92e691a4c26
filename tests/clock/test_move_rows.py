"""A move reads its seats' mail and clock rows and its game as plain values
(``app.db.loaded.Stored``) and makes ORM objects of them only to change them through
the session. These scenarios check that every change still lands: the game's end
and its abandonment, a run of timeouts reset by the player's own move, a seat row
changed with its own UPDATE and then read again in the same transaction.
"""
from __future__ import annotations

import random

from sqlalchemy import inspect
from sqlmodel import select

from app.clock import deadlines as dl
from app import engine, services
from app.db import read_session, write_session
from app.db.loaded import Stored, loaded
from app.mail import notify
from app.mail.models import SeatMail
from tests.clock.conftest import T0, hours
from tests.conftest import random_move

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


def mail_rows_read_as_a_move_reads_them(session, game_id: str) -> None:
    """The game's seat mail rows held as values in this transaction, as a move's
    read leaves them (``gamelog._load_seats``), with no ORM object in the session."""
    values = [row.model_dump() for row in session.exec(
        select(SeatMail).where(SeatMail.game_id == game_id))]
    session.expunge_all()
    dl.remember_all(session, SeatMail, game_id, values)


def test_a_seat_row_written_with_its_own_update_reads_back_in_the_same_transaction(new_game):
    game = new_game(seats=2)
    with write_session() as session:
        mail_rows_read_as_a_move_reads_them(session, game.game_id)
        row = notify.mail_row(session, game.game_id, 1)
        assert isinstance(row, Stored), "read as values: no ORM object yet"
        dl.write_through(session, row, last_acted_step=41)
        assert notify.mail_row(session, game.game_id, 1).last_acted_step == 41
        as_object = notify.seat_mail(session, game.game_id, 1)  # for code that changes it
        assert isinstance(as_object, SeatMail) and as_object.last_acted_step == 41
        assert notify.mail_row(session, game.game_id, 1) is as_object
        as_object.time_zone = "Europe/Paris"  # changed through the session: flushed at commit
    with read_session() as session:
        stored = session.exec(select(SeatMail).where(SeatMail.game_id == game.game_id,
                                                     SeatMail.seat == 1)).one()
        assert (stored.last_acted_step, stored.time_zone) == (41, "Europe/Paris")


def test_an_object_made_of_read_values_is_the_one_the_session_holds(new_game):
    game = new_game(seats=2)
    with write_session() as session:
        held = session.exec(select(SeatMail).where(SeatMail.game_id == game.game_id,
                                                   SeatMail.seat == 0)).one()
        values = held.model_dump()
        assert loaded(session, SeatMail, values) is held, "the session's own object wins"
        session.expunge(held)
        made = loaded(session, SeatMail, values)
        assert made is not held and inspect(made).persistent and not session.dirty
        assert session.get(SeatMail, values["id"]) is made
        made.mode = "none"
    with read_session() as session:
        assert session.get(SeatMail, values["id"]).mode == "none"


def test_a_row_held_as_values_follows_the_object_made_of_it(new_game):
    """A hook may still hold a seat's row as values when another part of the move
    asks for its object: what either side writes, both see."""
    game = new_game(seats=2)
    with write_session() as session:
        mail_rows_read_as_a_move_reads_them(session, game.game_id)
        kept = notify.mail_row(session, game.game_id, 0)
        as_object = notify.seat_mail(session, game.game_id, 0)
        dl.write_through(session, kept, unsent_mail_id=None, last_acted_step=12)
        assert as_object.last_acted_step == 12 and not session.dirty
        as_object.mode = "digest"
        assert kept.mode == "digest"
