"""A person chooses the name they are shown by (issue 46 item 1's check: one person-wide
setting added the way docs/architecture.md says — a ``Field`` in app/people/settings.py,
the tenures' rename, the template, this test).

Ann renames herself "Annie" with her mailed settings link: Bob's seat page, the
spectator page, the JSON and Bob's next turn mail say the new name; in a game where Ann
took over Kenji's seat, what Kenji did is still his; a game someone makes for her later
shows "Annie"; the change is mailed with its undo, which gives each game its own name
back; a name another player at one of her tables goes by is refused in words.
"""
from __future__ import annotations

import html
import random

from app import engine, services
from app.clock import deadlines as dl
from app.db.unit import unit_of_work
from app.services import leaving
from tests.person_keys import settings_link, undo_link

from .conftest import T0, hours, some_moves

ANN, BOB, KENJI = "ann@example.com", "bob@example.com", "kenji@example.com"


def make(people: list[tuple[str, str]], **options: object) -> services.Created:
    with dl.at(T0):
        return services.create_game([{"name": n, "email": a} for n, a in people],
                                    dict(options), name="Friday table", seed="46")


def page(client, token: str) -> str:
    return html.unescape(client.get(f"/play/{token}").get_data(as_text=True))


def test_ann_renames_herself_and_every_table_of_hers_says_it(app, client, tick, mailbox):
    game = make([("Ann", ANN), ("Bob", BOB)], first=1)
    tick(T0)  # the invitations leave (written with the names of their time)
    invited = len(mailbox.to(BOB))
    with dl.at(T0):
        key = settings_link(client, game.tokens[0], ANN)
        saved = client.post(key, data={"name": "Annie"}, follow_redirects=True)
    assert "shown as Annie at your tables" in html.unescape(saved.get_data(as_text=True))
    assert "Annie" in page(client, game.tokens[1]), "Bob's page"
    assert "Annie" in html.unescape(client.get(f"/games/{game.game_id}").get_data(as_text=True))
    assert client.get(f"/api/play/{game.tokens[1]}").get_json()["game"]["names"][0] == "Annie"
    rng, last = random.Random(46), None
    with dl.at(T0):  # play on until Bob waits on his turn after a move of Annie's
        for _ in range(60):
            snap = services.snapshot(game.game_id)
            to_act = snap.view(None)["to_act"]
            if last == 0 and to_act == [1] and snap.seq >= 4:
                break
            seat = rng.choice(to_act)
            services.submit_action(game.game_id, seat,
                                   rng.choice(engine.legal_actions(snap.state, seat)), snap.seq)
            last = seat
    tick(T0 + hours(1))
    bobs = [m.get_body(("plain",)).get_content() for m in mailbox.to(BOB)][invited:]
    assert bobs and any("Annie" in text for text in bobs), "Bob's mails after the change"
    later = make([("Bob", BOB), ("Ann", ANN)])
    assert services.game_info(later.game_id).names == ["Bob", "Annie"], \
        "a game made for her later shows the name she chose"


def test_the_undo_gives_each_game_its_own_name_back(app, client):
    one = make([("Ann", ANN), ("Bob", BOB)])
    two = make([("Ana", ANN), ("Bob", BOB)])
    with dl.at(T0):
        key = settings_link(client, one.tokens[0], ANN)
        assert client.post(key, data={"name": "Annie"}).status_code == 303
    assert [services.game_info(g.game_id).names[0] for g in (one, two)] == ["Annie", "Annie"]
    with dl.at(T0 + hours(1)):
        assert client.post(undo_link(ANN)).status_code == 200
    assert [services.game_info(g.game_id).names[0] for g in (one, two)] == ["Ann", "Ana"]


def test_a_name_another_player_at_her_tables_goes_by_is_refused_and_nothing_changes(
        app, client):
    game = make([("Ann", ANN), ("Bob", BOB)])
    with dl.at(T0):
        key = settings_link(client, game.tokens[0], ANN)
        refused = client.post(key, data={"name": "bob", "time_zone": "Europe/Paris"})
    assert refused.status_code == 400
    assert "bob is the name of another player in Friday table" in \
        html.unescape(refused.get_data(as_text=True))
    assert services.game_info(game.game_id).names == ["Ann", "Bob"]
    from app.db import read_session
    from app.services import person_settings
    with read_session() as session:
        person = person_settings.find(session, ANN)
        assert person is None or person.time_zone is None, "nothing of the change was stored"


def test_R53_what_kenji_did_at_the_seat_ann_took_over_stays_his(app, client):
    game = make([("Kenji", KENJI), ("Bob", BOB)], first=0)
    with dl.at(T0):
        some_moves(game.game_id, 4, random.Random(7))
        with unit_of_work() as unit:
            leaving.hand_over(unit, game.game_id, 0, "Ann", ANN, T0 + hours(1))
            unit.write()
    ann = services.seat_tokens(game.game_id)[0]
    with dl.at(T0 + hours(2)):
        key = settings_link(client, ann, ANN)
        assert client.post(key, data={"name": "Annie"}).status_code == 303
    replay = client.get(f"/api/games/{game.game_id}/replay?token={services.seat_tokens(game.game_id)[1]}").get_json()
    words = " ".join(" ".join(frame["text"]) for frame in replay["frames"])
    assert "Kenji" in words, "Kenji's stretch keeps his name"
    assert services.game_info(game.game_id).names[0] == "Annie"
