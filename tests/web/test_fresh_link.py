"""Issue 9, item 6: /fresh-link does the same work for a matching and a non-matching
address before it answers, so its timing tells nobody whether an address plays.

The attack measured a matching address answering slower (the mail was built on
the request's path). Now the answer goes out first and the lookup and the mail
follow it; the test counts the database statements run before the answer (no
timing threshold: the same statements, in the same order, for every request).
"""
from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from app import services
from app.db import get_engine
from tests.conftest import PEOPLE


def test_matching_and_other_addresses_do_the_same_work_before_the_answer(app, client, db):
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    game = services.create_game(players, seed="5")
    old = game.tokens[1]
    services.rotate_link(game.game_id, 1)
    statements: list[str] = []
    before_answer: dict[str, list[str]] = {}

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    sa.event.listen(get_engine(app), "before_cursor_execute", record)

    @app.after_request
    def mark(response: Any) -> Any:
        before_answer[str(len(before_answer))] = list(statements)
        return response

    requests = {
        "matching address": {"game": game.game_id, "email": "bob@example.com"},
        "other address": {"game": game.game_id, "email": "eve@example.com"},
        "unknown game": {"game": "no-such-game", "email": "bob@example.com"},
        "replaced link": {"token": old},
    }
    answers, outbox = {}, {}
    try:
        for label, form in requests.items():
            statements.clear()
            answer = client.post("/fresh-link", data=form, buffered=True)
            answers[label] = (answer.status_code, answer.get_data(as_text=True))
            outbox[label] = db.count("outbox", kind="link")
    finally:
        sa.event.remove(get_engine(app), "before_cursor_execute", record)
    assert len({body for body in answers.values()}) == 1, "one answer for all"
    work = list(before_answer.values())
    assert all(w == work[0] for w in work), work
    # ...and the mail still went out after the answer, to the matching seat only.
    assert outbox == {"matching address": 1, "other address": 1, "unknown game": 1,
                      "replaced link": 1}, "the link mail rate limit holds the second back"
    with db.engine.connect() as conn:
        seats = conn.execute(sa.text("SELECT seat FROM outbox WHERE kind = 'link'")).scalars().all()
    assert seats == [1]
