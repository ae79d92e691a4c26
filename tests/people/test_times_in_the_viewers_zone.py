"""Every time a seat is shown is in its person's zone (issue 33, acceptance), over a whole game.

Ann lives in Berlin and chose Europe/Berlin on her settings page before this game. Measured
before: her village badge said "due … 09:54 UTC" beside "10:54 CET", and her JSON gave
UTC. Here she plays a whole game with Bob and Cid as it goes for people: she plays when
she gets to it, then misses deadlines and is marked away while the clock plays for her,
comes back, is given a day, is asked a vote, reads the table talk, and plays to the end.
After every tick of the clock and every thing she does, each page of her seat and each
JSON answer of it is read as she would read it, and at the end every mail that reached
her: none shows a UTC time (the words "UTC"/"GMT", or an ISO time at offset +00:00 or
"Z", or with no offset at all); the times they show are in CET.
"""
from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from sqlmodel import select

from app import engine, services
from app.clock import deadlines as dl
from app.db import read_session
from app.mail.models import Outbox
from app.services import absence, more_time, person_settings, talk, votes

from .conftest import T0, csrf, hours, lead_of

ANN, BOB, CID = "ann@example.com", "bob@example.com", "cid@example.com"
#: A UTC time as a person or a program would read it; an ISO time with no offset at all
#: is one too (the store's UTC, which a program would take for its own local time).
UTC_TIME = re.compile(r"\bUTC\b|\bGMT\b|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\+00:00|Z\b)"
                      r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?![\d.:+\-Z])")
#: A time in words as mails and pages show it ("10:54 CET"); an ISO time with its offset.
SHOWN_ZONE = re.compile(r"\b\d{2}:\d{2} ([A-Z]{3,4})\b")
#: The settings page's list of zones to choose from (names, not times: "Etc/UTC").
ZONE_LIST = re.compile(r'<select[^>]*name="time_zone".*?</select>', re.S)
ISO_OFFSET = re.compile(r"T\d{2}:\d{2}:\d{2}(?:\.\d+)?([+-]\d{2}:\d{2})")


def text_of(message: EmailMessage) -> str:
    return "\n".join(part.get_content() for part in message.walk()
                     if part.get_content_type() in ("text/plain", "text/html"))


class Ann:
    """What Ann reads of her seat: every page and JSON answer, as often as it changes."""

    def __init__(self, client: Any, token: str, game_id: str) -> None:
        self.client, self.token, self.game_id = client, token, game_id
        self.read: dict[str, str] = {}      # first place each UTC time was seen, by what
        self.zones: set[str] = set()
        self.reads = 0

    def addresses(self) -> list[str]:
        t = self.token
        return [f"/play/{t}", f"/play/{t}/settings", f"/api/play/{t}",
                f"/api/play/{t}/actions", f"/api/play/{t}/table", f"/api/play/{t}/talk",
                f"/api/play/{t}/plan", f"/api/play/{t}/targets",
                f"/games/{self.game_id}/replay?token={t}",
                f"/api/games/{self.game_id}/replay?token={t}"]

    def looks(self, when: str, everything: bool = True) -> None:
        """Every page and JSON answer of her seat; not ``everything``: those that change
        with each move (the page, its JSON, the table's clocks), read at every turn."""
        every = self.addresses()
        for address in every if everything else [every[0], every[2], every[4]]:
            answer = self.client.get(address)
            assert answer.status_code == 200, (address, answer.status_code)
            self.note(f"{address} ({when})", answer.get_data(as_text=True))
            self.reads += 1

    def note(self, where: str, text: str) -> None:
        text = ZONE_LIST.sub("", text)      # the names of the zones to choose from
        for found in UTC_TIME.finditer(text):
            around = text[max(0, found.start() - 60):found.end() + 20].replace("\n", " ")
            what = re.sub(r"/[\w.-]{20,}", "/<token>", where.split(" (")[0])
            self.read.setdefault(f"{what}: {re.sub(r'[0-9]', '#', around)}", where)
        self.zones |= set(SHOWN_ZONE.findall(text)) | set(ISO_OFFSET.findall(text))


def test_a_berlin_seat_sees_no_utc_time_over_a_whole_game(app, client, tick, mailbox):
    person_settings.set_time_zone(ANN, "Europe/Berlin", T0 - hours(24))  # chosen earlier
    with dl.at(T0):
        created = services.create_game(
            [{"name": "Ann", "email": ANN}, {"name": "Bob", "email": BOB},
             {"name": "Cid", "email": CID}],
            {"deadline_hours": 4, "reminders": ["half"], "absent_after": 2},
            name="Berlin table", seed="33")
    gid, token = created.game_id, created.tokens[0]
    ann = Ann(client, token, gid)
    rng = random.Random(33)
    now, stage, since_away, given, rounds_seen = T0, "playing", 0, False, 0
    for _ in range(2000):
        tick(now)
        snap = services.snapshot(gid)
        view = snap.view(None)
        if view["phase"] == "over" or snap.game.status != "running":
            break
        for seat in (1, 2):                                    # Bob and Cid play at once
            while seat in services.snapshot(gid).view(None)["to_act"]:
                play(gid, seat, now, rng)
        away = absence.seat_clock_state(gid, 0, now)["absent"]
        if stage == "playing" and view["round"] >= 2:
            stage = "gone"                                     # she stops playing
        elif stage == "gone" and away:
            since_away += 1
            if since_away == 3:                                # the clock played for her
                ann.looks("away")
                with dl.at(now):
                    post(client, token, "/back")
                    votes.start(gid, 1, "abort", now=now)
                    client.post(f"/play/{token}/talk", data={
                        "csrf_token": csrf(client, token), "text": "Back, sorry!"})
                    talk.say_by_link(created.tokens[1], "Welcome back", None, "page")
                ann.looks("back")
                with dl.at(now):
                    votes.answer(gid, 0, None, False, now=now)
                stage = "back"
        her_turn = 0 in services.snapshot(gid).view(None)["to_act"]
        if stage == "back" and her_turn and not given:
            more_time.give_time(gid, 1, 0, now)                  # Bob gives her a day
            given = True
            ann.looks("given a day")
        if stage in ("playing", "back") and her_turn and now.minute == 30:
            new_round = view["round"] != rounds_seen
            rounds_seen = view["round"]
            ann.looks("her turn", everything=new_round)
            while 0 in services.snapshot(gid).view(None)["to_act"]:
                play_by_her_link(client, ann, token, gid, now, rng)  # (its answer read too)
            ann.looks("after her move", everything=new_round)
        now += timedelta(minutes=30)
    assert services.snapshot(gid).view(None)["phase"] == "over", "the game was played out"
    assert stage == "back" and given, "she was away, came back and was given a day"
    ann.looks("game over")

    mails = mailbox.to(ANN)
    for number, message in enumerate(mails):
        ann.note(f"mail {number}", text_of(message))
    with read_session() as session:
        for row in session.exec(select(Outbox).where(Outbox.to == ANN)):
            ann.note(f"outbox {row.kind} ({row.id})", f"{row.text}\n{row.html or ''}")
        kinds = {row.kind for row in session.exec(select(Outbox).where(Outbox.to == ANN))}
    assert {"invitation", "turn", "reminder", "you_absent", "round", "over"} <= kinds, kinds
    assert ann.reads >= 100 and len(mails) >= 10
    assert ann.read == {}, "\n".join(ann.read)
    assert ann.zones == {"CET", "+01:00"}, ann.zones


def play(gid: str, seat: int, now: datetime, rng: random.Random) -> None:
    with dl.at(now):
        snap = services.snapshot(gid)
        services.submit_action(gid, seat, rng.choice(engine.legal_actions(snap.state, seat)),
                               snap.seq)


def play_by_her_link(client: Any, ann: "Ann", token: str, gid: str, now: datetime,
                     rng: random.Random) -> None:
    """Ann's move through the JSON API, whose answer (the game, her view) is hers to
    read like any other."""
    with dl.at(now):
        snap = services.snapshot(gid)
        action = rng.choice(engine.legal_actions(snap.state, 0))
        answer = client.post(f"/api/play/{token}/actions?log=1",
                             json={"action": action, "expected_seq": snap.seq})
    assert answer.status_code == 200, answer.get_json()
    ann.note(f"her move's answer at step {snap.seq}", answer.get_data(as_text=True))


def post(client: Any, token: str, path: str, **form: Any) -> None:
    answer = client.post(f"/play/{token}{path}", data={"csrf_token": csrf(client, token),
                                                       **form})
    assert answer.status_code in (200, 303), (path, answer.status_code)
