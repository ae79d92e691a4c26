"""Web Push end to end without a browser service (issue 49 items 3 and 4).

The test is the browser: it holds its own P-256 key pair and auth secret, subscribes
with them (as ``PushSubscription.toJSON()`` would post), and its "push service" is a
local HTTP endpoint that keeps what it is handed. The server encrypts with
``pywebpush`` and the test decrypts the ``aes128gcm`` body with ``http_ece``, as the
browser would, and reads the notice. ``PUSH_ALLOW_LOOPBACK`` lets the local endpoint in
(a real endpoint must be https on a public host: checked at the end).
"""
from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlmodel import Session, select

from app import services
from app.channels import push
from app.channels.models import NoticeDelivery, NoticeTarget, PushSubscription
from app.clock import deadlines as dl
from app.db import get_engine
from app.mail.models import Outbox
from app.runners import clock
from app.services import notice_targets, person_settings, push_subscriptions

from .test_when_mail_matters import T0, CheckingMailbox, graced, new_game  # noqa: F401


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Browser:
    """A browser's side of a subscription: its key pair and auth secret."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, endpoint: str) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": endpoint, "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}

    def read(self, body: bytes) -> dict[str, Any]:
        """Decrypt a push as the browser does (RFC 8291, aes128gcm)."""
        return json.loads(http_ece.decrypt(body, private_key=self.key,
                                           auth_secret=self.auth, version="aes128gcm"))


@dataclass
class Received:
    path: str
    #: by lower-case name (HTTP's are case-insensitive)
    headers: dict[str, str]
    body: bytes


class PushService:
    """A local push service: keeps each push; a path in ``gone`` answers 410, one in
    ``failing`` 500."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.gone: set[str] = set()
        self.failing: set[str] = set()
        self.port = 0
        self.lock = threading.Lock()

    def endpoint(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"

    def at(self, name: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == f"/push/{name}"]


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with service.lock:
                service.received.append(Received(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(410 if self.path in service.gone else
                               500 if self.path in service.failing else 201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield service
    server.shutdown()
    server.server_close()


@pytest.fixture
def push_app(graced):
    private, public = push.generate_keys()
    graced.config.update(VAPID_PRIVATE_KEY=private, VAPID_PUBLIC_KEY=public,
                         VAPID_SUBJECT="mailto:operator@example.com",
                         PUSH_ALLOW_LOOPBACK=True)
    return graced


def ann_game(new_game: Any, seed: str = "31") -> Any:
    """Ann (seat 0, ann@example.com) against two bots; her turn comes first."""
    return new_game(seats=3, bots=(1, 2), seed=seed)


def subscribe(token: str, browser: Browser, endpoint: str) -> dict[str, Any]:
    with dl.at(T0):
        return push_subscriptions.subscribe_seat(services.open_seat(token),
                                                 browser.subscription(endpoint))


def ann_mail_kinds(app: Any, mailbox: CheckingMailbox) -> list[str]:
    """The kinds of the outbox rows whose mail reached Ann."""
    ids = [str(m["Message-ID"]) for m in mailbox.sent
           if m["To"].addresses[0].addr_spec == "ann@example.com"]
    with Session(get_engine(app)) as session:
        return [session.exec(select(Outbox.kind).where(Outbox.message_id == mid)).one()
                for mid in ids]


def rows(app: Any, model: Any) -> list[Any]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(model)).all())


def test_a_turn_reaches_the_browser_encrypted_with_its_topic_and_a_ttl_within_the_deadline(
        push_app, new_game, push_service):
    game = ann_game(new_game)
    browser = Browser()
    said = subscribe(game.tokens[0], browser, push_service.endpoint("ann"))
    assert said["subscribed"] and said["scope"] == "seat"
    assert said["shown"].startswith("Web Push · 127.0.0.1")

    push_app.config["PUSH_TTL_SECONDS"] = 10**8  # (only the deadline bounds it here)
    sent_at = T0 + timedelta(seconds=200)  # Ann waited past the grace period
    clock.send_mail_due(push_app, sent_at, backend=CheckingMailbox())

    [got] = push_service.at("ann")
    assert got.headers["content-encoding"] == "aes128gcm"
    assert got.headers["authorization"].startswith("vapid t=")
    assert got.headers["urgency"] == "normal"
    notice = browser.read(got.body)
    [delivery] = [d for d in rows(push_app, NoticeDelivery) if d.kind == "turn"]
    assert delivery.status == "sent" and delivery.channel == "push"
    # the notice is the delivery's own short form: its title, its line, the seat link
    line, link = delivery.body.rsplit("\n", 1)
    assert notice == {"title": delivery.title, "body": line, "url": link,
                      "tag": got.headers["topic"]}
    # the turn mail's own first line: the decision and its deadline (issue 49 item 1)
    assert notice["body"].startswith("Test game · Your turn: ") and " · due " in notice["body"]
    assert link == f"http://silver-eye.test/play/{game.tokens[0]}"
    # it expires at the decision's deadline, never after it
    with Session(get_engine(push_app)) as session:
        due = push.deadline_of(session, game.game_id, 0)
    assert due is not None
    assert int(got.headers["ttl"]) == int((due - sent_at).total_seconds()) > 0
    push_app.config["METRICS_TOKEN"] = "scrape-token"
    scraped = push_app.test_client().get(
        "/metrics", headers={"Authorization": "Bearer scrape-token"}).get_data(as_text=True)
    assert 'silver_eye_push{status="sent"} 1.0' in scraped
    assert "silver_eye_push_subscriptions 1.0" in scraped
    # item 5: by channel and status, beside the apprise targets' (none here)
    assert 'silver_eye_notices_by_channel{channel="push",status="sent"} 1.0' in scraped
    assert 'silver_eye_notices_by_channel{channel="notice",status="sent"} 0.0' in scraped


def test_the_topic_is_one_per_game(push_app, new_game, push_service):
    first, second = ann_game(new_game, seed="31"), ann_game(new_game, seed="32")
    browser = Browser()
    for game in (first, second):
        subscribe(game.tokens[0], browser, push_service.endpoint("ann"))
    clock.send_mail_due(push_app, T0 + timedelta(seconds=200), backend=CheckingMailbox())
    # a second notice of the first game: a test notice from its seat
    access = services.open_seat(first.tokens[0])
    [target] = [t for t in notice_targets.read_status(access)["targets"]
                if t["service"] == push.SERVICE]
    with dl.at(T0 + timedelta(seconds=210)):
        notice_targets.test(access, target["id"])
    clock.send_mail_due(push_app, T0 + timedelta(seconds=220), backend=CheckingMailbox())

    by_game: dict[str, set[str]] = {}
    for got in push_service.at("ann"):
        link = browser.read(got.body)["url"]
        game = first if link.endswith(first.tokens[0]) else second
        by_game.setdefault(game.game_id, set()).add(got.headers["topic"])
    assert len(push_service.at("ann")) == 3
    assert all(len(topics) == 1 for topics in by_game.values())
    assert by_game[first.game_id] != by_game[second.game_id]
    assert all(len(topic) <= 32 for topics in by_game.values() for topic in topics)


def test_an_endpoint_that_answers_410_is_removed_and_mail_stands_in(
        push_app, new_game, push_service):
    game = ann_game(new_game)
    browser = Browser()
    subscribe(game.tokens[0], browser, push_service.endpoint("ann"))
    # Ann takes push instead of mail, for all her games
    with dl.at(T0):
        person_settings.save("ann@example.com",
                             person_settings.check({"push_instead": "1"},
                                                   lambda name: ["0", "1"]), "settings")
    push_service.gone.add("/push/ann")
    mailbox = CheckingMailbox()
    clock.send_mail_due(push_app, T0 + timedelta(seconds=200), backend=mailbox)
    clock.send_mail_due(push_app, T0 + timedelta(seconds=210), backend=mailbox)

    assert len(push_service.at("ann")) == 1          # tried once: 410 is for good
    assert rows(push_app, NoticeTarget) == [] and rows(push_app, PushSubscription) == []
    [delivery] = [d for d in rows(push_app, NoticeDelivery) if d.kind == "turn"]
    assert delivery.status == "expired" and "404/410" in (delivery.last_error or "")
    # the push failed, so the turn mail came after all
    assert "turn" in ann_mail_kinds(push_app, mailbox)
    # and the operator sees it in /metrics
    push_app.config["METRICS_TOKEN"] = "scrape-token"
    scraped = push_app.test_client().get(
        "/metrics", headers={"Authorization": "Bearer scrape-token"}).get_data(as_text=True)
    assert 'silver_eye_push{status="expired"} 1.0' in scraped
    assert 'silver_eye_push{status="sent"} 0.0' in scraped
    assert 'silver_eye_notices_by_channel{channel="push",status="expired"} 1.0' in scraped
    assert "silver_eye_push_subscriptions 0.0" in scraped


def test_with_push_instead_of_mail_a_turn_that_went_by_push_is_not_mailed(
        push_app, new_game, push_service):
    game = ann_game(new_game)
    subscribe(game.tokens[0], Browser(), push_service.endpoint("ann"))
    with dl.at(T0):
        person_settings.save("ann@example.com",
                             person_settings.check({"push_instead": "1"},
                                                   lambda name: ["0", "1"]), "settings")
    mailbox = CheckingMailbox()
    clock.send_mail_due(push_app, T0 + timedelta(seconds=200), backend=mailbox)
    assert len(push_service.at("ann")) == 1
    assert "turn" not in ann_mail_kinds(push_app, mailbox)


def test_without_the_choice_mail_comes_beside_push(push_app, new_game, push_service):
    game = ann_game(new_game)
    subscribe(game.tokens[0], Browser(), push_service.endpoint("ann"))
    mailbox = CheckingMailbox()
    clock.send_mail_due(push_app, T0 + timedelta(seconds=200), backend=mailbox)
    assert len(push_service.at("ann")) == 1
    assert "turn" in ann_mail_kinds(push_app, mailbox)


@pytest.mark.parametrize("endpoint, words", [
    ("http://push.example.org/x", "https"),
    ("https://127.0.0.1/x", "loopback"),
    ("https://10.1.2.3/x", "private"),
    ("", "no push endpoint"),
])
def test_endpoints_that_are_not_https_on_a_public_host_are_refused(app, endpoint, words):
    app.config.update(VAPID_PRIVATE_KEY="k", VAPID_PUBLIC_KEY="k")
    with pytest.raises(ValueError, match=words):
        push.check_endpoint(endpoint, resolver=lambda host, port: [host])


def test_keys_that_are_not_a_p256_key_and_a_16_byte_secret_are_refused(app):
    good = Browser().subscription("https://push.example.org/x")["keys"]
    assert push.check_keys(good) == (good["p256dh"], good["auth"])
    for bad in ({**good, "auth": b64(b"short")}, {**good, "p256dh": b64(b"\x04" * 10)}, None):
        with pytest.raises(ValueError):
            push.check_keys(bad)


def test_quiet_hours_hold_a_push_as_they_hold_mail(push_app, new_game, push_service):
    game = ann_game(new_game)
    subscribe(game.tokens[0], Browser(), push_service.endpoint("ann"))
    with dl.at(T0):  # Ann sleeps until noon (UTC, her zone)
        person_settings.save("ann@example.com", person_settings.check(
            {"quiet_start": "09:00", "quiet_end": "12:00"}), "settings")
    mailbox = CheckingMailbox()
    clock.send_mail_due(push_app, T0 + timedelta(seconds=200), backend=mailbox)
    clock.send_mail_due(push_app, T0 + timedelta(hours=2), backend=mailbox)
    assert push_service.at("ann") == []
    clock.send_mail_due(push_app, T0 + timedelta(hours=3, minutes=1), backend=mailbox)
    assert len(push_service.at("ann")) == 1


def test_a_push_whose_decision_was_made_meanwhile_is_never_sent_and_failures_count(
        push_app, new_game, push_service):
    import random

    from app.engine import bots
    game = ann_game(new_game)
    subscribe(game.tokens[0], Browser(), push_service.endpoint("ann"))
    push_service.failing = {"/push/ann"}   # the push service has a bad minute: 500
    sent_at = T0 + timedelta(seconds=200)
    clock.send_mail_due(push_app, sent_at, backend=CheckingMailbox())
    assert len(push_service.at("ann")) == 1
    [delivery] = [d for d in rows(push_app, NoticeDelivery) if d.kind == "turn"]
    assert delivery.status == "pending" and "error 500" in (delivery.last_error or "")
    # Ann moves before the retry
    snap = services.snapshot(game.game_id)
    with dl.at(sent_at + timedelta(seconds=5)):
        services.submit_action(game.game_id, 0,
                               bots.choose("greedy", snap.state, 0, random.Random(1)), snap.seq)
    push_service.failing = set()
    clock.send_mail_due(push_app, sent_at + timedelta(seconds=60), backend=CheckingMailbox())
    [delivery] = [d for d in rows(push_app, NoticeDelivery) if d.kind == "turn"
                  and d.id == delivery.id]
    assert delivery.status == "superseded"
    assert len(push_service.at("ann")) == 1    # the retry never left


def test_a_browser_is_pushed_the_persons_turns_not_the_games_news(push_app, new_game,
                                                                  push_service):
    from types import SimpleNamespace

    from app.channels import deliveries
    game = ann_game(new_game)
    subscribe(game.tokens[0], Browser(), push_service.endpoint("ann"))
    with Session(get_engine(push_app)) as session:
        for number, kind in enumerate(("round", "talk", "digest", "turn"), start=900):
            row = SimpleNamespace(id=number, game_id=game.game_id, seat=0, kind=kind,
                                  to="ann@example.com", announces=None, text="News.")
            written = deliveries.fan_out(session, row, T0)
            assert written == (1 if kind == "turn" else 0), kind
        session.commit()


def test_two_decisions_in_a_row_are_one_live_notice_the_second_replacing_the_first(
        push_app, new_game, push_service):
    """Issue 49 item 2, from Ann's lock screen: her peek's push, then her turn's push
    after the peek: both under the game's one Topic (the browser shows them under one
    tag, the newer replacing the older: tests/e2e/test_push_browser.py), and each
    expires by its own decision's deadline."""
    game = ann_game(new_game)
    browser = Browser()
    subscribe(game.tokens[0], browser, push_service.endpoint("ann"))
    first_at = T0 + timedelta(seconds=200)
    clock.send_mail_due(push_app, first_at, backend=CheckingMailbox())
    snap = services.snapshot(game.game_id)
    with dl.at(first_at + timedelta(seconds=5)):
        services.submit_action(game.game_id, 0, {"type": "peek", "positions": [0, 1]},
                               snap.seq)
    assert 0 in services.snapshot(game.game_id).view(None)["to_act"], "her turn follows"
    clock.send_mail_due(push_app, first_at + timedelta(seconds=400),
                        backend=CheckingMailbox())
    first, second = push_service.at("ann")
    assert first.headers["topic"] == second.headers["topic"]
    said = [browser.read(got.body) for got in (first, second)]
    assert "peek at two of your cards" in said[0]["body"]
    assert "Your turn: draw" in said[1]["body"]
    assert said[0]["tag"] == said[1]["tag"] == first.headers["topic"]
    with Session(get_engine(push_app)) as session:
        due = push.deadline_of(session, game.game_id, 0)   # her turn's deadline
    assert due is not None
    left = (due - (first_at + timedelta(seconds=400))).total_seconds()
    assert 0 < int(second.headers["ttl"]) <= int(left)
