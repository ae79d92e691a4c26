"""Digest mode and mailed fresh links."""
from __future__ import annotations

from app import engine, services
from app.mail import preferences

from .conftest import T0, hours


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
    from app import deadlines as dl

    created = game_at_t0(deadline_hours=72, reminders=[])
    gid = created.game_id
    preferences.set_mode(gid, 1, "digest")
    with dl.at(T0 + hours(1)):
        play_until_seat_has_new_decision(gid, 1, start_to_act=True)
    tick(T0 + hours(1))
    digests = [s for s in mailbox.subjects("bob@example.com") if "digest" in s]
    assert len(digests) == 1
    turns_before = [s for s in mailbox.subjects("bob@example.com") if "your turn" in s]
    with dl.at(T0 + hours(2)):
        play_until_seat_has_new_decision(gid, 1, start_to_act=True)
    tick(T0 + hours(2))
    assert len([s for s in mailbox.subjects("bob@example.com") if "digest" in s]) == 1
    assert [s for s in mailbox.subjects("bob@example.com") if "your turn" in s] == turns_before
    tick(T0 + hours(25))
    assert len([s for s in mailbox.subjects("bob@example.com") if "digest" in s]) == 2
    # Ann, on "every", got a turn mail for each of her decisions meanwhile.
    assert any("your turn" in s for s in mailbox.subjects("ann@example.com"))


def test_a_fresh_link_is_mailed_to_the_address_on_record_only(app, game_at_t0, tick, mailbox):
    created = game_at_t0()
    gid = created.game_id
    new_token = services.rotate_link(gid, 0)
    services.request_fresh_link(gid, seat=0)
    services.request_fresh_link(gid, email="nobody@example.com")
    tick(T0)
    links = [m for m in mailbox.to("ann@example.com") if "your link" in str(m["Subject"])]
    assert len(links) == 1
    assert f"/play/{new_token}" in links[0].get_body(("plain",)).get_content()
    assert mailbox.to("nobody@example.com") == []
