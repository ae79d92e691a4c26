"""Acceptance: a whole 3-seat game played only by replying to turn mails over SMTP.

Each player reads the newest mail that has a menu, picks one of its
commands and replies to its Reply-To address through our SMTP receiver;
the clock applies the reply and mails what comes next. Afterwards the same
choices are made through the web API on a game with the same seed: both
logs are identical.
"""
from __future__ import annotations

import json
import random

import pytest
import sqlalchemy as sa

from app import services
from tests.conftest import PEOPLE
from tests.inbound.conftest import Player

SEED = "20261201"

pytestmark = pytest.mark.slow  # a whole game over real SMTP (make test-slow)


def _players(smtp) -> list[Player]:
    return [Player(name, address, smtp) for name, address in PEOPLE[:3]]


def _create(seed: str) -> services.Created:
    return services.create_game([{"name": n, "email": e, "kind": "human"}
                                 for n, e in PEOPLE[:3]], {}, name="By mail", seed=seed)


def _log(db, game_id: str) -> list[tuple[int, int, dict]]:
    """``(seq, seat, action)`` of a game's log, actions as plain dicts."""
    with db.engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT seq, seat, action FROM action WHERE game_id = :g "
                                    "ORDER BY seq"), {"g": game_id})
        return [(seq, seat, json.loads(action) if isinstance(action, str) else action)
                for seq, seat, action in rows]


def _inbox(db) -> list[tuple]:
    with db.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            "SELECT id, status, outcome, seat, step FROM inbox ORDER BY id"))]


def test_a_whole_game_played_by_replies_equals_the_same_choices_made_on_the_web(
        mail_app, smtp, inbound, deliver, client, db):
    created = _create(SEED)
    game_id = created.game_id
    players = _players(smtp)
    rng = random.Random(7)
    replies = 0
    deliver()
    for _ in range(3000):
        if services.game_info(game_id).status == "over":
            break
        waiting = [(p, m) for p in players if (m := p.waiting()) is not None]
        assert waiting, (f"nobody has a mail to answer, but the game is not over: "
                         f"{_inbox(db)} {services.snapshot(game_id).view(None)['to_act']}")
        player, mail = waiting[0]
        player.answer(inbound, mail, player.choose(mail, rng))
        replies += 1
        deliver()
    assert services.game_info(game_id).status == "over"

    mail_log = db.actions(game_id)
    assert mail_log and {source for _, _, source in mail_log} == {"mail"}
    assert replies >= len(mail_log)
    for player in players:  # everyone heard how it ended
        assert any("the game is over" in m.lead.lower() for m in player.mails())

    # the same choices, through the web, on a game dealt from the same seed
    web = _create(SEED)
    for seq, seat, action in _log(db, game_id):
        answer = client.post(f"/api/play/{web.tokens[seat]}/actions",
                             json={"action": action, "expected_seq": seq - 1})
        assert answer.status_code == 200, answer.get_json()
    assert _log(db, web.game_id) == _log(db, game_id)
    assert services.game_info(web.game_id).status == "over"
