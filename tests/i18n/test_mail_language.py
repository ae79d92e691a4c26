"""Issue 50: every mail, notice and push in its reader's language, in every process.

Ann reads German, Kenji Japanese, Carl never chose (English). Each mail is composed
``in_language`` of the person it goes to, whichever process composes it: the web (a
move), the clock's tick (a reminder, a move the clock played, the mail the tick sends),
and the language goes back to the caller's after each one (no German in Carl's mail,
none in the page of the request that queued Ann's).
"""
from __future__ import annotations

import json
import re
from contextlib import nullcontext
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from flask import render_template_string
from sqlmodel import Session, col, select

from app import engine, i18n, services
from app.channels import deliveries, push, targets
from app.channels.models import NoticeDelivery, NoticeTarget
from app.clock import deadlines as dl
from app.db import get_engine, read_session
from app.gamelog import store
from app.mail import notify
from app.mail.models import Outbox
from app.runners import clock, notices
from app.services import person_settings
from tests.clock.conftest import T0, Recorder
from tests.inbound.conftest import answers, deliver, inbound, mail_app, reply_to  # noqa: F401
from tests.mail.conftest import smtp  # noqa: F401  (fixtures)

#: Seat order: after the round's peeks, seat 1 (Ann) plays first.
PEOPLE = [("Kenji", "kenji@example.com", "ja"), ("Ann", "ann@example.com", "de"),
          ("Carl", "carl@example.com", None)]
KENJI, ANN, CARL = 0, 1, 2
LANGUAGE_OF = {"kenji@example.com": "ja", "ann@example.com": "de", "carl@example.com": "en"}


def html_lang(html: str) -> str:
    found = re.search(r'<html lang="([^"]*)"', html)
    assert found, html[:200]
    return found.group(1)


def lang_of(message: EmailMessage) -> str:
    return html_lang(message.get_body(preferencelist=("html",)).get_content())


def to_of(message: EmailMessage) -> str:
    return message["To"].addresses[0].addr_spec


def make_table(at: Any = T0, **options: Any) -> Any:
    """The three of them at one table made at T0 (a day per decision, a reminder at
    half of it), by default the server's own grace period before a turn mail (composed
    as it leaves)."""
    for _name, address, language in PEOPLE:
        if language:
            person_settings._store(address, T0, language=language)
    players = [{"name": name, "email": address, "kind": "human"}
               for name, address, _language in PEOPLE]
    with dl.at(at) if at is not None else nullcontext():
        return services.create_game(players, {"deadline_hours": 24.0, "reminders": ["half"],
                                              **options}, name="Test game", seed="12345")


@pytest.fixture
def table(app) -> Any:
    return make_table()


def peek(game: Any, seat: int) -> None:
    snap = services.snapshot(game.game_id)
    services.submit_action(game.game_id, seat, engine.legal_actions(snap.state, seat)[0],
                           snap.seq)


def test_a_move_on_the_web_mails_each_reader_in_their_language(app, client, table):
    box = Recorder()
    clock.tick(app, T0, backend=box)
    invited = {to_of(m): lang_of(m) for _key, m in box.sent}
    assert invited == LANGUAGE_OF, "each invitation in its reader's language"
    box.clear()

    with dl.at(T0 + timedelta(minutes=1)):
        peek(table, KENJI)
        peek(table, ANN)
        snap = services.snapshot(table.game_id)
        answer = client.post(f"/api/play/{table.tokens[CARL]}/actions",
                             json={"action": engine.legal_actions(snap.state, CARL)[0],
                                   "expected_seq": snap.seq},
                             headers={"Accept-Language": "en"})
    assert answer.status_code == 200
    assert answer.headers["Content-Language"] == "en", "Carl's answer stays his"
    assert services.snapshot(table.game_id).view(None)["to_act"] == [ANN]

    clock.tick(app, T0 + timedelta(minutes=5), backend=box)  # her grace period is over
    [turn] = box.to("ann@example.com")
    assert lang_of(turn) == "de", "Ann's turn mail, queued by Carl's move, is German"
    assert turn["Content-Language"] == "de"
    assert i18n.current() == "en"


def test_the_clock_reminds_and_plays_each_reader_in_their_language(app, table):
    box = Recorder()
    clock.tick(app, T0, backend=box)
    box.clear()
    clock.tick(app, T0 + timedelta(hours=12), backend=box)  # every seat's peek reminder
    reminders = {to_of(m): lang_of(m) for _key, m in box.sent}
    assert reminders == LANGUAGE_OF, "German, Japanese, then English again: no leak"
    assert {to_of(m): m["Content-Language"] for _key, m in box.sent} == LANGUAGE_OF
    box.clear()

    clock.tick(app, T0 + timedelta(hours=24), backend=box)  # the clock peeks for all three
    with read_session() as session:
        played = {a.seat for a in store.load_actions(session, table.game_id)
                  if a.source == "timeout"}
    assert played == {KENJI, ANN, CARL}
    clock.tick(app, T0 + timedelta(hours=24, minutes=5), backend=box)
    [turn] = box.to("ann@example.com")
    assert lang_of(turn) == "de", "the turn mail after the clock's moves is German"
    assert i18n.current() == "en"


def test_a_mail_composed_in_a_request_leaves_the_request_in_its_language(app, table):
    with app.test_request_context("/", headers={"Accept-Language": "ja"}):
        app.preprocess_request()
        assert i18n.current() == "ja"
        services.request_fresh_link(table.game_id, seat=ANN)  # Ann's German mail, now
        assert i18n.current() == "ja"
        assert render_template_string("{{ html_lang() }}") == "ja"
    with read_session() as session:
        [(to, html)] = session.exec(select(Outbox.to, Outbox.html)
                                    .where(Outbox.kind == "link")).all()
    assert to == "ann@example.com" and html_lang(html or "") == "de"


def test_one_readers_language_does_not_leak_into_the_next_mail(app, table):
    """The decorator's own promise: Ann's mail in German, then Carl's in English, then
    the caller's language again."""
    said: list[tuple[int, str]] = []

    @notify.in_reader_language
    def mail(_unit: Any, ctx: notify.Context, seat: int) -> None:
        said.append((seat, i18n.current()))

    with read_session() as session:
        game = session.get(store.Game, table.game_id)
        ctx = notify.Context.load(session, game)
        assert [ctx.language(s) for s in (KENJI, ANN, CARL)] == ["ja", "de", None]
        with i18n.in_language("ja"):
            mail(None, ctx, ANN)
            mail(None, ctx, seat=CARL)
            assert i18n.current() == "ja"
    assert said == [(ANN, "de"), (CARL, "en")]


def test_notices_and_pushes_speak_the_readers_language(app, table, monkeypatch):
    with Session(get_engine(app)) as session:
        for address in ("ann@example.com", "carl@example.com"):
            session.add(NoticeTarget(address=address, url="jsons://hooks.example.org/x",
                                     service="JSON webhook", created_at=T0))
        session.commit()
    monkeypatch.setattr(targets, "resolve", lambda host, port: ["93.184.216.34"])
    sent: list[tuple[str, str, str]] = []
    monkeypatch.setattr(notices, "apprise_send",
                        lambda url, title, body: sent.append((url, title, body)))
    box = Recorder()
    clock.tick(app, T0, backend=box)
    clock.tick(app, T0 + timedelta(hours=12), backend=box)  # the reminders, and notices
    with read_session() as session:
        said = {(d.seat, d.kind): (d.title, d.body) for d in session.exec(
            select(NoticeDelivery)).all()}
    title, body = said[(ANN, "reminder")]
    with i18n.in_language("de"):
        assert title == f"Silver Eye · Test game: {i18n._('Reminder, your turn')}"
    assert title != "Silver Eye · Test game: Reminder, your turn", title
    assert said[(CARL, "reminder")][0] == "Silver Eye · Test game: Reminder, your turn"
    payload = json.loads(push.push_of(title, body, "reminder", table.game_id, 60).payload)
    assert payload["title"] == title, "a push says the delivery's German words"
    # the English form of a notice is as it was
    row = Outbox(kind="turn", text="", announces={"round": 2}, to="carl@example.com")
    assert deliveries.short_form(row, "Friday game") == (
        "Silver Eye · Friday game: Your turn", "It is your turn in Friday game (round 2).")
    with i18n.in_language("de"):
        german = deliveries.short_form(row, "Friday game")
    assert german[0] != "Silver Eye · Friday game: Your turn"


def ann_turn_mail(app: Any, client: Any, table: Any) -> EmailMessage:
    """Ann's turn mail, queued by Carl's move on the web at T0 + 1 minute (the round's
    last peek), as it leaves."""
    box = Recorder()
    clock.tick(app, T0, backend=box)
    with dl.at(T0 + timedelta(minutes=1)):
        peek(table, KENJI)
        peek(table, ANN)
        snap = services.snapshot(table.game_id)
        assert client.post(f"/api/play/{table.tokens[CARL]}/actions",
                           json={"action": engine.legal_actions(snap.state, CARL)[0],
                                 "expected_seq": snap.seq}).status_code == 200
    box.clear()
    clock.tick(app, T0 + timedelta(minutes=5), backend=box)
    [turn] = box.to("ann@example.com")
    return turn


def test_a_turn_mail_composed_where_its_decision_opens_is_the_readers(app):
    """A game without a grace period: Ann's first turn mail is composed as the game is
    made (not as it leaves)."""
    person_settings._store("ann@example.com", T0, time_zone="UTC")  # (no newcomer's wait)
    make_table(turn_mail_delay_seconds=0)
    with read_session() as session:
        [(subject, html)] = session.exec(select(Outbox.subject, Outbox.html).where(
            Outbox.kind == "turn", Outbox.to == "ann@example.com")).all()
    assert subject.startswith("Silver Eye"), "composed at once"
    assert html_lang(html or "") == "de"


def test_the_deadline_in_a_german_mail_is_said_the_german_way(app, client, table):
    from datetime import datetime, timezone
    from app.i18n import forms

    due = datetime(2030, 1, 8, 9, 1, tzinfo=timezone.utc)  # a day after Carl's move
    with i18n.in_language("de"):
        day = forms.day_when(due)  # "Di., 8. Jan."
    text = ann_turn_mail(app, client, table).get_body(preferencelist=("plain",)).get_content()
    assert day in text, text[:300]


def test_mail_to_an_address_without_a_game_is_in_its_persons_language(app, table):
    """The settings-change mail (it tells the new language in it) and the daily digest
    across games."""
    from app.runners import digests

    person_settings.save("carl@example.com", person_settings.wanted(language="ja"),
                         "settings", now=T0)
    person_settings.set_address_mode("ann@example.com", "daily")
    assert digests.send_daily(T0 + timedelta(hours=1)) == 1
    with read_session() as session:
        said = {(to, kind): html_lang(html or "") for to, kind, html in session.exec(
            select(Outbox.to, Outbox.kind, Outbox.html).where(
                col(Outbox.kind).in_(("settings_changed", "daily")))).all()}
    assert said == {("carl@example.com", "settings_changed"): "ja",
                    ("ann@example.com", "daily"): "de"}
    assert i18n.current() == "en"


def test_a_reply_is_answered_in_the_repliers_language(app, mail_app, smtp, inbound, deliver):
    """The inbound worker: Ann's reply is answered in German (and the game's clock is
    the wall's here: the receiver and the worker run now)."""
    app.config.update(TURN_MAIL_DELAY_SECONDS=0, MAIL_PER_ADDRESS_PER_HOUR=0)
    person_settings._store("ann@example.com", None, time_zone="UTC")  # (no newcomer's wait)
    make_table(at=None)
    deliver()
    turn = next(m for m in smtp.to("ann@example.com") if m.header("Reply-To"))
    inbound.send(reply_to(turn, "XYZZY PLUGH"))
    deliver()
    [answer] = answers(smtp, "ann@example.com") or [smtp.to("ann@example.com")[-1]]
    assert answer is not turn
    assert html_lang(answer.html) == "de", answer.text[:300]
