"""Stacked-deck rounds whose scoring needs explaining (R24-R28), as (seat, action) moves.

Each scenario is a first-round deck (R3), the seat that starts (R6) and the
moves of one round, played until it is scored. The same moves drive the
engine directly (tests/summary/test_builder.py) and the server through its
services (mail, seat page, replay).
"""
from __future__ import annotations

from dataclasses import dataclass

from tests.engine.scenario import Game, discard, draw, exchange, stack, take

CALL = {"type": "call"}
SKIP = {"type": "skip"}


@dataclass(frozen=True)
class Scenario:
    name: str
    seats: int
    deck: list[int]
    first: int
    moves: list[tuple[int, dict]]

    def seed(self) -> int:
        """A seed under which ``first`` starts round 1 (R6) with this deck."""
        return Game.start(self.seats, self.deck, first=self.first).state.seed

    def play(self) -> Game:
        game = Game.start(self.seats, self.deck, first=self.first)
        for seat, action in self.moves:
            game.act(seat, action)
        return game


def peeks(seats: int) -> list[tuple[int, dict]]:
    return [(s, {"type": "peek", "positions": [0, 1]}) for s in range(seats)]


#: Ann (seat 0) swaps her two 8s for the Dracula on the pile and calls with
#: 10+12+2+4 = 28; Bob's 2+3+3+4+4 = 16 is lower: a failed call, 28 + 10 (R25).
FAILED_CALL = Scenario(
    "failed call", 2,
    stack(villages=[[30, 31, 46, 6, 14], [7, 10, 11, 15, 16]], discard=38, top=[12, 13]),
    first=0,
    moves=[*peeks(2), (0, take()), (0, exchange(0, 1)), (1, draw()), (1, discard()),
           (0, CALL), (1, draw()), (1, discard())])

#: Three players; Ann calls and fails, Bob and Cid tie for the fewest: the eye
#: (held by Ann, the start player) goes to the first tied seat clockwise from her left.
TIE_FOR_FEWEST = Scenario(
    "tie for fewest", 3,
    stack(villages=[[30, 31, 46, 47, 48], [6, 10, 14, 18, 22], [7, 11, 15, 19, 23]],
          discard=38, top=[8, 12, 16, 9]),
    first=0,
    moves=[*peeks(3), (0, take()), (0, exchange(0, 1)), (1, draw()), (1, discard()),
           (2, draw()), (2, discard()), (0, CALL), (1, draw()), (1, discard()),
           (2, draw()), (2, discard())])

#: Ann takes the Nelly from the pile (faceup, R9) and tucks it under Bob's 12 (R24).
NELLY_TUCK = Scenario(
    "nelly tuck", 2,
    stack(villages=[[46, 47, 6, 7, 14], [1, 4, 48, 49, 42]], discard=0, top=[12, 13]),
    first=0,
    moves=[*peeks(2), (0, take()), (0, exchange(0, 1)), (1, draw()), (1, discard()),
           (0, CALL), (1, draw()), (1, discard()), (0, {"type": "nelly", "seat": 1, "position": 2})])

#: Ann takes a Mad Bomber from the pile; at round end it blows up Bob's 12 and itself.
MAD_BOMBER = Scenario(
    "mad bomber", 2,
    stack(villages=[[46, 47, 6, 7, 8], [48, 14, 15, 30, 31]], discard=50, top=[12, 13]),
    first=0,
    moves=[*peeks(2), (0, take()), (0, exchange(0, 1)), (1, draw()), (1, discard()),
           (0, CALL), (1, draw()), (1, discard()), (0, {"type": "bomb", "seat": 1, "position": 0})])

#: Ann takes the Illusionist from the pile (faceup at scoring: minus the deck),
#: calls successfully and takes the silver eye open (R26).
ILLUSIONIST_CALLER = Scenario(
    "illusionist caller", 2,
    stack(villages=[[46, 47, 6, 7, 8], [5, 14, 15, 18, 19]], discard=4, top=[12, 13]),
    first=0,
    moves=[*peeks(2), (0, take()), (0, exchange(0, 1)), (1, draw()), (1, discard()),
           (0, CALL), (1, draw()), (1, discard())])

ALL = [FAILED_CALL, TIE_FOR_FEWEST, NELLY_TUCK, MAD_BOMBER, ILLUSIONIST_CALLER]
