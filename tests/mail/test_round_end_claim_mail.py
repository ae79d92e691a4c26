"""R47 (rules 2): a seat asked for its Simon claim at a round's end is told what to decide."""
from __future__ import annotations

from app.mail.compose import decision_of, decision_words
from tests.engine.test_rulings_project import _simon_off_caller_sees_a_matching_card_on_the_last_step


def test_the_claiming_seat_is_asked_for_its_simon_discard_and_the_other_for_nothing():
    game = _simon_off_caller_sees_a_matching_card_on_the_last_step()
    assert decision_of(game.view(1), 1) == "simon_claims"
    assert "Simon" in decision_words(decision_of(game.view(1), 1))
    assert decision_of(game.view(0), 0) is None
