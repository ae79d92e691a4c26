"""A game's thread survives a change of language (issue 50 item 5).

Gmail and Outlook thread a game's mail by its subject. Ann reads German; halfway through
the game she switches to Japanese: every mail of the game to her, before and after,
has one subject, so her mail client keeps one conversation. The subject carries the
brand, the game's name and its id, and no word of any language.
"""
from __future__ import annotations

import random

from app import engine, services
from app.clock import deadlines as dl
from tests.person_keys import settings_link

from .conftest import T0, hours

ANN, BOB = "ann@example.com", "bob@example.com"


def play(game_id: str, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        snap = services.snapshot(game_id)
        seat = rng.choice(snap.view(None)["to_act"])
        services.submit_action(game_id, seat,
                               rng.choice(engine.legal_actions(snap.state, seat)), snap.seq)


def test_ann_changes_language_mid_game_and_keeps_one_thread(app, client, tick, mailbox):
    with dl.at(T0):  # Ann chose German in an earlier game of hers
        earlier = services.create_game([{"name": "Ann", "email": ANN},
                                        {"name": "Bob", "email": BOB}], {}, name="Before")
        key = settings_link(client, earlier.tokens[0], ANN)
        assert client.post(key, data={"language": "de"}).status_code == 303
        game = services.create_game([{"name": "Ann", "email": ANN},
                                     {"name": "Bob", "email": BOB}], {}, name="Freitagsrunde",
                                    seed="50")
    tick(T0)
    rng = random.Random(50)
    with dl.at(T0):
        play(game.game_id, rng, 8)
    tick(T0 + hours(1))
    with dl.at(T0 + hours(1)):  # (a settings link is good for one sitting: a new one)
        key = settings_link(client, game.tokens[0], ANN)
        assert client.post(key, data={"language": "ja"}).status_code == 303
        play(game.game_id, rng, 40)
    tick(T0 + hours(2))
    game_mails = [m for m in mailbox.to(ANN) if game.game_id in str(m["Subject"])]
    langs = {str(m.get_body(("html",)).get_content()).split('<html lang="')[1][:2]
             for m in game_mails if m.get_body(("html",)) is not None}

    assert {"de", "ja"} <= langs, f"her mails were in {langs}: the change did not reach them"
    assert len({str(m["Subject"]) for m in game_mails}) == 1, \
        sorted({str(m["Subject"]) for m in game_mails})
