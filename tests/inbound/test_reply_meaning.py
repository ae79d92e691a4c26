"""Replies that mean what they said (issue 17 item 4), over real SMTP both ways.

Ann plays by replying; Bob (on his page, as a bot would) or a bot moves
between Ann's mail and her reply. A reply applies when Ann still faces the
decision of the mail it answers and the command names the same cards;
otherwise the answer says, in mail words, which mail it was to, what
happened since and that nothing changed. Each scenario reads the mail Ann
gets and asserts its words.
"""
from __future__ import annotations

import re
from datetime import timedelta
from typing import Callable

import pytest
import sqlalchemy as sa

from app import engine, services
from app.runners import clock
from app.clock import deadlines as dl
from app.engine.cards import VALUE
from tests.inbound.conftest import Player, menu_of, reply_to

ANN, BOB = "ann@example.com", "bob@example.com"


def seed_where(wanted: Callable[[engine.State], bool]) -> str:
    """The first seed whose deal of two seats is ``wanted`` (deal this, R3/R6)."""
    for seed in range(1, 100_000):
        if wanted(engine.new_game(2, seed)):
            return str(seed)
    raise AssertionError("no such deal")


def bob_starts(state: engine.State) -> bool:
    return state.current == 1


def simon_deal(state: engine.State) -> bool:
    """Bob starts, the pile shows a 2 Simon and Bob holds another 2 (R16)."""
    return (state.current == 1 and VALUE[state.pile[-1]] == 2
            and any(VALUE[c] == 2 for c in state.villages[1]))


def answers(smtp, address: str) -> list:
    return [m for m in smtp.to(address) if "about your reply" in m.lead.lower()]


def outcomes(db) -> list[tuple[str, str]]:
    with db.engine.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.text(
            "SELECT status, outcome FROM inbox ORDER BY id"))]


def step_of(game_id: str) -> int:
    return services.snapshot(game_id).seq


def bob_plays(game_id: str, *actions: dict) -> None:
    """Bob's moves on his seat page, each decided on the step it is made at."""
    for action in actions:
        services.submit_action(game_id, 1, action, step_of(game_id))


@pytest.fixture
def ann(smtp) -> Player:
    return Player("Ann", ANN, smtp)


def start(new_game, deliver, wanted=bob_starts, **options):
    created = new_game(seats=2, seed=seed_where(wanted), **options)
    deliver()
    return created


def test_a_peek_reply_after_bob_played_a_whole_turn_is_applied(new_game, deliver, ann,
                                                              inbound, db, smtp):
    game = start(new_game, deliver)
    mail = ann.waiting()
    assert [c for c, _ in menu_of(mail)][:1] == ["peek 1 2"]
    bob_plays(game.game_id, {"type": "peek", "positions": [0, 1]}, {"type": "draw"},
              {"type": "exchange", "positions": [2]})   # R5: Ann's peek blocks nobody
    ann.answer(inbound, mail, "peek 1 2")
    deliver()
    assert db.actions(game.game_id)[-1] == (4, 0, "mail")
    assert outcomes(db) == [("applied", "applied at step 4 (still meant)")]
    assert answers(smtp, ANN) == []
    village = services.snapshot(game.game_id).view(0)["villages"][0]
    assert [card["id"] is not None for card in village] == [True, True, False, False, False]


def test_a_peek_reply_after_a_bot_moved_is_applied(new_game, deliver, ann, inbound, db,
                                                   smtp):
    # the measured case: Ann's first mail, then a bot seat peeks and plays its turn
    created = new_game(seats=2, seed=seed_where(bob_starts), bots=(1,))
    deliver()
    mail = ann.waiting()
    assert mail is not None and step_of(created.game_id) >= 3   # the bot's peek and turn
    ann.answer(inbound, mail, "peek 1 2")
    deliver()
    assert outcomes(db)[0][0] == "applied"
    assert (0, "mail") in [(seat, source) for _, seat, source in db.actions(created.game_id)]
    assert answers(smtp, ANN) == []


def test_a_take_after_a_simon_claim_changed_the_top_discard_is_refused_in_mail_words(
        new_game, deliver, ann, inbound, db, smtp):
    game = start(new_game, deliver, simon_deal, simon=["auto", "off"])
    state = services.snapshot(game.game_id).state
    two = next(p for p, c in enumerate(state.villages[1]) if VALUE[c] == 2)
    services.submit_action(game.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
    bob_plays(game.game_id, {"type": "peek", "positions": [p for p in range(5) if p != two][:2]},
              {"type": "take"}, {"type": "exchange", "positions": [two]})
    deliver()
    mail = ann.waiting()   # Ann's turn: "T" takes the 2 Simon Bob just discarded
    assert "T" in [c for c, _ in menu_of(mail)]
    before = step_of(game.game_id)
    bob_plays(game.game_id, {"type": "simon", "position": two})   # R36, by hand
    ann.answer(inbound, mail, "T")
    deliver()
    assert step_of(game.game_id) == before + 1   # Bob's claim; Ann's T was not made
    [answer] = answers(smtp, ANN)
    text = " ".join(answer.text.split())
    assert 'Your reply said: "T"' in text
    assert re.search(r"Your reply was to the mail of (\w+ \d+ \w+, )?\d\d:\d\d UTC about your draw; since "
                     r"then Bob's Simon discarded 2 Simon: the top of the discard pile is now "
                     r"another 2 Simon, not the one you meant\. Nothing was changed\.", text)
    assert "Waiting for you: it is your turn" in text
    assert "T" in [c for c, _ in menu_of(answer)]   # the current menu, to answer instead
    assert "reload" not in text and "step" not in text
    assert outcomes(db) == [("answered", "stale: cards")]


def ann_turn_mail(ann: Player) -> object:
    mail = ann.waiting()
    assert mail is not None and "Your turn: draw" in mail.lead
    return mail


def test_a_reply_to_an_old_mail_that_matches_the_current_decision_is_refused_not_copied(
        new_game, deliver, ann, inbound, db, smtp):
    game = start(new_game, deliver, lambda s: s.current == 0)
    services.submit_action(game.game_id, 1, {"type": "peek", "positions": [0, 1]}, 0)
    ann.answer(inbound, ann.waiting(), "peek 1 2")
    deliver()
    old = ann_turn_mail(ann)
    # Ann plays that turn on her page; Bob plays his; Ann's turn again, a new mail
    for seat in (0, 1):
        state = services.snapshot(game.game_id)
        services.submit_action(game.game_id, seat, {"type": "draw"}, state.seq)
        services.submit_action(game.game_id, seat, {"type": "exchange", "positions": [4]},
                               state.seq + 1)
    deliver()
    current = ann_turn_mail(ann)
    assert current.header("Reply-To") != old.header("Reply-To")
    mails_before = len(ann.mails())
    ann.answer(inbound, old, "D")
    deliver()
    [answer] = answers(smtp, ANN)
    assert len(ann.mails()) == mails_before + 1   # the answer, no copy of the turn mail
    text = " ".join(answer.text.split())
    assert ("about your draw; since then you already made that move on your seat page "
            "(you drew a card; you exchanged card #5 for the new card, discarding ") in text
    assert "Nothing was changed." in text
    assert outcomes(db)[-1] == ("answered", "stale: acted")
    assert [seat for _, seat, _ in db.actions(game.game_id)] == [1, 0, 0, 0, 1, 1]


def test_a_re_sent_reply_is_one_move_and_one_mail(new_game, deliver, ann, inbound, db, smtp):
    game = start(new_game, deliver, lambda s: s.current == 0)
    mail = ann.waiting()
    ann.answer(inbound, mail, "peek 1 2")
    deliver()
    assert len([m for m in ann.mails() if "Your turn: draw" in m.lead]) == 1
    count = len(ann.mails())
    inbound.send(reply_to(mail, "peek 1 2"), mail_from=ANN)   # the same command, a new Message-ID
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    assert len(ann.mails()) == count   # no second turn mail, no answer
    assert [status for status, _ in outcomes(db)] == ["applied", "applied"]
    assert outcomes(db)[1][1] == "already applied"


def test_a_re_sent_refused_reply_gets_one_answer(new_game, deliver, ann, inbound, db, smtp):
    start(new_game, deliver)
    mail = ann.waiting()
    inbound.send(reply_to(mail, "fly away"), mail_from=ANN)
    deliver()
    inbound.send(reply_to(mail, "fly away"), mail_from=ANN)
    deliver()
    assert len(answers(smtp, ANN)) == 1
    assert outcomes(db)[1][1].endswith("(its answer was sent for the same reply before)")


def test_an_illegal_card_number_is_answered_counting_from_one(new_game, deliver, ann,
                                                              inbound, db, smtp):
    game = start(new_game, deliver, lambda s: s.current == 0)
    services.submit_action(game.game_id, 1, {"type": "peek", "positions": [0, 1]}, 0)
    ann.answer(inbound, ann.waiting(), "peek 1 2")
    deliver()
    ann.answer(inbound, ann_turn_mail(ann), "D")
    deliver()
    drawn = ann.waiting()
    assert "Cards count from 1" in drawn.text
    ann.answer(inbound, drawn, "X 9")
    deliver()
    [answer] = answers(smtp, ANN)
    text = " ".join(answer.text.split())
    assert "You have no card #9: your village has 5 cards (#1 to #5)." in text
    assert "position 8" not in text and "0 to 4" not in text
    assert len(db.actions(game.game_id)) == 3


def test_over_the_hourly_cap_the_player_still_gets_one_answer_for_all_the_rest(
        new_game, deliver, ann, inbound, db, smtp, mail_app):
    mail_app.config["INBOUND_ANSWERS_PER_HOUR"] = 2
    game = start(new_game, deliver)
    mail = ann.waiting()
    for n in range(5):
        inbound.send(reply_to(mail, f"nonsense number {n}"), mail_from=ANN)
    deliver()
    assert len(answers(smtp, ANN)) == 2   # the cap holds: the rest wait, answered together
    assert sum("answered together" in outcome for _, outcome in outcomes(db)) == 3
    later = dl.now() + timedelta(hours=1, minutes=1)
    clock.tick(mail_app, later)
    clock.tick(mail_app, later + timedelta(seconds=1))
    first, second, together = answers(smtp, ANN)
    text = " ".join(together.text.split())
    assert "You sent 3 replies that did not become a move" in text
    assert "This one mail answers them all: nothing was changed by any of them." in text
    assert "The last one said: “nonsense number 4”." in text
    assert menu_of(together) and together.header("Reply-To")
    assert db.actions(game.game_id) == []


def test_a_reply_after_time_ran_out_says_what_was_played_for_the_seat(
        new_game, deliver, ann, inbound, db, smtp):
    game = start(new_game, deliver)
    mail = ann.waiting()
    late = services.load_state(game.game_id)   # R29: time ran out, the peek default (R5)
    services.submit_action(game.game_id, 0, engine.default_action(late, 0),
                           step_of(game.game_id), source="timeout")
    ann.answer(inbound, mail, "peek 3 4")
    deliver()
    [answer] = answers(smtp, ANN)
    text = " ".join(answer.text.split())
    assert ("since then time ran out and that decision was made for you (you looked at "
            "cards #1 and #2 of your village). Nothing was changed.") in text
    assert db.actions(game.game_id) == [(1, 0, "timeout")]
    assert outcomes(db) == [("answered", "stale: acted")]
