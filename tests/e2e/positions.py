"""Positions worth looking at, found by the engine alone and then played into a real game.

A search plays random legal moves from seed after seed until a position
matches what a screenshot needs (a drawn card, a Twister half done, a Nelly to
tuck...). The search is deterministic, so the same position comes back every
run; the moves are then submitted through the services like any player's.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from app import engine, services

Moves = list[tuple[int, dict[str, Any]]]


@dataclass
class Position:
    """A seed, the moves that lead to the position, and the seat that has to decide there."""

    seed: int
    moves: Moves
    seat: int


def find(seats: int, wanted: Callable[[Any, dict[str, Any], int], bool],
         options: dict[str, Any] | None = None, seeds: int = 400) -> Position:
    """The first position (by seed, then by move) where ``wanted(state, view, seat)`` holds.

    ``view`` is the spectator's view; ``seat`` runs over the seats that have to act.
    """
    for seed in range(1, seeds + 1):
        rng = random.Random(seed)
        state = engine.new_game(seats, seed, options=options)
        moves: Moves = []
        while (view := engine.view(state, None))["phase"] != "over":
            for seat in view["to_act"]:
                if wanted(state, view, seat):
                    return Position(seed, moves, seat)
            seat = rng.choice(view["to_act"])
            action = rng.choice(engine.legal_actions(state, seat))
            state, _ = engine.apply_action(state, seat, action)
            moves.append((seat, action))
    raise LookupError("no such position in the seeds searched")


def pending(name: str) -> Callable[[Any, dict[str, Any], int], bool]:
    """The seat on turn has the decision ``name`` (the view's ``pending``)."""
    return lambda state, view, seat: (view["phase"] == "play" and view["pending"] == name
                                      and seat == view["current"])


def resolving(kind: str) -> Callable[[Any, dict[str, Any], int], bool]:
    """Round end: the seat may use ``kind`` (``nelly`` or ``bomb``)."""
    return lambda state, view, seat: view["phase"] == "resolve" and any(
        a["type"] == kind for a in engine.legal_actions(state, seat))


PEOPLE = ["Ann", "Bob", "Cid", "Dee"]


def start(seats: int, position: Position | None = None, name: str = "Screens",
          options: dict[str, Any] | None = None) -> services.Created:
    """A game with the seed of ``position`` (if any) and its moves submitted in order."""
    players = [{"name": PEOPLE[i], "email": f"{PEOPLE[i].lower()}@example.com"}
               for i in range(seats)]
    seed = str(position.seed) if position else "1"
    created = services.create_game(players, dict(options or {}), name=name, seed=seed)
    for step, (seat, action) in enumerate(position.moves if position else []):
        services.submit_action(created.game_id, seat, action, step)
    return created


def play_out(game_id: str, rng_seed: int = 5) -> int:
    """Random legal moves until the game is over; returns the last step."""
    rng = random.Random(rng_seed)
    while True:
        snap = services.snapshot(game_id)
        view = snap.view(None)
        if view["phase"] == "over":
            return snap.seq
        seat = rng.choice(view["to_act"])
        action = rng.choice(engine.legal_actions(snap.state, seat))
        services.submit_action(game_id, seat, action, snap.seq)
