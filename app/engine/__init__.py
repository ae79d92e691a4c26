"""Silver Eye rules engine: pure and deterministic (no Flask, SQL, clock or mail).

Other code and outside tests use only these names:

    state = new_game(seats, seed, decks=None, options=None, rules=None)
    legal_actions(state, seat) -> list[dict]
    state2, events = apply_action(state, seat, action)   # IllegalAction(message) if not legal
    view(state, seat | None, reveal=False) -> dict
    status(state) -> dict                                # the public facts of view() without cards
    default_action(state, seat) -> dict | None
    replay(seats, seed, actions, decks=None, options=None, rules=None) -> state
    RULES_VERSION, SUPPORTED_RULES, ENGINE_VERSION         # see versions.py
    describe(event, names) -> str
    still_means(state_at_mail, state_now, seat, action) -> Meaning   # a late reply (issue 17)
    MIN_SEATS, MAX_SEATS, ROUNDS                          # how many seats and rounds a game has
"""
from . import cards
from .describe import describe
from .meaning import Meaning, Named, still_means
from .rules import (MAX_SEATS, MIN_SEATS, ROUNDS, apply_action, default_action, legal_actions,
                    new_game, replay, to_act)
from .state import IllegalAction, State
from .versions import ENGINE_VERSION, RULES_VERSION, SUPPORTED_RULES
from .views import status, view

__all__ = ["cards", "describe", "apply_action", "default_action", "legal_actions", "new_game",
           "replay", "status", "to_act", "IllegalAction", "State", "view", "ENGINE_VERSION",
           "RULES_VERSION", "SUPPORTED_RULES", "Meaning", "Named", "still_means", "MIN_SEATS",
           "MAX_SEATS", "ROUNDS"]
