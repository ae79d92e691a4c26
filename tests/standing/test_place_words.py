"""The end of a game reads like one (issue 51 item 4): the reader's place comes first, in
the game-over mail's inbox line and on the seat page, in R54's places: "You finished
second of three (135 points)."; a shared place says tied, the winner's tie is broken by
R28, a resigned seat is last (R48); no rule id is printed."""
from __future__ import annotations

import random
import re
from typing import Any

from app.standing.outcome import place_words
from tests.people.conftest import play_out
from tests.person_keys import mails


def over(ranking: list[int], totals: list[int], resigned: list[int] = ()) -> dict[str, Any]:
    return {"ranking": ranking, "totals": totals, "resigned": list(resigned)}


def test_each_place_in_words() -> None:
    view = over([1, 0, 2], [135, 98, 170])
    assert place_words(view, 1) == "You won: first of three (98 points)."
    assert place_words(view, 0) == "You finished second of three (135 points)."
    assert place_words(view, 2) == "You finished third of three (170 points)."


def test_a_shared_place_says_tied_and_the_winners_tie_is_broken() -> None:
    view = over([2, 0, 1, 3], [60, 60, 60, 90])  # R28 gave seat 2 the win among equals
    assert place_words(view, 2) == "You won: first of four (60 points)."
    assert place_words(view, 0) == "You finished second of four, tied (60 points)."
    assert place_words(view, 1) == "You finished second of four, tied (60 points)."
    assert place_words(view, 3) == "You finished fourth of four (90 points)."


def test_a_resigned_seat_is_last_and_says_why() -> None:
    view = over([0, 2, 1], [40, 10, 70], resigned=[1])
    assert place_words(view, 1) == "You resigned, so you finished last: third of three (10 points)."


def test_nothing_while_the_game_runs() -> None:
    assert place_words({"ranking": None, "totals": [0, 0]}, 0) is None


def test_the_mail_and_the_page_open_with_the_place(client: Any, new_game: Any) -> None:
    game = new_game(seats=3)
    play_out(game.game_id, random.Random(5))
    for seat in range(3):
        mail = mails("over")[seat]
        first = mail.text.split("\n\n", 1)[0]
        assert re.match(r"The game is over: you (won|finished|resigned)", first), first
        page = client.get(f"/play/{game.tokens[mail.seat]}").get_data(as_text=True)
        h1 = re.search(r'<h1 class="turn">([^<]+)</h1>', page).group(1)
        said = first.split("The game is over: ", 1)[1]
        assert h1 == said[0].upper() + said[1:], (h1, first)
        assert not re.search(r"\(R\d+\)", mail.text + page)
