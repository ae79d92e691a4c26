"""Choosing by tapping cards, one presenter, one check per request, and the live probe.

Scenarios post the seat page's card form the way a browser without
JavaScript does: the kind of decision and the ticked cards' positions.
"""
from __future__ import annotations

import html
import random
import re
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session

from app import engine, services
from app.access import tokens
from app.engine import words
from app.engine.describe import event_sentence
from tests.e2e import positions
from tests.web.test_pages import SeatPage, open_seat, seat_path

FLASH = re.compile(r'<li class="flash success">(.*?)</li>', re.S)


def played(position: positions.Position, seats: int = 2) -> services.Created:
    return positions.start(seats, position, name="Choices")


def big_village(size: int = 9) -> positions.Position:
    """A seat holding a drawn or taken card with a village of ``size`` cards or more:
    failed exchanges of three (chosen as often as offered) grow the villages."""
    for seed in range(1, 200):
        rng = random.Random(seed)
        state = engine.new_game(2, seed)
        moves: positions.Moves = []
        while (view := engine.view(state, None))["phase"] == "play":
            seat = view["current"]
            if view["pending"] in ("drawn", "taken") and seat in view["to_act"] \
                    and len(view["villages"][seat]) >= size:
                return positions.Position(seed, moves, seat)
            seat = rng.choice(view["to_act"])
            acts = engine.legal_actions(state, seat)
            multi = [a for a in acts if a["type"] == "exchange" and len(a["positions"]) >= 3]
            rest = [a for a in acts if a["type"] != "call"] or acts
            action = rng.choice(multi) if multi and rng.random() < 0.8 else rng.choice(rest)
            state, _ = engine.apply_action(state, seat, action)
            moves.append((seat, action))
    raise LookupError("no big village found")


def flash_of(client: Any, path: str) -> str:
    found = FLASH.search(client.get(path).get_data(as_text=True))
    return html.unescape(found.group(1)) if found else ""


# -- one check, one session -------------------------------------------------------------

def test_a_seat_page_get_checks_its_link_once_and_reads_in_one_database_session(
        app, client, new_game, monkeypatch):
    created = new_game()
    path = seat_path(created, 0)
    client.get(path)                        # warm: the state cache and the templates
    checks, sessions = [], []
    honest = tokens.read_seat_token
    monkeypatch.setattr(tokens, "read_seat_token", lambda t: checks.append(t) or honest(t))

    def begun(session, transaction, connection):
        sessions.append(session)
    event.listen(Session, "after_begin", begun)
    try:
        answer = client.get(path)
    finally:
        event.remove(Session, "after_begin", begun)
    assert answer.status_code == 200
    assert "Mail and clock" in answer.get_data(as_text=True)   # the mail box is read too
    assert len(checks) == 1
    assert len(set(map(id, sessions))) == 1


def sessions_during(request: Any) -> tuple[Any, int]:
    """Make a request; return its answer and how many database sessions it began."""
    sessions: list[Any] = []

    def begun(session, transaction, connection):
        sessions.append(session)
    event.listen(Session, "after_begin", begun)
    try:
        answer = request()
    finally:
        event.remove(Session, "after_begin", begun)
    return answer, len(set(map(id, sessions)))


def test_a_move_from_the_page_checks_link_and_form_and_moves_in_one_session(
        client, new_game, db):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    answer, opened = sessions_during(lambda: page.tick(client, path, ["v-0-0", "v-0-3"]))
    assert answer.status_code == 303 and db.count("action") == 1
    assert opened == 1


def test_a_move_form_made_for_another_seat_is_refused_and_changes_nothing(
        client, new_game, db):
    created = new_game()
    page = open_seat(client, seat_path(created, 0))
    answer = page.tick(client, seat_path(created, 1), ["v-1-0", "v-1-1"])  # Ann's form, Bob's link
    assert answer.status_code == 403 and db.count("action") == 0


def test_a_replay_frame_with_a_seat_link_reads_in_one_session(client, new_game):
    created = new_game()
    token = created.tokens[0]
    client.get(f"/games/{created.game_id}/replay?token={token}")  # warm the templates
    answer, opened = sessions_during(
        lambda: client.get(f"/games/{created.game_id}/replay?token={token}&step=0"))
    assert answer.status_code == 200 and opened == 1


# -- tap to choose ------------------------------------------------------------------------

def test_a_peek_is_made_by_ticking_two_cards_and_the_message_names_them(client, new_game, db):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    assert page.choice == "peek" and page.picks[:2] == ("v-0-0", "v-0-1")
    answer = page.tick(client, path, ["v-0-0", "v-0-3"])
    assert answer.status_code == 303
    view = engine.view(services.load_state(created.game_id), 0)
    seen = [words.card_words(view["villages"][0][p]) for p in (0, 3)]
    assert flash_of(client, path) == f"You looked at #1: {seen[0]} and #4: {seen[1]}."
    assert db.count("action") == 1


def test_a_ticked_card_outside_the_village_is_refused_in_words_and_changes_nothing(
        client, new_game, db):
    created = new_game()
    path = seat_path(created, 0)
    page = open_seat(client, path)
    assert page.tick(client, path, []).status_code == 400
    assert page.tick(client, path, ["v-1-0", "v-1-1"]).status_code == 400     # Bob's cards
    assert page.tick(client, path, ["v-0-0", "v-0-9"]).status_code == 422     # no #10
    assert page.tick(client, path, ["v-zero"]).status_code == 400
    assert db.count("action") == 0


def test_a_whole_twister_is_one_form_applied_in_one_transaction(client, app, db):
    position = positions.find(2, positions.pending("twister"))
    created = played(position)
    path = seat_path(created, position.seat)
    page = open_seat(client, path)
    assert page.choice == "twist"
    view = engine.view(services.load_state(created.game_id), position.seat)
    count = min(len(view["villages"][position.seat]),
                sum(len(v) for v in view["villages"]))
    before = db.actions(created.game_id)
    too_many = list(page.picks[:count + 1])
    if len(too_many) > count:                     # one card more than the Twister turns
        refused = page.tick(client, path, too_many)
        assert refused.status_code == 422
        assert "Nothing was changed" in html.unescape(refused.get_data(as_text=True))
        assert db.actions(created.game_id) == before
    answer = page.tick(client, path, list(page.picks[:count]))
    assert answer.status_code == 303
    after = db.actions(created.game_id)
    assert [seat for _, seat, _ in after[len(before):len(before) + count]] == [position.seat] * count
    assert flash_of(client, path).count("turned") == count


def test_four_cards_of_a_nine_card_village_can_be_exchanged_though_no_list_offers_them(
        client, app, db):
    position = big_village(9)
    created = played(position)
    me = position.seat
    path = seat_path(created, me)
    page = open_seat(client, path)
    assert page.choice == "exchange"
    mine = [p for p in page.picks if p.startswith(f"v-{me}-")]
    assert len(mine) >= 9
    answer = page.tick(client, path, mine[:4], end="left")
    assert answer.status_code == 303, html.unescape(answer.get_data(as_text=True))[-800:]
    with app.app_context():
        frame = services.replay_frames(created.game_id, me, first=len(position.moves) + 1,
                                       last=len(position.moves) + 1)["frames"][0]
    assert frame["seat"] == me and frame["action"]["positions"] == [0, 1, 2, 3]


# -- words --------------------------------------------------------------------------------

def test_words_say_an_8_and_you_on_your_own_page():
    assert words.with_article(8) == "an 8" and words.with_article(11) == "an 11"
    assert words.with_article(7) == "a 7"
    names = ["Ann", "Bob"]
    peek = {"type": "peek", "seat": 0, "positions": [0, 1], "step": 3}
    assert event_sentence(peek, names, 0) == "You looked at cards #1 and #2 of your village."
    assert event_sentence(peek, names, 1) == "Ann looked at cards #1 and #2 of their village."
    spot = {"type": "spot", "seat": 1, "target": 0, "value": 8}
    assert event_sentence(spot, names, 1) == \
        "You use a Spotter on Ann's village, looking for an 8."
    assert event_sentence(spot, names, 0) == \
        "Bob uses a Spotter on your village, looking for an 8."
    search = {"type": "search", "seat": 0}
    assert event_sentence(search, names, 0) == (
        "You opened the silver eye and are looking through the deck.")
    scored = {"type": "round_scored", "round": 1, "scores": [3, 8], "eye_holder": 0,
              "eye_open": True}
    assert event_sentence(scored, names, 0) == (
        "Round 1 scores: you 3, Bob 8. You take the silver eye open.")


def test_the_banner_offers_a_call_only_when_the_rules_allow_one():
    names = ["Ann", "Bob"]
    turn = {"phase": "play", "to_act": [0], "current": 0, "pending": "turn"}
    five = {**turn, "legal_actions": [{"type": "draw"}, {"type": "take"}]}
    four = {**turn, "legal_actions": [{"type": "draw"}, {"type": "take"}, {"type": "call"}]}
    assert "call" not in words.pending_sentence(five, 0, names)
    assert "call for a vote" in words.pending_sentence(four, 0, names)
    assert words.action_label({"type": "call"}, four, 0, names) == (
        "Call: if you are lowest you score 0, otherwise your sum + 10")


def test_a_card_left_out_by_an_obsessor_says_why():
    said = words.refusal(34, 26)     # the Even Obsessor and a 7 Ghost
    assert said == ("The Even Obsessor on the pile accepts only even values "
                    "(0, 2, 4, 6, 8, 10, 12): not the 7 Ghost.")


# -- live ---------------------------------------------------------------------------------

def test_the_seq_probe_answers_304_until_the_game_moves(client, new_game):
    created = new_game()
    url = f"/games/{created.game_id}/seq"
    first = client.get(url)
    assert first.status_code == 200 and first.get_json()["seq"] == 0
    etag = first.headers["ETag"]
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    services.submit_action(created.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
    moved = client.get(url, headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.get_json()["seq"] == 1
    assert client.get("/games/nope/seq").status_code == 404


def test_every_page_links_the_rules_and_the_rules_show_every_card(client, new_game):
    created = new_game()
    rules = html.unescape(client.get("/rules").get_data(as_text=True))
    for name in ("Nelly", "Illusionist", "Simon", "Spotter", "Gambler", "Tanner", "Twister",
                 "Ghost", "Split Seer", "Even Obsessor", "Odd Obsessor", "Low Obsessor",
                 "High Obsessor", "Dracula", "Underminer", "Drunk", "Mad Bomber"):
        assert name in rules
    assert "silver eye" in rules.lower() and "open" in rules
    for path in ("/", seat_path(created, 0), f"/games/{created.game_id}",
                 f"/games/{created.game_id}/replay"):
        assert 'href="/rules"' in client.get(path).get_data(as_text=True), path


def obsessor_refuses(state: Any, view: dict[str, Any], seat: int) -> bool:
    """The seat on turn holds a drawn card and the Obsessor on the pile refuses one of its
    own cards (R13): that card cannot be exchanged."""
    pile = view["discard"]
    if view["phase"] != "play" or view["pending"] != "drawn" or seat != view["current"]:
        return False
    if not pile or pile[-1]["id"] not in (34, 35, 36, 37):
        return False
    singles = {a["positions"][0] for a in engine.legal_actions(state, seat)
               if a["type"] == "exchange" and len(a["positions"]) == 1}
    return len(singles) < len(view["villages"][seat])


def test_a_card_the_obsessor_refuses_is_left_out_and_the_page_says_why(client, app):
    position = positions.find(3, obsessor_refuses)
    created = positions.start(3, position)
    page = open_seat(client, seat_path(created, position.seat))
    text = html.unescape(page.text)
    assert page.choice == "exchange"
    view = engine.view(services.load_state(created.game_id), position.seat)
    village = view["villages"][position.seat]
    offered = {int(p.split("-")[2]) for p in page.picks}
    refused = [p for p in range(len(village)) if p not in offered]
    assert refused
    top = view["discard"][-1]["id"]
    assert "On top of the pile: accepts only" in text          # the Obsessor says what it allows
    for p in refused:
        assert f"Your #{p + 1}: {words.refusal(top, village[p]['id'])}" in text


def test_while_the_round_is_scored_the_table_marks_the_cards_faceup_at_scoring(client, app):
    position = positions.find(3, positions.resolving("nelly"))
    created = positions.start(3, position)
    view = engine.view(services.load_state(created.game_id), None)
    marked = set(view["scoring"]["faceup_at_scoring"])
    assert view["phase"] == "resolve" and marked
    other = next(s for s in range(3) if s != position.seat)
    text = html.unescape(client.get(seat_path(created, other)).get_data(as_text=True))
    assert text.count("faceup at scoring") >= len(marked)
    assert "were faceup when the round was scored" in text


def test_the_vocabulary_is_pure_engine_code():
    """words.py is shared by pages, mails and replays: it imports no Flask, SQL or mail;
    its words come from the pure catalogue module (``app.i18n``, issue 50)."""
    import ast
    from pathlib import Path

    source = Path(words.__file__).read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    assert imported <= {"__future__", "re", "typing", ".", "app.i18n", "app.i18n.forms"}, \
        imported


def test_the_card_a_seat_drew_is_named_on_its_page_and_on_no_other(client, app):
    """Issue 51 item 3: the drawer's page says what it drew (the flash and its log) while
    it holds the card; the other seat's page says only that a card was drawn."""
    position = positions.find(2, lambda state, view, seat: (
        positions.pending("turn")(state, view, seat)
        and seat not in (view.get("peeks_pending") or [])))
    created = played(position)
    drawer, other = position.seat, 1 - position.seat
    path = seat_path(created, drawer)
    page = open_seat(client, path)
    assert page.post(client, path, {"type": "draw"}).status_code == 303
    held = engine.view(services.load_state(created.game_id), drawer)["hand"]
    said = f"You drew {words.card_words(held)} from the deck."
    assert flash_of(client, path) == said
    assert said in html.unescape(client.get(path).get_data(as_text=True))
    other_page = html.unescape(client.get(seat_path(created, other)).get_data(as_text=True))
    assert f"drew {words.card_words(held)}" not in other_page
    assert " drew a card." in other_page
