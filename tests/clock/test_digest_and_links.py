"""Digest mode and mailed fresh links."""
from __future__ import annotations

from app import engine, services
from app.services import seat_settings as preferences

from .conftest import T0, hours, is_turn, lead_of


def play_until_seat_has_new_decision(gid: str, seat: int, start_to_act: bool) -> None:
    """Others (and the seat) take their first legal moves until ``seat`` gets a new decision."""
    seen_away = not start_to_act
    for _ in range(60):
        snap = services.snapshot(gid)
        to_act = snap.view(None)["to_act"]
        if seat in to_act and seen_away:
            return
        if seat not in to_act:
            seen_away = True
        mover = to_act[0]
        services.submit_action(gid, mover, engine.legal_actions(snap.state, mover)[0], snap.seq)
    raise AssertionError("the seat never got a new decision")


def test_a_digest_seat_gets_at_most_one_mail_a_day(app, game_at_t0, tick, mailbox):
    from app.clock import deadlines as dl

    created = game_at_t0(deadline_hours=72, reminders=[])
    gid = created.game_id
    preferences.set_mode(gid, 1, "digest")
    tick(T0)  # Ann's first turn mail leaves while it still holds
    with dl.at(T0 + hours(1)):
        play_until_seat_has_new_decision(gid, 1, start_to_act=True)
    tick(T0 + hours(1))
    digests = [s for s in mailbox.subjects("bob@example.com") if "digest" in s]
    assert len(digests) == 1
    turns_before = [s for s in mailbox.subjects("bob@example.com") if is_turn(s)]
    with dl.at(T0 + hours(2)):
        play_until_seat_has_new_decision(gid, 1, start_to_act=True)
    tick(T0 + hours(2))
    assert len([s for s in mailbox.subjects("bob@example.com") if "digest" in s]) == 1
    assert [s for s in mailbox.subjects("bob@example.com") if is_turn(s)] == turns_before
    tick(T0 + hours(25))
    assert len([s for s in mailbox.subjects("bob@example.com") if "digest" in s]) == 2
    # Ann, on "every", got a turn mail for each of her decisions meanwhile.
    assert any(is_turn(s) for s in mailbox.subjects("ann@example.com"))


def test_a_fresh_link_is_mailed_to_the_address_on_record_only(app, game_at_t0, tick, mailbox):
    created = game_at_t0()
    gid = created.game_id
    new_token = services.rotate_link(gid, 0)
    services.request_fresh_link(gid, seat=0)
    services.request_fresh_link(gid, email="nobody@example.com")
    tick(T0)
    links = [m for m in mailbox.to("ann@example.com") if "your link" in lead_of(m).lower()]
    assert len(links) == 1
    assert f"/play/{new_token}" in links[0].get_body(("plain",)).get_content()
    assert mailbox.to("nobody@example.com") == []


def link_mails(mailbox, address: str) -> list:
    return [m for m in mailbox.to(address) if "your link" in lead_of(m).lower()]


def test_asking_again_and_again_mails_one_link_per_seat_every_ten_minutes(
        app, game_at_t0, tick, mailbox, db):
    from app.clock import deadlines as dl

    gid = game_at_t0().game_id
    with dl.at(T0):
        services.request_fresh_link(gid, seat=0)
    for minutes in (1, 5, 9.9):  # a flood inside the window: nothing more for Ann
        with dl.at(T0 + hours(minutes / 60)):
            services.request_fresh_link(gid, seat=0)
            services.request_fresh_link(gid, email="ann@example.com")
    with dl.at(T0 + hours(5 / 60)):  # the window is per seat: Bob still gets his
        services.request_fresh_link(gid, email="bob@example.com")
    tick(T0 + hours(0.2))
    assert len(link_mails(mailbox, "ann@example.com")) == 1
    assert len(link_mails(mailbox, "bob@example.com")) == 1
    assert db.count("outbox", kind="link") == 2

    with dl.at(T0 + hours(10 / 60)):  # ten minutes after the first mail: one more
        services.request_fresh_link(gid, seat=0)
        services.request_fresh_link(gid, seat=0)
    tick(T0 + hours(0.5))
    assert len(link_mails(mailbox, "ann@example.com")) == 2
    assert db.count("outbox", kind="link") == 3


def test_the_fresh_link_window_is_configurable(app, game_at_t0, db):
    from app.clock import deadlines as dl

    app.config["FRESH_LINK_MINUTES"] = 2
    gid = game_at_t0().game_id
    for minutes in (0, 1, 2, 3, 4):
        with dl.at(T0 + hours(minutes / 60)):
            services.request_fresh_link(gid, seat=1)
    assert db.count("outbox", kind="link", seat=1) == 3  # at 0, 2 and 4 minutes


def test_the_page_answers_the_same_whether_a_link_was_mailed_or_held_back(
        app, client, game_at_t0, db):
    from app.clock import deadlines as dl

    created = game_at_t0()
    old = created.tokens[0]
    services.rotate_link(created.game_id, 0)
    with dl.at(T0):  # buffered: the link is looked up when the answer has gone (is closed)
        first = client.post("/fresh-link", data={"token": old}, buffered=True)
        again = client.post("/fresh-link", data={"token": old}, buffered=True)
        by_mail = client.post("/fresh-link", data={"game": created.game_id,
                                                    "email": "ann@example.com"}, buffered=True)
    assert first.status_code == again.status_code == by_mail.status_code == 200
    assert first.get_data(as_text=True) == again.get_data(as_text=True)
    assert "on its way" in again.get_data(as_text=True)
    assert db.count("outbox", kind="link") == 1
