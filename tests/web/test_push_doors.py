"""Turning Web Push on and off, by the doors a person has (issue 49 item 3): a seat link
for its game, the settings link for all their games; the installable app's files; and
pages that stay as they were without JavaScript or without VAPID keys."""
from __future__ import annotations

import base64
import json
import os
import re
from typing import Any

import pytest
from sqlmodel import select

from app.channels import push
from app.channels.models import NoticeTarget, PushSubscription
from app.db import read_session
from tests.person_keys import mails, settings_link, undo_link

ENDPOINT = "https://push.example.org/send/abc123"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def subscription(endpoint: str = ENDPOINT) -> dict[str, Any]:
    """What a browser's ``PushSubscription.toJSON()`` gives (its key need not be a real
    point for the server to store it: only its shape is checked)."""
    return {"endpoint": endpoint, "expirationTime": None,
            "keys": {"p256dh": b64(b"\x04" + os.urandom(64)), "auth": b64(os.urandom(16))}}


@pytest.fixture
def keyed(app, monkeypatch):
    private, public = push.generate_keys()
    app.config.update(VAPID_PRIVATE_KEY=private, VAPID_PUBLIC_KEY=public)
    # push.example.org is a public host (no DNS in tests)
    monkeypatch.setattr("app.channels.targets.resolve", lambda host, port: ["93.184.216.34"])
    return public


def stored() -> list[tuple[Any, ...]]:
    with read_session() as session:
        return [(t.game_id, t.seat, t.address, t.service, t.url) for t in session.exec(
            select(NoticeTarget).join(PushSubscription,
                                      PushSubscription.target_id == NoticeTarget.id))]


def test_a_seat_link_turns_push_on_for_its_game_and_off_again(app, client, new_game, keyed):
    game = new_game()
    answer = client.post(f"/api/play/{game.tokens[0]}/push", json=subscription())
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json() == {"subscribed": True, "scope": "seat", "id": answer.json["id"],
                                 "shown": "Web Push · push.example.org · …c123"}
    assert stored() == [(game.game_id, 0, None, "Web Push", ENDPOINT)]
    # the seat's targets list it, masked, beside any other
    listed = client.get(f"/api/play/{game.tokens[0]}/targets").get_json()["targets"]
    assert [t["shown"] for t in listed] == ["Web Push · push.example.org · …c123"]
    # subscribing again (a browser renewing its keys) keeps one
    client.post(f"/api/play/{game.tokens[0]}/push", json=subscription())
    assert len(stored()) == 1
    gone = client.delete(f"/api/play/{game.tokens[0]}/push", json={"endpoint": ENDPOINT})
    assert gone.status_code == 200 and gone.get_json()["removed"] is True
    assert stored() == []


def test_the_settings_link_turns_push_on_for_all_the_persons_games(app, client, new_game,
                                                                      keyed):
    game = new_game()
    link = settings_link(client, game.tokens[0], "ann@example.com")
    key = link.rsplit("/", 1)[-1]
    answer = client.post(f"/api/settings/{key}/push", json=subscription())
    assert answer.status_code == 201 and answer.get_json()["scope"] == "address"
    assert stored() == [(None, None, "ann@example.com", "Web Push", ENDPOINT)]
    # a person-wide change, mailed at once with its undo
    [told] = mails("settings_changed", "ann@example.com")
    assert "notices of all your games go to Web Push · push.example.org · …c123" in told.text
    assert ENDPOINT not in told.text
    # the settings page offers the button, posting to this key's door
    page = client.get(link).get_data(as_text=True)
    assert f'data-url="/api/settings/{key}/push"' in page and f'data-key="{keyed}"' in page
    assert "Notify this browser of my turns" in page
    assert client.delete(f"/api/settings/{key}/push",
                         json={"endpoint": ENDPOINT}).get_json()["removed"] is True
    assert stored() == []
    # a made-up key opens nothing
    assert client.post("/api/settings/forged/push", json=subscription()).status_code in (403, 404)
    assert stored() == []


@pytest.mark.parametrize("body, words", [
    ({"endpoint": "http://push.example.org/x", "keys": subscription()["keys"]}, "https"),
    ({"endpoint": "https://127.0.0.1/x", "keys": subscription()["keys"]}, "loopback"),
    ({"endpoint": ENDPOINT, "keys": {"p256dh": "AAAA", "auth": "AAAA"}}, "P-256"),
    ([], "JSON"),
])
def test_what_is_not_a_subscription_to_a_public_https_endpoint_is_refused_in_words(
        app, client, new_game, keyed, monkeypatch, body, words):
    monkeypatch.setattr("app.channels.targets.resolve", lambda host, port: [host]
                        if host[0].isdigit() else ["93.184.216.34"])
    game = new_game()
    answer = client.post(f"/api/play/{game.tokens[0]}/push", json=body)
    assert answer.status_code == 400 and words in answer.get_json()["message"]
    assert stored() == []


def test_without_vapid_keys_there_is_no_button_and_subscribing_is_refused(app, client,
                                                                          new_game):
    game = new_game()
    page = client.get(f"/play/{game.tokens[0]}").get_data(as_text=True)
    assert 'id="push-box"' not in page
    answer = client.post(f"/api/play/{game.tokens[0]}/push", json=subscription())
    assert answer.status_code == 400 and "push-keys" in answer.get_json()["message"]


def test_the_seat_page_offers_push_hidden_until_the_script_shows_it(app, client, new_game,
                                                                    keyed):
    game = new_game()
    page = client.get(f"/play/{game.tokens[0]}").get_data(as_text=True)
    box = re.search(r'<section class="panel push-box" id="push-box"[^>]*>', page)
    assert box is not None and " hidden" in box.group(0)   # without JavaScript: not shown
    assert f'data-url="/api/play/{game.tokens[0]}/push"' in box.group(0)
    assert '<script src="/static/push.js" defer></script>' in page


def test_every_page_links_the_manifest_and_the_app_is_installable(app, client, new_game):
    game = new_game()
    for path in ("/", "/rules", "/my-games", f"/play/{game.tokens[0]}", "/help/mail"):
        page = client.get(path).get_data(as_text=True)
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page, path
    manifest = client.get("/manifest.webmanifest")
    assert manifest.mimetype == "application/manifest+json"
    found = json.loads(manifest.get_data(as_text=True))
    assert found["display"] == "standalone" and found["start_url"] and found["name"]
    assert found["theme_color"].startswith("#")
    sizes = {icon["sizes"] for icon in found["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in found["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.data.startswith(b"\x89PNG")
        width, height = int.from_bytes(image.data[16:20], "big"), \
            int.from_bytes(image.data[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]


def test_the_service_worker_is_served_for_the_whole_site_and_caches_nothing(client):
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker.mimetype == "text/javascript"
    assert worker.headers["Service-Worker-Allowed"] == "/"
    script = worker.get_data(as_text=True)
    assert "showNotification" in script and "openWindow" in script
    # no cache, no fetch handler: no page (with its private cards) is kept on the device
    assert "caches." not in script and "cache.put" not in script
    assert "addEventListener(\"fetch\"" not in script


def test_a_person_may_take_mail_only_when_push_fails(app, client, new_game):
    game = new_game()
    link = settings_link(client, game.tokens[0], "ann@example.com")
    page = client.get(link).get_data(as_text=True)
    assert 'name="push_instead"' in page
    client.post(link, data={"push_instead": ["0", "1"]})
    from app.services import person_settings
    assert person_settings.status("ann@example.com")["push_instead"] is True


def test_help_says_what_push_does_and_how_to_turn_it_off(client):
    page = client.get("/help/mail").get_data(as_text=True)
    section = page[page.index('id="push"'):]
    assert "Notify this browser of my turns" in section and "To turn it off" in section
    assert "Stop notifying this browser" in section and "never shows a card" in section


def test_undoing_a_push_subscription_for_all_games_ends_it(app, client, new_game, keyed):
    game = new_game()
    key = settings_link(client, game.tokens[0], "ann@example.com").rsplit("/", 1)[-1]
    client.post(f"/api/settings/{key}/push", json=subscription())
    assert len(stored()) == 1
    assert client.post(undo_link("ann@example.com")).status_code == 200
    assert stored() == []
    # and ending it from the browser is mailed too; its undo asks to press the button again
    client.post(f"/api/settings/{key}/push", json=subscription())
    client.delete(f"/api/settings/{key}/push", json={"endpoint": ENDPOINT})
    assert stored() == []
    said = client.post(undo_link("ann@example.com")).get_data(as_text=True)
    assert "Notify this browser of my" in said and stored() == []
