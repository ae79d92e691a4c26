"""Unsubscribe, a seat's mail and clock settings, and the development mailbox."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from app import services
from app.services import absence
from app.runners import clock
from app.services import seat_settings as preferences
from app.access import tokens
from app.clock import deadlines as dl
from app.db import read_session
from app.access import unsubscribe


def seat_csrf(game_id: str, seat: int) -> str:
    return tokens.csrf_token(game_id, seat, 1)


def test_get_on_an_unsubscribe_link_only_asks(client, db, new_game):
    gid = new_game().game_id
    token = unsubscribe.unsubscribe_token(gid, 1)
    before = db.dump()
    page = client.get(f"/unsubscribe/{token}")
    assert page.status_code == 200 and b"Stop the mail" in page.data
    assert db.dump() == before
    assert preferences.mode_of(gid, 1) == "every"


def test_one_click_unsubscribe_stops_turn_mail_but_not_the_game(mail_app, smtp, client, new_game):
    created = new_game()
    gid = created.game_id
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    token = unsubscribe.unsubscribe_token(gid, 1)
    answer = client.post(f"/unsubscribe/{token}", data="List-Unsubscribe=One-Click",
                         content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 200 and b"No more mail" in answer.data
    assert preferences.mode_of(gid, 1) == "none"
    # Play on until Bob has a new decision: he is not mailed, Ann still is.
    smtp.received.clear()
    from app import engine
    for _ in range(12):
        snap = services.snapshot(gid)
        seat = snap.view(None)["to_act"][0]
        services.submit_action(gid, seat, engine.default_action(snap.state, seat) or
                               engine.legal_actions(snap.state, seat)[0], snap.seq)
        # the sender runs between moves (a mail leaves only while it holds)
        clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    assert smtp.to("ann@example.com") and not smtp.to("bob@example.com")
    assert services.game_info(gid).seq == 12 + created.snapshot.seq


def test_a_forged_unsubscribe_link_is_refused(client, new_game):
    new_game()
    assert client.post("/unsubscribe/not-a-token").status_code == 403
    assert client.get("/unsubscribe/not-a-token").status_code == 403


def test_mail_preference_changes_need_the_seats_csrf_token(client, db, new_game):
    created = new_game()
    gid, token = created.game_id, created.tokens[0]
    before = db.dump()
    refused = client.post(f"/play/{token}/prefs", data={"mode": "digest"})
    assert refused.status_code == 403 and db.dump() == before
    foreign = client.post(f"/play/{token}/prefs",
                          data={"mode": "digest", "csrf_token": seat_csrf(gid, 1)})
    assert foreign.status_code == 403
    done = client.post(f"/play/{token}/prefs",
                       data={"mode": "digest", "csrf_token": seat_csrf(gid, 0)})
    assert done.status_code == 303
    assert preferences.mode_of(gid, 0) == "digest"
    assert client.post(f"/play/{token}/prefs",
                       data={"mode": "hourly", "csrf_token": seat_csrf(gid, 0)}).status_code == 400


def test_the_seat_page_offers_mail_modes_vacation_and_im_back_when_away(client, new_game):
    """The mail box is read with the seat page (issue 33: no template global reads it by
    token): its modes and vacation; "I'm back" only while the seat is away."""
    created = new_game()
    gid, token = created.game_id, created.tokens[0]
    html = client.get(f"/play/{token}").get_data(as_text=True)
    assert "Save mail settings" in html and "Pause" in html
    assert f"/play/{token}/back" not in html
    services.submit_action(gid, 0, {"type": "away"}, services.game_info(gid).seq, source="system")
    html = client.get(f"/play/{token}").get_data(as_text=True)
    assert "You are marked away" in html and f"/play/{token}/back" in html
    absence.come_back(gid, 0)
    assert client.get("/play/forged").status_code == 403


def test_vacation_pauses_the_deadline_and_is_bounded(client, new_game):
    created = new_game(vacation_days=5)
    gid, token = created.game_id, created.tokens[0]
    with read_session() as session:
        due_before = dl.as_utc(dl.open_rows(session, gid, 0, dl.DECISION)[0].due_at)
    answer = client.post(f"/play/{token}/vacation", data={"days": "3", "csrf_token": seat_csrf(gid, 0)})
    assert answer.status_code == 303
    with read_session() as session:
        due_after = dl.as_utc(dl.open_rows(session, gid, 0, dl.DECISION)[0].due_at)
    assert timedelta(days=3) <= due_after - due_before < timedelta(days=3, minutes=1)
    too_many = client.post(f"/play/{token}/vacation", data={"days": "3", "csrf_token": seat_csrf(gid, 0)})
    assert too_many.status_code == 400 and b"2 vacation days left" in too_many.data
    assert client.post(f"/play/{token}/vacation",
                       data={"days": "soon", "csrf_token": seat_csrf(gid, 0)}).status_code == 400


def test_im_back_is_written_to_the_log(client, db, new_game):
    created = new_game()
    gid, token = created.game_id, created.tokens[1]
    answer = client.post(f"/play/{token}/back", data={"csrf_token": seat_csrf(gid, 1)})
    assert answer.status_code == 303
    last = db.actions(gid)[-1]
    assert last[1:] == (1, "player")
    with read_session() as session:
        from app.gamelog import store
        assert store.load_actions(session, gid)[-1].action == {"type": "back"}


def test_the_dev_mailbox_exists_only_in_debug(app, client, new_game):
    new_game()
    assert client.get("/dev/mail").status_code == 404
    clock.send_mail_due(app, datetime.now(timezone.utc))  # the file backend (default)
    app.config["DEBUG"] = True
    listing = client.get("/dev/mail")
    # the listing names each mail by its subject: the game's (issue 19 item 4)
    assert listing.status_code == 200 and b"Test game (game " in listing.data
    import re
    name = re.search(rb"/dev/mail/(\d{9}-[a-z_]+\.eml)", listing.data).group(1).decode()
    message = client.get(f"/dev/mail/{name}")
    assert message.status_code == 200 and b"/play/" in message.data
    assert client.get("/dev/mail/..%2Fsecret_key").status_code == 404


def test_the_seat_page_of_an_abandoned_game_offers_no_clock_buttons(app, client, new_game):
    created = new_game()
    gid, token = created.game_id, created.tokens[0]
    services.abandon_game(gid)
    page = client.get(f"/play/{token}")
    assert page.status_code == 200 and b"Save mail settings" in page.data
    assert f"/play/{token}/vacation".encode() not in page.data
    refused = client.post(f"/play/{token}/vacation",
                          data={"days": "1", "csrf_token": seat_csrf(gid, 0)})
    assert refused.status_code == 409
