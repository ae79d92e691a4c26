"""Notices where people already are: Discord, Slack and ntfy targets get exactly what
the mail policy sends (issue 20 item 3).

A local HTTP sink on 127.0.0.1 plays Discord's webhook (``POST /api/webhooks/<id>/<token>``,
JSON with ``content`` or ``embeds``), Slack's (``POST /services/T../B../...``, JSON
``text``/``blocks``/``attachments``) and an ntfy server (``POST`` with the topic). ntfy and
json:// point at the sink directly; Discord and Slack have fixed public hosts, so the
test sends apprise's HTTP for those hosts to the sink (path and body kept, so the sink
sees their payloads). ``NOTICE_ALLOW_PRIVATE`` is on for the sink, except where the
URL checks themselves are tested.

Games are played with the injected clock (``test_when_mail_matters.play``): the human
"plays quickly" by moving before the sender's run past the grace period, and "waits" by
letting it run first.
"""
from __future__ import annotations

import re

import json
import logging
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests
from sqlmodel import Session, select

from app import services
from app.mail.compose import LEAD_WORDS
from app.channels import targets
from app.channels.models import NoticeDelivery, NoticeTarget
from app.clock import deadlines as dl
from app.db import get_engine
from app.mail.models import Outbox
from app.runners import clock, notices
from app.runners.waker import Waker
from app.services import notice_targets

from .test_when_mail_matters import (T0, CheckingMailbox, graced, new_game,  # noqa: F401
                                     play)

DISCORD_ID, DISCORD_TOKEN = "1234567890", "DiscordSecretTokenAbc123"
DISCORD = f"discord://{DISCORD_ID}/{DISCORD_TOKEN}"
SLACK_PATH = "T1JJ3T3L2/A1BRTD4JD/SlackSecretTokenXyz789"
SLACK = f"slack://{SLACK_PATH}"
TOPIC = "ntfyTopicSecret42"
FIXED_HOSTS = {"discord.com", "hooks.slack.com"}


class Sink:
    """What the sink received: (path, JSON body) per POST; ``failing``: paths that
    answer 500 (a target that keeps failing)."""

    def __init__(self) -> None:
        self.received: list[tuple[str, Any]] = []
        self.failing: set[str] = set()
        self.lock = threading.Lock()
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def at(self, prefix: str) -> list[Any]:
        with self.lock:
            return [body for path, body in self.received if path.startswith(prefix)]

    def text_of(self, body: Any) -> str:
        """A notice's words, whatever the service's payload shape."""
        return json.dumps(body, ensure_ascii=False)


@pytest.fixture
def sink(monkeypatch) -> Iterator[Sink]:
    box = Sink()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw
            with box.lock:
                box.received.append((self.path, body))
            failing = any(self.path.startswith(p) for p in box.failing)
            self.send_response(500 if failing else 200)
            slack = self.path.startswith("/services/")  # (Slack's hooks answer "ok")
            answer = b"error" if failing else b"ok" if slack else b'{"ok": true}'
            self.send_header("Content-Type", "text/plain" if slack else "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    real = requests.sessions.Session.request

    def to_sink(self: Any, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        parts = urlsplit(url)
        if parts.hostname in FIXED_HOSTS:
            url = urlunsplit(("http", f"127.0.0.1:{box.port}", parts.path, parts.query, ""))
        return real(self, method, url, *args, **kwargs)

    monkeypatch.setattr(requests.sessions.Session, "request", to_sink)
    yield box
    server.shutdown()
    server.server_close()


@pytest.fixture
def notice_app(graced, sink):
    graced.config.update(NOTICE_ALLOW_PRIVATE=True)
    return graced


def human_and_bots(new_game: Any, app: Any, *urls: str, by_mail: bool = False,
                   seed: str = "31") -> Any:
    created = new_game(seats=3, bots=(1, 2), seed=seed)
    access = services.open_seat(created.tokens[0])
    with dl.at(T0):
        for url in urls:
            notice_targets.add(access, url)
        notice_targets.set_by_mail(access, by_mail)
    return created


def ann_mails(mailbox: CheckingMailbox) -> list[str]:
    """The kinds of the outbox rows of the mails that reached Ann."""
    ids = [str(m["Message-ID"]) for m in mailbox.sent
           if m["To"].addresses[0].addr_spec == "ann@example.com"]
    with Session(get_engine(_app[0])) as session:
        return [session.exec(select(Outbox.kind).where(Outbox.message_id == mid)).one()
                for mid in ids]


_app: list[Any] = []


@pytest.fixture(autouse=True)
def _remember(request):
    if "notice_app" in request.fixturenames:
        _app[:] = [request.getfixturevalue("notice_app")]


def turn_notices(bodies: list[Any]) -> list[str]:
    return [json.dumps(b) for b in bodies if "Your turn" in json.dumps(b)]


class Fresh:
    """Checks every notice as apprise is handed it: the seat still faces its turn in
    the round the notice names (never stale), and the notice carries the seat link."""

    def __init__(self, game_id: str, link: str) -> None:
        self.game_id, self.link = game_id, link
        self.stale: list[str] = []
        self.checked = 0
        self.send = notices.apprise_send  # (the real one, before the test puts this in)

    def __call__(self, url: str, title: str, body: str) -> str | None:
        assert self.link in body, body
        if "Your turn" in title:
            status = services.snapshot(self.game_id).view(None)
            if 0 not in status["to_act"] or f"(round {status['round']})" not in body:
                self.stale.append(f"{body!r} while round {status['round']} waits for "
                                  f"{status['to_act']}")
            self.checked += 1
        return self.send(url, title, body)


def test_a_player_who_plays_from_the_page_quickly_gets_no_notice(notice_app, new_game, sink):
    created = human_and_bots(new_game, notice_app, DISCORD)
    mailbox = CheckingMailbox()
    play(notice_app, created.game_id, mailbox, wait=lambda seat: 30)
    assert services.game_info(created.game_id).status == "over"
    posted = sink.at(f"/api/webhooks/{DISCORD_ID}/{DISCORD_TOKEN}")
    assert turn_notices(posted) == []
    # the round and game summaries the mail policy sends go to the target, in short form
    assert any("Game over" in sink.text_of(b) for b in posted)
    assert set(ann_mails(mailbox)) <= {"invitation"}


@pytest.mark.slow  # whole game against bots
def test_a_player_who_waits_gets_one_notice_per_waiting_stretch_with_the_link(
        notice_app, new_game, sink, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    created = human_and_bots(new_game, notice_app, DISCORD)
    link = f"http://silver-eye.test/play/{created.tokens[0]}"
    fresh = Fresh(created.game_id, link)
    monkeypatch.setattr(notices, "apprise_send", fresh)
    mailbox = CheckingMailbox()
    record = play(notice_app, created.game_id, mailbox, wait=lambda seat: 200)
    stretches = record["stretches"][0]
    posted = sink.at(f"/api/webhooks/{DISCORD_ID}/{DISCORD_TOKEN}")
    turns = turn_notices(posted)
    assert len(turns) == len(stretches) > 10
    assert fresh.stale == [] and fresh.checked == len(turns)
    # Discord's webhook payload, with the seat link in it
    assert all(isinstance(b, dict) and ("content" in b or "embeds" in b) for b in posted)
    assert all(link in sink.text_of(b) for b in posted)
    # no card a seat holds is named: only public words, the turn mail's own first line
    # (issue 49 item 1: "Test game · Your turn: <the decision> (round n) · due <time>")
    # (a turn names the discard it may take, public to the whole table; a decision may say
    # its public progress: "(1 more to turn)")
    asked = "|".join([*(re.escape(w) for w in LEAD_WORDS.values()), "draw a card",
                      r"draw, (?:or )?take the -?\d+ [A-Z][\w ]+ from the discard"])
    said = re.compile(rf"Test game · Your turn: ({asked})(?: \([^)]*\))?(?:, or call for a "
                      rf"vote)? \(round \d\) · due \w{{3}} \d+ \w{{3}} \d\d:\d\d \w+")
    shown = [json.dumps(json.loads(t), ensure_ascii=False) for t in turns]
    assert all(said.search(t) for t in shown), [t for t in shown if not said.search(t)][:3]
    # mail is off for the seat: nothing but the invitation reaches its mailbox
    assert set(ann_mails(mailbox)) <= {"invitation"}
    # neither the target's URL nor its token, nor the seat's token, is in any log line
    logged = caplog.text
    for secret in (DISCORD_TOKEN, created.tokens[0]):
        assert secret not in logged


def test_slack_and_ntfy_targets_each_get_the_notice_beside_mail(notice_app, new_game, sink):
    ntfy = f"ntfy://127.0.0.1:{sink.port}/{TOPIC}"
    created = human_and_bots(new_game, notice_app, SLACK, ntfy, by_mail=True)
    mailbox = CheckingMailbox()
    clock.send_mail_due(notice_app, T0 + timedelta(seconds=200), backend=mailbox)
    slack = sink.at(f"/services/{SLACK_PATH}")
    assert len(turn_notices(slack)) == 1
    assert isinstance(slack[0], dict) and ({"text", "blocks", "attachments"} & set(slack[0]))
    topic = [b for path, b in sink.received if TOPIC in path or TOPIC in json.dumps(b)]
    assert len(turn_notices(topic)) == 1
    link = f"http://silver-eye.test/play/{created.tokens[0]}"
    assert link in sink.text_of(slack[0]) and link in sink.text_of(topic[0])
    with Session(get_engine(notice_app)) as session:
        assert {d.status for d in session.exec(select(NoticeDelivery))} == {"sent"}
    # "also mail me" is on: the turn mail goes too
    assert "turn" in ann_mails(mailbox)
    # once each: another run sends nothing more
    clock.send_mail_due(notice_app, T0 + timedelta(seconds=400), backend=mailbox)
    assert len(sink.received) == 2


def settle(app: Any, mailbox: CheckingMailbox, now: Any, rounds: int = 8) -> Any:
    """Let the sender (and the notices' retries) run for a while, five minutes a step."""
    for _ in range(rounds):
        now += timedelta(seconds=300)
        clock.send_mail_due(app, now, backend=mailbox)
    return now


def target_row(app: Any) -> NoticeTarget:
    with Session(get_engine(app)) as session:
        return session.exec(select(NoticeTarget)).one()


def test_a_failing_target_is_retried_then_paused_and_shown_and_mail_stands_in(
        notice_app, new_game, sink, client, caplog):
    import random
    from app.engine import bots
    caplog.set_level(logging.DEBUG)
    sink.failing.add("/api/webhooks/")
    created = human_and_bots(new_game, notice_app, DISCORD)
    mailbox = CheckingMailbox()
    now = T0
    for stretch in range(4):
        now = settle(notice_app, mailbox, now)
        with Session(get_engine(notice_app)) as session:
            tried = session.exec(select(NoticeDelivery).where(
                NoticeDelivery.kind == "turn").order_by(NoticeDelivery.id)).all()
        if stretch < 3:
            # retried: six attempts (15 s, 30 s, 1 min... apart), then failed
            assert len(tried) == stretch + 1
            assert tried[-1].attempts == 6 and tried[-1].status == "failed"
            assert "error 500" in (tried[-1].last_error or "")
        else:  # paused: no more notices are written for it
            assert len(tried) == 3
        # mail stands in for each notice that reached nobody
        assert ann_mails(mailbox).count("turn") == stretch + 1
        target = target_row(notice_app)
        assert (target.paused_at is not None) == (stretch >= 2)
        snap = services.snapshot(created.game_id)
        with dl.at(now):
            services.submit_action(created.game_id, 0,
                                   bots.choose("greedy", snap.state, 0, random.Random(1)),
                                   snap.seq)
    assert len(sink.at(f"/api/webhooks/{DISCORD_ID}/")) == 3 * 6
    target = target_row(notice_app)
    assert target.failures == 3 and "error 500" in (target.last_error or "")
    assert DISCORD_TOKEN not in (target.last_error or "")
    page = client.get(f"/play/{created.tokens[0]}").get_data(as_text=True)
    assert "Your notices to Discord · discord.com" in page and "are paused since" in page
    assert "Mail comes instead" in page and "Resume" in page
    assert DISCORD_TOKEN not in page
    # the pause was logged (by the target's id), and apprise's own lines, which name the
    # URL, never reached the app's logs
    assert "notice target" in caplog.text and "paused" in caplog.text
    assert DISCORD_TOKEN not in caplog.text and DISCORD_ID not in caplog.text
    assert not [r for r in caplog.records if r.name.startswith(("apprise", "urllib3"))]


def test_a_test_notice_arrives_and_a_failed_one_is_said(notice_app, new_game, sink):
    created = human_and_bots(new_game, notice_app, DISCORD)
    access = services.open_seat(created.tokens[0])
    [target] = notice_targets.read_status(access)["targets"]
    with dl.at(T0):
        notice_targets.test(access, target["id"])
    report = clock.sender.send_notices_due(notice_app, T0 + timedelta(seconds=1))
    assert report.sent == 1
    [body] = sink.at("/api/webhooks/")
    assert "This is a test notice" in sink.text_of(body)
    sink.failing.add("/api/webhooks/")
    with dl.at(T0):
        notice_targets.test(access, target["id"])
    report = clock.sender.send_notices_due(notice_app, T0 + timedelta(seconds=2))
    assert report.failed == 1 and report.retried == 0  # a test notice is tried once
    shown = notice_targets.read_status(access)["targets"][0]
    assert shown["state"] == "active" and "error 500" in shown["last_error"]


def test_a_stale_notice_is_superseded_before_it_is_sent(notice_app, new_game, sink):
    from app.engine import bots
    import random
    created = human_and_bots(new_game, notice_app, DISCORD)
    sink.failing.add("/api/webhooks/")
    mailbox = CheckingMailbox()
    clock.send_mail_due(notice_app, T0 + timedelta(seconds=200), backend=mailbox)
    assert len(sink.at("/api/webhooks/")) == 1  # tried once, to be retried in 15 s
    snap = services.snapshot(created.game_id)
    with dl.at(T0 + timedelta(seconds=201)):
        services.submit_action(created.game_id, 0,
                               bots.choose("greedy", snap.state, 0, random.Random(1)), snap.seq)
    sink.failing.clear()
    clock.send_mail_due(notice_app, T0 + timedelta(seconds=230), backend=mailbox)
    assert len(sink.at("/api/webhooks/")) == 1  # the retry found the seat had acted
    with Session(get_engine(notice_app)) as session:
        first = session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id)).first()
        assert first.status == "superseded"


# -- what a target URL may be -----------------------------------------------------------

@pytest.mark.parametrize("url, words", [
    ("json://127.0.0.1:8080/hook", "this server itself (loopback)"),
    ("json://localhost/hook", "this server itself (loopback)"),
    ("ntfys://10.1.2.3/topic", "a private network"),
    ("jsons://192.168.1.5/hook", "a private network"),
    ("jsons://169.254.169.254/latest", "a link-local address"),
    ("json://0.0.0.0/hook", "an unspecified address"),
    ("json://224.0.0.1/hook", "a multicast address"),
    ("mailto://ann:secret@example.com", "mail, files and desktop notices are not taken"),
    ("syslog://", "mail, files and desktop notices are not taken"),
    ("file:///etc/passwd", "could not read that address"),
    ("windows://", "could not read that address"),
    ("https://example.com/webhook", "could not read that address"),
    ("ftp://example.com/x", "could not read that address"),
])
def test_loopback_private_link_local_and_non_http_targets_are_refused_with_words(
        app, url, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        targets.validate(url)


def test_public_hosts_are_taken_and_fixed_hosts_are_checked_too(app):
    public = lambda host, port: ["162.159.135.232"]  # noqa: E731
    assert targets.validate(DISCORD, public) == (DISCORD, "Discord")
    assert targets.validate(f"https://discord.com/api/webhooks/{DISCORD_ID}/{DISCORD_TOKEN}",
                            public)[1] == "Discord"
    assert targets.validate("ntfy://ntfy.sh/my-topic", public)[1] == "ntfy"
    assert targets.validate("jsons://hooks.example.org/x", public)[1] == "JSON webhook"
    with pytest.raises(ValueError, match="a private network"):
        targets.validate(DISCORD, lambda host, port: ["10.0.0.9"])

    def nowhere(host: str, port: Any) -> list[str]:
        raise OSError("no such host")
    with pytest.raises(ValueError, match="could not find the host"):
        targets.validate("jsons://no-such-host.invalid/x", nowhere)
    # shown masked: the service, the host, the last four characters
    assert targets.mask(DISCORD) == "Discord · discord.com · …c123"


def test_the_host_is_checked_again_when_the_notice_is_sent(app, new_game, monkeypatch):
    created = new_game(seats=2)
    with Session(get_engine(app)) as session:
        session.add(NoticeTarget(game_id=created.game_id, seat=0, url="jsons://hooks.example.org/x",
                                 service="JSON webhook", created_at=T0))
        session.commit()
    access = services.open_seat(created.tokens[0])
    [target] = notice_targets.read_status(access)["targets"]
    with dl.at(T0):
        notice_targets.test(access, target["id"])
    monkeypatch.setattr(targets, "resolve", lambda host, port: ["10.0.0.7"])  # DNS changed
    sent: list[str] = []
    report = notices.send_due(get_engine(app), T0 + timedelta(seconds=1),
                              send=lambda url, title, body: sent.append(url))
    assert sent == [] and report.failed == 1
    assert "a private network" in notice_targets.read_status(access)["targets"][0]["last_error"]


def test_the_sender_thread_sends_a_test_notice_at_its_next_step(notice_app, new_game, sink):
    created = human_and_bots(new_game, notice_app, DISCORD, by_mail=True)
    access = services.open_seat(created.tokens[0])
    [target] = notice_targets.read_status(access)["targets"]
    waker = Waker(notice_app, backend=CheckingMailbox())
    waker.step()  # (whatever mail is due now goes first)
    notice_targets.test(access, target["id"])  # at the real now: due at once
    assert waker.step() is None  # it sent something and looks again at once
    assert any("This is a test notice" in sink.text_of(b) for b in sink.at("/api/webhooks/"))
