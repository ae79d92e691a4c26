"""Words about the past keep their people (issue 32 item 1, R49): after Dana took over
Kenji's seat, whatever Kenji said or did before is still his on every surface (other
seats' pages and JSON, the spectator page, the talk JSON, the replay and its talk, every
mail sent after), and nothing said or done before the hand-over carries Dana's name.

Written from Kenji's side (his words, his timeout, the day Ann gave him stay his) and
from Dana's (her page says she took his seat over, in which round, and what it holds).
"""
from __future__ import annotations

import html
import re
from typing import Any

from sqlmodel import select

from app import engine, services
from app.clock import deadlines as dl
from app.db import read_session
from app.table.models import Vote
from app.services import votes

from .conftest import T0, hours

ANN, BOB, KENJI, DANA = ("ann@example.com", "bob@example.com", "kenji@example.com",
                         "dana@example.com")
PEOPLE = [("Ann", ANN), ("Bob", BOB), ("Kenji", KENJI)]
SAID = "Konbanwa from Tokyo!"
#: What Kenji says last, untold until mails leave after the hand-over.
LAST = "Oyasumi, off to the airport"
#: What Kenji did before the hand-over, in the words every surface uses for it; none of
#: them may ever name Dana.
DEEDS = ("{} passed (timed out)", "Time ran out for {}", "{} is away",
         "gave {} one more day", "to take over {}'s seat", "{}: " + SAID)


def text_of(body: str) -> str:
    """A page or a mail as a reader reads it: tags dropped, entities read, one space."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def said_by_dana(text: str) -> list[str]:
    """Every deed of before the hand-over that ``text`` attaches to Dana."""
    found = [deed.format("Dana") for deed in DEEDS if deed.format("Dana") in text]
    # the talk line: the last name shown before Kenji's words is who said them
    for match in re.finditer(f"{re.escape(SAID)}|{re.escape(LAST)}", text):
        before = re.findall(r"\b(Ann|Bob|Kenji|Dana)\b", text[:match.start()])
        if before and before[-1] == "Dana":
            found.append(f"Dana said: {text[max(0, match.start() - 60):match.end()]}")
    return found


def play(gid: str, but: int | None = None, moves: int = 200) -> None:
    """Whoever is to act (but seat ``but``) makes their first legal move, until only
    ``but`` is waited for (or ``moves`` were made)."""
    for _ in range(moves):
        snap = services.snapshot(gid)
        view = snap.view(None)
        movers = [seat for seat in view.get("to_act") or [] if seat != but]
        if view["phase"] == "over" or not movers:
            return
        seat = movers[0]
        legal = [a for a in engine.legal_actions(snap.state, seat)
                 if a["type"] not in ("away", "back", "resign", "call")]
        services.submit_action(gid, seat, legal[0], snap.seq)


def play_until_handed_over(app: Any, client: Any, new_game: Any, tick: Any, mailbox: Any
                           ) -> dict[str, Any]:
    """Kenji says hello, is given a day by Ann, times out and is marked away; Ann proposes
    Dana for his seat and the vote passes. The mailbox holds only what left after."""
    with dl.at(T0):
        created = new_game(seats=3, people=PEOPLE, deadline_hours=2, absent_after=1)
    gid, links = created.game_id, created.tokens
    tick(T0)
    with dl.at(T0 + hours(0.1)):
        play(gid, but=2, moves=6)  # Ann and Bob play what they can; Kenji does nothing
        said = client.post(f"/api/play/{links[2]}/talk", json={"text": SAID})
        assert said.status_code in (200, 201), said.get_json()
        given = client.post(f"/api/play/{links[0]}/more-time", json={"seat": 2})
        assert given.status_code == 200, given.get_json()
    tick(T0 + hours(27))  # Kenji's peek times out (a day given + 2 hours): he is away
    with dl.at(T0 + hours(27)):
        play(gid, but=2, moves=6)
    mailbox.clear()
    with dl.at(T0 + hours(27.5)):  # said last, carried by mails that leave after
        said = client.post(f"/api/play/{links[2]}/talk", json={"text": LAST})
        assert said.status_code in (200, 201), said.get_json()
    votes.start(gid, 0, "substitute", subject=2, name="Dana", email=DANA, now=T0 + hours(28))
    tick(T0 + hours(28.5))  # the vote's mails leave (Ann's and Bob's moves not yet due)
    # Kenji is only away: Bob's yes passes it once Kenji has had twelve running hours
    # since his mail left (issue 45 item 4; no tick meanwhile, so nobody else times out)
    with dl.at(T0 + hours(40.5)):
        client.post(f"/api/play/{links[1]}/votes/1", json={"yes": True})
    assert services.snapshot(gid).game.names[2] == "Dana"
    with read_session() as session:
        assert session.exec(select(Vote)).one().status == "passed"
    tick(T0 + hours(80))
    return {"gid": gid, "links": links, "dana": services.seat_tokens(gid)[2]}


def test_after_dana_took_over_nothing_kenji_did_or_said_is_shown_as_hers(
        app, client, new_game, tick, mailbox):
    game = play_until_handed_over(app, client, new_game, tick, mailbox)
    gid, links, dana = game["gid"], game["links"], game["dana"]
    # a few moves after the hand-over, so mails carry the news since the last turn
    with dl.at(T0 + hours(81)):
        play(gid, moves=6)
    tick(T0 + hours(82))
    step = services.game_info(gid).seq
    surfaces: dict[str, str] = {
        "Ann's page": client.get(f"/play/{links[0]}").get_data(as_text=True),
        "Bob's page": client.get(f"/play/{links[1]}").get_data(as_text=True),
        "Dana's page": client.get(f"/play/{dana}").get_data(as_text=True),
        "the spectator page": client.get(f"/games/{gid}").get_data(as_text=True),
        "Ann's JSON": client.get(f"/api/play/{links[0]}").get_data(as_text=True),
        "Ann's table JSON": client.get(f"/api/play/{links[0]}/table").get_data(as_text=True),
        "Ann's talk JSON": client.get(f"/api/play/{links[0]}/talk").get_data(as_text=True),
        "Dana's talk JSON": client.get(f"/api/play/{dana}/talk").get_data(as_text=True),
        "the replay JSON": client.get(f"/api/games/{gid}/replay?token={links[0]}")
                                 .get_data(as_text=True),
        "the replay page": client.get(f"/games/{gid}/replay?step={step}&token={links[0]}")
                                 .get_data(as_text=True),
    }
    for frame in range(1, step + 1):
        surfaces[f"replay step {frame}"] = client.get(
            f"/games/{gid}/replay?step={frame}&token={links[1]}").get_data(as_text=True)
    for to, message in mailbox.sent:
        body = message.get_body(("plain",)).get_content()
        surfaces[f"mail to {to}: {message['Subject']}"] = body
    wrong = {where: said_by_dana(text_of(body)) for where, body in surfaces.items()}
    assert {where: deeds for where, deeds in wrong.items() if deeds} == {}
    # and the words are there, with Kenji's name: his talk, his timeout, the day given
    seen = " ".join(text_of(body) for body in surfaces.values())
    assert re.search(r"Kenji \([^)]*\): " + re.escape(LAST), seen), \
        "a mail after the hand-over carried Kenji's last words, under his name"
    for deed in ("gave {} one more day", "to take over {}'s seat", "{} is away"):
        assert deed.format("Kenji") in seen, deed
    # a program reading the log's seat numbers learns who held them when
    holders = client.get(f"/api/play/{links[0]}").get_json()["game"]["holders"]
    assert [h["names"][2] for h in holders] == ["Kenji", "Dana"]
    for link in (links[0], dana):
        talk = client.get(f"/api/play/{link}/talk").get_json()["talk"]
        assert [(line["name"], line["text"]) for line in talk] == [("Kenji", SAID),
                                                                    ("Kenji", LAST)]


def test_danas_page_says_she_took_over_kenjis_seat_and_what_it_holds(
        app, client, new_game, tick, mailbox):
    game = play_until_handed_over(app, client, new_game, tick, mailbox)
    page = text_of(client.get(f"/play/{game['dana']}").get_data(as_text=True))
    assert "You took over Kenji's seat in round 1" in page
    assert "playing as Dana" in page
    # the seat's cards, knowledge and score are hers to see: the view is the seat's
    mine = client.get(f"/api/play/{game['dana']}").get_json()
    assert mine["view"]["villages"] == engine.view(services.snapshot(game["gid"]).state,
                                                   2)["villages"]
    # and what Kenji said is his on her page, not hers ("(you)" is for what she said)
    assert f"Kenji: {LAST}" in page
    assert not re.search(r"\(you\) [^.!]{0,30}(Konbanwa|Oyasumi)", page), \
        "his words are not marked as hers"


def tenure_reads(app: Any, client: Any, path: str) -> int:
    """How many statements of one GET read the tenures (statements are counted, never
    timed: tests/web/test_statement_count.py)."""
    from app.db import get_engine
    from tests.web.test_statement_count import StatementCounter

    counter = StatementCounter(get_engine(app))
    seen: list[int] = []
    texts: list[list[str]] = []
    with counter.listening(), counter.request(seen, texts):
        assert client.get(path).status_code == 200
    return sum("tenure" in text for text in texts[0])


def test_the_pages_read_the_tenures_once_and_only_where_a_seat_changed_hands(
        app, client, new_game, tick, mailbox):
    with dl.at(T0):
        untouched = new_game(seats=3, people=PEOPLE)
    for path in (f"/play/{untouched.tokens[0]}", f"/games/{untouched.game_id}",
                 f"/api/play/{untouched.tokens[0]}/talk"):
        assert tenure_reads(app, client, path) == 0, path
    game = play_until_handed_over(app, client, new_game, tick, mailbox)
    for path in (f"/play/{game['links'][0]}", f"/play/{game['dana']}",
                 f"/games/{game['gid']}", f"/api/play/{game['links'][0]}/talk"):
        assert tenure_reads(app, client, path) == 1, path


def test_words_of_a_step_name_its_holders_then_and_say_you_only_for_the_readers_own():
    """The rules' words (R49): Kenji held seat 2 until the take_over at seq 10, Dana
    since. An event of seq 5 is Kenji's, also on Dana's own page; her take-over and what
    she did after are hers ("you")."""
    from app.engine.describe import event_sentence, played_parts
    from app.engine.names import SeatNames, name_at

    names = SeatNames(["Ann", "Bob", "Dana"], {0: ["Ann", "Bob", "Kenji"],
                                                10: ["Ann", "Bob", "Dana"]}, [0, 0, 10])
    timed_out = {"type": "pass", "seat": 2, "step": 5}
    took = {"type": "take_over", "seat": 2, "step": 10, "name": "Dana", "was": "Kenji",
            "round": 1}
    later = {"type": "draw", "seat": 2, "step": 11}
    assert event_sentence(timed_out, names) == "Kenji passed (timed out)."
    assert event_sentence(timed_out, names, me=2) == "Kenji passed (timed out)."
    assert event_sentence(took, names, me=2) == "You took over Kenji's seat in round 1."
    assert event_sentence(later, names, me=2) == "You drew a card."
    assert event_sentence(later, names, me=0) == "Dana drew a card."
    peeked = [{"type": "peek", "seat": 2, "step": 5, "positions": [0, 1]}]
    assert played_parts(peeked, names, 2, 2)[0].startswith("Time ran out for Kenji")
    assert (name_at(names, 2, 9), name_at(names, 2, 10)) == ("Kenji", "Dana")
    assert names.as_of(9) == ["Ann", "Bob", "Kenji"] and list(names) == ["Ann", "Bob", "Dana"]

