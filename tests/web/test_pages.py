"""The pages people see: the lobby, the links page, a seat's page and its form, the public page.

Scenarios go through HTTP like a browser without JavaScript would: read the
page, pick a button, post its form. The small page readers at the top are
shared with the replay and leak tests.
"""
from __future__ import annotations

import html
import json
import random
import re
from dataclasses import dataclass
from typing import Any

import pytest

from app import engine, services
from app.engine import words
from app.web import view_helpers
from tests.conftest import random_move

# -- reading pages like a browser -------------------------------------------------

SEAT_LINK = re.compile(r'href="https?://[^"/]+(/play/[^"]+)"')
HIDDEN = re.compile(r'<input type="hidden" name="(csrf_token|expected_seq)" value="([^"]*)"')
BUTTON = re.compile(r'<button[^>]*name="action" value="([^"]*)"[^>]*>(.*?)</button>', re.S)
CARD_ID = re.compile(r'data-card="(\d+)"')
CHOICE = re.compile(r'<input type="hidden" name="choice" value="([a-z_]+)">')
PICK = re.compile(r'name="pick" value="([^"]+)"')


FORM_TOKEN = re.compile(r'<input type="hidden" name="form_token" value="([^"]+)"')


def lobby_token(client: Any) -> str:
    """The signed token of a freshly loaded lobby form, as a browser would post it back."""
    found = FORM_TOKEN.search(client.get("/").get_data(as_text=True))
    assert found, "the lobby form carries no token"
    return found.group(1)


def lobby_form(players: list[tuple[str, str, str]], client: Any = None, **extra: str) -> dict[str, str]:
    """The lobby form as a browser posts it: ``(name, email, kind)`` per filled seat.

    With ``client``, the form's token comes from the lobby page just loaded.
    """
    form = {"name": "Friday wolves", "deadline": "2", "deadline_unit": "days",
            "reminders": "half, 2", "absent_after": "3"}
    if client is not None:
        form["form_token"] = lobby_token(client)
    for i, (name, email, kind) in enumerate(players):
        form.update({f"seat{i}_name": name, f"seat{i}_email": email, f"seat{i}_kind": kind})
    form.update(extra)
    return form


def create_in_lobby(client: Any, players: list[tuple[str, str, str]], **extra: str) -> tuple[str, list[str]]:
    """Create a game through the lobby; returns the links page path and the seat paths of
    its people, in seat order: a seat without an address from the links page, a seat with
    one from its invitation mail (issue 45: the links page never shows those)."""
    answer = client.post("/", data=lobby_form(players, client, **extra))
    assert answer.status_code == 303, answer.get_data(as_text=True)
    links_page = answer.headers["Location"]
    page = client.get(links_page)
    assert page.status_code == 200
    shown = iter(SEAT_LINK.findall(page.get_data(as_text=True)))
    with client.application.app_context():
        from app.web import lobby
        mailed = invitation_links(lobby.read_creator_token(links_page.rsplit("/", 1)[1]).game_id)
    return links_page, [mailed[i] if email else next(shown)
                        for i, (_, email, kind) in enumerate(players) if kind == "human"]


#: A seat link in a mail's text.
MAILED_LINK = re.compile(r"https?://[^\s/]+(/play/[A-Za-z0-9_.\-]+)")


def invitation_links(game_id: str) -> dict[int, str]:
    """The seat link each invitation of a game carries, by seat (read from the outbox)."""
    from sqlmodel import select

    from app.db import read_session
    from app.mail.models import Outbox

    with read_session() as session:
        rows = session.exec(select(Outbox).where(Outbox.game_id == game_id,
                                                 Outbox.kind == "invitation")).all()
        found = {int(row.seat): MAILED_LINK.search(row.text) for row in rows
                 if row.seat is not None}
        return {seat: link.group(1) for seat, link in found.items() if link is not None}


@dataclass
class SeatPage:
    """A seat page as read from its HTML: the buttons it offers and its form fields."""

    text: str
    csrf: str | None
    expected_seq: int | None
    buttons: list[tuple[dict[str, Any], str]]
    #: The card decision of the page (its ``choice``) and the cards it lets a player tick.
    choice: str | None = None
    picks: tuple[str, ...] = ()

    @classmethod
    def read(cls, text: str) -> "SeatPage":
        hidden = dict(HIDDEN.findall(text))
        buttons = [(json.loads(html.unescape(value)), html.unescape(label).strip())
                   for value, label in BUTTON.findall(text)]
        seq = hidden.get("expected_seq")
        choice = CHOICE.search(text)
        return cls(text, hidden.get("csrf_token"), int(seq) if seq else None, buttons,
                   choice.group(1) if choice else None, tuple(dict.fromkeys(PICK.findall(text))))

    def actions(self) -> list[dict[str, Any]]:
        """The buttons' actions, and one engine step for each card that may be ticked."""
        return [action for action, _ in self.buttons] + self.card_actions()

    def card_actions(self) -> list[dict[str, Any]]:
        """What ticking one card means (a peek: each pair), in the engine's shapes."""
        kind, spots, pile = self.choice, [], []
        for pick in self.picks:
            parts = pick.split("-")
            if parts[0] == "v":
                spots.append((int(parts[1]), int(parts[2])))
            else:
                pile.append(int(parts[1]))
        if kind is None:
            return []
        if kind == "peek":
            own = [p for _, p in spots]
            return [{"type": "peek", "positions": [a, b]} for i, a in enumerate(own) for b in own[i + 1:]]
        if kind == "exchange":
            return [{"type": "exchange", "positions": [p]} for _, p in spots]
        if kind in ("look", "simon", "discard"):
            return [{"type": kind, "position": p} for _, p in spots]
        return ([{"type": kind, "seat": s, "position": p} for s, p in spots]
                + [{"type": kind, "pile": i} for i in pile])

    def tick(self, client: Any, path: str, picks: list[str], **fields: Any) -> Any:
        """Post the page's card form with these cards ticked."""
        data = {"choice": self.choice, "pick": picks, "csrf_token": self.csrf,
                "expected_seq": str(self.expected_seq), **fields}
        return client.post(f"{path}/act", data=data)

    def card_ids(self) -> set[int]:
        return {int(c) for c in CARD_ID.findall(self.text)}

    def post(self, client: Any, path: str, action: dict[str, Any], **fields: Any) -> Any:
        data = {"action": json.dumps(action), "csrf_token": self.csrf,
                "expected_seq": str(self.expected_seq), **fields}
        return client.post(f"{path}/act", data=data)


def open_seat(client: Any, path: str) -> SeatPage:
    answer = client.get(path)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    return SeatPage.read(answer.get_data(as_text=True))


def seat_path(created: services.Created, seat: int) -> str:
    return f"/play/{created.tokens[seat]}"


def known_ids(view: dict[str, Any]) -> set[int]:
    """Every card id a view shows, wherever it is."""
    found: set[int] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "faceup" in node and isinstance(node.get("id"), int):
                found.add(node["id"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk({k: v for k, v in view.items() if k not in ("log", "previous_log")})
    return found


# -- the lobby --------------------------------------------------------------------

def test_lobby_shows_a_form_for_four_seats_and_the_options(client):
    page = client.get("/").get_data(as_text=True)
    for i in range(4):
        assert f'name="seat{i}_name"' in page and f'name="seat{i}_kind"' in page
    for field in ("deadline", "deadline_unit", "reminders", "absent_after", "memory", "form_token"):
        assert f'name="{field}"' in page
    for i in range(4):
        assert f'name="seat{i}_simon"' in page
    assert "off: you claim Simon discards yourself" in page


def test_creating_a_game_redirects_to_a_page_that_says_where_each_link_went(client, db):
    links_page, seats = create_in_lobby(
        client, [("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human")],
        memory="1")
    assert links_page.startswith("/created/")
    assert len(seats) == 2 and seats[0] != seats[1]
    # issue 45: a seat with an address has its link in its mail, never on this page
    page = client.get(links_page).get_data(as_text=True)
    assert not SEAT_LINK.findall(page) and "/play/" not in page
    assert "a•••@example.com" in page and "b•••@example.com" in page
    assert db.count("game") == 1 and db.count("seat") == 2
    first = open_seat(client, seats[0])
    assert "playing as Ann" in first.text
    second = open_seat(client, seats[1])
    assert "playing as Bob" in second.text
    with db.engine.connect() as conn:
        options = conn.exec_driver_sql("SELECT options FROM game").scalar_one()
    options = json.loads(options) if isinstance(options, str) else options
    assert options["memory"] is True
    assert options["deadline_hours"] == 48
    assert options["reminders"] == ["half", 2]
    assert options["absent_after"] == 3


def test_the_links_page_cannot_be_guessed_or_forged(client, new_game):
    created = new_game()
    assert client.get(f"/created/{created.game_id}").status_code == 403
    # A seat's own token is signed for another purpose: it does not open the links page.
    assert client.get(f"/created/{created.tokens[0]}").status_code == 403
    links_page, _ = create_in_lobby(client, [("Ann", "", "human"), ("Bob", "", "human")])
    forged = links_page[:-3] + ("xyz" if not links_page.endswith("xyz") else "abc")
    answer = client.get(forged)
    assert answer.status_code == 403
    assert "not valid" in answer.get_data(as_text=True)


def test_a_bot_seat_gets_no_link_and_plays_by_itself(client, db):
    links_page, seats = create_in_lobby(client, [("Ann", "ann@example.com", "human"),
                                                 ("", "", "bot")])
    assert len(seats) == 1
    page = client.get(links_page).get_data(as_text=True)
    assert "Bot 2" in page and "plays by itself" in page


@pytest.mark.parametrize("players, extra, words", [
    ([("Ann", "", "human")], {}, "Fill in 2 to 4 seats"),
    ([("Ann", "", "human"), ("", "bob@example.com", "human")], {}, "Seat 2 needs a name"),
    ([("Ann", "", "human"), ("Ann", "", "human")], {}, "same name"),
    ([("Ann", "not-an-address", "human"), ("Bob", "", "human")], {}, "does not look right"),
    ([("", "", "bot"), ("", "", "bot")], {}, "played by a person"),
    ([("Ann", "", "human"), ("Bob", "", "human")], {"deadline": "soon"}, "number above zero"),
    ([("Ann", "", "human"), ("Bob", "", "human")], {"deadline": "40", "deadline_unit": "days"}, "at most 30 days"),
    ([("Ann", "", "human"), ("Bob", "", "human")], {"reminders": "half, x"}, "not a number of hours"),
    ([("Ann", "", "human"), ("Bob", "", "human")], {"deadline": "3", "deadline_unit": "hours", "reminders": "5"}, "smaller number"),
    ([("Ann", "", "human"), ("Bob", "", "human")], {"absent_after": "0"}, "whole number from 1"),
])
def test_a_bad_lobby_form_is_shown_again_with_the_reason_and_creates_nothing(client, db, players, extra, words):
    answer = client.post("/", data=lobby_form(players, client, **extra))
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert html.escape(words, quote=False) in page or words in html.unescape(page)
    assert 'value="Friday wolves"' in page  # what was typed is kept
    assert db.count("game") == 0


# -- a seat's page ----------------------------------------------------------------

def test_a_seat_page_shows_only_what_the_seat_knows_and_sends_no_referrer(client, new_game):
    created = new_game()
    answer = client.get(seat_path(created, 0))
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    page = SeatPage.read(answer.get_data(as_text=True))
    view = engine.view(services.load_state(created.game_id), 0)
    assert page.card_ids() <= known_ids(view)
    assert "village mine" in page.text and "Ann" in page.text and "Bob" in page.text
    assert created.snapshot.game.commitment in page.text
    peeks = [a for a in view["legal_actions"] if a["type"] == "peek"]
    assert page.choice == "peek" and sorted(page.card_actions(), key=str) == sorted(peeks, key=str)
    assert page.expected_seq == view["step"]


def test_peeking_shows_the_two_cards_afterwards_with_a_message(client, new_game, db):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    peek = next(a for a in page.actions() if a["type"] == "peek")
    before = page.card_ids()
    answer = page.post(client, path, peek)
    assert answer.status_code == 303 and answer.headers["Location"].endswith(path)
    after = open_seat(client, path)
    assert 'class="flash success"' in after.text
    assert len(after.card_ids() - before) == 2
    assert db.count("action", game_id=created.game_id) == 1


def test_a_stale_page_gets_the_game_moved_on_and_changes_nothing(client, new_game, db):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    peeks = [a for a in page.actions() if a["type"] == "peek"]
    assert page.post(client, path, peeks[0]).status_code == 303
    rows = db.actions(created.game_id)
    again = page.post(client, path, peeks[-1])  # same old expected_seq, another choice
    assert again.status_code == 409
    assert "moved on" in html.unescape(again.get_data(as_text=True))
    assert db.actions(created.game_id) == rows
    twice = page.post(client, path, peeks[0])   # the very same move again
    assert twice.status_code == 409
    assert "Already applied" in html.unescape(twice.get_data(as_text=True))
    assert db.actions(created.game_id) == rows


def test_an_illegal_move_shows_the_engines_reason_and_changes_nothing(client, new_game, db):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    answer = page.post(client, path, {"type": "peek", "positions": [0, 9]})
    assert answer.status_code == 422
    text = html.unescape(answer.get_data(as_text=True))
    assert 'class="flash error"' in text and "position" in text
    assert db.count("action") == 0


@pytest.mark.parametrize("change, status, words", [
    ({"csrf_token": "forged"}, 403, "not made for your seat"),
    ({"csrf_token": ""}, 403, "not made for your seat"),
    ({"action": "{not json"}, 400, "not understood"),
    ({"action": '{"positions": [0, 1]}'}, 400, "not understood"),
    ({"expected_seq": "soon"}, 400, "move number"),
])
def test_a_broken_form_gets_a_clear_4xx_and_changes_nothing(client, new_game, db, change, status, words):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    data = {"action": json.dumps(page.actions()[0]), "csrf_token": page.csrf,
            "expected_seq": str(page.expected_seq), **change}
    answer = client.post(f"{path}/act", data=data)
    assert answer.status_code == status
    assert words in html.unescape(answer.get_data(as_text=True))
    assert db.count("action") == 0


def test_one_seats_form_token_does_not_work_for_another_seat(client, new_game, db):
    created = new_game()
    bob = open_seat(client, seat_path(created, 1))
    ann = open_seat(client, seat_path(created, 0))
    peek = next(a for a in ann.actions() if a["type"] == "peek")
    data = {"action": json.dumps(peek), "csrf_token": bob.csrf, "expected_seq": str(ann.expected_seq)}
    assert client.post(f"{seat_path(created, 0)}/act", data=data).status_code == 403
    assert db.count("action") == 0


def test_a_replaced_link_no_longer_opens_the_seat(client, new_game):
    created = new_game()
    services.rotate_link(created.game_id, 0)
    answer = client.get(seat_path(created, 0))
    assert answer.status_code == 403
    assert "replaced" in answer.get_data(as_text=True)


def _play_until(client, created, wanted, limit: int = 60):
    """Peek for everyone, then let the current seat draw until ``wanted(actions)`` holds."""
    for _ in range(limit):
        for seat in range(len(created.tokens)):
            path = seat_path(created, seat)
            page = open_seat(client, path)
            actions = page.actions()
            if not actions:
                continue
            if wanted(actions):
                return seat, path, page
            kinds = {a["type"] for a in actions}
            choice = next((a for a in actions if a["type"] in ("peek", "draw", "discard")), None)
            if choice is None:
                choice = next((a for a in actions if a["type"] == "skip"), actions[0])
            assert page.post(client, path, choice).status_code == 303, kinds
            break
    raise AssertionError("the wanted decision never came")


def test_a_multi_card_exchange_sends_the_chosen_end_and_spot(client, new_game, db):
    created = new_game()
    seat, path, page = _play_until(
        client, created, lambda acts: sum(a["type"] == "exchange" for a in acts) >= 2)
    assert 'name="end"' in page.text and 'name="into_side"' in page.text
    assert page.choice == "exchange"
    two = [p for p in page.picks if p.startswith(f"v-{seat}-")][:2]
    action = {"type": "exchange", "positions": [int(p.split("-")[2]) for p in two]}
    answer = page.tick(client, path, two, end="left", into_side="rightmost")
    assert answer.status_code == 303
    with db.engine.connect() as conn:
        stored = conn.exec_driver_sql(
            "SELECT action FROM action ORDER BY seq DESC LIMIT 1").scalar_one()
    stored = json.loads(stored) if isinstance(stored, str) else stored
    assert stored == {**action, "end": "left", "into": max(action["positions"])}


def test_the_spotter_box_is_offered_with_a_faceup_spotter_and_its_tick_reaches_the_engine(
        client, new_game, db, monkeypatch):
    created = new_game()
    seat, path, page = _play_until(
        client, created, lambda acts: any(a["type"] == "exchange" for a in acts))
    assert 'name="spotter"' not in page.text          # no faceup Spotter, no box
    honest = engine.view

    def with_spotter(state, who, reveal=False):        # the page believes a Spotter is faceup
        view = honest(state, who, reveal)
        if who == seat:
            view["villages"][seat][0] = {"id": 10, "value": 3, "faceup": True}
        return view

    monkeypatch.setattr(engine, "view", with_spotter)
    page = open_seat(client, path)
    assert 'name="spotter"' in page.text
    rows = db.actions(created.game_id)
    action = next(a for a in page.actions() if a["type"] == "exchange")
    answer = page.post(client, path, action, spotter="1")
    assert answer.status_code == 422                   # the real engine knows better
    assert "no faceup Spotter" in html.unescape(answer.get_data(as_text=True))
    assert db.actions(created.game_id) == rows


def test_since_your_last_move_tells_what_the_others_did(client, new_game):
    created = new_game()
    ann, bob = seat_path(created, 0), seat_path(created, 1)
    for path in (ann, bob):
        page = open_seat(client, path)
        assert page.post(client, path, page.actions()[0]).status_code == 303
    text = html.unescape(client.get(ann).get_data(as_text=True))
    assert "Since your last move" in text
    assert "Bob looked at cards" in text


def open_simon_claim(seats: int = 2) -> tuple[int, list[tuple[int, dict]], int]:
    """Search with the engine alone for a seed and moves after which a seat whose turn it
    is not may claim a Simon discard by hand (everyone chose "off"); deterministic."""
    for seed in range(1, 300):
        rng = random.Random(seed)
        state = engine.new_game(seats, seed, options={"simon": ["off"] * seats})
        moves: list[tuple[int, dict]] = []
        while (view := engine.view(state, None))["phase"] != "over":
            for seat in range(seats):
                if view["phase"] == "play" and seat != view["current"] and any(
                        a["type"] == "simon" for a in engine.legal_actions(state, seat)):
                    return seed, moves, seat
            seat, action = random_move(state, rng)
            state, _ = engine.apply_action(state, seat, action)
            moves.append((seat, action))
    raise AssertionError("no open Simon claim in 300 random games")


def test_a_simon_claim_out_of_turn_is_offered_up_top_and_can_be_made(client, new_game, db):
    seed, moves, claimer = open_simon_claim()
    created = new_game(seed=str(seed), simon=["off", "off"])
    for step, (seat, action) in enumerate(moves):
        services.submit_action(created.game_id, seat, action, step)
    path = seat_path(created, claimer)
    page = open_seat(client, path)
    view = engine.view(services.load_state(created.game_id), claimer)
    claims = [a for a in view["legal_actions"] if a["type"] == "simon"]
    assert claims and view["current"] != claimer
    panel = page.text.split('id="simon"', 1)[1].split("</section>", 1)[0]
    assert "claim Simon discards yourself" in panel
    assert "even though it is not your turn" in panel
    top = view["discard"][-1]["value"]
    assert f"The top of the discard pile is {words.with_article(top)}." in html.unescape(panel)
    assert ("Think twice" in panel) == (top < 1)   # a card below 1 is better kept
    assert 'name="choice" value="simon"' in panel      # the claim is ticked in the village
    assert page.choice == "simon" and page.card_actions() == claims
    assert page.text.index('id="simon"') < page.text.index('id="actions"')
    # the seat on turn has a Simon panel only for claims of its own
    on_turn = view["current"]
    own = [a for a in engine.legal_actions(services.load_state(created.game_id), on_turn)
           if a["type"] == "simon"]
    assert ('id="simon"' in open_seat(client, seat_path(created, on_turn)).text) == bool(own)
    answer = page.tick(client, path, [f"v-{claimer}-{claims[0]['position']}"])
    assert answer.status_code == 303
    assert db.actions(created.game_id)[-1] == (len(moves) + 1, claimer, "player")
    assert "Simon discarded" in html.unescape(client.get(path).get_data(as_text=True))


def test_an_abandoned_game_offers_no_more_moves(client, new_game):
    created = new_game()
    services.abandon_game(created.game_id)
    page = open_seat(client, seat_path(created, 0))
    assert page.buttons == []
    assert "abandoned" in page.text


def test_the_status_line_says_whose_move_it_is_and_what_is_pending():
    names = ["Ann", "Bob", "Cid"]
    view = {"phase": "play", "to_act": [1, 2], "current": 1, "pending": "twister",
            "pending_detail": {"left": 3}, "legal_actions": []}
    assert words.pending_sentence(view, 0, names) == (
        "Waiting for Bob to turn cards over with the Twister (3 more to turn) (Cid still to peek).")
    assert words.pending_sentence({**view, "legal_actions": [{"type": "twist"}]}, 1, names) == (
        "Your move: turn cards over with the Twister (3 more to turn).")
    assert words.pending_sentence(
        {**view, "to_act": [2], "legal_actions": [{"type": "peek", "positions": [0, 1]}]}, 2, names
    ) == "Your move: peek at two of your cards."
    assert words.pending_sentence({"phase": "over", "winner": 2}, 0, names) == "Cid won the game."
    assert words.pending_sentence({"phase": "over", "winner": 2}, 2, names) == "You won the game!"
    assert words.pending_sentence({"phase": "resolve", "to_act": [0], "pending": "nelly"},
                                      1, names) == "Scoring the round: waiting for Ann to tuck a Nelly under a card."
    nelly = {"id": 1, "value": -1, "faceup": True}
    resolving = {"phase": "resolve", "to_act": [0], "pending": "nelly", "legal_actions": [],
                 "pending_detail": {"seat": 0, "card": nelly},
                 "villages": [[{"id": 5, "value": 1, "faceup": True}, nelly], []]}
    assert words.pending_sentence(resolving, 0, names) == (
        "Your move (scoring the round): tuck a Nelly under a card (your Nelly #2).")
    assert words.pending_sentence(resolving, 1, names) == (
        "Scoring the round: waiting for Ann to tuck a Nelly under a card (Ann's Nelly #2).")
    undermining = {"phase": "play", "to_act": [1], "current": 1, "pending": "underminer",
                   "pending_detail": {"chosen": 2}, "legal_actions": [{"type": "undermine"}]}
    assert words.pending_sentence(undermining, 1, names) == (
        "Your move: swap cards with the Underminer (step 3 of 4: a first card of the pile).")


# -- the public page --------------------------------------------------------------

def test_the_public_page_shows_the_spectators_view_without_any_token(client, new_game):
    created = new_game()
    answer = client.get(f"/games/{created.game_id}")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    view = engine.view(services.load_state(created.game_id), None)
    assert {int(c) for c in CARD_ID.findall(text)} <= known_ids(view)
    assert created.snapshot.game.commitment in text
    assert "/play/" not in text and 'name="action"' not in text
    assert client.get("/games/no-such-game").status_code == 404


# -- helpers ----------------------------------------------------------------------

VIEW = {"villages": [[{"id": 42, "value": 11, "faceup": True}, {"id": None, "value": None, "faceup": False}],
                     [{"id": 30, "value": 8, "faceup": False}]],
        "discard": [{"id": 6, "value": 2, "faceup": True}, {"id": 26, "value": 7, "faceup": True}],
        "hand": {"id": 22, "value": 6, "faceup": False}, "deck_known": []}


@pytest.mark.parametrize("action, said", [
    ({"type": "draw"}, "Draw from the deck"),
    ({"type": "take"}, "Take the 7 Ghost"),
    ({"type": "discard"}, "Discard the 6 Twister"),
    ({"type": "exchange", "positions": [0]}, "Swap with your card #1 (11 Underminer)"),
    ({"type": "exchange", "positions": [0, 1]}, "Swap with your cards #1, #2"),
    ({"type": "ghost", "seat": 1, "position": 0}, "Discard Bob's card #1 (8 Split Seer)"),
    ({"type": "twist", "seat": 0, "position": 1}, "Turn over your card #2"),
    ({"type": "gamble", "value": 7}, "Guess 7 (Ghost)"),
    ({"type": "undermine", "pile": 0}, "Take the 2 Simon from the pile (1st from the bottom)"),
    ({"type": "drunk", "seat": 1, "end": "left"}, "Give it to the left end of Bob's village"),
    ({"type": "skip"}, "No thanks, skip it"),
])
def test_every_button_says_what_it_does_in_words(action, said):
    assert words.action_label(action, VIEW, 0, ["Ann", "Bob"]) == said


def test_a_card_the_viewer_does_not_know_is_drawn_as_a_back_with_nothing_on_it():
    face = view_helpers.card_face({"id": None, "value": None, "faceup": False})
    assert face["kind"] == "back" and face["id"] is None and "name" not in face
    assert view_helpers.card_face({"id": 26, "value": 7, "faceup": False})["kind"] == "known"
    assert view_helpers.card_face({"id": 26, "value": 7, "faceup": True})["name"] == "Ghost"


def test_actions_are_grouped_in_the_order_of_a_turn():
    actions = [{"type": "skip"}, {"type": "exchange", "positions": [0]}, {"type": "draw"},
               {"type": "exchange", "positions": [0, 1]}]
    groups = view_helpers.group_actions(actions, VIEW, 0, ["Ann", "Bob"])
    assert [g["type"] for g in groups] == ["draw", "exchange", "skip"]
    assert len(groups[1]["items"]) == 2


def test_help_says_what_the_clock_does_at_each_deadline(client):
    """The same words as every reminder's end (issue 49 item 1), one line a decision."""
    from app.engine import words
    page = html.unescape(client.get("/help").get_data(as_text=True))
    assert "Deadlines: what the clock does for you" in page
    for then in words.TIMEOUT_WORDS.values():
        assert f"{then[:1].upper()}{then[1:]}." in page


def test_a_long_group_shows_what_differs_and_a_screen_reader_hears_the_whole_label():
    """Issue 51 item 2: 23 "Take deck card #n" buttons fit the first screen as "#n"; the
    words they share are said once by the group's title, and kept for a screen reader."""
    picks = view_helpers.group_actions([{"type": "pick", "position": p} for p in range(8)],
                                       VIEW, 0, ["Ann", "Bob"])[0]["items"]
    assert [(item["lead"], item["rest"]) for item in picks[:2]] == [
        ("Take deck card", "#1"), ("Take deck card", "#2")]
    assert all(f"{item['lead']} {item['rest']}" == item["label"] for item in picks)
    few = view_helpers.group_actions([{"type": "exchange", "positions": [0]},
                                      {"type": "exchange", "positions": [0, 1]}],
                                     VIEW, 0, ["Ann", "Bob"])[0]["items"]
    assert [(item["lead"], item["rest"]) for item in few] == [
        ("", "Swap with your card #1 (11 Underminer)"), ("", "Swap with your cards #1, #2")]
