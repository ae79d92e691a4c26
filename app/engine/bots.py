"""Bots that play a seat from its own private view, never from the raw state.

The random bot is for self-play tests and benchmarks; the greedy bot is a fair
opponent for a human playing alone: it keeps low cards, throws out high known
ones, matches pairs, and calls when its village looks lowest.
"""
from __future__ import annotations

import bisect
import random

from .rules import action_menu
from .views import view

UNKNOWN_ESTIMATE = 6.0    # the average card value, for cards a seat has not seen


def choose(kind: str, state, seat: int, rng: random.Random) -> dict:
    bot = GREEDY if kind == "greedy" else RANDOM
    return bot(state, seat, rng)


def random_bot(state, seat: int, rng: random.Random) -> dict:
    """Pick an action type at random, then one action of that type. An exchange takes
    one card half the time, two a quarter, and so on, as a careless player would:
    every ability and failed exchange gets tried, and villages stay game-sized."""
    acts, exchange_sets = action_menu(state, seat)
    kinds = sorted({a["type"] for a in acts} | ({"exchange"} if exchange_sets else set()))
    kind = rng.choice(kinds)
    if kind != "exchange":
        return dict(rng.choice([a for a in acts if a["type"] == kind]))
    largest = len(exchange_sets[-1])
    size = 1
    while size < largest and rng.random() < 0.5:
        size += 1
    # the sets are listed smallest first: the sets of one size are one slice
    start = bisect.bisect_left(exchange_sets, size, key=len)
    end = bisect.bisect_left(exchange_sets, size + 1, key=len)
    return {"type": "exchange", "positions": list(exchange_sets[rng.randrange(start, end)])}


def _estimate(cards: list[dict]) -> float:
    return sum(UNKNOWN_ESTIMATE if c["value"] is None else c["value"] for c in cards)


def greedy_bot(state, seat: int, rng: random.Random) -> dict:
    v = view(state, seat)
    acts = v["legal_actions"]
    if not acts:
        raise ValueError("greedy bot asked to play a seat with no decision")
    legal = {_key(a): a for a in acts}
    mine = v["villages"][seat]
    pending = v["pending"] if seat in v["to_act"] and acts[0]["type"] != "peek" else None
    choice = None
    if acts[0]["type"] == "peek":
        choice = acts[0]
    elif pending == "turn":
        choice = _turn(v, seat, mine, legal)
    elif pending in ("drawn", "taken"):
        choice = _place(v, seat, mine, legal)
    elif pending in ("nelly", "bomb"):
        choice = _worst_target(v, seat, pending, legal)
    elif pending == "gamble_win":
        worst = _worst_known(mine)
        choice = {"type": "discard", "position": worst} if worst is not None else None
    elif pending == "search":
        known = [k for k in v["deck_known"] if k["card"]["value"] is not None]
        if known:
            best = min(known, key=lambda k: k["card"]["value"])
            choice = {"type": "pick", "position": best["position"]}
    elif pending == "ghost":
        worst = _worst_known(mine)
        if worst is not None and mine[worst]["value"] >= 7:
            choice = {"type": "ghost", "seat": seat, "position": worst}
    elif pending in ("seer", "twister"):
        own = [a for a in acts if a.get("seat") == seat and mine[a["position"]]["value"] is None]
        choice = own[0] if own else None
    elif pending == "simon_claims":          # R47: a Simon discard lowers the score
        claims = [a for a in acts if a["type"] == "simon"]
        choice = claims[0] if claims else None
    elif pending == "drunk":
        choice = {"type": "drunk", "seat": (seat + 1) % v["seats"], "end": "right"}
    if choice is not None and _key(choice) in legal:
        return legal[_key(choice)]
    for fallback in ({"type": "skip"}, {"type": "done"}):
        if _key(fallback) in legal:
            return fallback
    return rng.choice(acts)


def _key(action: dict) -> tuple:
    return tuple(sorted((k, tuple(x) if isinstance(x, list) else x) for k, x in action.items()))


def _worst_known(village: list[dict]) -> int | None:
    known = [(c["value"], i) for i, c in enumerate(village) if c["value"] is not None]
    return max(known)[1] if known else None


def _turn(v: dict, seat: int, mine: list[dict], legal: dict) -> dict | None:
    others = [_estimate(vil) for s, vil in enumerate(v["villages"]) if s != seat]
    unknown = sum(1 for c in mine if c["value"] is None)
    if _key({"type": "call"}) in legal and unknown <= 1:
        if others and _estimate(mine) + 3 < min(others):
            return {"type": "call"}
    if _key({"type": "search"}) in legal:
        return {"type": "search"}
    top = v["discard"][-1]["value"] if v["discard"] else None
    if top is not None and top <= 3 and _key({"type": "take"}) in legal:
        worst = _worst_known(mine)
        if (worst is not None and mine[worst]["value"] > top + 2) or unknown:
            return {"type": "take"}
    return {"type": "draw"}


def _place(v: dict, seat: int, mine: list[dict], legal: dict) -> dict | None:
    hand = v["hand"]["value"]
    known: dict[int, list[int]] = {}
    for i, c in enumerate(mine):
        if c["value"] is not None:
            known.setdefault(c["value"], []).append(i)
    # a known pair (or more) of high cards: throw them all out for the new card
    pairs = [(val, pos) for val, pos in known.items() if len(pos) >= 2 and val > hand]
    if pairs:
        val, pos = max(pairs)
        return {"type": "exchange", "positions": pos}
    worst = _worst_known(mine)
    if worst is not None and mine[worst]["value"] > hand:
        return {"type": "exchange", "positions": [worst]}
    unknown = [i for i, c in enumerate(mine) if c["value"] is None]
    if unknown and hand <= 4:
        return {"type": "exchange", "positions": [unknown[0]]}
    if _key({"type": "discard"}) in legal:
        return {"type": "discard"}
    return None


def _worst_target(v: dict, seat: int, kind: str, legal: dict) -> dict | None:
    mine = v["villages"][seat]
    own_card = v["pending_detail"]["card"]["id"]
    known = [(c["value"], i) for i, c in enumerate(mine)
             if c["value"] is not None and c["id"] != own_card]
    if not known:
        return None
    return {"type": kind, "seat": seat, "position": max(known)[1]}


RANDOM = random_bot
GREEDY = greedy_bot
