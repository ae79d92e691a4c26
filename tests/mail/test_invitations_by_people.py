"""Issue 34 item 2: invitations are bounded by people, not by history.

Measured before: the 20-a-day bound on a never-played address held, but once the
victim had made one move anywhere, 40 source addresses created 390 games naming it in
143 s, and 693 mails waited behind the hourly cap. Now an address is seated in at most
``INVITATIONS_FROM_STRANGERS_PER_DAY`` (10) games a day by people it never played with,
whatever it played elsewhere; beyond that the lobby refuses the game with words the
creator understands. Games with someone it played with are not counted.
"""
from __future__ import annotations

from datetime import datetime, timezone

from app.runners import clock
from app.services import my_games
from tests.mail.test_invitation_guard import create, text_of

VICTIM = "vic@example.org"
FRIEND = "ann@example.net"


def both_play_a_move(client, game_id: str) -> None:
    """Ann and Vic each make a move of their own in ``game_id`` (by their links)."""
    seats = {seat.seat: seat.token for address in (FRIEND, VICTIM)
             for seat in my_games.games_of(address) if seat.game_id == game_id}
    moved: set[int] = set()
    for _ in range(6):
        for seat, token in seats.items():
            menu = client.get(f"/api/play/{token}/actions").get_json()
            if seat not in moved and menu["legal_actions"]:
                answer = client.post(f"/api/play/{token}/actions",
                                     json={"action": menu["legal_actions"][0],
                                           "expected_seq": menu["seq"]})
                assert answer.status_code == 200
                moved.add(seat)
        if moved == set(seats):
            return
    raise AssertionError(f"only seats {moved} could move")


def test_forty_creators_invite_an_address_that_played_once_elsewhere(mail_app, smtp, client,
                                                                      db):
    assert create(client, [("Ann", FRIEND, "human"), ("Vic", VICTIM, "human")],
                  source="192.0.2.1").status_code == 303
    (friends,) = [seat.game_id for seat in my_games.games_of(VICTIM)]
    both_play_a_move(client, friends)

    answers = [create(client, [(f"Creator {n}", f"creator{n}@example.net", "human"),
                               ("Vic", VICTIM, "human")], source=f"198.51.100.{n + 1}")
               for n in range(40)]

    assert [a.status_code for a in answers] == [303] * 10 + [400] * 30
    assert len(my_games.games_of(VICTIM)) == 1 + 10
    words = text_of(answers[10])
    assert ("vic@example.org (seat 2, Vic) was invited to 10 games here in the last 24 hours "
            "by people they have never played with; we invite an address to at most 10 such "
            "games a day, so no game was created.") in words
    assert 'value="Creator 10"' in answers[10].get_data(as_text=True), "the form as typed"
    # the creators refused are not held up for their own next game without Vic
    assert create(client, [("Creator 39", "creator39@example.net", "human"),
                           ("Dee", "dee@example.net", "human")],
                  source="198.51.100.40").status_code == 303

    # Vic's side: ten invitations from strangers in the inbox, not forty
    clock.send_mail_due(mail_app, datetime.now(timezone.utc))
    invited = [m for m in smtp.to(VICTIM) if "invited" in m.lead]
    assert len(invited) == 1 + 10  # Ann's game, and the ten the bound let through

    # someone Vic played with is not a stranger: Ann's next game is created
    assert create(client, [("Ann", FRIEND, "human"), ("Vic", VICTIM, "human")],
                  source="192.0.2.1").status_code == 303


def test_sitting_in_a_strangers_game_does_not_make_them_friends(client, db):
    """A creator who seated the victim once (the victim never moved there) is still a
    stranger: their games count, however many."""
    assert create(client, [("Ann", FRIEND, "human"), ("Vic", VICTIM, "human")],
                  source="192.0.2.1").status_code == 303
    (friends,) = [seat.game_id for seat in my_games.games_of(VICTIM)]
    both_play_a_move(client, friends)
    codes = [create(client, [("Mal", "mal@example.net", "human"), ("Vic", VICTIM, "human")],
                    source=f"203.0.113.{n + 1}").status_code for n in range(12)]
    assert codes == [303] * 10 + [400] * 2
