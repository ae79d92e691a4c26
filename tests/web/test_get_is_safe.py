"""GET never changes anything: mail scanners and link previews open links first.

The test walks every GET route of the app (so a new route is covered the day
it is added), with valid and invalid parameters, on a running game, a
finished one and a replaced link, and compares every row of every table.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable

import pytest
import sqlmodel

from app import services
from tests.conftest import PEOPLE, random_move

QUERIES = ["?from=0&to=4", "?step=3", "?step=abc", "?reveal=1&to=2", "?open=1&to=2", "?token=garbage"]


@pytest.fixture
def games(app) -> dict[str, Any]:
    """A running game some moves in, a finished game of bots, a replaced link."""
    players = [{"name": name, "email": email} for name, email in PEOPLE[:3]]
    running = services.create_game(players, {"memory": True}, seed="3")
    snap, rng = running.snapshot, random.Random(3)
    for _ in range(10):
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(running.game_id, seat, action, snap.seq).snapshot
    over = services.create_game([{"name": "R1", "kind": "bot"}, {"name": "R2", "kind": "bot"}],
                                seed="4")
    assert over.snapshot.game.status == "over"
    old_link = running.tokens[2]
    services.rotate_link(running.game_id, 2)
    # a settings link mailed to the first person, and a change made with it (issue 45)
    from app.db import write_session
    from app.db.unit import unit_of_work
    from app.people import keys
    from app.services import person_settings

    with unit_of_work() as unit:
        key_token = keys.token_of(keys.issue(unit, PEOPLE[0][1], keys.ASKED_ON_SEAT,
                                             running.snapshot.game.created))
        unit.write()
    person_settings.save(PEOPLE[0][1], person_settings.check({"time_zone": "Europe/Paris"}),
                         "settings")
    with write_session() as session:
        change = session.exec(sqlmodel.select(keys.PersonChange)).one()
        undo_token = keys.undo_token(change)
    return {"running": running, "over": over, "revoked": old_link, "settings": key_token,
            "undo": undo_token}


def argument_values(games: dict[str, Any]) -> dict[str, list[Callable[[str], str]]]:
    """For each URL argument name: ways to fill it (valid ones and wrong ones).

    A token argument gets seat links, and also the kind of token the route
    itself expects (the lobby's creator link, a mail's unsubscribe link).
    """
    from app.access import unsubscribe
    from app.mail import invitations
    from app.web import lobby

    running, over = games["running"], games["over"]
    own_kind = {
        "lobby.links": lambda: lobby.creator_token(running.game_id),
        "mail.unsubscribe_form": lambda: unsubscribe.unsubscribe_token(running.game_id, 0),
        # an invitation's "no more invitations" link (issue 17 item 7)
        "mail.invitations_form": lambda: invitations.guard_token(PEOPLE[0][1], running.game_id, 0),
        # undoing one person-wide change (issue 45)
        "person.undo_show": lambda: games["undo"],
    }
    seat_tokens = [*running.tokens[:2], over.tokens[0], games["revoked"], "garbage"]
    return {
        "token": [lambda endpoint, t=t: t for t in seat_tokens] + [
            lambda endpoint: own_kind.get(endpoint, lambda: running.tokens[0])()],
        "game_id": [lambda endpoint, g=g: g for g in (running.game_id, over.game_id, "nope")],
        "filename": [lambda endpoint, f=f: f for f in ("style.css", "replay.js", "missing.css")],
        # a settings link (issue 45): a live one, a seat link (another purpose), garbage
        "key": [lambda endpoint, k=k: k for k in (games["settings"], running.tokens[0], "garbage")],
        "name": [lambda endpoint, n=n: n for n in mailbox_names() + ["000000001-nope.eml", "x"]],
        # a person's standing page (issue 47): someone of the ended game, and nobody
        "public_id": [lambda endpoint, p=p: p for p in (*public_ids(), "nobody")],
    }


def public_ids() -> list[str]:
    """The public ids of the people whose game ended above (issue 47)."""
    import sqlalchemy as sa

    from app.db import get_engine
    from app.standing.models import Standing

    with get_engine().connect() as connection:
        return [str(p) for p in connection.execute(sa.select(Standing.__table__.c.public_id))]


def mailbox_names() -> list[str]:
    """Mails the games above left in the file mailbox (if the file backend is on)."""
    from flask import current_app

    instance = current_app.config.get("INSTANCE_PATH") or current_app.instance_path
    folder = Path(current_app.config.get("MAIL_DIR") or Path(instance) / "mail")
    return sorted(p.name for p in folder.glob("*.eml"))[:3] if folder.is_dir() else []


def test_every_get_route_leaves_every_table_unchanged(app, client, db, games):
    app.config["DEBUG"] = True  # the dev mailbox routes answer only in debug mode
    fillers = argument_values(games)
    before = db.dump()
    assert before["action"], "the check needs a log to protect"
    walked = 0
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods:
            continue
        unknown = set(rule.arguments) - set(fillers)
        assert not unknown, f"teach this test how to fill {unknown} of {rule.rule}"
        combos = [{}]
        for name in sorted(rule.arguments):
            combos = [dict(c, **{name: fill(rule.endpoint)}) for c in combos
                      for fill in fillers[name]]
        for values in combos:
            path = rule.rule
            for name, value in values.items():
                path = path.replace(f"<{name}>", value).replace(f"<path:{name}>", value)
            extra = [f"?token={games['running'].tokens[1]}",
                     f"?token={games['over'].tokens[1]}&open=1&reveal=1"]
            # /readyz answers 503 by design while no clock has beaten (issue 17 item 1)
            worst = 503 if rule.endpoint == "health.readyz" else 499
            assert client.head(path).status_code <= worst, path
            for query in QUERIES + extra:
                answer = client.get(path + query)
                assert answer.status_code <= worst, (path + query, answer.status_code)
                walked += 1
    assert walked > 100
    assert db.dump() == before


def test_a_read_session_cannot_write(app, db):
    """What GETs read through: a write in it never lands. On PostgreSQL it runs
    without a transaction (autocommit: no BEGIN, no ROLLBACK), so a statement
    that is not a SELECT is refused before it is sent; on SQLite it is a
    transaction that is always rolled back."""
    from app.gamelog import store
    from app.db import WriteInReadSession, get_engine, read_session

    postgres = get_engine(app).dialect.name == "postgresql"
    try:
        with read_session() as session:
            session.add(store.UsedFormToken(id="written-in-a-read"))
            session.flush()
        assert not postgres, "PostgreSQL must refuse the write"
    except WriteInReadSession:
        assert postgres
    assert db.count("used_form_token") == 0
    with read_session() as session:  # and the connection reads again afterwards
        assert session.get(store.UsedFormToken, "written-in-a-read") is None
