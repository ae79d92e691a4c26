"""Repeated notices collapse into one sentence with a count (issue 33), seen by the seat
that was away.

Ann stops playing at the start of a game with Bob; after two missed deadlines she is away
and the clock plays each of her turns at once, to the end of the game. Measured before: her
game-over page showed 23 identical "You were away: your turn was passed for you." boxes
above the result. Now her page says each thing the clock did for her once, with how often.
"""
from __future__ import annotations

import html
import random
import re
from datetime import timedelta

from app import engine, services
from app.clock import deadlines as dl
from app.mail.view_words import counted

from .conftest import T0

ANN, BOB = "ann@example.com", "bob@example.com"


def test_a_seat_away_to_the_end_reads_each_passed_turn_once_with_a_count(app, client, tick):
    with dl.at(T0):
        created = services.create_game([{"name": "Ann", "email": ANN},
                                        {"name": "Bob", "email": BOB}],
                                       {"deadline_hours": 4, "absent_after": 2},
                                       name="Empty chair", seed="33")
    gid, rng, now = created.game_id, random.Random(33), T0
    for _ in range(500):
        tick(now)
        snap = services.snapshot(gid)
        if snap.game.status != "running":
            break
        while 1 in (snap := services.snapshot(gid)).view(None)["to_act"]:  # Bob, at once
            with dl.at(now):
                services.submit_action(gid, 1, rng.choice(engine.legal_actions(snap.state, 1)),
                                       snap.seq)
        now += timedelta(hours=1)
    assert services.snapshot(gid).view(None)["phase"] == "over"

    page = " ".join(html.unescape(client.get(f"/play/{created.tokens[0]}")
                                  .get_data(as_text=True)).split())
    passed = re.findall(r"You were away: your turn was passed for you(?: \((\d+) times\))?\.",
                        page)
    assert len(passed) == 1, passed                          # one sentence...
    assert int(passed[0]) >= 5, passed                        # ...that counts them


def test_counted_keeps_the_first_order_and_leaves_single_sentences_alone():
    lines = ["Time ran out: your turn was passed for you.",
             "You were away: your turn was passed for you.",
             "You were away: your 7 Ghost was discarded for you.",
             "You were away: your turn was passed for you."]
    assert counted(lines) == [
        "Time ran out: your turn was passed for you.",
        "You were away: your turn was passed for you (2 times).",
        "You were away: your 7 Ghost was discarded for you."]
