"""Rematch (issue 21 item 6): at game over any seat offers one; everyone accepts (page,
JSON, or a reply by mail) or one declines. Accepted: the same seats and options, a new
seed, the next start player (R50); the new game links to the old, and both show the
series score."""
from __future__ import annotations

import random

import pytest
from sqlmodel import select

from app import engine, services
from app.clock import deadlines as dl
from app.db import read_session
from app.gamelog import states, store
from app.mail.models import Outbox
from app.table.models import Vote
from app.services import series, votes

from .conftest import T0, hours, leads, play_out, post, reply

ANN, BOB, CID = "ann@example.com", "bob@example.com", "cid@example.com"


def finished(new_game, seats: int = 3, **options) -> services.Created:
    with dl.at(T0):
        created = new_game(seats=seats, **options)
    play_out(created.game_id, random.Random(6), at=T0 + hours(1))
    return created


def first_player(game_id: str) -> int:
    with read_session() as session:
        game = session.get(store.Game, game_id)
        state = engine.new_game(game.seats, int(game.seed),
                                options=states.engine_options(game.options),
                                rules=game.rules_version)
    return engine.status(state)["start_player"]


def test_a_rematch_accepted_by_all_starts_with_the_same_seats_and_the_next_player(
        app, client, new_game, tick, mailbox):
    old = finished(new_game, deadline_hours=30, memory=True, reminders=[2])
    gid, tokens = old.game_id, old.tokens
    with dl.at(T0 + hours(2)):
        assert post(client, tokens[1], "/votes", kind="rematch").status_code == 303
    tick(T0 + hours(2))
    ask = [m for m in mailbox.to(ANN) if "offers a rematch" in m.get_body(("plain",))
           .get_content().splitlines()[0]]
    assert ask, leads(mailbox, ANN)
    assert "ACCEPT or DECLINE" in ask[0].get_body(("plain",)).get_content()
    # Ann accepts on her page, Cid by replying to the mail
    with dl.at(T0 + hours(3)):
        assert post(client, tokens[0], "/votes/1", answer="yes").status_code == 303
    assert services.game_info(gid).status == "over"
    to_cid = next(m for m in mailbox.to(CID) if "offers a rematch" in
                  m.get_body(("plain",)).get_content())
    status, outcome = reply(app, str(to_cid["Reply-To"]), CID, "ACCEPT", now=T0 + hours(3))
    assert outcome.startswith("voted yes"), outcome
    with read_session() as session:
        vote = session.exec(select(Vote)).one()
        session.expunge(vote)
        new = session.get(store.Game, vote.new_game_id)
        old_row = session.get(store.Game, gid)
        session.expunge_all()
        seats = [(s.name, s.email, s.kind) for s in store.load_seats(session, new.id)]
        old_seats = [(s.name, s.email, s.kind) for s in store.load_seats(session, gid)]
    assert vote.status == "passed"
    assert seats == old_seats
    assert new.seed != old_row.seed and new.rematch_of == gid
    assert (new.series_id, new.series_no) == (gid, 2)
    assert {k: v for k, v in new.options.items() if k != "first"} == \
        {k: v for k, v in old_row.options.items() if k != "first"}
    assert first_player(new.id) == (first_player(gid) + 1) % 3
    tick(T0 + hours(3))
    for address in (ANN, BOB, CID):
        assert any(lead.startswith("Rematch of") for lead in leads(mailbox, address)), address
    # both games show the series score and link to each other
    score = series.series_score(new.id)
    assert score is not None and [g["id"] for g in score.games] == [gid, new.id]
    assert sum(score.wins) == 1 and sum(score.rounds) >= 4
    old_table = client.get(f"/api/play/{tokens[0]}/table").get_json()
    assert old_table["rematch"]["game_id"] == new.id and old_table["series"]["wins"] == score.wins
    new_token = services.seat_tokens(new.id)[0]
    new_page = client.get(f"/play/{new_token}").get_data(as_text=True)
    assert "The series" in new_page
    old_page = client.get(f"/play/{tokens[0]}").get_data(as_text=True)
    assert "Open your seat in the rematch" in old_page
    again = client.post(f"/api/play/{tokens[2]}/votes", json={"kind": "rematch"})
    assert again.status_code == 409 and "started already" in again.get_json()["message"]


def test_a_rematch_declined_by_one_creates_no_game(client, new_game, tick, mailbox):
    old = finished(new_game, seats=2)
    before = services.game_info(old.game_id)
    votes.start(old.game_id, 0, "rematch", now=T0 + hours(2))
    with dl.at(T0 + hours(2)):
        declined = client.post(f"/api/play/{old.tokens[1]}/votes/1", json={"yes": False})
    assert declined.status_code == 200
    with read_session() as session:
        assert len(session.exec(select(store.Game)).all()) == 1
        vote = session.exec(select(Vote)).one()
        session.expunge(vote)
    assert (vote.status, vote.outcome, vote.new_game_id) == ("failed", "Bob declined.", None)
    tick(T0 + hours(3))
    assert any("offers a rematch: failed" in lead for lead in leads(mailbox, ANN))
    assert services.game_info(old.game_id) == before


def test_a_rematch_is_offered_only_once_the_game_is_over(client, new_game):
    with dl.at(T0):
        created = new_game(seats=2)
    answer = client.post(f"/api/play/{created.tokens[0]}/votes", json={"kind": "rematch"})
    assert answer.status_code == 409 and "once the game is over" in answer.get_json()["message"]


@pytest.mark.slow  # three whole games
def test_a_series_of_three_counts_rounds_and_wins_across_its_games(new_game):
    """A rematch of a rematch stays in the first game's series; the score sums them."""
    old = finished(new_game, seats=2)
    ids = [old.game_id]
    for number in (2, 3):
        votes.start(ids[-1], 0, "rematch", now=T0 + hours(number))
        vote = votes.answer(ids[-1], 1, None, True, now=T0 + hours(number))
        ids.append(vote.new_game_id)
        play_out(ids[-1], random.Random(number), at=T0 + hours(number))
    score = series.series_score(ids[0])
    assert score is not None and [g["id"] for g in score.games] == ids
    assert [g["number"] for g in score.games] == [1, 2, 3]
    assert sum(score.wins) == 3
    assert sum(score.rounds) >= 12, "each round won by its lowest score (ties count each)"
    with read_session() as session:
        names = [session.get(store.Game, each).name for each in ids]
    assert names[1].endswith("· game 2") and names[2].endswith("· game 3")
    assert series.series_score(ids[1]).wins == score.wins
    with read_session() as session:
        assert session.exec(select(Outbox).where(Outbox.kind == "invitation")).all()
