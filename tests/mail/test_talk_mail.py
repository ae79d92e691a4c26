"""Table talk by mail (issue 20 item 2): the next mail carries it, once; talk alone
never floods.

Ann, Bob and Cid play; Ann talks. Each seat chooses how talk reaches it by mail:
``hourly`` (the default: at most one talk mail an hour), ``every`` (soon after each
message, a burst collapsed into one mail), ``turns`` (only inside the mails it gets
anyway) or ``never``; a seat that muted the talk gets none. The clock is injected
(``T0``) and the sender is run by hand at chosen moments.
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from email.message import EmailMessage

import sqlalchemy as sa

from app import engine, services
from app.access import tokens
from app.clock import deadlines as dl
from app.db import write_session
from app.mail import seat_prefs
from app.runners import clock
from app.services import seat_settings as preferences
from app.services import talk
from tests.clock.conftest import T0, Recorder
from tests.mail.conftest import lead_of

ANN, BOB, CID = "ann@example.com", "bob@example.com", "cid@example.com"
MARK = re.compile(r"\[m\d+\]")


def deal(new_game, delay: int = 120):
    """Ann, Bob and Cid at T0; turn mails wait ``delay`` seconds (the game's grace)."""
    with dl.at(T0):
        return new_game(seats=3, turn_mail_delay_seconds=delay)


def say(game, seat: int, text: str, at: datetime) -> int:
    with write_session() as session:
        return talk.post(session, game.game_id, seat, text, key=None, source="page", now=at)


def talk_setting(game, seat: int, *, mode: str | None = None, muted: bool | None = None) -> None:
    if mode is not None:
        preferences.set_talk_mode(game.game_id, seat, mode)
    if muted is not None:
        with write_session() as session:
            row = seat_prefs.seat_mail(session, game.game_id, seat)
            row.talk_muted = muted
            session.add(row)


def text_of(mail: EmailMessage) -> str:
    return mail.get_body(preferencelist=("plain",)).get_content()


def html_of(mail: EmailMessage) -> str:
    return mail.get_body(preferencelist=("html",)).get_content()


def talk_mails(box: Recorder, address: str) -> list[EmailMessage]:
    return [m for m in box.to(address) if lead_of(m).startswith("At the table of ")]


def marks_in(mails: list[EmailMessage]) -> list[str]:
    """The message markers each mail carries in its text part (a talk mail's first line
    quotes its first message too: counted once per mail), over all mails, sorted: a
    marker twice here was in two mails."""
    return sorted(mark for m in mails for mark in set(MARK.findall(text_of(m))))


def block_of(mail: EmailMessage) -> list[str]:
    """The markers of the "At the table:" block of a mail, in order."""
    return MARK.findall(text_of(mail).split("At the table:\n", 1)[1].split("\n\n", 1)[0])


def talk_rows(db, seat: int) -> list[str]:
    with db.engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(sa.text(
            "SELECT status FROM outbox WHERE kind = 'talk' AND seat = :s ORDER BY id"),
            {"s": seat})]


def test_fifty_messages_in_an_hour_give_each_other_seat_one_talk_mail_that_hour(
        app, new_game, db):
    game = deal(new_game)
    box = Recorder()
    clock.send_mail_due(app, T0 + timedelta(minutes=3), backend=box)  # invitations, turns
    start = T0 + timedelta(minutes=10)
    sent_at: dict[int, datetime] = {}
    for n in range(50):  # one message every 72 seconds: 50 within the hour
        at = start + timedelta(seconds=72 * n)
        say(game, 0, f"[m{n:02d}] still thinking about that Dracula", at)
        before = len(box.sent)
        clock.send_mail_due(app, at, backend=box)
        for index in range(before, len(box.sent)):
            sent_at[index] = at
    hour = [(box.sent[i][1], at) for i, at in sent_at.items()
            if lead_of(box.sent[i][1]).startswith("At the table of ")]
    for address in (BOB, CID):
        mine = [m for m, at in hour if address in str(m["To"]) and at < start + timedelta(hours=1)]
        assert len(mine) == 1, f"{address}: {len(mine)} talk mails in the hour"
        assert lead_of(mine[0]).startswith("At the table of Test game: Ann: [m00]")
    assert talk_mails(box, ANN) == [], "nobody is mailed their own words"
    # the rest leaves an hour after the first talk mail, collapsed into one
    clock.send_mail_due(app, start + timedelta(hours=2), backend=box)
    for address in (BOB, CID):
        assert len(talk_mails(box, address)) == 2
        assert marks_in(box.to(address)) == [f"[m{n:02d}]" for n in range(50)], \
            "each message in exactly one mail"


def test_every_message_mode_collapses_a_burst_into_one_mail(app, new_game):
    game = deal(new_game)
    talk_setting(game, 2, mode="every")
    box = Recorder()
    clock.send_mail_due(app, T0 + timedelta(minutes=3), backend=box)
    burst = T0 + timedelta(minutes=10)
    for n, seconds in enumerate((0, 20, 40)):
        say(game, 0, f"[m{n}] burst", burst + timedelta(seconds=seconds))
        clock.send_mail_due(app, burst + timedelta(seconds=seconds), backend=box)
    assert talk_mails(box, CID) == [], "the grace period collapses what comes close together"
    clock.send_mail_due(app, burst + timedelta(minutes=2, seconds=30), backend=box)
    [first] = talk_mails(box, CID)
    assert block_of(first) == ["[m0]", "[m1]", "[m2]"]
    say(game, 0, "[m3] one more", burst + timedelta(minutes=10))
    clock.send_mail_due(app, burst + timedelta(minutes=12, seconds=30), backend=box)
    assert [block_of(m) for m in talk_mails(box, CID)] == [
        ["[m0]", "[m1]", "[m2]"], ["[m3]"]]
    # Bob, hourly, got the burst, and waits out his hour for the one more
    assert len(talk_mails(box, BOB)) == 1
    clock.send_mail_due(app, burst + timedelta(hours=1, minutes=5), backend=box)
    assert marks_in(box.to(BOB)) == ["[m0]", "[m1]", "[m2]", "[m3]"]


def _play_until_mail_to(app, game, box: Recorder, address: str, at: datetime) -> datetime:
    """Play the first legal move of a seat that must act, five minutes apart, until a
    new mail reaches ``address``; returns the time then."""
    count = len(box.to(address))
    for _ in range(80):
        snapshot = services.snapshot(game.game_id)
        seat = engine.view(snapshot.state, None)["to_act"][0]
        with dl.at(at):
            services.submit_action(game.game_id, seat,
                                   engine.legal_actions(snapshot.state, seat)[0], snapshot.seq)
        at += timedelta(minutes=5)
        clock.send_mail_due(app, at, backend=box)
        if len(box.to(address)) > count:
            return at
    raise AssertionError(f"no new mail to {address}")


def test_turns_mode_gets_the_talk_only_inside_its_next_mails_once(app, new_game, db):
    game = deal(new_game)
    talk_setting(game, 2, mode="turns")
    box = Recorder()
    say(game, 0, "[m1] before the first turn", T0 + timedelta(seconds=30))
    clock.send_mail_due(app, T0 + timedelta(minutes=3), backend=box)
    [turn] = [m for m in box.to(CID) if lead_of(m).startswith("Your turn")]
    body = text_of(turn)
    assert lead_of(turn).startswith("Your turn: "), "what is asked stays the first line"
    assert "At the table:\n  Ann (09:00 UTC): [m1] before the first turn" in body
    assert "[m1] before the first turn" in html_of(turn)
    say(game, 0, "[m2] while Cid thinks", T0 + timedelta(minutes=4))
    clock.send_mail_due(app, T0 + timedelta(hours=3), backend=box)
    assert talk_mails(box, CID) == [] and talk_rows(db, 2) == [], "no talk mail of its own"
    _play_until_mail_to(app, game, box, CID, T0 + timedelta(hours=3))
    assert marks_in(box.to(CID)) == ["[m1]", "[m2]"], "each once, in the mails it gets anyway"
    assert "[m2]" in text_of(box.to(CID)[-1])


def test_never_and_muted_get_no_talk_by_mail(app, new_game, db):
    game = deal(new_game)
    talk_setting(game, 1, muted=True)
    talk_setting(game, 2, mode="never")
    box = Recorder()
    say(game, 0, "[m1] anyone there?", T0 + timedelta(seconds=30))
    for minutes in (3, 30, 180):
        clock.send_mail_due(app, T0 + timedelta(minutes=minutes), backend=box)
    for address in (BOB, CID):
        assert box.to(address), "they get their other mail"
        assert not any("At the table" in text_of(m) for m in box.to(address))
    assert talk_rows(db, 1) == [] and talk_rows(db, 2) == []
    say(game, 1, "[m2] I'm muted but I talk", T0 + timedelta(hours=4))
    clock.send_mail_due(app, T0 + timedelta(hours=5), backend=box)
    assert marks_in(talk_mails(box, ANN)) == ["[m2]"]


def test_a_turn_mail_that_carried_the_talk_supersedes_the_pending_talk_mail(app, new_game, db):
    game = deal(new_game)
    box = Recorder()
    say(game, 0, "[m1] hello", T0 + timedelta(seconds=30))  # Bob's talk mail due 09:02:30
    assert talk_rows(db, 1) == ["pending"]
    clock.send_mail_due(app, T0 + timedelta(minutes=2, seconds=10), backend=box)  # his turn
    assert "[m1] hello" in text_of(box.to(BOB)[-1])
    clock.send_mail_due(app, T0 + timedelta(minutes=5), backend=box)
    assert talk_rows(db, 1) == ["superseded"]
    assert marks_in(box.to(BOB)) == ["[m1]"] and talk_mails(box, BOB) == []


def test_a_talk_mail_escapes_html_answers_by_say_and_names_no_card(app, new_game):
    game = deal(new_game)
    box = Recorder()
    clock.send_mail_due(app, T0 + timedelta(minutes=3), backend=box)
    said = "<script>alert('x')</script> & <b>bold</b>\nsecond line"
    say(game, 0, said, T0 + timedelta(minutes=10))
    clock.send_mail_due(app, T0 + timedelta(minutes=13), backend=box)
    [mail] = talk_mails(box, BOB)
    html, text = html_of(mail), text_of(mail)
    assert "<script>" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    assert "  Ann (09:10 UTC): <script>alert('x')</script> & <b>bold</b>\n    second line" in text
    assert "Reply with SAY and your words to answer the table." in text
    assert str(mail["Reply-To"]).startswith("play+")
    assert mail["Subject"] == "Silver Eye · Test game (game " + game.game_id + ")"
    assert "/play/" in text and "/unsubscribe/" in text
    from app.mail.compose import all_labels
    assert not [label for label in all_labels() if label in text], "talk mail names no card"


def test_the_seat_page_offers_talk_by_mail_in_words_and_saves_it(client, new_game, db):
    game = deal(new_game)
    token, csrf = game.tokens[1], tokens.csrf_token(game.game_id, 1, 1)
    page = client.get(f"/play/{token}").get_data(as_text=True)
    assert "Table talk by mail" in page and "at most one talk mail an hour" in page
    before = db.dump()
    refused = client.post(f"/play/{token}/prefs", data={"talk_mode": "loud", "csrf_token": csrf})
    assert refused.status_code == 400 and db.dump() == before
    done = client.post(f"/play/{token}/prefs", data={"talk_mode": "turns", "csrf_token": csrf})
    assert done.status_code == 303
    assert preferences.status(game.game_id, 1)["talk_mode"] == "turns"


def test_a_hidden_message_is_carried_by_no_mail_and_no_game_mail_means_no_talk_mail(
        app, new_game, db):
    game = deal(new_game)
    preferences.set_mode(game.game_id, 2, "none")  # Cid: no mail from this game at all
    box = Recorder()
    clock.send_mail_due(app, T0 + timedelta(minutes=3), backend=box)
    first = say(game, 0, "[m1] oops, wrong table", T0 + timedelta(minutes=10))
    say(game, 0, "[m2] hello", T0 + timedelta(minutes=10, seconds=5))
    talk.hide(game.tokens[0], first)
    clock.send_mail_due(app, T0 + timedelta(minutes=13), backend=box)
    [mail] = talk_mails(box, BOB)
    assert block_of(mail) == ["[m2]"] and "[m1]" not in html_of(mail)
    assert talk_rows(db, 2) == [] and not talk_mails(box, CID)


def test_a_message_said_while_a_talk_mail_is_leaving_waits_out_the_hour(app, new_game, db):
    """Bob's talk mail is in a sender's hands (leased) when Ann speaks again: it may have
    been composed already, so a new one is queued, but on ``hourly`` not before an hour."""
    game = deal(new_game)
    say(game, 0, "[m1] first", T0 + timedelta(minutes=10))
    with db.engine.begin() as conn:
        conn.execute(sa.text("UPDATE outbox SET lease_owner = 'another', lease_until = :until "
                             "WHERE kind = 'talk' AND seat = 1"),
                     {"until": T0 + timedelta(hours=5)})
    said_at = T0 + timedelta(minutes=13)
    say(game, 0, "[m2] second", said_at)
    with db.engine.connect() as conn:
        due = conn.execute(sa.text("SELECT next_attempt_at FROM outbox WHERE kind = 'talk' "
                                   "AND seat = 1 ORDER BY id")).scalars().all()
    assert len(due) == 2
    assert dl.as_utc(datetime.fromisoformat(str(due[1]))) >= said_at + timedelta(hours=1)
