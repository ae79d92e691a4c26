"""Talking to the table by reply (issue 20 item 2), over real SMTP both ways.

Ann and Bob play a 2-seat game from their mail clients. A reply whose first line
starts with ``SAY`` is said at the table as the replying seat, once per message,
whatever step its reply address names (talk is no move); the answer says what was
said, or why not. A reply that is no command is never posted: it gets today's "not
understood" answer, which now says how to talk.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from app import services
from app.inbound import reading, worker
from app.runners import clock
from tests.inbound.conftest import ANN, Player, answers, reply_to

BOB = "bob@example.com"


def talk_rows(db, game_id: str) -> list[tuple]:
    with db.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            "SELECT seat, text, source FROM talk WHERE game_id = :g ORDER BY id"),
            {"g": game_id})]


def inbox_outcomes(db) -> list[str]:
    with db.engine.connect() as conn:
        return [str(row[0]) for row in conn.execute(sa.text(
            "SELECT outcome FROM inbox ORDER BY id"))]


def test_say_posts_at_the_table_once_even_when_the_same_reply_comes_twice(
        game, ann, inbound, deliver, db, smtp, mail_app):
    # deal: Ann's first turn mail, answered with words for the table
    reply = reply_to(ann.waiting(), "SAY Good luck, everyone!\nMay the silver eye be kind.")
    # do: the same reply is delivered twice (a relay retrying), then applied
    inbound.send(reply, mail_from=ANN)
    inbound.send(reply, mail_from=ANN)
    deliver()
    # expect: said once, as Ann, by mail, both lines; no move was made
    assert talk_rows(db, game.game_id) == [
        (0, "Good luck, everyone!\nMay the silver eye be kind.", "mail")]
    assert db.actions(game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert "Said at the table: “Good luck, everyone! May the silver eye be kind.”" in \
        answer.text
    # ... and Bob's talk mail carries it, a minute later (it gathers what follows)
    clock.send_mail_due(mail_app, datetime.now(timezone.utc) + timedelta(minutes=2))
    [bob] = [m for m in smtp.to(BOB) if m.lead.startswith("At the table of ")]
    text = bob.text.replace("\r\n", "\n")
    assert "\n  Ann (" in text and "): Good luck, everyone!\n    May the silver eye be kind." \
        in text


def test_a_reply_applied_twice_says_its_words_once(game, ann, db):
    """A worker that died after saying it and before finishing the row applies the same
    message again: its Message-ID is the talk's key, so nothing is said twice."""
    message = reply_to(ann.waiting(), "say: twice?")
    read = reading.read(message.as_bytes(), ANN, [str(message["To"])])
    first = worker.judge(read, ANN)[1]
    again = worker.judge(read, ANN)[1]
    assert talk_rows(db, game.game_id) == [(0, "twice?", "mail")]
    assert first.outcome == again.outcome and first.outcome.startswith("said at the table")


def test_a_stale_reply_address_still_talks(game, ann, inbound, deliver, db, smtp):
    old = ann.waiting()
    services.submit_action(game.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
    bob = Player("Bob", BOB, smtp)
    bob.answer(inbound, bob.waiting(), "peek 3 4")
    deliver()
    assert len(db.actions(game.game_id)) == 2, "the game moved on since Ann's old mail"
    inbound.send(reply_to(old, "SAY sorry, I was on the page"), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == [(0, "sorry, I was on the page", "mail")]
    assert len(db.actions(game.game_id)) == 2, "talk is no move"
    assert any("Said at the table: “sorry, I was on the page”" in m.text
               for m in answers(smtp, ANN))


def test_a_say_that_is_too_long_gets_the_reason_and_says_nothing(game, ann, inbound,
                                                                 deliver, db, smtp):
    inbound.send(reply_to(ann.waiting(), "SAY " + "blah " * 150), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert "Nothing was said at the table: Your message is 749 characters; the table " \
           "takes at most 500." in " ".join(answer.text.split())
    assert inbox_outcomes(db) == ["talk refused: bad_request"]


def test_a_reply_that_is_no_command_is_not_understood_and_posts_nothing(
        game, ann, inbound, deliver, db, smtp):
    inbound.send(reply_to(ann.waiting(), "hello there"), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == []
    assert db.actions(game.game_id) == []
    [answer] = answers(smtp, ANN)
    text = " ".join(answer.text.split())
    assert "We could not read a command in your reply" in text
    assert "To talk to the table, start your reply with SAY." in text


def test_say_on_a_later_line_or_a_word_like_sayonara_is_no_talk(game, ann, inbound,
                                                                deliver, db):
    inbound.send(reply_to(ann.waiting(), "Hi all,\nSAY this is not a command line"),
                 mail_from=ANN)
    inbound.send(reply_to(ann.waiting(), "sayonara"), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == []


def test_a_chatty_mail_player_is_answered_within_the_hourly_cap_and_never_told_nothing_changed(
        game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()
    for n in range(7):
        inbound.send(reply_to(mail, f"SAY message {n}"), mail_from=ANN)
    deliver()
    assert [text for _, text, _ in talk_rows(db, game.game_id)] == [
        f"message {n}" for n in range(7)]
    told = answers(smtp, ANN)
    assert len(told) == 5, "INBOUND_ANSWERS_PER_HOUR answers at most"
    assert all("Said at the table" in m.text and "Nothing was" not in m.text for m in told)


def test_say_in_an_html_only_reply_talks_without_the_quoted_mail(game, ann, inbound, deliver,
                                                                  db):
    inbound.send(reply_to(ann.waiting(), "Say: from my phone", html=True), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == [(0, "from my phone", "mail")]
