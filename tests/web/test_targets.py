"""Notice targets on the seat page and in the JSON API (issue 20 items 3 and 4).

A seat adds, lists, tests, resumes and removes its targets by its page's forms (with
its CSRF token, back to ``#notices`` with a flash) and by JSON; every refusal is in
words and changes nothing; a target's URL is never shown whole.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

import pytest
from sqlmodel import Session, select

from app.channels.models import NoticeDelivery, NoticeTarget
from app.db import get_engine
from app.mail.models import SeatMail
from tests.person_keys import settings_link

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
SECRET = "Zq9TopicSecretX"
NTFY = f"ntfy://127.0.0.1:9/{SECRET}"


@pytest.fixture
def sink_allowed(app):
    """The tests' local targets live on 127.0.0.1: the operator setting allows them."""
    app.config.update(NOTICE_ALLOW_PRIVATE=True)
    return app


@pytest.fixture
def game(new_game, sink_allowed):
    return new_game(seats=2)


def page(client: Any, token: str) -> tuple[str, str]:
    answer = client.get(f"/play/{token}")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    return text, CSRF.search(text).group(1)


def rows(app: Any) -> list[NoticeTarget]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(NoticeTarget).order_by(NoticeTarget.id)).all())


def add_by_page(client: Any, token: str, url: str, scope: str = "seat",
                csrf: str | None = None) -> Any:
    if csrf is None:
        csrf = page(client, token)[1]
    return client.post(f"/play/{token}/targets", data={"url": url, "scope": scope,
                                                       "csrf_token": csrf})


def test_a_seat_adds_a_target_on_its_page_and_sees_it_masked(client, game, app):
    token = game.tokens[0]
    text, _ = page(client, token)
    assert 'id="notices"' in text and "Notices elsewhere" in text
    assert "discord://webhook_id/webhook_token" in text and "ntfy://ntfy.sh/my-topic" in text
    answer = add_by_page(client, token, NTFY)
    assert answer.status_code == 303
    assert answer.headers["Location"].endswith(f"/play/{token}#notices")
    shown = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Added: your notices now go to ntfy · 127.0.0.1" in shown
    assert "ntfy · 127.0.0.1 · …retX" in shown and "Active" in shown
    assert SECRET not in shown and NTFY not in shown
    assert "Send a test notice" in shown and "Remove" in shown and "Also mail me" in shown
    [target] = rows(app)
    assert (target.game_id, target.seat, target.address, target.service) == \
        (game.game_id, 0, None, "ntfy")
    # the other seat sees none of it
    assert "ntfy · 127.0.0.1" not in page(client, game.tokens[1])[0]


def test_a_target_for_all_my_games_needs_the_settings_link_not_a_seat_link(client, game, app):
    """Issue 45: whoever holds Ann's seat link (a forwarded mail) cannot send the notices
    of all her games somewhere; her settings link, mailed to her, can."""
    answer = add_by_page(client, game.tokens[0], NTFY, scope="address")
    assert answer.status_code == 303
    shown = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "only with the link we mail to your address" in shown
    json = client.post(f"/api/play/{game.tokens[0]}/targets",
                       json={"url": NTFY, "scope": "address"})
    assert json.status_code == 403 and "Nothing was changed" in json.get_data(as_text=True)
    assert rows(app) == []
    key = settings_link(client, game.tokens[0], "ann@example.com")
    saved = client.post(key, data={"target_url": NTFY}, follow_redirects=True)
    assert "notices of all your games go to ntfy" in saved.get_data(as_text=True)
    [target] = rows(app)
    assert (target.game_id, target.seat, target.address) == (None, None, "ann@example.com")
    text = page(client, game.tokens[0])[0]
    assert "1 target for all your games" in text and "…retX" not in text
    assert client.get(f"/api/play/{game.tokens[0]}/targets").get_json()["elsewhere"] == 1


@pytest.mark.parametrize("url, words", [
    ("", "Paste the address of your notice channel"),
    ("not a url", "too long or has spaces"),
    ("mailto://ann:pw@example.com", "mail, files and desktop notices are not taken"),
    ("https://example.com/hook", "could not read that address"),
])
def test_a_bad_address_on_the_page_is_refused_with_words_and_stores_nothing(
        client, game, app, url, words):
    answer = add_by_page(client, game.tokens[0], url)
    assert answer.status_code == 303
    shown = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert words in shown.replace("&#39;", "'")
    assert rows(app) == []


def test_a_loopback_address_is_refused_by_default(client, new_game, app):
    created = new_game(seats=2)  # (NOTICE_ALLOW_PRIVATE off)
    answer = add_by_page(client, created.tokens[0], NTFY)
    shown = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "127.0.0.1 is this server itself (loopback)" in shown
    assert rows(app) == []


def test_a_form_without_the_seats_csrf_token_is_refused_and_changes_nothing(client, game, app):
    for csrf in ("", "forged"):
        answer = client.post(f"/play/{game.tokens[0]}/targets",
                             data={"url": NTFY, "csrf_token": csrf})
        assert answer.status_code == 403
    other = page(client, game.tokens[1])[1]  # another seat's form token
    assert add_by_page(client, game.tokens[0], NTFY, csrf=other).status_code == 403
    assert rows(app) == []


def test_test_resume_and_remove_by_page(client, game, app):
    token = game.tokens[0]
    add_by_page(client, token, NTFY)
    [target] = rows(app)
    _, csrf = page(client, token)
    answer = client.post(f"/play/{token}/targets/{target.id}/test", data={"csrf_token": csrf})
    assert answer.status_code == 303
    assert "A test notice is on its way" in client.get(answer.headers["Location"]).get_data(
        as_text=True)
    with Session(get_engine(app)) as session:
        [test] = session.exec(select(NoticeDelivery)).all()
        assert (test.outbox_id, test.kind, test.status) == (None, "test", "pending")
        assert f"/play/{token}" in test.body
        stored = session.get(NoticeTarget, target.id)
        stored.paused_at = datetime(2030, 1, 1, tzinfo=timezone.utc)
        stored.last_error = "the service answered with error 500"
        session.add(stored)
        session.commit()
    text, csrf = page(client, token)
    assert "Paused since 01 January, 00:00 UTC because the service answered with error 500" \
        in text and "Resume" in text
    # the top of the page says it too
    assert text.index("are paused since") < text.index('id="notices"')
    client.post(f"/play/{token}/targets/{target.id}/resume", data={"csrf_token": csrf})
    assert rows(app)[0].paused_at is None
    answer = client.post(f"/play/{token}/targets/{target.id}/remove", data={"csrf_token": csrf})
    assert "Removed: no more notices go to ntfy · 127.0.0.1" in client.get(
        answer.headers["Location"]).get_data(as_text=True)
    assert rows(app) == []


def test_another_seats_target_cannot_be_touched(client, game, app):
    add_by_page(client, game.tokens[0], NTFY)
    [target] = rows(app)
    _, csrf = page(client, game.tokens[1])
    for what in ("test", "resume", "remove"):
        answer = client.post(f"/play/{game.tokens[1]}/targets/{target.id}/{what}",
                             data={"csrf_token": csrf})
        assert "There is no such notice target on this seat" in client.get(
            answer.headers["Location"]).get_data(as_text=True)
    assert client.delete(f"/api/play/{game.tokens[1]}/targets/{target.id}").status_code == 404
    assert len(rows(app)) == 1


def test_also_mail_me_is_the_seats_by_mail(client, game, app):
    token = game.tokens[0]
    add_by_page(client, token, NTFY)
    _, csrf = page(client, token)
    answer = client.post(f"/play/{token}/targets/mail", data={"by_mail": "0",
                                                             "csrf_token": csrf})
    assert "instead of mail" in client.get(answer.headers["Location"]).get_data(as_text=True)
    with Session(get_engine(app)) as session:
        assert session.exec(select(SeatMail.by_mail).where(
            SeatMail.game_id == game.game_id, SeatMail.seat == 0)).one() is False
    client.post(f"/play/{token}/targets/mail", data={"by_mail": ["0", "1"], "csrf_token": csrf})
    assert client.get(f"/api/play/{token}/targets").get_json()["by_mail"] is True


def test_instead_of_mail_for_all_my_games_is_the_persons_setting(client, game, app):
    """Unticked "also by mail" in her settings, every game of Ann's address takes its
    notices on the targets (while one works): the sender asks the seat and the address,
    and mail goes only where both want it. A seat link cannot make that choice for all
    her games (issue 45); the settings link can, and back."""
    from app.people.models import Person
    from app.services.notice_targets import takes_mail as by_mail

    token, address = game.tokens[0], "ann@example.com"
    add_by_page(client, token, NTFY)
    _, csrf = page(client, token)
    refused = client.post(f"/play/{token}/targets/mail",
                          data={"by_mail": "0", "scope": "address", "csrf_token": csrf})
    assert refused.status_code == 303
    with Session(get_engine(app)) as session:
        assert by_mail(session, game.game_id, 0, address) is True, "nothing was changed"
    key = settings_link(client, token, address)
    client.post(key, data={"by_mail": "0"})
    with Session(get_engine(app)) as session:
        assert session.exec(select(Person.by_mail)
                            .where(Person.address == address)).one() is False
        assert by_mail(session, game.game_id, 0, address) is False
    # asked back for this game only, the person's choice still keeps it away, and says so
    client.post(f"/play/{token}/targets/mail",
                data={"by_mail": ["0", "1"], "scope": "game", "csrf_token": csrf})
    shown, _ = page(client, token)
    assert "Your settings for all your games take notices on your targets" in shown
    assert client.get(f"/api/play/{token}/targets").get_json()["by_mail"] is False
    client.post(key, data={"by_mail": ["0", "1"]})
    with Session(get_engine(app)) as session:
        assert by_mail(session, game.game_id, 0, address) is True
    # a scope that is neither is refused with words and changes nothing
    answer = client.post(f"/play/{token}/targets/mail",
                         data={"by_mail": "0", "scope": "everyone", "csrf_token": csrf})
    assert answer.status_code == 400 and "all your games" in answer.get_data(as_text=True)
    assert client.get(f"/api/play/{token}/targets").get_json()["by_mail"] is True


def test_the_per_seat_limit_is_said_in_words(client, game, app):
    token = game.tokens[0]
    for n in range(5):
        assert client.post(f"/api/play/{token}/targets",
                           json={"url": f"ntfy://127.0.0.1:9/topic{n}"}).status_code == 201
    answer = client.post(f"/api/play/{token}/targets", json={"url": "ntfy://127.0.0.1:9/six"})
    assert answer.status_code == 400
    assert "the most we keep (5)" in answer.get_json()["message"]
    assert len(rows(app)) == 5
    assert "remove one to add another" in page(client, token)[0]


def test_the_json_api_lists_adds_tests_resumes_and_removes(client, game, app):
    token = game.tokens[0]
    base = f"/api/play/{token}/targets"
    assert client.get(base).get_json() == {"targets": [], "elsewhere": 0, "by_mail": True,
                                             "limit": 5}
    added = client.post(base, json={"url": NTFY, "by_mail": False})
    assert added.status_code == 201
    body = added.get_json()
    assert body["service"] == "ntfy" and body["state"] == "active" and body["scope"] == "seat"
    assert SECRET not in str(body)
    listed = client.get(base).get_json()
    assert [t["id"] for t in listed["targets"]] == [body["id"]] and listed["by_mail"] is False
    assert SECRET not in str(listed)
    assert client.post(f"{base}/{body['id']}/test").status_code == 202
    assert client.post(f"{base}/{body['id']}/resume").get_json()["state"] == "active"
    assert client.delete(f"{base}/{body['id']}").get_json()["removed"] == body["id"]
    assert client.get(base).get_json()["targets"] == []
    assert client.delete(f"{base}/{body['id']}").status_code == 404
    assert client.post(f"{base}/99999999999/test").status_code == 404


@pytest.mark.parametrize("body, words", [
    ({"url": "file:///etc/passwd"}, "could not read that address"),
    ({"url": "syslog://"}, "not taken here"),
    ({"url": NTFY, "scope": "galaxy"}, "this game or for all"),
    ({"url": NTFY, "by_mail": "no"}, "true or false"),
    ({}, "Paste the address"),
])
def test_bad_json_is_refused_with_words_and_stores_nothing(client, game, app, body, words):
    answer = client.post(f"/api/play/{game.tokens[0]}/targets", json=body)
    assert answer.status_code == 400 and words in answer.get_json()["message"]
    assert client.post(f"/api/play/{game.tokens[0]}/targets", data="x").status_code == 400
    assert rows(app) == []


def test_a_bad_link_is_403_everywhere(client, game, app):
    bad = game.tokens[0][:-3] + "abc"
    assert client.get(f"/api/play/{bad}/targets").status_code == 403
    assert client.post(f"/api/play/{bad}/targets", json={"url": NTFY}).status_code == 403
    assert client.delete(f"/api/play/{bad}/targets/1").status_code == 403
    assert client.post(f"/api/play/{bad}/targets/1/test").status_code == 403
    assert client.post(f"/play/{bad}/targets", data={"url": NTFY}).status_code == 403
    assert rows(app) == []


def test_the_openapi_document_describes_the_targets(client):
    document = client.get("/api/openapi.json").get_json()
    assert {"get", "post"} <= set(document["paths"]["/api/play/{token}/targets"])
    assert "delete" in document["paths"]["/api/play/{token}/targets/{target_id}"]
    assert "post" in document["paths"]["/api/play/{token}/targets/{target_id}/test"]
    assert "shown" in document["components"]["schemas"]["Target"]["properties"]


@pytest.mark.parametrize("target_id", ["abc", "0", "-1", "²", "1" * 40])
def test_a_target_id_that_is_no_number_is_404(client, game, target_id):
    base = f"/api/play/{game.tokens[0]}/targets/{target_id}"
    assert client.delete(base).status_code == 404
    assert client.post(f"{base}/test").status_code == 404
