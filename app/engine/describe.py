"""Public events in words, for logs, mails and the replay viewer (R31).

Only what an event carries is said, and events carry only public facts, so a
description can be shown to anyone.
"""
from __future__ import annotations

from . import cards


def _card(card: dict | None, unknown: str = "a facedown card") -> str:
    return cards.label(card["id"]) if card else unknown


def _cards(items: list) -> str:
    return ", ".join(_card(c) for c in items) if items else "nothing"


def _pos(positions) -> str:
    if isinstance(positions, int):
        return f"card {positions + 1}"
    nums = [str(p + 1) for p in positions]
    return ("card " if len(nums) == 1 else "cards ") + ", ".join(nums)


def describe(event: dict, names: list[str] | None = None) -> str:
    def who(seat):
        if seat is None:
            return "The dealer"
        return names[seat] if names and seat < len(names) else f"Seat {seat + 1}"

    e = event
    me = who(e.get("seat"))
    target = who(e["target"]) if isinstance(e.get("target"), int) else ""
    t = e["type"]
    if t == "round_start":
        return f"Round {e['round']} begins: {who(e['start'])} starts; the first discard is {_card(e['discard'])}."
    if t == "peek":
        return f"{me} looked at {_pos(e['positions'])} of their village."
    if t == "draw":
        return f"{me} drew {_card(e['card'])} from the deck." if e.get("card") else f"{me} drew a card."
    if t == "take":
        return f"{me} took {_card(e['card'])} from the discard pile."
    if t == "call":
        return f"{me} called for a vote: everyone else has one more turn."
    if t == "pass":
        return f"{me} passed (timed out)."
    if t == "discard":
        return f"{me} discarded {_card(e['card'])}."
    if t == "exchange":
        into = f" (new card in spot {e['into'] + 1})" if len(e["positions"]) > 1 else ""
        new = f" {_card(e['card'])}" if e.get("card") else " the new card"
        return f"{me} exchanged {_pos(e['positions'])} for{new}, discarding {_cards(e['discarded'])}{into}."
    if t == "exchange_failed":
        why = ("the cards did not match" if e["reason"] == "mismatch"
               else f"the {cards.name(e['obsessor'])} refused it")
        extra = " plus a penalty card from the deck" if e.get("penalty") else ""
        shown = f" Shown: {_cards(e['revealed'])}." if e.get("revealed") else ""
        return (f"{me} tried to exchange {_pos(e['positions'])}, but {why}: the new card joins the "
                f"{e['end']} end{extra}.{shown}")
    if t == "kept":
        return f"{me} could not discard the drawn card, so it joins the right end facedown."
    if t == "put_back":
        return f"{me} put {_card(e['card'])} back on the pile (timed out)."
    if t == "tanner":
        return f"{me} put the Tanner at the {e['end']} end and turned up: {_cards(e['revealed'])}."
    if t == "gamble":
        res = "right" if e["right"] else "wrong"
        s = f"{me} gambled on {e['value']} and turned up {_card(e['card'])}: {res}."
        if not e["to_pile"]:
            s += " The Obsessor kept it on the deck."
        if e.get("end"):
            joined = _card(e.get("joined"))
            s += f" {joined[0].upper()}{joined[1:]} joins the {e['end']} end of their village."
        return s
    if t == "gamble_discard":
        return f"{me} discarded {_card(e['card'])} with the Gambler's win."
    if t == "search":
        return f"{me} opened the silver eye and is looking through the deck."
    if t == "pick":
        return f"{me} took a card from the deck with the silver eye; the deck is reshuffled."
    if t == "twist":
        state = "faceup" if e["faceup"] else "facedown"
        return f"{me} turned {target}'s {_pos(e['position'])} {state} ({_card(e['card'])})."
    if t == "ghost":
        return f"{me}'s Ghost discarded {_card(e['card'])} from {target}'s village."
    if t == "refused":
        return f"The {cards.name(e['obsessor'])} refused {_card(e['card'])}: it stays in {target}'s village."
    if t == "see":
        return f"{me} used the Split Seer on {target}'s {_pos(e['position'])}."
    if t == "dracula":
        return f"{me}'s Dracula moved {len(e['cards'])} cards from the pile to the bottom of the deck."
    if t == "undermine":
        return (f"{me}'s Underminer swapped {target}'s {_pos(e['positions'])} with "
                f"{_cards(e['taken'])} from the pile.")
    if t == "underminer_lapsed":
        return f"{me}'s Underminer had no effect: its cards moved."
    if t == "drunk":
        return f"{me}'s Drunk gave {_card(e['card'])} to the {e['end']} end of {target}'s village."
    if t == "spot":
        return f"{me} uses a Spotter on {target}'s village, looking for a {e['value']}."
    if t == "look":
        found = "a match" if e["found"] else "no match"
        return f"{me} looked at {target}'s {_pos(e['position'])}: {found}."
    if t == "spotted":
        return f"{me}'s Spotter discarded {_card(e['card'])} from {target}'s village."
    if t == "simon":
        return f"{me}'s Simon discarded {_card(e['card'])}."
    if t == "skip":
        how = " (timed out)" if e.get("timeout") else ""
        return f"{me} declined the {e['what'].replace('_', ' ')}{how}."
    if t == "done":
        return f"{me} ended their turn."
    if t == "round_end":
        why = "the deck ran out" if e["reason"] == "deck" else "the vote"
        return f"Round {e['round']} ends ({why}); all cards are turned up."
    if t == "nelly":
        return f"{me} tucked a Nelly under {target}'s {_card(e['target_card'])}."
    if t == "bomb":
        return f"{me}'s Mad Bomber removed {_cards(e['removed'])}."
    if t == "round_scored":
        scores = ", ".join(f"{who(s)} {p}" for s, p in enumerate(e["scores"]))
        eye = f"{who(e['eye_holder'])} takes the silver eye {'open' if e['eye_open'] else 'closed'}."
        return f"Round {e['round']} scores: {scores}. {eye}"
    if t == "game_over":
        return f"The game is over: {who(e['winner'])} wins with {e['totals'][e['winner']]} points."
    if t == "back":
        return f"{me} is back."
    if t == "away":
        return f"{me} is away: their decisions are made for them until they return."
    return f"{me}: {t.replace('_', ' ')}."
