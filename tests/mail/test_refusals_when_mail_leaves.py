"""Issue 34 item 3: a refusal is honoured when the mail leaves, not only when a game is
created.

Measured before: the victim clicked "no more invitations", and all 693 mails already
queued for it (behind the hourly cap) stayed pending and would have been sent. Now, at
send time, a mail of a game the address never played in, to an address that refused
invitations (or asked for no mail at all), is superseded; its seat is played as an
away seat (R29), so the others do not wait for a person who said no; and the game's
creator reads why on their page. A game the address did play in keeps its mail.
"""
from __future__ import annotations

from datetime import datetime, timezone

from sqlmodel import col, select

from app.clock import deadlines as dl
from app.db import read_session
from app.mail import invitations
from app.mail.models import SENT, SUPERSEDED, Outbox
from app.runners import clock
from app.services import my_games, person_settings
from tests.conftest import TEST_SECRET_KEY
from tests.mail.test_invitation_guard import create, text_of

VICTIM = "vic@example.org"
STRANGERS = 4


def seat_of(address: str, game_id: str) -> my_games.MySeat:
    return next(seat for seat in my_games.games_of(address) if seat.game_id == game_id)


def games_seating(address: str) -> list[str]:
    return [seat.game_id for seat in my_games.games_of(address)]


def rows_to(address: str) -> list[Outbox]:
    with read_session() as session:
        rows = list(session.exec(select(Outbox).where(col(Outbox.to) == address)).all())
        for row in rows:
            session.expunge(row)
    return rows


def refuse_invitations(client, address: str) -> None:
    """The address's games page: "No more invitations"."""
    with read_session() as session:
        token = my_games.make_link_token(session, address, TEST_SECRET_KEY)
    client.post(f"/my-games/{token}/invitations", data={"choice": "refuse"})


def test_after_no_more_invitations_no_queued_mail_of_a_game_never_played_leaves(
        mail_app, smtp, client):
    # Vic plays one move in a game with Ann: that game is Vic's own choice
    assert create(client, [("Ann", "ann@example.net", "human"),
                           ("Vic", VICTIM, "human")]).status_code == 303
    (played,) = games_seating(VICTIM)
    vic = seat_of(VICTIM, played)
    menu = client.get(f"/api/play/{vic.token}/actions").get_json()
    if menu["legal_actions"]:
        client.post(f"/api/play/{vic.token}/actions",
                    json={"action": menu["legal_actions"][0], "expected_seq": menu["seq"]})
    else:  # Ann is to act first: she does, then Vic
        ann = seat_of("ann@example.net", played)
        first = client.get(f"/api/play/{ann.token}/actions").get_json()
        client.post(f"/api/play/{ann.token}/actions",
                    json={"action": first["legal_actions"][0], "expected_seq": first["seq"]})
        menu = client.get(f"/api/play/{vic.token}/actions").get_json()
        assert client.post(f"/api/play/{vic.token}/actions",
                           json={"action": menu["legal_actions"][0],
                                 "expected_seq": menu["seq"]}).status_code == 200
    # strangers seat Vic in their games; nothing has been sent yet (the mail waits)
    for number in range(STRANGERS):
        assert create(client, [(f"Creator {number}", f"creator{number}@example.net", "human"),
                               ("Vic", VICTIM, "human")],
                      source=f"198.51.100.{number + 1}").status_code == 303
    strangers = [game for game in games_seating(VICTIM) if game != played]
    assert len(strangers) == STRANGERS
    queued = {row.game_id for row in rows_to(VICTIM) if row.status == "pending"}
    assert set(strangers) <= queued, "each stranger's game queued mail for Vic"

    refuse_invitations(client, VICTIM)
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    # (the seat's "you are away" notice, written as the seat went away, is due after
    # that run's "now": the next run finds it, and it does not leave either)
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))

    # Vic's side: nothing from the strangers' games reaches the inbox
    got = smtp.to(VICTIM)
    assert got, "the game Vic played in still mails Vic"
    threads = {m.header("Subject") for m in got}
    assert all(f"Creator {n}" not in " ".join(threads) for n in range(STRANGERS))
    for row in rows_to(VICTIM):
        if row.game_id in strangers:
            assert row.status == SUPERSEDED
            assert (row.last_error or "").startswith(invitations.REFUSED_AT_SEND)
        elif row.game_id == played:
            assert row.status != SUPERSEDED or not (row.last_error or "").startswith(
                invitations.REFUSED_AT_SEND), "a game Vic played in keeps its mail"
    assert any(row.game_id == played and row.status == SENT for row in rows_to(VICTIM))

    # each stranger's game goes on without Vic: the seat is away, as after its timeouts
    with read_session() as session:
        for game in strangers:
            vic_seat = seat_of(VICTIM, game).seat
            clock_row = session.exec(select(dl.SeatClock).where(
                dl.SeatClock.game_id == game, dl.SeatClock.seat == vic_seat)).first()
            assert clock_row is not None and clock_row.absent, game

    # a later run finds nothing more for Vic from those games (nothing is sent later)
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    assert len(smtp.to(VICTIM)) == len(got)
    assert not [row for row in rows_to(VICTIM)
                if row.game_id in strangers and row.status != SUPERSEDED]

    # each creator's page says why, and their own mail left
    for number, game in enumerate(sorted(strangers)):
        creator = next(seat for seat in my_games.games_of(f"creator{number}@example.net"))
        assert smtp.to(f"creator{number}@example.net")
        page = text_of(client.get(f"/play/{creator.token}"))
        assert ("Vic's address asked for no more invitations (or no mail) from games here "
                "and has not played in this one") in page
        assert "give them the seat's link yourself" in page


def test_an_address_that_asked_for_no_mail_at_all_gets_none_from_games_it_never_played(
        mail_app, smtp, client):
    assert create(client, [("Cid", "cid@example.net", "human"),
                           ("Vic", VICTIM, "human")]).status_code == 303
    person_settings.set_address_mode(VICTIM, "none")  # "no game mail at all"
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    assert smtp.to(VICTIM) == []
    assert smtp.to("cid@example.net"), "the creator's mail leaves"

