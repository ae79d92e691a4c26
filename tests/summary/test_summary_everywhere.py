"""Rounds explained in the mail, on the seat page and in the replay (issue 7, item 3).

The stacked-deck scenarios of ``tests/summary/scenarios.py`` are played through
the server; the round-end mail (text and HTML), each seat's page and the
replay's scoring frame must each say what counted, the sums, the +10 of a
failed call, ties and who takes the silver eye and why.
"""
from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass

import pytest
from sqlmodel import select

from app import services
from app.db import read_session
from app.mail.models import Outbox
from tests.summary import scenarios as S

#: What each scenario's summary must say (sentences of app.engine.summary).
SAYS = {
    "failed call": [
        "Ann called but Bob had a lower sum (16 against 28), so Ann scores 28 + 10 = 38.",
        "Fewest points this round: Bob with 16.",
        "Bob takes the silver eye, closed: the fewest points this round.",
        "28 + 10 = 38 (a failed call)", "total 38",
    ],
    "tie for fewest": [
        "Bob and Cid tie for the fewest points this round, with 20.",
        "Bob takes the silver eye, closed: of the tied players, the first clockwise from the "
        "left of the start player, Ann.",
        "46 + 10 = 56 (a failed call)",
    ],
    "nelly tuck": [
        "Ann tucked a Nelly under Bob's 12 Drunk.",
        "a Nelly is tucked under it: -12", "facedown at scoring: -1",
        "Ann called and had the lowest sum: 8 against 10, so Ann scores 0.",
    ],
    "mad bomber": [
        "Ann's Mad Bomber removed 13 Mad Bomber and 12 Drunk.",
        "Ann called and had the lowest sum: 6 against 24, so Ann scores 0.",
    ],
    "illusionist caller": [
        "faceup at scoring: minus the 29 cards left in the deck",
        "Ann takes the silver eye open: a successful call with the fewest points. Next "
        "round Ann may search the deck once instead of drawing.",
    ],
}


def words(markup: str) -> str:
    """A page or HTML mail as a reader sees it: tags gone, entities decoded, spaces collapsed."""
    text = re.sub(r"<style.*?</style>", " ", markup, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def flat(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Mail:
    seat: int
    text: str
    html: str


def mails(game_id: str, kind: str) -> list[Mail]:
    """The outbox rows of one kind for a game ("round": round end, "over": game over)."""
    with read_session() as session:
        return [Mail(row.seat, row.text, row.html or "") for row in session.exec(
            select(Outbox).where(Outbox.game_id == game_id, Outbox.kind == kind))]


def says_all(body: str, scenario: S.Scenario) -> None:
    for sentence in SAYS[scenario.name]:
        assert flat(sentence) in body, f"{scenario.name}: missing {sentence!r}"


@pytest.mark.parametrize("scenario", S.ALL, ids=lambda s: s.name)
def test_the_round_end_mail_explains_the_round_to_every_seat(stacked, scenario):
    played = stacked(scenario)
    sent = mails(played.game_id, "round")
    assert sorted(m.seat for m in sent) == list(range(scenario.seats)), "one per seat"
    for mail in sent:
        says_all(flat(mail.text), scenario)
        says_all(words(mail.html), scenario)
        assert "Round 1: how it was scored" in mail.text


@pytest.mark.parametrize("scenario", S.ALL, ids=lambda s: s.name)
def test_the_seat_page_shows_the_summary_until_the_seat_moves_in_the_next_round(
        stacked, client, scenario):
    played = stacked(scenario)
    for seat in range(scenario.seats):
        page = client.get(f"/play/{played.tokens[seat]}")
        assert page.status_code == 200
        body = words(page.get_data(as_text=True))
        assert "Round 1: how it was scored" in body
        says_all(body, scenario)
    # Seat 0 moves in round 2 (its peek): its page drops the summary, the others keep it.
    snap = services.snapshot(played.game_id)
    services.submit_action(played.game_id, 0, {"type": "peek", "positions": [0, 1]}, snap.seq)
    assert "how it was scored" not in words(client.get(f"/play/{played.tokens[0]}").get_data(as_text=True))
    assert "how it was scored" in words(client.get(f"/play/{played.tokens[1]}").get_data(as_text=True))


@pytest.mark.parametrize("scenario", S.ALL, ids=lambda s: s.name)
def test_the_replay_has_a_scoring_frame_for_the_round(stacked, client, scenario):
    played = stacked(scenario)
    base = f"/games/{played.game_id}/replay"
    first = client.get(base).get_data(as_text=True)
    assert f"step={played.scored_at}" in first and "Round 1 scoring" in words(first)
    frame = words(client.get(f"{base}?step={played.scored_at}").get_data(as_text=True))
    says_all(frame, scenario)
    before = words(client.get(f"{base}?step={played.scored_at - 1}").get_data(as_text=True))
    assert "how it was scored" not in before, "only the scoring step's frame explains it"
    own = client.get(f"{base}?step={played.scored_at}&token={played.tokens[1]}")
    says_all(words(own.get_data(as_text=True)), scenario)


def test_dismissing_hides_the_summary_for_that_seat_only(stacked, client, db):
    played = stacked(S.NELLY_TUCK)
    page = client.get(f"/play/{played.tokens[0]}").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    path = f"/play/{played.tokens[0]}/summary/dismiss"
    answer = client.post(path, data={"csrf_token": csrf, "round": "1"})
    assert answer.status_code == 303
    assert "how it was scored" not in words(client.get(f"/play/{played.tokens[0]}").get_data(as_text=True))
    assert "how it was scored" in words(client.get(f"/play/{played.tokens[1]}").get_data(as_text=True))
    assert db.count("seat", summary_dismissed=1) == 1


@pytest.mark.parametrize("data, status", [
    ({"round": "1"}, 403),                              # no CSRF token
    ({"round": "1", "csrf_token": "forged"}, 403),
    ({"round": "five"}, 400), ({"round": "0"}, 400), ({"round": "9"}, 400), ({}, 400),
])
def test_a_bad_dismiss_gets_a_clear_answer_and_changes_nothing(stacked, client, db, data, status):
    played = stacked(S.FAILED_CALL)
    page = client.get(f"/play/{played.tokens[0]}").get_data(as_text=True)
    if "csrf_token" not in data and status == 400:
        data = {**data, "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)}
    before = db.dump()
    answer = client.post(f"/play/{played.tokens[0]}/summary/dismiss", data=data)
    assert answer.status_code == status
    assert "round" in answer.get_data(as_text=True).lower() or status == 403
    assert db.dump() == before
    assert client.get(f"/play/{played.tokens[0]}/summary/dismiss").status_code == 405


def test_the_game_over_mail_explains_the_last_round_and_the_winner(stacked, client):
    played = stacked(S.ILLUSIONIST_CALLER)
    rng = random.Random(5)
    while True:
        snap = services.snapshot(played.game_id)
        view = snap.view(None)
        if view["phase"] == "over":
            break
        seat = view["to_act"][0]
        services.submit_action(played.game_id, seat, rng.choice(snap.view(seat)["legal_actions"]),
                               snap.seq)
    winner = ["Ann", "Bob"][view["winner"]]
    over = mails(played.game_id, "over")
    assert len(over) == 2
    for mail in over:
        for body in (flat(mail.text), words(mail.html)):
            assert "Round 4: how it was scored" in body
            r28 = re.search(r"[^.;]*;?[^.;]*wins the game[^.]*\.", body).group(0)  # R28
            assert not re.search(r"\(R\d+\)", body), "a player reads no rule ids"
            assert winner in r28.split("wins the game")[0].split(";")[-1], r28
            assert str(view["totals"][view["winner"]]) in r28
            assert "Next round" not in body.split("Round 4: how it was scored")[1]
    page = words(client.get(f"/play/{played.tokens[0]}").get_data(as_text=True))
    assert "Round 4: how it was scored" in page and "wins the game" in page
    assert not re.search(r"\(R\d+\)", page)
