"""Web Push in a real browser (issue 49 item 3): Chromium, headless.

What is real: the manifest as Chromium parses it and its own installability check
(``Page.getInstallabilityErrors``: none), the service worker registered for the whole
site, the permission asked by the button (granted in the browser's profile, as a person
would press "Allow"), the page's JSON post of the subscription, and the service worker
showing a push (delivered to it by Chromium's DevTools, ``ServiceWorker.deliverPushMessage``)
under the game's tag, replacing the game's earlier one.

What is stood in for: the push service. Chromium's ``pushManager.subscribe`` registers
with Google's push service, which this machine cannot reach; the test replaces that one
call with a subscription the page makes itself (a P-256 key pair and auth secret made by
WebCrypto) pointing at a local endpoint, and records the VAPID key it was given. What a
push service does with a push is tested without a browser (tests/mail/test_web_push.py).

A persistent profile, not an incognito context: Chromium has no Push API in incognito
and says such a page is not installable.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from app.channels import push
from tests.e2e.browsing import CHROMIUM, LAUNCH_ARGS, shot
from tests.e2e.conftest import Live, serving

pytestmark = pytest.mark.e2e

#: Replaces only ``PushManager.subscribe`` and ``getSubscription`` (the push service is
#: not reachable here),
#: counts the permission asks and notes what the page posts (Playwright does not report
#: the requests of a page a service worker controls); everything else is the browser's.
STAND_IN = """
(() => {
  window.__asked = 0;
  window.__sent = [];
  const fetched = window.fetch.bind(window);
  window.fetch = (url, init) => {
    window.__sent.push([(init && init.method) || "GET", String(url), init && init.body]);
    return fetched(url, init);
  };
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
  const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  PushManager.prototype.subscribe = async function (options) {
    window.__serverKey = b64(options.applicationServerKey);
    window.__userVisibleOnly = options.userVisibleOnly;
    const pair = await crypto.subtle.generateKey({name: "ECDH", namedCurve: "P-256"}, true,
                                                 ["deriveBits"]);
    const point = await crypto.subtle.exportKey("raw", pair.publicKey);
    const auth = crypto.getRandomValues(new Uint8Array(16));
    const json = {endpoint: "http://127.0.0.1:9/push/this-browser", expirationTime: null,
                  keys: {p256dh: b64(point), auth: b64(auth)}};
    window.__made = {endpoint: json.endpoint, toJSON: () => json,
                     unsubscribe: async () => { window.__made = null; return true; }};
    return window.__made;
  };
  window.__made = null;
  PushManager.prototype.getSubscription = async function () { return window.__made; };
})();
"""


@pytest.fixture
def keyed_live(tmp_path: Path) -> Iterator[tuple[Live, str]]:
    private, public = push.generate_keys()
    with serving(tmp_path, VAPID_PRIVATE_KEY=private, VAPID_PUBLIC_KEY=public,
                 PUSH_ALLOW_LOOPBACK=True) as live:
        yield live, public


@pytest.fixture
def profile(tmp_path: Path) -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=LAUNCH_ARGS,
            viewport={"width": 420, "height": 900})
        try:
            yield context
        finally:
            context.close()


def ann_seat(live: Live) -> Any:
    with live.app.app_context():
        from app import services
        return services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                     {"name": "Bob", "email": "bob@example.com"}], {},
                                    name="Push in the browser", seed="41")


def stored_endpoints(live: Live) -> list[tuple[Any, ...]]:
    with live.app.app_context():
        from sqlmodel import select

        from app.channels.models import NoticeTarget, PushSubscription
        from app.db import read_session
        with read_session() as session:
            return [(t.game_id, t.seat, t.url) for t in session.exec(
                select(NoticeTarget).join(PushSubscription,
                                          PushSubscription.target_id == NoticeTarget.id))]


def test_the_site_installs_and_the_button_asks_and_posts_a_subscription(keyed_live, profile):
    live, public = keyed_live
    game = ann_seat(live)
    profile.grant_permissions(["notifications"], origin=live.base)
    profile.add_init_script(STAND_IN)
    page = profile.new_page()
    page.goto(f"{live.base}/play/{game.tokens[0]}")

    # the service worker controls the whole site
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == f"{live.base}/"
    # the manifest parses without errors, and Chromium finds the site installable
    cdp = profile.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and manifest["url"].endswith("/manifest.webmanifest")
    parsed = manifest["manifest"]
    assert parsed["display"] == "kStandalone" and parsed["name"] == "Silver Eye Post"
    assert {icon["sizes"] for icon in parsed["icons"]} >= {"192x192", "512x512"}
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []

    # the box the script shows (with the mail and notice settings, under "more" at
    # a phone's width), and its one button
    page.locator("#more > summary").click()
    box = page.locator("#push-box")
    assert box.is_visible()
    button = box.get_by_role("button", name="Notify this browser of my turns")
    button.click()
    page.get_by_text("Done: your turns come to this browser").wait_for()
    [(method, url, sent)] = page.evaluate("window.__sent")
    assert method == "POST" and url == f"/api/play/{game.tokens[0]}/push"
    body = json.loads(sent)
    assert body["endpoint"] == "http://127.0.0.1:9/push/this-browser"
    assert set(body["keys"]) == {"p256dh", "auth"}
    assert page.evaluate("window.__asked") == 1                  # permission was asked
    assert page.evaluate("window.__serverKey") == public         # with the server's key
    assert page.evaluate("window.__userVisibleOnly") is True
    assert stored_endpoints(live) == [(game.game_id, 0,
                                       "http://127.0.0.1:9/push/this-browser")]
    assert box.get_by_role("button", name="Stop notifying this browser").is_visible()
    shot(page, "push-subscribed-390")

    # pressed again: unsubscribed here
    box.get_by_role("button", name="Stop notifying this browser").click()
    page.get_by_text("Done: this browser gets no more notices from here.").wait_for()
    assert [m for m, _, _ in page.evaluate("window.__sent")] == ["POST", "DELETE"]
    assert stored_endpoints(live) == []


def delivered(page: Any, cdp: Any, origin: str, registration: str,
              payload: str) -> list[dict[str, Any]]:
    """Hand ``payload`` to the worker as its push service would, and return the
    notifications shown once the push's is among them. Asked again until it is (the
    worker shows it after the push event, in its own time), and handed again if it
    never shows (a busy machine's worker may be starting: a push that repeats one under
    the same tag replaces it, so a second hand-over cannot add one)."""
    title = json.loads(payload)["title"]
    shown: list[dict[str, Any]] = []
    for _ in range(3):
        cdp.send("ServiceWorker.deliverPushMessage",
                 {"origin": origin, "registrationId": registration, "data": payload})
        for _ in range(100):
            shown = page.evaluate("""navigator.serviceWorker.ready
                .then(r => r.getNotifications())
                .then(ns => ns.map(n => ({title: n.title, body: n.body, tag: n.tag,
                                          url: n.data && n.data.url})))""")
            if any(n["title"] == title for n in shown):
                return list(shown)
            page.wait_for_timeout(100)
    raise AssertionError(f"no notification {title!r} was shown: {shown}")


def test_the_worker_shows_a_push_under_its_games_tag_and_a_newer_one_replaces_it(
        keyed_live, profile):
    live, _ = keyed_live
    game = ann_seat(live)
    profile.grant_permissions(["notifications"], origin=live.base)
    page = profile.new_page()
    page.goto(f"{live.base}/play/{game.tokens[0]}")
    page.evaluate("navigator.serviceWorker.ready")
    cdp = profile.new_cdp_session(page)
    cdp.send("ServiceWorker.enable")
    registration = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert registration == f"{live.base}/"
    page.wait_for_function("navigator.serviceWorker.controller !== null")  # (claimed)
    found: dict[str, Any] = {}
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: found.update({r["scopeURL"]: r["registrationId"]
                                       for r in event["registrations"]}))
    cdp.send("ServiceWorker.disable")
    cdp.send("ServiceWorker.enable")  # (enabling again reports every registration)
    for _ in range(100):
        if f"{live.base}/" in found:
            break
        page.wait_for_timeout(100)
    assert f"{live.base}/" in found
    link = f"{live.base}/play/{game.tokens[0]}"
    with live.app.app_context():
        first = push.push_of("Silver Eye · Push in the browser: Your turn",
                             f"It is your turn in Push in the browser (round 1).\n{link}",
                             "turn", game.game_id, 3600)
        second = push.push_of("Silver Eye · Push in the browser: Reminder, your turn",
                              f"Reminder: Push in the browser still waits for your move "
                              f"(round 1).\n{link}", "reminder", game.game_id, 600)
    for one in (first, second):
        shown = delivered(page, cdp, live.base, found[f"{live.base}/"], one.payload)
    # one live notice for the game: the reminder replaced the turn
    assert shown == [{"title": "Silver Eye · Push in the browser: Reminder, your turn",
                      "body": "Reminder: Push in the browser still waits for your move "
                              "(round 1).", "tag": first.topic, "url": link}]


def test_the_settings_page_turns_push_on_for_all_the_persons_games(keyed_live, profile):
    live, _ = keyed_live
    game = ann_seat(live)
    with live.app.app_context():
        from tests.person_keys import settings_link
        link = settings_link(live.app.test_client(), game.tokens[0], "ann@example.com")
    profile.grant_permissions(["notifications"], origin=live.base)
    profile.add_init_script(STAND_IN)
    page = profile.new_page()
    page.goto(f"{live.base}{link}")
    box = page.locator("#push-box")
    assert "all your games" in box.inner_text()
    box.get_by_role("button", name="Notify this browser of my turns").click()
    page.get_by_text("Done: your turns come to this browser").wait_for()
    [(method, url, _)] = page.evaluate("window.__sent")
    assert method == "POST" and url == f"/api/settings/{link.rsplit('/', 1)[-1]}/push"
    assert page.evaluate("window.__asked") == 1
    with live.app.app_context():
        from sqlmodel import select

        from app.channels.models import NoticeTarget
        from app.db import read_session
        with read_session() as session:
            [target] = session.exec(select(NoticeTarget)).all()
            assert (target.address, target.game_id, target.service) == \
                ("ann@example.com", None, "Web Push")
    shot(page, "push-settings-390")
