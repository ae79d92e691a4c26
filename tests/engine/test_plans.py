"""Issue 35: plans for the rest of a turn and standing orders, decided on a seat's view
only (``app.engine.plans``). Scenarios on stacked decks (R3); the plans are the JSON
form the reply grammar and the API give (``app.mail.commands.read_plan``)."""
from __future__ import annotations

import pytest

from app import engine as E
from app.engine import plans as P
from app.mail import commands
from tests.engine.scenario import EVEN_OBSESSOR, Game, ids, stack


def plan(words: str) -> P.Plan:
    parsed = commands.parse(words)
    assert parsed.plan is not None and parsed.plan["plan"] is not None, parsed.problem
    return P.from_json(parsed.plan["plan"])


def order(words: str) -> P.Order:
    parsed = commands.parse(words)
    assert parsed.plan is not None and parsed.plan["orders"], parsed.problem
    return P.order_from_json(parsed.plan["orders"][0])


def run(game: Game, seat: int, the_plan: P.Plan) -> tuple[P.Next, list[dict]]:
    """Play the plan as the server does: each Move through ``apply_action``, until it
    waits, is done or stops (an illegal step stops it with the engine's words)."""
    view = game.view(seat)
    progress = P.Progress(round=view["round"], sent_step=view["step"])
    played: list[dict] = []
    for _ in range(20):
        got = P.decide(the_plan, progress, game.view(seat), seat)
        if not isinstance(got, P.Move):
            return got, played
        try:
            game.act(seat, got.action)
        except E.IllegalAction as exc:
            return P.Stop(str(exc), got.step), played
        played.append(got.action)
        progress.at += 1
        progress.began = progress.began or P.began_with(got.action)
    raise AssertionError("the plan did not end")


def started(top: list[int], villages: list[list[int]] | None = None, discard: int | None = None,
            seats: int = 2) -> Game:
    villages = villages or [ids(12)[:1] + ids(11)[:1] + ids(10)[:1] + ids(6)[:2],
                            ids(0) + ids(-1)[:3]]
    deck = stack(villages=villages, discard=ids(5)[0] if discard is None else discard, top=top)
    game = Game.start(seats, deck, first=0)
    game.peek_all()
    return game


# -- conditions on the card drawn -----------------------------------------------------

@pytest.mark.parametrize("drawn, kept", [(ids(2)[0], True), (ids(3)[0], True),
                                         (ids(4)[0], False), (ids(13)[0], False)])
def test_r35_keep_at_2_if_3_or_less_else_discard(drawn, kept):
    game = started(top=[drawn])
    got, played = run(game, 0, plan("DRAW, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD"))
    assert isinstance(got, P.Done)
    assert played[0] == {"type": "draw"}
    assert played[1] == ({"type": "exchange", "positions": [1]} if kept else {"type": "discard"})
    assert (game.village(0)[1] == drawn) is kept


@pytest.mark.parametrize("words, drawn, holds", [
    ("IF 9 OR MORE", 9, True), ("IF 9 OR MORE", 8, False), ("IF LESS THAN 5", 4, True),
    ("IF LESS THAN 5", 5, False), ("IF MORE THAN 10", 11, True), ("IF 7", 7, True),
    ("IF NOT 7", 7, False), ("IF A SIMON", 2, True), ("IF A SIMON", 3, False),
    ("IF AT MOST 0", -1, True), ("IF AT LEAST 12", 12, True)])
def test_r35_each_condition_on_the_drawn_card(words, drawn, holds):
    game = started(top=[ids(drawn)[-1]])
    got, played = run(game, 0, plan(f"DRAW, KEEP AT 4 {words}, ELSE DISCARD"))
    assert played[1]["type"] == ("exchange" if holds else "discard")


def test_r35_a_condition_on_a_card_of_my_own_village_i_know():
    """"KEEP AT 3 IF LESS THAN #3": my card #3 is a 10 Dracula (peeked, R5)."""
    game = started(top=[ids(8)[0]])
    got, _ = run(game, 0, plan("DRAW, KEEP AT 3 IF LESS THAN #3, ELSE DISCARD"))
    assert isinstance(got, P.Stop) and got.reason == "you do not know your card #3"
    game = started(top=[ids(8)[0]])
    got, played = run(game, 0, plan("DRAW, KEEP AT 1 IF LESS THAN #1, ELSE DISCARD"))
    assert played[1] == {"type": "exchange", "positions": [0]}   # 8 < 12 Drunk


def test_r35_the_take_condition_reads_the_top_discard():
    game = started(top=[ids(9)[0]], discard=ids(2)[0])
    got, played = run(game, 0, plan("TAKE IF 3 OR LESS, ELSE DRAW, KEEP AT 1"))
    assert played == [{"type": "take"}, {"type": "exchange", "positions": [0]}]
    game = started(top=[ids(8)[1]], discard=ids(6)[3])
    got, played = run(game, 0, plan("TAKE IF 3 OR LESS, ELSE DRAW, KEEP AT 1"))
    assert played[0] == {"type": "draw"}


# -- stops -----------------------------------------------------------------------------

def test_r35_the_drawn_card_fails_every_condition_so_the_planned_exchange_is_not_made():
    game = started(top=[ids(10)[1]])
    got, played = run(game, 0, plan("DRAW, KEEP AT 3 IF 4 OR LESS"))
    assert played == [{"type": "draw"}]
    assert isinstance(got, P.Stop)
    assert got.reason == "none of its conditions held: the card is a 10 Dracula"
    assert game.view(0)["pending"] == "drawn"   # the seat decides itself now


def test_r35_a_planned_exchange_the_engine_refuses_stops_the_plan_with_its_words():
    game = started(top=[ids(4)[0]])
    got, played = run(game, 0, plan("DRAW, EXCHANGE 7"))
    assert played == [{"type": "draw"}]
    assert isinstance(got, P.Stop) and "no card at position 6" in got.reason
    assert got.step is not None and got.step.text == "EXCHANGE 7"


def test_r35_r14_an_obsessor_on_the_pile_refuses_the_planned_discard():
    game = started(top=[ids(7)[0]], discard=EVEN_OBSESSOR)
    got, played = run(game, 0, plan("DRAW, DISCARD, SKIP"))
    assert played == [{"type": "draw"}]
    assert isinstance(got, P.Stop) and "Even Obsessor" in got.reason


def test_r35_r12_the_round_ends_before_the_plans_turn():
    """Bob plans his next turn while Ann plays; Ann draws the deck's last card, so the
    round ends (R12) before Bob's turn: the plan stops, never played in round 2."""
    game = started(top=[])
    while len(game.state.deck) > 1:
        seat = game.current
        game.act(seat, {"type": "draw"})
        game.act(seat, {"type": "exchange", "positions": [0]})
    if game.current == 1:
        game.act(1, {"type": "draw"})
        game.act(1, {"type": "exchange", "positions": [0]})
    bob = plan("DRAW, DISCARD")
    view = game.view(1)
    progress = P.Progress(round=view["round"], sent_step=view["step"])
    assert isinstance(P.decide(bob, progress, view, 1), P.Wait)
    game.act(0, {"type": "draw"})
    game.act(0, {"type": "exchange", "positions": [0]})
    after = game.view(1)
    assert after["round"] != progress.round or after["phase"] != "play"
    got = P.decide(bob, progress, after, 1)
    assert isinstance(got, P.Stop) and got.reason == "the round ended before your turn came"


def test_r35_r29_a_timeout_passes_the_turn_a_plan_waited_for():
    """Bob's plan waits behind his round-start peek (R5); his time runs out: the one
    ``pass`` settles the peek and his turn (R38), and the plan stops, in words."""
    deck = stack(villages=[ids(7)[:5], ids(6)[:5]], discard=ids(5)[0], top=[ids(2)[0]])
    game = Game.start(2, deck, first=1)
    game.act(0, {"type": "peek", "positions": [0, 1]})
    bob = plan("DRAW, DISCARD")
    view = game.view(1)
    progress = P.Progress(round=view["round"], sent_step=view["step"])
    assert isinstance(P.decide(bob, progress, view, 1), P.Wait)   # the peek comes first
    game.act(1, {"type": "pass"})
    got = P.decide(bob, progress, game.view(1), 1)
    assert isinstance(got, P.Stop) and got.reason.startswith("time ran out")


def test_r35_a_plan_never_outlives_its_turn_and_steps_not_needed_are_said():
    game = started(top=[ids(2)[0], ids(8)[0]])
    got, played = run(game, 0, plan("DRAW, DISCARD, SKIP"))   # a 2 has no ability
    assert played == [{"type": "draw"}, {"type": "discard"}]
    assert isinstance(got, P.Done) and got.unused == "SKIP"


def test_r35_r22_draw_discard_skip_declines_the_split_seer():
    game = started(top=[ids(8)[0]])
    got, played = run(game, 0, plan("DRAW, DISCARD, SKIP"))
    assert played == [{"type": "draw"}, {"type": "discard"}, {"type": "skip"}]
    assert isinstance(got, P.Done) and game.view(0)["current"] == 1


# -- standing orders ------------------------------------------------------------------

def test_r35_r5_standing_peek_order_answers_every_round_start():
    deck = stack(villages=[ids(7)[:5], ids(6)[:5]], discard=ids(5)[0])
    game = Game.start(2, deck, first=0)
    found = P.order_move([order("ALWAYS PEEK 1 2")], game.view(0), 0)
    assert found is not None and found[1] == {"type": "peek", "positions": [0, 1]}


def test_r35_always_skip_the_split_seer_and_discard_if_9_or_more():
    orders = [order("ALWAYS SKIP THE SPLIT SEER"), order("ALWAYS DISCARD IF 9 OR MORE")]
    game = started(top=[ids(10)[1], ids(3)[0], ids(8)[0]])
    assert P.order_move(orders, game.view(0), 0) is None      # my turn: no order begins it
    game.act(0, {"type": "draw"})                               # a 10 Dracula
    assert P.order_move(orders, game.view(0), 0)[1] == {"type": "discard"}
    game.act(0, {"type": "discard"})
    game.act(0, {"type": "skip"})
    game.act(1, {"type": "draw"})
    game.act(1, {"type": "exchange", "positions": [0]})
    game.act(0, {"type": "draw"})                               # an 8 Split Seer
    assert P.order_move(orders, game.view(0), 0) is None        # 8 < 9: I am asked
    game.act(0, {"type": "discard"})
    assert P.order_move(orders, game.view(0), 0)[1] == {"type": "skip"}


def test_r35_a_plan_reads_only_the_seats_view():
    """The plan's condition cannot read a card its seat does not know: the other seat's
    hand is a facedown card to it, and the decision is not its own anyway."""
    game = started(top=[ids(2)[0]])
    game.act(0, {"type": "draw"})
    bob = plan("KEEP AT 1 IF 3 OR LESS")
    view = game.view(1)
    assert view["hand"]["id"] is None
    assert isinstance(P.decide(bob, P.Progress(round=1, sent_step=view["step"]), view, 1), P.Wait)


# -- words and JSON -------------------------------------------------------------------

def test_r35_the_answer_says_what_the_plan_will_do():
    assert P.plan_words(plan("DRAW, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD")) == \
        "Draw; then when you draw: keep it at #2 if it is 3 or less, else discard it."
    assert P.plan_words(plan("TAKE, EXCHANGE 3")) == \
        "Take the top discard; then keep it at #3."
    assert P.order_words(order("ALWAYS SKIP SEER")) == "Always skip the Split Seer."
    assert P.order_words(order("ALWAYS PEEK 1 2")) == "Every round: peek at #1 and #2."


def test_r35_the_json_form_round_trips_and_refuses_nonsense():
    the_plan = plan("DRAW, KEEP AT 2 IF LESS THAN #3, ELSE DISCARD")
    assert P.from_json(the_plan.to_json()) == the_plan
    for bad in ({}, {"steps": []}, {"steps": [{"choices": [{"action": {"type": "fly"}}]}]},
                {"steps": [{"choices": [{"action": {"type": "draw"},
                                         "if": {"compare": "le", "value": 1}}]}]},
                {"steps": [{"choices": [{"action": {"type": "pass"}}]}]}):
        with pytest.raises(P.PlanError):
            P.from_json(bad)
    with pytest.raises(P.PlanError):
        P.order_from_json({"choices": [{"action": {"type": "draw"}}]})


# -- issue 45 item 5: a name keeps its comparison, the limits are one ---------------------

NOT_A_SIMON = {"steps": [{"choices": [{"action": {"type": "draw"}}]},
                         {"choices": [{"action": {"type": "discard"},
                                       "if": {"compare": "ne", "name": "Simon"}},
                                      {"action": {"type": "exchange", "positions": [0]}}]}]}


@pytest.mark.parametrize("drawn, discarded", [(ids(2)[0], False), (ids(9)[0], True)])
def test_r35_a_json_condition_ne_simon_discards_what_is_not_a_simon(drawn, discarded):
    """`{"compare": "ne", "name": "Simon"}` on a drawn Simon (a 2, R1) keeps it; on a 9 it
    discards it (the comparison used to be dropped: ne Simon discarded the Simon)."""
    game = started(top=[drawn])
    got, played = run(game, 0, P.from_json(NOT_A_SIMON))
    assert played[1] == ({"type": "discard"} if discarded else
                         {"type": "exchange", "positions": [0]})
    assert (game.top() == drawn) is discarded


def test_r35_the_words_of_a_name_condition_say_its_comparison():
    the_plan = P.from_json(NOT_A_SIMON)
    assert P.plan_words(the_plan) == ("Draw; then when you draw: discard it if it is not a "
                                      "Simon, else keep it at #1.")
    assert P.from_json(the_plan.to_json()) == the_plan   # the comparison round-trips
    in_words = plan("DRAW, DISCARD IF IT'S NOT A SIMON, ELSE KEEP AT 1")
    assert [s.choices for s in in_words.steps] == [s.choices for s in the_plan.steps]
    assert P.step_words(plan("DRAW, DISCARD IF A SIMON").steps[1]) == \
        "discard it if it is a Simon"


def test_r35_a_name_is_compared_only_as_is_or_is_not():
    with pytest.raises(P.PlanError, match='compared with "eq"'):
        P.from_json({"steps": [{"choices": [{"action": {"type": "discard"},
                                             "if": {"compare": "le", "name": "Simon"}}]}]})


SKIPS = ["TWISTER", "GHOST", "SEER", "DRACULA", "UNDERMINER", "DRUNK", "SPOTTER", "NELLY",
         "BOMBER"]


def test_r35_nine_standing_orders_are_refused_by_words_and_json_in_the_same_words():
    parsed = commands.parse("; ".join(f"ALWAYS SKIP {name}" for name in SKIPS))
    assert parsed.plan is None and parsed.action is None and parsed.limit
    with pytest.raises(P.OverLimit) as refused:
        P.orders_from_json([{"on": on, "choices": [{"action": {"type": "skip"}}]} for on in (
            "twister", "ghost", "seer", "dracula", "underminer", "drunk", "spotter", "nelly",
            "bomb")])
    assert parsed.problem == str(refused.value) == (
        "You can keep at most 8 standing orders; this would make 9. Nothing of it was "
        "kept, so nothing was changed.")
    eight = commands.parse("; ".join(f"ALWAYS SKIP {name}" for name in SKIPS[:8]))
    assert eight.plan is not None and len(eight.plan["orders"]) == 8


def test_r35_nine_steps_and_five_choices_are_refused_by_words_and_json_in_the_same_words():
    nine = commands.parse("D, " + ", ".join(["SKIP"] * 8))
    with pytest.raises(P.OverLimit) as steps:
        P.from_json({"steps": [{"choices": [{"action": {"type": "skip"}}]}] * 9})
    assert nine.limit and nine.problem == str(steps.value)
    assert str(steps.value).startswith("A plan has at most 8 steps; this one has 9.")
    five = commands.parse("DRAW, KEEP AT 1 IF 2, KEEP AT 2 IF 3, KEEP AT 3 IF 4, "
                          "KEEP AT 4 IF 5, ELSE DISCARD")
    with pytest.raises(P.OverLimit) as choices:
        P.from_json({"steps": [{"choices": [{"action": {"type": "discard"}}] * 5}]})
    assert five.limit and five.problem == str(choices.value)


def test_r35_a_plan_over_200_characters_is_refused_never_cut():
    """208 characters whose last order is ALWAYS DISCARD IF 10 OR MORE: cut at 200 it was
    ALWAYS DISCARD IF 10 (ge became eq). Refused whole, the limit named."""
    line = ("DRAW, PUT AT 2 IF 3 OR LESS, ELSE DISCARD; ALWAYS PEEK 1 2; ALWAYS SKIP THE "
            "SPLIT SEER; ALWAYS SKIP THE TWISTER; ALWAYS SKIP THE GHOST; ALWAYS SKIP "
            "DRACULA; ALWAYS SKIP THE DRUNK; ALWAYS DISCARD IF 10 OR MORE")
    assert len(line) == 208
    parsed = commands.parse(line)
    assert parsed.limit and parsed.plan is None and parsed.action is None
    assert parsed.problem.startswith("A command, plan or set of standing orders is at most "
                                     "200 characters on one line; this one has 208.")
    assert commands.read_plan(line) == parsed   # the page's and the API's words too
    with pytest.raises(P.OverLimit) as text:
        P.from_json({"steps": [{"choices": [{"action": {"type": "draw"}}], "text": line}]},
                    sent=True)
    assert str(text.value) == parsed.problem


def test_r35_a_long_sentence_that_is_no_command_is_not_refused_as_one():
    parsed = commands.parse("Sorry everyone, " + "I was away for the weekend, " * 10)
    assert not parsed.limit and not parsed.readable
