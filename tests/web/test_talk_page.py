"""Issue 20 item 1: table talk on the seat page, the spectator page and the replay.

Scenario style: deal a game, let people talk through their pages (the form a browser
posts, with its CSRF token and key), expect what every page shows. Runs on SQLite and,
with ``TEST_DATABASE_URL``, on PostgreSQL.
"""
from __future__ import annotations

import html
import random
import re
from datetime import timedelta
from typing import Any

from app import services
from app.clock.time import utcnow
from app.config import DEFAULTS
from app.db import write_session
from app.services import talk as talk_service
from tests.conftest import PEOPLE, random_move

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
KEY = re.compile(r'name="key" value="([^"]+)"')
#: The talk panel: folded into a <details> on the seat page, a <section> elsewhere.
TALK_BOX = re.compile(r'<(section|details) class="panel talk" id="talk".*?<!-- /talk -->', re.S)
LINE = re.compile(r'<li class="talk-line[^"]*">.*?<strong class="talk-who">([^<]*)</strong>'
                  r'.*?<p class="talk-text[^"]*">(.*?)</p>', re.S)
HIDE = re.compile(r'action="(/play/[^"]+/talk/(\d+)/hide)"')


def deal(seats: int = 3, **options: Any) -> Any:
    """A game of people (Ann, Bob, Cid...), Ann its creator."""
    return services.create_game([{"name": n, "email": e} for n, e in PEOPLE[:seats]], options,
                                name="Talk test", seed="4242")


def page(client: Any, token: str) -> str:
    answer = client.get(f"/play/{token}")
    assert answer.status_code == 200, answer.get_data(as_text=True)[:500]
    return answer.get_data(as_text=True)


def box(text: str) -> str:
    """The talk panel of a page ('' when there is none)."""
    found = TALK_BOX.search(text)
    return found.group(0) if found else ""


def said(text: str) -> list[tuple[str, str]]:
    """(sender, message as shown) of each message in the page's talk panel, in order."""
    return [(html.unescape(who), html.unescape(re.sub(r"</?em>", "", what)))
            for who, what in LINE.findall(box(text))]


def say(client: Any, token: str, text: str, *, key: str | None = "fresh", csrf: bool = True) -> Any:
    """Post the talk form as a browser does: fields from the page just loaded."""
    shown = page(client, token)
    form = {"text": text}
    if csrf:
        form["csrf_token"] = CSRF.search(shown).group(1)
    if key == "fresh":
        form["key"] = KEY.search(box(shown)).group(1)
    elif key is not None:
        form["key"] = key
    return client.post(f"/play/{token}/talk", data=form)


def form_post(client: Any, token: str, path: str, **fields: str) -> Any:
    shown = page(client, token)
    return client.post(path, data={"csrf_token": CSRF.search(shown).group(1), **fields})


def talk_rows(db: Any, game_id: str) -> int:
    return db.count("talk", game_id=game_id)


def play_moves(game: Any, moves: int, seed: int = 7) -> int:
    snap, rng = services.snapshot(game.game_id), random.Random(seed)
    for _ in range(moves):
        if snap.game.status != "running":
            break
        seat, action = random_move(snap.state, rng)
        snap = services.submit_action(game.game_id, seat, action, snap.seq).snapshot
    return snap.seq


# -- talking and reading -------------------------------------------------------------

def test_three_seats_talk_and_every_seat_reads_every_message_in_order(app, client, db):
    game = deal(3)
    for token, words in ((game.tokens[0], "Hello all"), (game.tokens[1], "nice Dracula"),
                         (game.tokens[2], "gl hf\nsecond line")):
        answer = say(client, token, words)
        assert answer.status_code == 303
        assert answer.headers["Location"].endswith("#talk")
    assert talk_rows(db, game.game_id) == 3
    expected = [("Ann", "Hello all"), ("Bob", "nice Dracula"), ("Cid", "gl hf\nsecond line")]
    for seat, token in enumerate(game.tokens):
        shown = page(client, token)
        names = [(who.replace(" (you)", ""), what) for who, what in said(shown)]
        assert names == expected
        assert f"{PEOPLE[seat][0]} (you)" in box(shown)       # its own messages marked
        assert '<time class="small muted" datetime="' in box(shown)  # when, machine-readable


def test_the_page_says_it_was_said_and_shows_the_box_at_its_anchor(client):
    game = deal(2)
    answer = say(client, game.tokens[0], "hi")
    followed = client.get(answer.headers["Location"])
    text = followed.get_data(as_text=True)
    assert "Said at the table." in text
    assert 'id="talk"' in text and 'id="talk-title">At the table</span>' in text


def test_html_and_script_in_a_message_are_shown_as_text(client):
    game = deal(2)
    attack = '<script>alert(1)</script> <img src=x onerror=alert(2)> https://evil.example/x'
    assert say(client, game.tokens[0], attack).status_code == 303
    for token in game.tokens:
        shown = page(client, token)
        assert said(shown) == [("Ann" + (" (you)" if token == game.tokens[0] else ""), attack)]
        assert "<script>alert(1)" not in shown and "<img src=x" not in shown
        assert 'href="https://evil.example' not in shown        # a link is text, never loaded
    spectator = client.get(f"/games/{game.game_id}").get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in spectator and "<script>alert(1)" not in spectator


def test_control_characters_are_removed_and_a_blank_message_is_refused(client, db):
    game = deal(2)
    assert say(client, game.tokens[0], "  ok\x07 \u202egood\r\nbye\t!  ").status_code == 303
    assert said(page(client, game.tokens[1])) == [("Ann", "ok good\nbye !")]
    for blank in ("", "   \n\t ", "\x01\x02"):
        answer = say(client, game.tokens[0], blank)
        assert answer.status_code == 400
        assert "Your message is empty" in html.unescape(answer.get_data(as_text=True))
    assert talk_rows(db, game.game_id) == 1


def test_a_message_too_long_is_refused_with_words_and_kept_in_the_box(client, db):
    game = deal(2)
    long = "a" * 600 + "<b>12</b>"
    answer = say(client, game.tokens[0], long)
    assert answer.status_code == 400
    text = answer.get_data(as_text=True)
    assert ("Your message is 609 characters; the table takes at most 500."
            in html.unescape(text))
    assert html.escape(long, quote=False) in box(text) and "<b>12</b>" not in text  # kept, escaped
    assert talk_rows(db, game.game_id) == 0
    exactly = "b" * DEFAULTS["TALK_MAX_CHARS"]
    assert say(client, game.tokens[0], exactly).status_code == 303


def test_the_same_form_sent_twice_says_it_once(client, db):
    game = deal(2)
    shown = page(client, game.tokens[0])
    form = {"csrf_token": CSRF.search(shown).group(1), "key": KEY.search(box(shown)).group(1),
            "text": "only once"}
    first = client.post(f"/play/{game.tokens[0]}/talk", data=form)
    second = client.post(f"/play/{game.tokens[0]}/talk", data=form)
    assert first.status_code == second.status_code == 303
    assert talk_rows(db, game.game_id) == 1
    assert said(page(client, game.tokens[1])) == [("Ann", "only once")]
    # each page load gets a fresh key, so saying it again on purpose works
    assert KEY.search(box(page(client, game.tokens[0]))).group(1) != form["key"]
    # and another seat's form with the same key is its own message
    other = {**form, "csrf_token": CSRF.search(page(client, game.tokens[1])).group(1)}
    assert client.post(f"/play/{game.tokens[1]}/talk", data=other).status_code == 303
    assert talk_rows(db, game.game_id) == 2


# -- the rate limit ------------------------------------------------------------------

def said_before(game_id: str, seat: int, count: int, ago: timedelta) -> None:
    """``count`` messages of ``seat``, said ``ago`` (fast: one transaction)."""
    at = utcnow() - ago
    with write_session() as session:
        for n in range(count):
            talk_service.post(session, game_id, seat, f"message {n}", key=None, source="page",
                              now=at + timedelta(seconds=n))


def test_fifty_messages_in_an_hour_are_fine_and_the_51st_is_refused_with_when(client, db):
    game = deal(2)
    per_hour = DEFAULTS["TALK_PER_SEAT_PER_HOUR"]
    said_before(game.game_id, 0, per_hour - 1, timedelta(minutes=20))
    assert say(client, game.tokens[0], "the fiftieth").status_code == 303
    answer = say(client, game.tokens[0], "one too many")
    assert answer.status_code == 429
    words = html.unescape(answer.get_data(as_text=True))
    assert f"You said {per_hour} messages at this table in the last hour" in words
    assert re.search(r"You may talk again in (40|41) minutes \(at \d\d:\d\d UTC\)", words)
    assert int(answer.headers["Retry-After"]) > 0
    assert "one too many" in box(answer.get_data(as_text=True))     # kept in the box
    assert talk_rows(db, game.game_id) == per_hour
    # the others still talk: the limit is per seat
    assert say(client, game.tokens[1], "I can still talk").status_code == 303


def test_messages_older_than_an_hour_do_not_count(client, db):
    game = deal(2)
    said_before(game.game_id, 0, DEFAULTS["TALK_PER_SEAT_PER_HOUR"], timedelta(minutes=61))
    assert say(client, game.tokens[0], "a new hour").status_code == 303


# -- who may talk --------------------------------------------------------------------

def test_a_form_without_the_csrf_token_or_with_a_bad_link_is_refused(client, db):
    game = deal(2)
    answer = say(client, game.tokens[0], "forged", csrf=False)
    assert answer.status_code == 403
    assert "not made for your seat" in html.unescape(answer.get_data(as_text=True))
    bad = client.post(f"/play/{game.tokens[0][:-3]}xyz/talk", data={"text": "hi"})
    assert bad.status_code == 403
    assert talk_rows(db, game.game_id) == 0
    say(client, game.tokens[1], "to hide")
    talk_id = HIDE.findall(box(page(client, game.tokens[0])))[0][1]
    before = db.dump()
    for path, fields in ((f"talk/{talk_id}/hide", {}), ("talk/mute", {"muted": "1"}),
                         ("talk/spectators", {"on": "0"})):
        answer = client.post(f"/play/{game.tokens[0]}/{path}", data=fields)
        assert answer.status_code == 403, path
        assert "not made for your seat" in html.unescape(answer.get_data(as_text=True))
    assert db.dump() == before


def test_a_bot_does_not_talk_and_an_abandoned_table_is_closed(app, client, db):
    game = services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                 {"name": "Robo", "kind": "bot"}], seed="9")
    with write_session() as session:
        try:
            talk_service.post(session, game.game_id, 1, "beep", key=None, source="api",
                              now=utcnow())
        except services.Forbidden as exc:
            assert "Only the players of this game" in exc.message
        else:
            raise AssertionError("a bot talked")
    services.abandon_game(game.game_id)
    shown = page(client, game.tokens[0])
    assert "table is closed" in box(shown) and 'name="text"' not in box(shown)
    answer = client.post(f"/play/{game.tokens[0]}/talk",
                         data={"csrf_token": CSRF.search(shown).group(1), "text": "anyone?"})
    assert answer.status_code == 403 and "abandoned" in answer.get_data(as_text=True)
    assert talk_rows(db, game.game_id) == 0


# -- hiding, muting, spectators ------------------------------------------------------

def test_only_the_creator_hides_a_message_and_everyone_sees_it_hidden(client, db):
    game = deal(3)
    say(client, game.tokens[1], "something rude")
    say(client, game.tokens[2], "keep this")
    assert HIDE.findall(box(page(client, game.tokens[1]))) == []   # no Hide button but Ann's
    (path, talk_id), _ = HIDE.findall(box(page(client, game.tokens[0])))
    # Bob, with his own valid form token, may not hide
    refused = form_post(client, game.tokens[1], f"/play/{game.tokens[1]}/talk/{talk_id}/hide")
    assert refused.status_code == 403
    assert "Only the game's creator can hide" in html.unescape(refused.get_data(as_text=True))
    assert form_post(client, game.tokens[0], path).status_code == 303
    again = form_post(client, game.tokens[0], path)
    assert again.status_code == 303
    assert "hidden already" in client.get(again.headers["Location"]).get_data(as_text=True)
    for token in game.tokens:
        shown = page(client, token)
        assert "something rude" not in shown
        assert [what for _, what in said(shown)] == ["hidden by the creator", "keep this"]
    assert "something rude" not in client.get(f"/games/{game.game_id}").get_data(as_text=True)
    assert talk_rows(db, game.game_id) == 2                   # kept in the log, hidden
    missing = form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/999999/hide")
    assert missing.status_code == 404
    huge = form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/{10**30}/hide")
    assert huge.status_code == 404


def test_a_seat_that_mutes_the_talk_sees_only_how_much_was_said(client):
    game = deal(2)
    for n in range(3):
        say(client, game.tokens[1], f"chatter {n}")
    muted = form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/mute", muted="1")
    assert muted.status_code == 303
    shown = page(client, game.tokens[0])
    assert "You muted the table talk (3 messages)" in box(shown)
    assert "chatter" not in shown and said(shown) == [] and 'name="text"' not in box(shown)
    assert "Unmute" in box(shown)
    assert len(said(page(client, game.tokens[1]))) == 3     # Bob's page is his own
    form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/mute", muted="0")
    assert len(said(page(client, game.tokens[0]))) == 3
    odd = form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/mute", muted="yes")
    assert odd.status_code == 400


def test_spectators_read_the_talk_unless_the_creator_turns_it_off(client):
    game = deal(2)
    say(client, game.tokens[1], "hello watchers")
    public = client.get(f"/games/{game.game_id}").get_data(as_text=True)
    assert said(public) == [("Bob", "hello watchers")] and 'name="text"' not in public
    assert "Spectators may read the talk: <strong>on</strong>" in box(page(client, game.tokens[0]))
    assert "Spectators may read the talk" not in box(page(client, game.tokens[1]))
    refused = form_post(client, game.tokens[1], f"/play/{game.tokens[1]}/talk/spectators", on="0")
    assert refused.status_code == 403
    off = form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/spectators", on="0")
    assert off.status_code == 303
    public = client.get(f"/games/{game.game_id}").get_data(as_text=True)
    assert "hello watchers" not in public
    assert "The players keep their table talk to themselves." in public
    assert said(page(client, game.tokens[1])) == [("Bob (you)", "hello watchers")]
    form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/spectators", on="1")
    assert "hello watchers" in client.get(f"/games/{game.game_id}").get_data(as_text=True)


def test_the_lobby_checkbox_decides_whether_spectators_read_the_talk(client, db):
    from tests.web.test_pages import lobby_form

    players = [("Ann", "ann@example.com", "human"), ("Bob", "bob@example.com", "human")]
    assert 'name="talk_spectators" value="1" checked' in client.get("/").get_data(as_text=True)
    client.post("/", data=lobby_form(players, client, talk_shown="1"))       # unticked
    client.post("/", data=lobby_form(players, client, talk_shown="1", talk_spectators="1"))
    client.post("/", data=lobby_form(players, client))        # a form without the box: on
    with db.engine.connect() as conn:
        chosen = [bool(v) for v in conn.exec_driver_sql(
            "SELECT talk_spectators FROM game ORDER BY created").scalars()]
    assert chosen == [False, True, True]


# -- live, and the replay ------------------------------------------------------------

def test_the_pages_probe_changes_when_something_is_said(client):
    game = deal(2)
    url = f"/games/{game.game_id}/seq"
    first = client.get(url)
    assert first.get_json()["talk"] == 0
    assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    say(client, game.tokens[0], "news")
    later = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert later.status_code == 200 and later.get_json()["talk"] >= 1
    assert f'data-talk="{later.get_json()["talk"]}"' in page(client, game.tokens[1])


def test_the_replay_shows_what_was_said_up_to_each_move(client):
    game = deal(2)
    say(client, game.tokens[0], "before any move")
    step = play_moves(game, 3)
    say(client, game.tokens[1], f"after move {step}")
    say(client, game.tokens[0], "hide me")
    hide_path = HIDE.findall(box(page(client, game.tokens[0])))[-1][0]
    form_post(client, game.tokens[0], hide_path)
    replay = f"/games/{game.game_id}/replay"
    at_start = client.get(f"{replay}?step=0").get_data(as_text=True)
    assert [what for _, what in said(at_start)] == ["before any move"]
    at_end = client.get(f"{replay}?step={step}").get_data(as_text=True)
    assert [what for _, what in said(at_end)] == ["before any move", f"after move {step}",
                                                  "hidden by the creator"]
    assert "hide me" not in at_end and 'name="text"' not in box(at_end)
    # a seat's replay, by its link
    own = client.get(f"{replay}?step=0&token={game.tokens[1]}").get_data(as_text=True)
    assert [what for _, what in said(own)] == ["before any move"]


def test_a_public_replay_of_a_running_game_keeps_the_talk_when_spectators_may_not_read(client):
    game = deal(2)
    say(client, game.tokens[1], "between us")
    form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/spectators", on="0")
    public = client.get(f"/games/{game.game_id}/replay").get_data(as_text=True)
    assert "between us" not in public and "to themselves while the game runs" in public
    own = client.get(f"/games/{game.game_id}/replay?token={game.tokens[0]}")
    assert "between us" in own.get_data(as_text=True)


def test_after_the_game_the_table_still_talks_and_the_replay_shows_it_to_all(client):
    game = deal(2)
    form_post(client, game.tokens[0], f"/play/{game.tokens[0]}/talk/spectators", on="0")
    say(client, game.tokens[1], "during the game")
    play_moves(game, 5000)
    assert services.snapshot(game.game_id).game.status == "over"
    assert say(client, game.tokens[0], "gg").status_code == 303
    public = client.get(f"/games/{game.game_id}/replay?step=100000").get_data(as_text=True)
    assert [what for _, what in said(public)] == ["during the game", "gg"]


def test_a_message_said_twice_with_one_key_is_handed_to_the_mail_once(app, monkeypatch, db):
    from app.mail import table_talk

    told: list[tuple[str, int, int]] = []
    monkeypatch.setattr(table_talk, "said",
                        lambda session, game_id, talk_id, seat, now: told.append(
                            (game_id, talk_id, seat)))
    game = deal(2)
    message_id = "<" + "x" * 300 + "@mail.example>"          # a reply's long Message-ID
    with write_session() as session:
        first = talk_service.post(session, game.game_id, 1, "SAY by mail", key=message_id,
                                  source="mail", now=utcnow())
    with write_session() as session:
        again = talk_service.post(session, game.game_id, 1, "SAY by mail", key=message_id,
                                  source="mail", now=utcnow())
    assert first == again and told == [(game.game_id, first, 1)]
    assert talk_rows(db, game.game_id) == 1
