"""Where people see standing (issue 47 item 4), read as a stranger would: the person page,
the leaderboard and their JSON never show an address; a person who hides their standing
shows only their tier; tablemates see each other's line on the seat page."""
from __future__ import annotations

import random

from app.standing import record

from tests.person_keys import mails, settings_link

from .conftest import play_out, standing_of

ADDRESSES = ["ann@example.com", "bob@example.com", "cid@example.com", "dee@example.com"]


def played_rated(new_game, games: int = 1, seats: int = 4) -> list:
    made = []
    for n in range(games):
        game = new_game(seats=seats, rated=True, seed=str(700 + n))
        play_out(game.game_id, random.Random(n))
        made.append(game)
    return made


def no_address_in(text: str) -> None:
    for address in ADDRESSES:
        assert address not in text
        assert address.split("@")[0] + "@" not in text
    assert "example.com" not in text


def test_a_stranger_reads_the_person_page_and_the_leaderboard_without_an_address(
        client, new_game):
    played_rated(new_game, games=3)
    ann = standing_of(ADDRESSES[0])
    page = client.get(f"/people/{ann.public_id}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    no_address_in(text)
    assert "Finished 3 of their last 3 games" in text and "provisional" in text
    data = client.get(f"/api/people/{ann.public_id}").get_json()
    no_address_in(str(data))
    assert data["name"] == "Ann" and data["tier"] == record.RELIABLE
    assert data["rated_games"] == 3 and len(data["games"]) == 3
    assert all(g["rating"] is not None for g in data["games"])
    board = client.get("/api/leaderboard").get_json()
    assert [p["rated_games"] for p in board["people"]] == [3, 3, 3, 3]
    assert sorted(p["name"] for p in board["people"]) == ["Ann", "Bob", "Cid", "Dee"]
    assert [p["rating"] for p in board["people"]] == sorted(
        (p["rating"] for p in board["people"]), reverse=True)
    no_address_in(str(board))
    leaderboard = client.get("/leaderboard").get_data(as_text=True)
    no_address_in(leaderboard)
    assert "Ann" in leaderboard


def test_an_unknown_or_malformed_id_is_a_plain_not_found(client):
    assert client.get("/people/nobody-here").status_code == 404
    assert client.get("/api/people/%3Cscript%3E").status_code == 404
    assert client.get("/api/people/" + "x" * 200).status_code == 404


def test_ann_hides_her_standing_and_strangers_see_only_her_tier(app, client, new_game):
    (game,) = played_rated(new_game)
    ann = standing_of(ADDRESSES[0])
    key = settings_link(client, game.tokens[0], ADDRESSES[0])
    assert client.post(key, data={"standing": "hide"}).status_code in (200, 303)
    data = client.get(f"/api/people/{ann.public_id}").get_json()
    assert data["hidden"] is True and data["tier"] == record.NEW
    assert set(data) == {"public_id", "name", "hidden", "tier", "record"}
    assert "rating" not in data and "games" not in data
    assert all(p["public_id"] != ann.public_id
               for p in client.get("/api/leaderboard").get_json()["people"])


def test_a_seat_link_cannot_hide_its_persons_standing(client, new_game):
    """Bob holds one seat link of Ann's (a forwarded mail): a person-wide choice is not
    its to make (issue 45: one key, one door)."""
    (game,) = played_rated(new_game)
    answer = client.post(f"/play/{game.tokens[0]}/settings", data={"standing": "hide"})
    assert answer.status_code in (400, 403)
    assert client.get(f"/api/people/{standing_of(ADDRESSES[0]).public_id}").get_json()[
        "hidden"] is False


def test_tablemates_see_each_others_line_on_the_seat_page(client, new_game):
    played_rated(new_game, games=3, seats=2)
    game = new_game(seats=2)
    page = client.get(f"/play/{game.tokens[0]}").get_data(as_text=True)
    assert "Finished 3 of their last 3 games" in page
    assert f"/people/{standing_of(ADDRESSES[1]).public_id}" in page
    table = client.get(f"/api/play/{game.tokens[0]}/table").get_json()
    assert str(table).count("Finished 3 of their last 3 games") >= 2


def test_game_over_shows_each_persons_rating_change_on_the_page_and_in_the_mail(
        client, new_game, mailbox):
    (game,) = played_rated(new_game, seats=2)
    page = client.get(f"/play/{game.tokens[0]}").get_data(as_text=True)
    rows = results_of(game.game_id)
    for row in rows:
        assert f"→ {shown(row)}" in page
    (over,) = mails("over", to=ADDRESSES[0])
    mine = next(r for r in rows if r.seat == 0)
    assert f"Your rating moved from a fresh rating of 1500 to {shown(mine)}, still " \
           "provisional after 1 rated game" in over.text
    assert "Your rating moved" in (over.html or "")


def results_of(game_id: str) -> list:
    from .conftest import results
    return results(game_id)


def shown(row) -> int:
    from app.standing.rating import Skill
    return Skill(row.mu_after, row.sigma_after).shown
