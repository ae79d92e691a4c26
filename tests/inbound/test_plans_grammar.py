"""Issue 35: the words of a plan and of standing orders in a reply (``commands.read_plan``):
what a player who reads mail twice a day writes to play a whole turn at once."""
from __future__ import annotations

import pytest

from app.mail import commands


def steps(line: str) -> list[list[tuple[dict, dict | None]]]:
    parsed = commands.parse(line)
    assert parsed.plan is not None and parsed.plan["plan"] is not None, parsed.problem
    return [[(c["action"], c.get("if")) for c in step["choices"]]
            for step in parsed.plan["plan"]["steps"]]


def test_r35_a_whole_turn_in_one_line():
    assert steps("TAKE, EXCHANGE 3") == [[({"type": "take"}, None)],
                                         [({"type": "exchange", "positions": [2]}, None)]]
    assert steps("DRAW, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD") == [
        [({"type": "draw"}, None)],
        [({"type": "exchange", "positions": [1]}, {"compare": "le", "value": 3}),
         ({"type": "discard"}, None)]]
    assert steps("draw then discard then skip") == [
        [({"type": "draw"}, None)], [({"type": "discard"}, None)], [({"type": "skip"}, None)]]


def test_r35_the_first_unconditional_step_is_the_move_the_reply_makes():
    assert commands.parse("D, DISCARD").action == {"type": "draw"}
    assert commands.parse("TAKE IF 2 OR LESS, ELSE DRAW").action is None


@pytest.mark.parametrize("words, condition", [
    ("3 or less", {"compare": "le", "value": 3}), ("9 or more", {"compare": "ge", "value": 9}),
    ("it is 9 or higher", {"compare": "ge", "value": 9}),
    ("less than 5", {"compare": "lt", "value": 5}), ("over 8", {"compare": "gt", "value": 8}),
    ("at most 0", {"compare": "le", "value": 0}), ("-1", {"compare": "eq", "value": -1}),
    ("not 7", {"compare": "ne", "value": 7}), ("a simon", {"compare": "eq", "name": "Simon"}),
    ("less than #3", {"compare": "lt", "mine": 2}),
    ("lower than my card 4", {"compare": "lt", "mine": 3})])
def test_r35_conditions_in_words(words, condition):
    assert steps(f"DRAW, KEEP AT 1 IF {words}")[1][0][1] == condition


def test_r35_standing_orders_and_clearing_them():
    parsed = commands.parse("ALWAYS PEEK 1 2; ALWAYS SKIP THE SPLIT SEER; "
                            "ALWAYS DISCARD IF 9 OR MORE")
    assert parsed.action is None and parsed.plan["plan"] is None
    assert [o.get("on") for o in parsed.plan["orders"]] == [None, "seer", None]
    assert commands.parse("every round peek 1 2").plan["orders"][0]["choices"] == [
        {"action": {"type": "peek", "positions": [0, 1]}}]
    assert commands.parse("NO ORDERS").plan["clear_orders"] is True
    assert commands.parse("no plan").plan["cancel"] is True


def test_r35_old_commands_read_as_before():
    assert commands.parse("X 2, 5").action == {"type": "exchange", "positions": [1, 4]}
    assert commands.parse("X 2, 5").plan is None
    assert commands.parse("peek 1 2").plan is None


@pytest.mark.parametrize("line, says", [
    ("DRAW, FROBNICATE", '"frobnicate" is not a command we know'),
    ("DRAW, ELSE DISCARD", "has no IF before it"),
    ("DRAW, KEEP IF 3 OR LESS", "Say where to keep it"),
    ("DRAW, KEEP AT 2 IF PURPLE", "is not a condition we can read"),
    ("DRAW, KEEP AT 2 IF 1", "card value")])
def test_r35_a_plan_that_cannot_be_read_is_answered_in_words(line, says):
    parsed = commands.parse(line)
    assert parsed.action is None and parsed.plan is None
    assert says in parsed.problem and "A plan lists the steps" in parsed.problem


@pytest.mark.parametrize("line", ["DRAW, KEEP AT 0", "DRAW, KEEP AT 2 IF LESS THAN #0",
                                  "ALWAYS DISCARD IF MORE THAN MY CARD 0"])
def test_r35_a_card_numbered_0_in_a_plan_is_answered_in_words_never_raised(line):
    """People count cards from 1: "#0" in a plan was a ValueError out of ``parse`` (which
    never raises), so the reply or the page's box failed instead of being answered."""
    parsed = commands.parse(line)
    assert parsed.action is None and parsed.plan is None and not parsed.limit
    assert '"0" is not a card number: numbers count from 1' in parsed.problem
    assert "A plan lists the steps" in parsed.problem
    assert commands.read_plan(line) == parsed
