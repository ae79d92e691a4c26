"""A player in five games at once: a cap per address, away notices once, local
time, and one digest a day across all games (issue 7 items 6 and 8, issue 9)."""
from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone

from sqlmodel import Session, select

from app import services
from app.services import absence
from app.runners import clock
from app.services import person_settings
from app.services import seat_settings as preferences
from app.clock import deadlines as dl
from app.db import get_engine
from app.mail.models import PENDING, SENT, Outbox
from app.access import unsubscribe

from tests.clock.conftest import Recorder

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)  # 10:00 in Paris (CET)


def games_with_ann(count: int, **options) -> list:
    with dl.at(T0):
        return [services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                      {"name": f"Bob{n}", "email": f"bob{n}@example.com"}],
                                     options, name=f"Game {n}", seed=str(100 + n))
                for n in range(count)]


def outbox_rows(app) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(Outbox).order_by(Outbox.id)))


def page_of(client, token: str) -> str:
    return html.unescape(client.get(f"/play/{token}").get_data(as_text=True))


def settings_door(address: str) -> str:
    """The settings page of ``address`` behind its games link (issue 45: a seat link opens
    one seat; the settings of all a person's games open with a key mailed to them)."""
    from app.db import read_session
    from app.services import my_games
    from tests.conftest import TEST_SECRET_KEY

    with read_session() as session:
        return f"/my-games/{my_games.make_link_token(session, address, TEST_SECRET_KEY)}/settings"


def kinds_of(app, messages: list) -> list[str]:
    """The outbox kinds of mails as they were handed over (by their Message-ID)."""
    ids = [str(m["Message-ID"]) for m in messages]
    return [row.kind for row in outbox_rows(app) if row.message_id in ids]


def test_mail_to_one_address_is_capped_per_hour_across_games_and_the_game_shows_it(
        app, client):
    app.config["MAIL_PER_ADDRESS_PER_HOUR"] = 3
    created = games_with_ann(5)
    mailbox = Recorder()
    report = clock.send_mail_due(app, T0, backend=mailbox)
    assert len(mailbox.to("ann@example.com")) == 3
    assert report.held > 0
    held = [row for row in outbox_rows(app) if row.to == "ann@example.com"
            and row.status == PENDING]
    assert held and all(row.held_until == T0 + timedelta(hours=1) or
                        dl.as_utc(row.held_until) == T0 + timedelta(hours=1) for row in held)
    # every other address is untouched by Ann's cap
    for n in range(5):
        assert mailbox.to(f"bob{n}@example.com")
    # the game shows it on Ann's page
    waiting = next(c for c in created if any(r.game_id == c.game_id for r in held))
    assert "Mail to you is held back until" in page_of(client, waiting.tokens[0])
    # an hour later the next three leave, and so on until all are out
    clock.send_mail_due(app, T0 + timedelta(hours=1), backend=mailbox)
    assert len(mailbox.to("ann@example.com")) == 6
    for hour in range(2, 6):
        clock.send_mail_due(app, T0 + timedelta(hours=hour), backend=mailbox)
    assert all(row.status != PENDING for row in outbox_rows(app))
    per_hour: dict[int, int] = {}
    for row in outbox_rows(app):
        if row.to == "ann@example.com" and row.status == SENT:
            hour = int((dl.as_utc(row.sent_at) - T0).total_seconds() // 3600)
            per_hour[hour] = per_hour.get(hour, 0) + 1
    assert max(per_hour.values()) <= 3


def test_away_and_back_in_a_loop_mail_the_others_once(app):
    # the hourly limit on saying away/back (issue 9) is lifted: this is about the mail
    app.config["PRESENCE_PER_HOUR"] = 100
    with dl.at(T0):
        created = services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                        {"name": "Bob", "email": "bob@example.com"},
                                        {"name": "Cid", "email": "cid@example.com"}],
                                       seed="9")
    gid = created.game_id
    for _ in range(10):
        seq = services.game_info(gid).seq
        services.submit_action(gid, 0, {"type": "away"}, seq)
        absence.come_back(gid, 0)
    rows = outbox_rows(app)
    assert [r.to for r in rows if r.kind == "absent"] == ["bob@example.com", "cid@example.com"]
    assert [r.to for r in rows if r.kind == "you_absent"] == ["ann@example.com"]
    # Ann is back by now: the notice is no longer true and does not leave
    mailbox = Recorder()
    clock.send_mail_due(app, datetime.now(timezone.utc), backend=mailbox)
    assert not any("is away" in s for s in mailbox.subjects("bob@example.com"))
    # after Ann plays a move herself, a new absence is told again
    snap = services.snapshot(gid)
    if 0 in snap.view(None)["to_act"]:
        from app import engine
        services.submit_action(gid, 0, engine.legal_actions(snap.state, 0)[0], snap.seq)
        services.submit_action(gid, 0, {"type": "away"}, services.game_info(gid).seq)
        assert sum(1 for r in outbox_rows(app) if r.kind == "absent") == 4


def test_a_seat_sees_deadlines_in_its_own_time_zone(app, client):
    (created,) = games_with_ann(1, deadline_hours=48)
    token = created.tokens[0]
    # (issue 32: the zone is Ann's, set on her settings page for all her games)
    door = settings_door("ann@example.com")
    bad = client.post(door, data={"time_zone": "Mars/Olympus"})
    assert bad.status_code == 400 and b"time zone" in bad.data
    assert preferences.status(created.game_id, 0)["time_zone"] == "UTC"
    ok = client.post(door, data={"time_zone": "Europe/Paris"})
    assert ok.status_code == 303
    assert 'value="Europe/Paris" selected' in client.get(door).get_data(as_text=True)
    page = page_of(client, token)
    if 0 in services.snapshot(created.game_id).view(None)["to_act"]:
        assert "10:00 CET" in page  # T0 + 48 h, 09:00 UTC
    # a mail written now tells Paris time
    with dl.at(T0 + timedelta(hours=1)):
        from app.mail import notify, turn_mails
        from app.db import write_session
        from app.gamelog import store
        with write_session() as session:
            ctx = notify.Context.load(session, session.get(store.Game, created.game_id))
            turn_mails.turn(ctx.unit, ctx, 0, services.load_state(created.game_id),
                            T0 + timedelta(hours=48), T0 + timedelta(hours=1),
                            key="tz-test", step=services.game_info(created.game_id).seq)
    mail = next(r for r in outbox_rows(app) if r.idempotency == "tz-test")
    assert "Wednesday, 9 January 2030, 10:00 CET" in mail.text


def test_one_digest_a_day_across_all_games_with_each_seats_link(app, client):
    created = games_with_ann(3)
    answer = client.post(settings_door("ann@example.com"), data={"address_mode": "daily"})
    assert answer.status_code == 303
    # from now on Ann's games mail her no turn mail of their own
    with dl.at(T0 + timedelta(minutes=5)):
        more = games_with_ann(1)
    mailbox = Recorder()
    clock.tick(app, T0 + timedelta(minutes=10), backend=mailbox)
    waiting = [c for c in [*created, *more]
               if 0 in services.snapshot(c.game_id).view(None)["to_act"]]
    digests = [m for m in mailbox.to("ann@example.com") if "wait" in str(m["Subject"])]
    assert len(digests) == 1 and waiting
    body = digests[0].get_body(("plain",)).get_content()
    for game in waiting:
        assert f"/play/{game.tokens[0]}" in body
    new_turns = [r for r in outbox_rows(app) if r.to == "ann@example.com" and r.kind == "turn"
                 and r.game_id == more[0].game_id]
    assert new_turns == []
    # the same day: nothing more; a day later: the next one
    clock.tick(app, T0 + timedelta(hours=5), backend=mailbox)
    assert len([m for m in mailbox.to("ann@example.com") if "wait" in str(m["Subject"])]) == 1
    clock.tick(app, T0 + timedelta(days=1, minutes=10), backend=mailbox)
    assert len([m for m in mailbox.to("ann@example.com") if "wait" in str(m["Subject"])]) == 2
    # unsubscribe from one game (RFC 8058) still works per seat
    unsub = unsubscribe.unsubscribe_token(created[0].game_id, 0)
    assert client.post(f"/unsubscribe/{unsub}", data="List-Unsubscribe=One-Click",
                       content_type="application/x-www-form-urlencoded").status_code == 200
    clock.tick(app, T0 + timedelta(days=2, minutes=10), backend=mailbox)
    last = [m for m in mailbox.to("ann@example.com") if "wait" in str(m["Subject"])][-1]
    assert f"/play/{created[0].tokens[0]}" not in last.get_body(("plain",)).get_content()
    assert re.search(r"Silver Eye · \d games? waits? for you", str(last["Subject"]))


def test_the_daily_digest_has_a_one_click_unsubscribe_for_the_address(app, client):
    created = games_with_ann(2)
    person_settings.set_address_mode("ann@example.com", "daily")
    mailbox = Recorder()
    clock.tick(app, T0 + timedelta(minutes=10), backend=mailbox)
    (digest,) = [m for m in mailbox.to("ann@example.com") if "wait" in str(m["Subject"])]
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = re.fullmatch(r"<(http://silver-eye\.test/unsubscribe/[\w.-]+)>",
                        str(digest["List-Unsubscribe"])).group(1)
    path = link.removeprefix("http://silver-eye.test")
    before = len(outbox_rows(app))
    assert client.get(path).status_code == 200 and len(outbox_rows(app)) == before
    answer = client.post(path, data="List-Unsubscribe=One-Click",
                         content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 200 and b"No more mail" in answer.data
    assert preferences.status(created[1].game_id, 0)["address_mode"] == "none"
    # no more turn or digest mail to Ann from any game; Bob is unaffected
    from app import engine

    mailbox.clear()
    now = T0 + timedelta(minutes=20)
    for game in created:
        snap = services.snapshot(game.game_id)
        for _ in range(20):
            to_act = snap.view(None)["to_act"]
            if not to_act:
                break
            now += timedelta(minutes=1)
            with dl.at(now):
                snap = services.submit_action(game.game_id, to_act[0], engine.legal_actions(
                    snap.state, to_act[0])[0], snap.seq).snapshot
            clock.tick(app, now, backend=mailbox)
    clock.tick(app, T0 + timedelta(days=1, minutes=30), backend=mailbox)
    # the one mail she gets tells her of the change, with its undo (issue 45: every
    # person-wide change is mailed at once, whatever it stopped); none is a game's
    assert set(kinds_of(app, mailbox.to("ann@example.com"))) <= {"settings_changed"}
    assert any(mailbox.to(f"bob{n}@example.com") for n in range(2))


def test_a_seat_that_stopped_its_games_mail_is_not_told_of_mail_held_for_it(app, client):
    """Issue 45 item 2: held by the hourly cap, then Ann stops the game's mail on her
    page: the held mail will never leave (the sender supersedes it when the hold ends),
    so her page no longer says it is held back."""
    import re

    app.config["MAIL_PER_ADDRESS_PER_HOUR"] = 3
    created = games_with_ann(5)
    clock.send_mail_due(app, T0, backend=Recorder())
    held = {row.game_id for row in outbox_rows(app) if row.to == "ann@example.com"
            and row.status == PENDING and row.held_until is not None}
    waiting = next(c for c in created if c.game_id in held)
    token = waiting.tokens[0]
    page = page_of(client, token)
    assert "Mail to you is held back until" in page
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert client.post(f"/play/{token}/prefs", data={"csrf_token": csrf, "mode": "none"}
                       ).status_code == 303
    assert "Mail to you is held back until" not in page_of(client, token)
