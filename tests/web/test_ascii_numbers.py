"""Numbers a person types are read in the digits 0-9 only (issue 45 item 6): Python's
``int`` and ``float`` take "３", "٣" and "２"; ``str.isdigit`` says yes to "²", which
``int`` then refuses with its own words (a 500). Each such field refuses them in words
and changes nothing."""
from __future__ import annotations

import re

from app.gamelog.states import engine_seed
from tests.web.test_pages import lobby_form

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_the_lobby_refuses_a_deadline_in_other_digits_and_makes_no_game(client, db):
    form = lobby_form([("Ann", "", "human"), ("Bob", "", "human")], client, deadline="２")
    answer = client.post("/", data=form)
    assert answer.status_code == 400
    assert "written with the digits 0-9" in answer.get_data(as_text=True)
    assert db.count("game") == 0


def test_vacation_days_and_a_round_to_hide_in_other_digits_are_refused_in_words(
        client, db, new_game):
    created = new_game(seats=2)
    token = created.tokens[0]
    csrf = CSRF.search(client.get(f"/play/{token}").get_data(as_text=True)).group(1)
    before = db.dump()
    for days in ("３", "٣", "²", "1e3"):
        answer = client.post(f"/play/{token}/vacation", data={"csrf_token": csrf, "days": days})
        assert answer.status_code == 400, days
        assert "digits 0-9" in answer.get_data(as_text=True)
    for round_ in ("²", "１"):
        answer = client.post(f"/play/{token}/summary/dismiss",
                             data={"csrf_token": csrf, "round": round_})
        assert answer.status_code == 400, round_
    assert db.dump() == before


def test_a_seed_of_other_digits_is_a_word_seed_not_a_crash():
    assert engine_seed("12345") == 12345
    assert engine_seed("²") == "²" and engine_seed("١٢") == "١٢"
