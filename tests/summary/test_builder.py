"""The round summary from the engine's public events (R24-R28), on stacked decks.

Each scenario is played by the engine alone; the summary must agree with the
engine's own scoring (never a second count) and explain it in words.
"""
from __future__ import annotations

import random

import pytest

from app import engine as E
from app.engine.summary import last_summary, round_summary
from tests.summary import scenarios as S

NAMES = ["Ann", "Bob", "Cid"]


def summary_of(scenario: S.Scenario):
    game = scenario.play()
    view = game.view(None)
    assert view["round"] == 2, "the scenario's round is scored and the next one dealt (R4)"
    return game, last_summary(view)


@pytest.mark.parametrize("scenario", S.ALL, ids=lambda s: s.name)
def test_r24_the_summary_agrees_with_the_engines_scoring_card_by_card(scenario):
    game, summary = summary_of(scenario)
    scored = next(e for e in game.events if e["type"] == "round_scored")
    assert summary.round == 1 and summary.step == scored["step"]
    assert [r.sum for r in summary.seats] == scored["sums"]
    assert [r.score for r in summary.seats] == scored["scores"]
    assert [r.total for r in summary.seats] == scored["totals"]
    for result in summary.seats:
        assert sum(c.points for c in result.cards) == result.sum, "each card's points add up"


@pytest.mark.parametrize("scenario", S.ALL, ids=lambda s: s.name)
def test_r24_r31_every_card_in_a_summary_was_public_at_the_round_end(scenario):
    """All villages are turned faceup at round end (R24), so the summary is public:
    the engine's public round_end event shows every village card (none is a secret,
    None), and the summary names no card beyond them."""
    game, summary = summary_of(scenario)
    end = next(e for e in game.events if e["type"] == "round_end")
    assert all(card is not None for village in end["villages"] for card in village)
    public = {card["id"] for village in end["villages"] for card in village}
    named = {c.id for r in summary.seats for c in r.cards} | {c for r in summary.seats for c in r.removed}
    named |= {c.nelly for r in summary.seats for c in r.cards if c.nelly is not None}
    assert named and named <= public
    if scenario.moves[end["step"]:]:    # a round-end choice is still open: the table sees all
        state = E.replay(scenario.seats, game.state.seed, scenario.moves[:end["step"]],
                         decks=[scenario.deck])
        spectator = E.view(state, None)
        assert spectator["phase"] == "resolve"
        assert all(c["faceup"] and c["id"] is not None for v in spectator["villages"] for c in v)


def test_r25_a_failed_call_scores_the_sum_plus_10_and_says_who_was_lower():
    _, summary = summary_of(S.FAILED_CALL)
    ann, bob = summary.seats
    assert (ann.called, ann.sum, ann.score, summary.successful) == (True, 28, 38, False)
    assert summary.fewest == (1,) and (summary.eye_holder, summary.eye_open) == (1, False)
    assert summary.eye_reason == "fewest"
    words = summary.words(NAMES)
    assert ("Ann called but Bob had a lower sum (16 against 28), so Ann scores 28 + 10 = 38."
            in words["lines"])
    assert words["seats"][0]["score_words"] == "28 + 10 = 38 (a failed call)"
    assert [c["faceup_at_scoring"] for c in words["seats"][0]["cards"]] == [True, False, False, False]


def test_r26_a_tie_for_fewest_gives_the_eye_to_the_first_tied_seat_clockwise():
    _, summary = summary_of(S.TIE_FOR_FEWEST)
    assert summary.fewest == (1, 2) and summary.start_player == 0
    assert (summary.eye_holder, summary.eye_open, summary.eye_reason) == (1, False, "clockwise")
    lines = summary.words(NAMES)["lines"]
    assert "Bob and Cid tie for the fewest points this round, with 20." in lines
    assert ("Bob takes the silver eye, closed: of the tied players, the first clockwise from "
            "the left of the start player, Ann.") in lines


def test_r24_a_tucked_nelly_turns_its_card_negative_and_is_gone_from_its_village():
    _, summary = summary_of(S.NELLY_TUCK)
    ann, bob = summary.seats
    assert 0 not in [c.id for c in ann.cards], "the tucked Nelly left Ann's village"
    tucked = next(c for c in bob.cards if c.nelly is not None)
    assert (tucked.id, tucked.points, tucked.nelly) == (48, -12, 0)
    assert tucked.note == "a Nelly is tucked under it: -12"
    facedown_nelly = next(c for c in bob.cards if c.id == 1)
    assert (facedown_nelly.points, facedown_nelly.note) == (-1, "facedown at scoring: -1")
    assert "Ann tucked a Nelly under Bob's 12 Drunk." in summary.words(NAMES)["lines"]


def test_r24_the_mad_bombers_choice_removes_both_cards_from_their_villages():
    _, summary = summary_of(S.MAD_BOMBER)
    ann, bob = summary.seats
    assert ann.removed == (50,) and bob.removed == (48,)
    assert 50 not in [c.id for c in ann.cards] and 48 not in [c.id for c in bob.cards]
    words = summary.words(NAMES)
    assert "Ann's Mad Bomber removed 13 Mad Bomber and 12 Drunk." in words["lines"]
    assert words["seats"][1]["removed"] == ["12 Drunk"]


def test_r26_an_illusionist_caller_takes_the_eye_open():
    _, summary = summary_of(S.ILLUSIONIST_CALLER)
    ann, bob = summary.seats
    illusionist = ann.cards[0]
    assert illusionist.faceup_at_scoring and illusionist.points == -summary.deck_count
    assert illusionist.note == f"faceup at scoring: minus the {summary.deck_count} cards left in the deck"
    hidden = next(c for c in bob.cards if c.id == 5)
    assert (hidden.points, hidden.note) == (0, "facedown at scoring: 0")
    assert (summary.successful, summary.eye_holder, summary.eye_open, summary.eye_reason) == \
        (True, 0, True, "caller")
    assert any(line.startswith("Ann takes the silver eye open")
               and "may search the deck once instead of drawing" in line  # R27
               for line in summary.words(NAMES)["lines"])


def test_r28_the_last_round_names_the_winner_and_no_next_round():
    game = S.ILLUSIONIST_CALLER.play()
    rng = random.Random(3)
    while game.state.phase != "over":
        seat = game.view(None)["to_act"][0]
        game.act(seat, rng.choice(game.legal(seat)))
    summary = last_summary(game.view(1))
    over = next(e for e in game.events if e["type"] == "game_over")
    assert summary.round == 4 and summary.winner == over["winner"]
    words = summary.words(NAMES)
    assert words["winner"].startswith(NAMES[over["winner"]]) or "tie on" in words["winner"]
    assert "wins the game" in words["winner"] and "Next round" not in " ".join(words["lines"])
    assert "(R" not in words["winner"] + " ".join(words["lines"])  # ids stay in the code


def test_no_summary_before_a_round_is_scored():
    game = S.FAILED_CALL.play()
    assert round_summary(game.view(None)["log"]) is None, "round 2 has not been scored"
    fresh = E.new_game(2, 1)
    assert last_summary(E.view(fresh, 0)) is None


def test_a_round_scored_before_cards_were_logged_still_gets_its_sums_and_eye():
    """States cached before round_scored carried the final villages: sums, scores and the
    silver eye are still explained, and no village is said to be empty."""
    game = S.FAILED_CALL.play()
    events = [{k: v for k, v in e.items() if not (e["type"] == "round_scored" and k == "villages")}
              for e in game.view(None)["previous_log"]]
    summary = round_summary(events)
    assert not summary.cards_shown and [r.score for r in summary.seats] == [38, 16]
    words = summary.words(NAMES)
    assert "Bob takes the silver eye, closed: the fewest points this round." in words["lines"]
    assert not words["cards_shown"] and words["seats"][0]["cards"] == []
