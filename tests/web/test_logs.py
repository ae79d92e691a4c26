"""Logs that are safe to keep (issue 19 item 5): every token shape masked, and a seat's
requests logged, one access line each, with no token anywhere in what is written."""
from __future__ import annotations

import json
import logging

import pytest

from app.access import masking, tokens, unsubscribe
from app.access.reply_address import reply_address
from app.mail import invitations
from app.services import my_games
from tests.conftest import TEST_SECRET_KEY

KEY = TEST_SECRET_KEY


def every_token_shape() -> dict[str, str]:
    """One genuine token of every kind this server makes, by name."""
    return {
        "seat link": tokens.seat_token("Ab3dEf9hIj", 1, 2, KEY),
        "csrf": tokens.csrf_token("Ab3dEf9hIj", 1, 2, KEY),
        "seat unsubscribe": unsubscribe.unsubscribe_token("Ab3dEf9hIj", 1, KEY, 2),
        "address unsubscribe": unsubscribe.address_unsubscribe_token("ann@example.com", KEY),
        "lobby form": tokens.lobby_form_token(KEY),
        "reply token": tokens.reply_token("Ab3dEf9hIj", 1, 2, 17, KEY),
    }


@pytest.mark.parametrize("kind", sorted(every_token_shape()))
def test_every_token_shape_is_masked_wherever_it_stands(kind):
    token = every_token_shape()[kind]
    for text in (token, f"GET /play/{token}/actions", f"?token={token}&x=1",
                 f'{{"link": "https://post.test/unsubscribe/{token}"}}',
                 f"refused {token}: bad signature", token.upper()):
        masked = masking.mask(text)
        assert token not in masked and token.upper() not in masked, (kind, masked)
        assert masking.TOKEN in masked


def _masked_by_every_pattern(text: str) -> str:
    """``mask`` as it was before its quick checks: every pattern run over every line."""
    text = masking._PATH.sub(lambda m: m.group(1) + masking.TOKEN, text)
    text = masking._REPLY.sub(masking.TOKEN, text)
    text = masking._SIGNED.sub(masking.TOKEN, text)
    return masking._ADDRESS.sub(masking._address, text)


def test_the_quick_checks_before_each_pattern_change_no_line():
    """A line with nothing to mask skips the patterns (issue 30: tens of microseconds on
    every access line); a line with something masks exactly as every pattern would."""
    lines = [json.dumps({"message": "POST /api/play/<token>/actions 200 31.2ms",
                         "request_id": "0f8e3c1a9b7d4e2f8a6c5b4d3e2f1a0b", "bytes": 2711}),
             "mail: claimed 3, sent 2", "v1.2.3.4 released", "x." + "A" * 27, "a@b", ""]
    for token in every_token_shape().values():
        lines += [token, f"GET /api/play/{token}/actions", f"to play+{token}@post.test",
                  f"ann@example.com wrote {token.upper()}", f"/invitations/{token[:10]}"]
    for line in lines:
        assert masking.mask(line) == _masked_by_every_pattern(line), line


def test_the_links_the_app_makes_elsewhere_are_masked_too(app):
    from app.db import read_session
    from app.web import lobby

    with read_session() as session:
        magic = my_games.make_link_token(session, "ann@example.com", KEY)
    with app.test_request_context():
        creator = lobby.creator_token("Ab3dEf9hIj", [1, 1])
    invite = invitations.guard_token("ann@example.com", "Ab3dEf9hIj", 1, KEY)
    from app.people import keys  # (issue 45: a settings link and an undo link)
    settings, undo = keys.token_of("Zq9x" * 5 + "ab"), keys.undo_token("Yq9x" * 5 + "cd")
    for token in (magic, creator, invite, settings, undo):
        for text in (token, f"/my-games/{token}", f"see /created/{token}?x",
                     f"GET /settings/{token} 200", f"POST /settings/undo/{token} 200"):
            assert token not in masking.mask(text), text


def test_a_path_that_carries_a_token_is_masked_whatever_the_token_looks_like():
    assert masking.mask("/play/cut-short") == "/play/<token>"
    assert masking.mask("/api/play/xyz/actions") == "/api/play/<token>/actions"
    for prefix in masking.TOKEN_PREFIXES:
        assert masking.mask(f"/{prefix}/abc.def?x=1") == f"/{prefix}/<token>?x=1"
    assert masking.mask_path("/unsubscribe/abc?token=secret") == "/unsubscribe/<token>"
    assert masking.mask("/games/Ab3dEf9hIj/replay") == "/games/Ab3dEf9hIj/replay", \
        "a game id is not a key: it stays readable"


def test_addresses_keep_only_their_domain_and_ours_keep_their_kind():
    reply = every_token_shape()["reply token"]
    assert masking.mask(f"to play+{reply}@post.test") == "to play+<token>@post.test"
    assert masking.mask(f"bounce+{every_token_shape()['seat link']}@post.test") \
        == "bounce+<token>@post.test"
    assert masking.mask("To: Ann <ann.smith+games@example.com>") \
        == "To: Ann <***@example.com>"
    assert masking.mask("refused by mx.example.com for bob@example.org.") \
        == "refused by mx.example.com for ***@example.org."


def test_the_reply_address_the_mail_carries_is_masked(app):
    with app.test_request_context():
        address = reply_address("Ab3dEf9hIj", 0, 1, 3)
    assert masking.mask(f"reply from {address}") == \
        f"reply from play+<token>@{address.rsplit('@', 1)[1]}"


def _formatted(records: list[logging.LogRecord]) -> list[str]:
    return [formatter.format(record) for record in records
            for formatter in (masking.formatter("json"), masking.formatter("text"))]


def test_a_seats_requests_are_logged_once_each_with_no_token_in_any_line(
        app, client, new_game, caplog):
    created = new_game()
    seat = created.snapshot.view(None)["to_act"][0]
    token = created.tokens[seat]
    action = created.snapshot.view(seat)["legal_actions"][0]
    caplog.set_level(logging.INFO)

    page = client.get(f"/play/{token}")
    assert page.status_code == 200
    csrf = page.get_data(as_text=True).split('name="csrf_token" value="', 1)[1].split('"')[0]
    move = client.post(f"/api/play/{token}/actions", json={"action": action, "expected_seq": 0})
    assert move.status_code == 200, move.get_json()
    client.get(f"/api/games/{created.game_id}/replay?token={token}")
    client.get(f"/play/{token}/no-such-page")

    access = [r for r in caplog.records if r.name == "app.access"]
    assert [(r.method, r.route, r.status) for r in access] == [
        ("GET", "/play/<token>", 200), ("POST", "/api/play/<token>/actions", 200),
        ("GET", "/api/games/<game_id>/replay", 200), ("GET", "<unmatched>", 404)]
    assert access[3].path == "/play/<token>/no-such-page"
    assert access[2].query_keys == ["token"]
    assert all(r.request_id and r.duration_ms >= 0 for r in access)
    assert access[0].bytes == len(page.data)
    assert page.headers["X-Request-Id"] == access[0].request_id
    for line in _formatted(caplog.records):
        assert token not in line and csrf not in line, line
    line = json.loads(masking.formatter("json").format(access[0]))
    assert line["route"] == "/play/<token>" and line["status"] == 200
    assert line["logger"] == "app.access" and line["level"] == "INFO"
    for record in access:  # the line is built without tokens, not only masked afterwards
        assert token not in record.getMessage()


def test_a_request_id_from_the_proxy_is_kept_when_it_is_a_plain_word(client):
    assert client.get("/healthz", headers={"X-Request-Id": "abc-123"}).headers[
        "X-Request-Id"] == "abc-123"
    made = client.get("/healthz", headers={"X-Request-Id": "a b <c>"}).headers["X-Request-Id"]
    assert made != "a b <c>" and len(made) == 32


def test_the_log_format_is_json_unless_said_or_debugging(monkeypatch):
    monkeypatch.delenv("LOG_FORMAT", raising=False)
    monkeypatch.delenv("DEBUG", raising=False)
    assert masking.log_format() == "json"
    monkeypatch.setenv("DEBUG", "1")
    assert masking.log_format() == "text"
    monkeypatch.setenv("LOG_FORMAT", "json")
    assert masking.log_format() == "json"
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match="json or text"):
        masking.log_format()


def test_the_processes_log_through_the_masked_formatter(capsys):
    """What the clock and inbound processes install (``masking.install``) writes JSON
    lines to stderr with the token masked, whichever logger wrote it."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    token = every_token_shape()["seat link"]
    try:
        masking.install("json")
        logging.getLogger("app.runners.sender").warning("sent %s to ann@example.com", token)
    finally:
        for handler in root.handlers[:]:
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
        logging.captureWarnings(False)
    line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert line["message"] == "sent <token> to ***@example.com"
    assert line["logger"] == "app.runners.sender" and line["level"] == "WARNING"
