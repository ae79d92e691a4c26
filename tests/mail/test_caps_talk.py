"""Caps that talk (issue 17 item 3): mail a cap holds back collapses into one mail of
the position when it leaves, and that mail says it was held and why; mail asked for
by replying is not held by the flood cap; an address that never played gets at most
``STRANGER_MAILS_PER_DAY`` mails in any 24 hours, across all games.
"""
from __future__ import annotations

import html
from datetime import timedelta

from sqlmodel import Session, select

from tests.mail.conftest import lead_of
from app import engine, services
from app.runners import clock
from app.clock import deadlines as dl
from app.db import get_engine, write_session
from app.mail import compose, outbox
from app.mail.models import PENDING, SENT, SUPERSEDED, Outbox
from app.mail.trust import STRANGER_MAILS_PER_DAY
from tests.clock.conftest import T0, Recorder

ANN, VIC = "ann@example.com", "vic@example.com"


def rows_to(app, address: str) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(Outbox).where(Outbox.to == address)
                                 .order_by(Outbox.id)))


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def page_of(client, token: str) -> str:
    return html.unescape(client.get(f"/play/{token}").get_data(as_text=True))


def test_held_mail_collapses_into_one_mail_of_the_position_that_says_it_was_held(app, client):
    """Ann's cap is one mail an hour. Her turn mail in game A waits behind A's invitation,
    then behind game B's mail; meanwhile A's reminder replaces it. What finally leaves
    in A is one mail of her decision as it stands then, saying why it came late."""
    app.config["MAIL_PER_ADDRESS_PER_HOUR"] = 1
    options = {"deadline_hours": 4, "reminders": [3]}  # A's reminder: 1 hour in
    with dl.at(T0):
        a = services.create_game([{"name": "Ann", "email": ANN},
                                  {"name": "Bob", "email": "bob@example.com"}],
                                 options, name="Game A", seed="5")
    mailbox = Recorder()
    clock.tick(app, T0, backend=mailbox)
    assert [lead_of(m).split(":")[0] for m in mailbox.to(ANN)] == ["You are invited to play"]
    assert "Mail to you is held back until" in page_of(client, a.tokens[0])
    with dl.at(T0 + timedelta(minutes=30)):
        services.create_game([{"name": "Ann", "email": ANN},
                              {"name": "Cid", "email": "cid@example.com"}],
                             options, name="Game B", seed="6")
    for minutes in range(30, 181, 10):
        clock.tick(app, T0 + timedelta(minutes=minutes), backend=mailbox)

    in_a = [m for m in mailbox.to(ANN) if "Game A" in str(m["Subject"])]
    assert len(in_a) == 2, [str(m["Subject"]) for m in in_a]
    mail = in_a[1]
    body = text_of(mail)
    lead, notice = body.split("\n\n")[:2]
    assert lead.startswith(("Your turn: ", "Reminder, your turn: ")), \
        "what is asked stays the first line (the inbox preview), the notice under it"
    assert notice.startswith("We held 2 mails to you because your address had 1 mail from us "
                           "in the last hour, the most we send to one address in an hour; "
                           "this is where the game stands now.")
    assert "We held 2 mails" in " ".join(html.unescape(
        mail.get_body(preferencelist=("html",)).get_content()).split())
    # ... composed as it left: the decision she faces now, with her menu and deadline
    assert mail["Reply-To"] and "Please play by" in body
    a_rows = [row for row in rows_to(app, ANN) if row.game_id == a.game_id]
    assert [row.status for row in a_rows].count(SENT) == 2
    assert PENDING not in [row.status for row in a_rows], "no queue of stale mails"
    # game B's held mails each said they were held; nothing says it twice
    told = [m for m in mailbox.to(ANN) if "\n\nWe held" in text_of(m)]
    assert len(told) == len({text_of(m) for m in told}) >= 2


def _mail(n: int) -> compose.Mail:
    return compose.Mail(subject=f"Mail {n}", text=f"Body {n}", html=f"<p>Body {n}</p>")


def test_mail_asked_for_by_replying_is_neither_held_nor_counted_by_the_hourly_cap(app):
    app.config["MAIL_PER_ADDRESS_PER_HOUR"] = 1
    with write_session() as session:
        for n, talk in enumerate([False, True, True, True, False]):
            outbox.enqueue(session, game_id="g1", seat=0, kind="test", to=ANN,
                           to_name="Ann", mail=_mail(n), idempotency=f"test:{n}",
                           domain="silver-eye.test", now=T0 + timedelta(seconds=n),
                           conversation=talk)
    mailbox = Recorder()
    report = clock.send_mail_due(app, T0 + timedelta(seconds=10), backend=mailbox)
    assert [text_of(m).strip() for m in mailbox.to(ANN)] == [
        "Body 0", "Body 1", "Body 2", "Body 3"]
    assert report.held == 1, "the fifth is no conversation: the cap holds it"
    later = clock.send_mail_due(app, T0 + timedelta(hours=1, minutes=1), backend=mailbox)
    assert later.sent == 1
    assert text_of(mailbox.to(ANN)[-1]).startswith("We held 1 mail to you because")


def test_an_address_that_never_played_gets_at_most_twenty_mails_a_day(app, client):
    games = []
    with dl.at(T0):  # eight games, each of the stranger and a bot, by eight creators
        for n in range(8):
            games.append(services.create_game(
                [{"name": "Vic", "email": VIC}, {"name": "Robo", "kind": "bot"}],
                {"deadline_hours": 12, "reminders": ["half"]}, name=f"Game {n}",
                seed=str(40 + n), creator=f"creator{n}@example.com"))
    mailbox = Recorder()
    for hour in range(0, 73):
        clock.tick(app, T0 + timedelta(hours=hour), backend=mailbox)
        if hour == 20:
            held = [g for g in games if "Mail to you is held back until" in
                    page_of(client, g.tokens[0])]
            assert held, "the stranger's seat pages say mail is held"
            assert "has not played a move here yet" in page_of(client, held[0].tokens[0])

    sent = sorted(dl.as_utc(row.sent_at) for row in rows_to(app, VIC) if row.status == SENT)
    assert len(sent) > STRANGER_MAILS_PER_DAY, "more than one day's worth went out over 3 days"
    for at in sent:  # in any 24 hours
        assert sum(1 for t in sent if at - timedelta(hours=24) < t <= at) \
            <= STRANGER_MAILS_PER_DAY
    told = [text_of(m) for m in mailbox.to(VIC) if "We held" in text_of(m)]
    assert told and "this address has not played a move here yet" in told[0]
    assert not any(row.status == PENDING and row.held_until is None for row in rows_to(app, VIC)
                   if dl.as_utc(row.next_attempt_at) <= T0 + timedelta(hours=72))


def test_a_player_who_has_played_is_no_stranger(app):
    with dl.at(T0):
        game = services.create_game([{"name": "Vic", "email": VIC},
                                     {"name": "Robo", "kind": "bot"}], {}, seed="7")
        snap = services.snapshot(game.game_id)
        services.submit_action(game.game_id, 0, engine.legal_actions(snap.state, 0)[0], snap.seq)
    with write_session() as session:
        for n in range(STRANGER_MAILS_PER_DAY + 5):
            outbox.enqueue(session, game_id=None, seat=None, kind="test", to=VIC, to_name="Vic",
                           mail=_mail(n), idempotency=f"many:{n}", domain="silver-eye.test",
                           now=T0)
    report = clock.send_mail_due(app, T0 + timedelta(minutes=1), backend=Recorder())
    assert report.held == 0 and report.sent >= STRANGER_MAILS_PER_DAY + 5
