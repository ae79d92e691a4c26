"""The replay viewer: every frame is a plain link, seats see only their own past, and after
the end anyone can open all cards and check the seed against the commitment."""
from __future__ import annotations

import hashlib
import html
import random
import re
from typing import Any

import pytest

from app import engine, services
from app.gamelog.store import as_pairs, load_actions
from app.db import read_session
from tests.conftest import random_move
from tests.web.test_pages import CARD_ID, known_ids

STEP_LINK = re.compile(r'href="(/games/[^"]+/replay\?[^"]*step=(\d+)[^"]*)"')


def play_moves(game_id: str, count: int | None, seed: int = 7) -> int:
    """Make ``count`` random legal moves (None: until the game is over); returns the step."""
    rng = random.Random(seed)
    made = 0
    while count is None or made < count:
        snap = services.snapshot(game_id)
        if snap.view(None)["phase"] == "over":
            break
        seat, action = random_move(snap.state, rng)
        services.submit_action(game_id, seat, action, snap.seq)
        made += 1
    return services.snapshot(game_id).seq


def state_after(game_id: str, step: int) -> Any:
    """The engine state after ``step`` moves, rebuilt here from the log (the test's oracle)."""
    info = services.game_info(game_id)
    with read_session() as session:
        from app.gamelog import store
        game = session.get(store.Game, game_id)
        seed, seats, options = game.seed, game.seats, dict(game.options)
        rows = as_pairs(load_actions(session, game_id))[:step]
    return engine.replay(seats, services.engine_seed(seed), rows,
                         options=services.engine_options(options)), info


def text_of(answer: Any) -> str:
    return html.unescape(answer.get_data(as_text=True))


def test_each_frame_is_a_page_with_links_back_and_forth(client, new_game):
    created = new_game()
    last = play_moves(created.game_id, 12)
    base = f"/games/{created.game_id}/replay"
    first = client.get(base)
    assert first.status_code == 200
    assert "The cards are dealt" in text_of(first)
    page = client.get(f"{base}?step=5")
    text = text_of(page)
    assert f"Move 5 of {last}" in text
    steps = {int(s) for _, s in STEP_LINK.findall(page.get_data(as_text=True))}
    assert {0, 4, 6, last} <= steps        # start, back, next, end — and the timeline
    state, info = state_after(created.game_id, 5)
    before, _ = state_after(created.game_id, 4)
    seat_5 = [row for row in services.replay_frames(created.game_id)["frames"] if row["step"] == 5][0]["seat"]
    _, events = engine.apply_action(before, seat_5, _action(created.game_id, 5))
    for event in events:
        assert engine.describe(event, info.names) in text
    assert {int(c) for c in CARD_ID.findall(text)} <= known_ids(engine.view(state, None))


def _action(game_id: str, step: int) -> dict:
    with read_session() as session:
        return as_pairs(load_actions(session, game_id))[step - 1][1]


def test_the_jump_form_and_odd_step_numbers(client, new_game):
    created = new_game()
    last = play_moves(created.game_id, 6)
    base = f"/games/{created.game_id}/replay"
    page = text_of(client.get(base))
    assert '<form method="get"' in page and 'name="step"' in page
    assert f"Move {last} of {last}" in text_of(client.get(f"{base}?step=999"))
    assert "Move 0 of" in text_of(client.get(f"{base}?step=-3"))
    bad = client.get(f"{base}?step=five")
    assert bad.status_code == 400 and "whole number" in text_of(bad)
    assert client.get("/games/nope/replay").status_code == 404


def test_a_seats_replay_shows_only_what_that_seat_saw_then(client, new_game):
    created = new_game()
    last = play_moves(created.game_id, 20)
    token = created.tokens[1]
    for step in range(0, last + 1, 3):
        answer = client.get(f"/games/{created.game_id}/replay?step={step}&token={token}")
        assert answer.status_code == 200
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        state, _ = state_after(created.game_id, step)
        shown = {int(c) for c in CARD_ID.findall(answer.get_data(as_text=True))}
        assert shown <= known_ids(engine.view(state, 1)), step
    # its links keep the seat: every step link carries the token
    page = client.get(f"/games/{created.game_id}/replay?step=2&token={token}").get_data(as_text=True)
    assert all("token=" in href for href, _ in STEP_LINK.findall(page))


def test_a_token_of_another_game_or_a_forged_one_opens_no_replay(client, new_game):
    one, other = new_game(), new_game(seed="999")
    answer = client.get(f"/games/{one.game_id}/replay?token={other.tokens[0]}")
    assert answer.status_code == 403
    assert client.get(f"/games/{one.game_id}/replay?token=forged.token").status_code == 403


def test_no_open_hand_and_no_seed_while_the_game_runs(client, new_game):
    created = new_game(seed="424242")
    play_moves(created.game_id, 10)
    text = text_of(client.get(f"/games/{created.game_id}/replay?step=10&open=1"))
    assert "424242" not in text
    assert "Show all cards" not in text
    assert created.snapshot.game.commitment in text
    assert "stays secret while the game runs" in text


@pytest.mark.slow
def test_after_the_end_open_hand_shows_every_card_the_seed_and_how_to_check_it(client, new_game):
    created = new_game(seed="424242")
    last = play_moves(created.game_id, None)
    base = f"/games/{created.game_id}/replay"
    closed = text_of(client.get(f"{base}?step=3"))
    assert "Show all cards and the seed" in closed and "424242" not in closed
    answer = client.get(f"{base}?step=3&open=1")
    text = text_of(answer)
    assert "Seed:" in text and "424242" in text
    assert hashlib.sha256(b"424242").hexdigest() == created.snapshot.game.commitment
    assert created.snapshot.game.commitment in text
    assert "engine.replay(" in text
    shown = {int(c) for c in CARD_ID.findall(answer.get_data(as_text=True))}
    state, _ = state_after(created.game_id, 3)
    assert shown == known_ids(engine.view(state, None, reveal=True))
    assert len(shown) > len(known_ids(engine.view(state, None)))
    rounds = text_of(client.get(f"{base}?step={last}"))
    for number in (1, 2, 3, 4):
        assert f"Round {number}" in rounds
    assert "Final result" in rounds


def test_the_viewer_works_without_javascript_and_the_script_only_adds_play(client, new_game):
    created = new_game()
    play_moves(created.game_id, 3)
    page = client.get(f"/games/{created.game_id}/replay?step=1").get_data(as_text=True)
    assert re.search(r'<button[^>]*id="play"[^>]*hidden', page)
    assert "replay.js" in page
    script = client.get("/static/replay.js")
    assert script.status_code == 200 and b"ArrowRight" in script.data


# -- cost: one frame per page, the navigation from the index ------------------------

def count_views(monkeypatch) -> list[int]:
    """Count ``engine.view`` calls (each one is a full view of the table)."""
    calls: list[int] = []
    honest = engine.view

    def counted(state, seat, reveal=False):
        calls.append(1)
        return honest(state, seat, reveal)

    monkeypatch.setattr(engine, "view", counted)
    return calls


def test_a_replay_page_builds_only_the_frame_it_shows(client, new_game, monkeypatch):
    created = new_game(seats=2, bots=(0, 1))          # two bots: the whole game is played
    info = services.game_info(created.game_id)
    assert info.status == "over" and info.seq > 100
    calls = count_views(monkeypatch)
    base = f"/games/{created.game_id}/replay"
    for query in ("", "?step=1", f"?step={info.seq // 2}", f"?step={info.seq}",
                  f"?step={info.seq}&open=1", f"?step=7&token={created.tokens[1]}"):
        calls.clear()
        answer = client.get(base + query)
        assert answer.status_code == 200, query
        assert len(calls) == 1, query
    # ...and yet the page still links every round and the moves of the round shown
    text = text_of(client.get(f"{base}?step={info.seq // 2}"))
    for number in (1, 2, 3, 4):
        assert f"Round {number}" in text
    assert "Final result" in text


def test_the_step_index_agrees_with_the_frames(new_game):
    created = new_game(seats=3, bots=(0, 1, 2))
    info, lines = services.replay_index(created.game_id)
    frames = services.replay_frames(created.game_id)["frames"]
    assert [line.step for line in lines] == [frame["step"] for frame in frames]
    assert info.seq == lines[-1].step
    for line, frame in zip(lines, frames):
        assert line.round == frame["view"]["round"], line.step
        assert line.over == (frame["view"]["phase"] == "over"), line.step
        assert line.seat == frame["seat"]
        if line.step:
            assert line.text == " ".join(frame["text"])
    assert [line.round for line in lines] == sorted(line.round for line in lines)
    assert {line.round for line in lines} == {1, 2, 3, 4}


def test_a_timeline_link_says_who_moved_and_what_happened(client, new_game):
    created = new_game()
    play_moves(created.game_id, 4)
    _, lines = services.replay_index(created.game_id)
    page = text_of(client.get(f"/games/{created.game_id}/replay?step=2"))
    names = services.game_info(created.game_id).names
    for line in lines[1:]:
        assert f'title="{names[line.seat]}: {line.text}"' in page


def test_the_json_replay_takes_first_and_last(client, new_game):
    created = new_game()
    last = play_moves(created.game_id, 12)
    base = f"/api/games/{created.game_id}/replay"
    whole = client.get(base).get_json()
    part = client.get(f"{base}?first=3&last=6").get_json()
    assert [f["step"] for f in part["frames"]] == [3, 4, 5, 6]
    assert part["frames"] == whole["frames"][3:7]
    assert part["steps"] == last
    one = client.get(f"{base}?first=0&last=0").get_json()
    assert [f["step"] for f in one["frames"]] == [0]
    assert client.get(f"{base}?first=x").status_code == 400
    assert client.get(f"{base}?last=-1").status_code == 400
    spec = client.get("/api/openapi.json").get_json()
    params = spec["paths"]["/api/games/{game_id}/replay"]["get"]["parameters"]
    assert {"first", "last"} <= {p["name"] for p in params}
