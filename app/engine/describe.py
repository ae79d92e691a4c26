"""Public events in words, for logs, mails and the replay viewer (R31).

Only what an event carries is said, and events carry only public facts, so a
description can be shown to anyone. The small words (a card, a spot "#3",
"an 8") come from ``words``, the one vocabulary; this module only builds
sentences from them, so the page, the mail and the replay say the same thing.

Positions are named as the village looks *after* the step, as the picture
shows it: an exchange of several cards closes the row up, a failed exchange
or a penalty at the left end pushes the row right; where a position would no
longer point at the card meant (a card that left the village), the card is
named instead.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from . import cards
from .names import SeatNames, names_for
from .words import (and_list, card_words, possessive, spot, with_article, village_card,
                    action_label, whose)

Event = Mapping[str, Any]


def _card(card: Mapping[str, Any] | None) -> str:
    """A card an event carries: its label, or 'a facedown card' when it is not public."""
    return card_words(card) if card else "a facedown card"


def _cards(items: Sequence[Mapping[str, Any] | None]) -> str:
    return and_list([_card(c) for c in items]) if items else "nothing"


def _spots(positions: int | Sequence[int]) -> str:
    """'card #2' or 'cards #1 and #3'."""
    if isinstance(positions, int):
        return f"card {spot(positions)}"
    nums = [spot(p) for p in positions]
    return ("card " if len(nums) == 1 else "cards ") + and_list(nums)


def new_card_spot(positions: Sequence[int], into: int) -> int:
    """Where the new card of an exchange sits once the row has closed up (R8)."""
    return into - sum(1 for p in positions if p < into)


def _exchange(me: str, e: Event) -> str:
    new = _card(e.get("card")) if e.get("card") else "the new card"
    positions = list(e["positions"])
    if len(positions) == 1:
        return f"{me} exchanged {_spots(positions)} for {new}, discarding {_cards(e['discarded'])}."
    now = spot(new_card_spot(positions, e.get("into", min(positions))))
    return (f"{me} exchanged {len(positions)} cards ({_cards(e['discarded'])}) for {new}, "
            f"now card {now}.")


def _exchange_failed(me: str, e: Event) -> str:
    why = ("the cards did not match" if e["reason"] == "mismatch"
           else f"the {cards.name(e['obsessor'])} refused it")
    # R44: the new card (and a penalty card outside it) joined at an end: from the
    # left end they push the tried cards right, and the message counts as the picture does
    pushed = (1 + bool(e.get("penalty"))) if e.get("end") == "left" else 0
    tried = _spots([p + pushed for p in e["positions"]])
    extra = " plus a penalty card from the deck" if e.get("penalty") else ""
    shown = f" Shown: {_cards(e['revealed'])}." if e.get("revealed") else ""
    return (f"{me} tried to exchange {tried}, but {why}: the new card joins the "
            f"{e['end']} end{extra}.{shown}")


def _gamble(me: str, e: Event) -> str:
    res = "right" if e["right"] else "wrong"
    s = f"{me} gambled on {e['value']} and turned up {_card(e['card'])}: {res}."
    if not e["to_pile"]:
        s += " The Obsessor kept it on the deck."
    if e.get("end"):
        joined = _card(e.get("joined"))
        s += f" {joined[0].upper()}{joined[1:]} joins the {e['end']} end of their village."
    return s


def describe(event: Event, names: Sequence[str] | None = None) -> str:
    names = names_for(names, event)

    def who(seat):
        if seat is None:
            return "The dealer"
        return names[seat] if names and seat < len(names) else f"Seat {seat + 1}"

    e = event
    me = who(e.get("seat"))
    target = who(e["target"]) if isinstance(e.get("target"), int) else ""
    their = possessive(target) if target else ""
    t = e["type"]
    if t == "round_start":
        return f"Round {e['round']} begins: {who(e['start'])} starts; the first discard is {_card(e['discard'])}."
    if t == "peek":
        return f"{me} looked at {_spots(e['positions'])} of their village."
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
        return _exchange(me, e)
    if t == "exchange_failed":
        return _exchange_failed(me, e)
    if t == "kept":
        return f"{me} could not discard the drawn card, so it joins the right end facedown."
    if t == "put_back":
        return f"{me} put {_card(e['card'])} back on the pile (timed out)."
    if t == "tanner":
        return f"{me} put the Tanner at the {e['end']} end and turned up: {_cards(e['revealed'])}."
    if t == "gamble":
        return _gamble(me, e)
    if t == "gamble_discard":
        return f"{me} discarded {_card(e['card'])} with the Gambler's win."
    if t == "search":
        return f"{me} opened the silver eye and is looking through the deck."
    if t == "pick":
        return f"{me} took a card from the deck with the silver eye; the deck is reshuffled."
    if t == "twist":
        state = "faceup" if e["faceup"] else "facedown"
        return f"{me} turned {their} {_spots(e['position'])} {state} ({_card(e['card'])})."
    if t == "ghost":
        return f"{me}'s Ghost discarded {_card(e['card'])} from {their} village."
    if t == "refused":
        return f"The {cards.name(e['obsessor'])} refused {_card(e['card'])}: it stays in {their} village."
    if t == "see":
        return f"{me} used the Split Seer on {their} {_spots(e['position'])}."
    if t == "dracula":
        return f"{me}'s Dracula moved {len(e['cards'])} cards from the pile to the bottom of the deck."
    if t == "undermine":
        return (f"{me}'s Underminer swapped {their} {_spots(e['positions'])} with "
                f"{_cards(e['taken'])} from the pile.")
    if t == "underminer_lapsed":
        return f"{me}'s Underminer had no effect: its cards moved."
    if t == "drunk":
        return f"{me}'s Drunk gave {_card(e['card'])} to the {e['end']} end of {their} village."
    if t == "spot":
        return f"{me} uses a Spotter on {their} village, looking for {with_article(e['value'])}."
    if t == "look":
        if e["found"]:   # the match leaves the village in this step: no position to name
            return f"{me} looked at a facedown card of {their} village: a match."
        return f"{me} looked at {their} {_spots(e['position'])}: no match."
    if t == "spotted":
        return f"{me}'s Spotter discarded {_card(e['card'])} from {their} village."
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
        return f"{me} tucked a Nelly under {their} {_card(e['target_card'])}."
    if t == "bomb":
        return f"{me}'s Mad Bomber removed {_cards(e['removed'])}."
    if t == "round_scored":
        scores = ", ".join(f"{who(s)} {p}" for s, p in enumerate(e["scores"]))
        eye = f"{who(e['eye_holder'])} takes the silver eye {'open' if e['eye_open'] else 'closed'}."
        return f"Round {e['round']} scores: {scores}. {eye}"
    if t == "game_over":
        if e.get("ended") == "resigned":          # R48: the last seat left wins at once
            return f"Everyone else resigned: {who(e['winner'])} wins."
        return f"The game is over: {who(e['winner'])} wins with {e['totals'][e['winner']]} points."
    if t == "back":
        return f"{me} is back."
    if t == "away":
        return f"{me} is away: their decisions are made for them until they return."
    if t == "resign":
        return f"{me} resigned: the rules' defaults play their seat from now on, and they rank last."
    if t == "take_over":   # R49: the names the event carries (`names` may be the new ones)
        was = e.get("was") or f"Seat {int(e.get('seat') or 0) + 1}"
        during = f" in round {e['round']}" if isinstance(e.get("round"), int) else ""
        return f"{e.get('name') or me} took over {possessive(str(was))} seat{during}."
    return f"{me}: {t.replace('_', ' ')}."


# -- the same sentences from a reader's side ------------------------------------------

_YOU = "\u2063you\u2063"   # a marker no player's name contains
_SECOND_PERSON = (
    (f"{_YOU}'s", "your"), (f"{_YOU} is", "you are"),
    (f"{_YOU} uses", "you use"), (f"{_YOU} takes", "you take"), (f"{_YOU} starts", "you start"),
    (f"{_YOU} wins", "you win"), (f"{_YOU}: ", "you: "), (f"{_YOU} ", "you "),
)


def event_sentence(event: Event, names: Sequence[str], me: int | None = None) -> str:
    """One public event in words; for a reader's page or mail its own deeds say "you"
    (``names``: a ``SeatNames`` names the holders of that moment, R49)."""
    now = names
    names = names_for(names, event) or []
    if me is not None and isinstance(now, SeatNames) and not now.holds(me, event):
        me = None  # R49: someone else held the reader's seat then
    if me is None or not 0 <= me < len(names):
        return describe(dict(event), list(names))
    named = list(names)
    named[me] = _YOU
    if (event.get("type") == "take_over" and event.get("seat") == me
            and event.get("name") == now[me]):
        event = {**event, "name": _YOU}          # R49: the reader is the one who took over
    text = describe(dict(event), named)
    if event.get("seat") == me:
        text = text.replace("of their village", "of your village").replace(
            "their turn", "your turn").replace("their decisions", "your decisions").replace(
            "and is looking", "and are looking").replace(
            "play their seat", "play your seat").replace("and they rank", "and you rank")
    for old, new in _SECOND_PERSON:
        text = text.replace(old, new)
    text = text.replace(_YOU, "you")
    text = re.sub(r"([.!?] )(you|your)\b", lambda m: m.group(1) + m.group(2).capitalize(), text)
    return text[:1].upper() + text[1:]


def own_result(action: Mapping[str, Any], events: Sequence[Event], view: Mapping[str, Any],
               names: Sequence[str], me: int) -> str:
    """What the player is told right after a move: what they saw, or what happened.

    A peek names the cards seen ("You looked at #1: 4 Gambler and #2: 9 High
    Obsessor"), read off the seat's view after the move; an Underminer choice
    that has no public event yet says which card was chosen and how many are
    left to choose (never a bare "Done.").
    """
    kind = action.get("type")
    if kind == "peek":
        seen = [f"{spot(p)}: {card_words(village_card(view, me, p))}"
                for p in action.get("positions") or []]
        return f"You looked at {and_list(seen)}."
    if kind in ("see", "look") and isinstance(action.get("position"), int) and not _left(events):
        seat = action.get("seat", (view.get("pending_detail") or {}).get("target"))
        card = village_card(view, seat, action["position"]) if isinstance(seat, int) else None
        if card and card.get("id") is not None:
            return f"You looked at {whose(seat, me, names)} {spot(action['position'])}: {card_words(card)}."
    if events:
        return " ".join(event_sentence(as_seen_by(e, view, me), names, me) for e in events)
    if kind == "undermine":
        label = action_label(action, view, me, names)
        if "pile" in action:
            return f"Underminer: you chose to {label[:1].lower()}{label[1:]}."
        return f"Underminer: you chose {label.replace('Swap out ', '')}."
    return f"{action_label(action, view, me, names)}."


def as_seen_by(event: Event, view: Mapping[str, Any], me: int | None) -> Event:
    """An own event with the card the seat knows (issue 51 item 3: "a drawn card is
    named wherever its seat may know it"), read off the seat's own view: a draw while
    the seat still holds what it drew ('You drew 10 Dracula from the deck.'), an own
    exchange with the card it drew where the new card now sits ('for 10 Dracula').
    Any other event, or another reader's, is as the table saw it."""
    if me is None or event.get("seat") != me or event.get("card"):
        return event
    if event.get("type") == "draw":
        held = view.get("hand") if view.get("hand_seat") == me else None
        last_own = [e for e in view.get("log") or [] if e.get("seat") == me][-1:]
        if held and held.get("id") is not None and (
                not last_own or last_own[0].get("step") == event.get("step")):
            return {**event, "card": held}
        return event
    if event.get("type") != "exchange":
        return event
    positions = list(event.get("positions") or [])
    if not positions:
        return event
    known = village_card(view, me, new_card_spot(positions, event.get("into", min(positions))))
    return {**event, "card": known} if known and known.get("id") is not None else event


def _left(events: Sequence[Event]) -> bool:
    """Did a card leave a village in these events (so a position read off the view
    after them would point at another card)?"""
    return any(e.get("type") in ("spotted", "ghost", "simon") for e in events)


def move_result(results: Sequence[tuple[Mapping[str, Any], Sequence[Event]]],
                view: Mapping[str, Any], names: Sequence[str], me: int) -> str:
    """What one post of several steps did, in words: the Underminer's early choices are
    left out when the same post completed the swap (its sentence names them all)."""
    swapped = any(e.get("type") in ("undermine", "underminer_lapsed")
                  for _, events in results for e in events)
    said = [own_result(action, events, view, names, me) for action, events in results
            if not (swapped and action.get("type") == "undermine" and not events)]
    return " ".join(s for s in said if s)


# -- what the server played for a seat (issue 17 item 2) ---------------------------------

#: Why the server played a seat's decision: its deadline passed, or it is away (R29),
#: or it resigned (R48: the rules' defaults play it from then on).
TIMED_OUT, AWAY, RESIGNED = "deadline", "away", "resigned"

#: Events a timeout can leave for the seat it played for, as passive clauses
#: (``{you}``/``{your}`` name the seat from the reader's side).
_PLAYED = {
    "pass": "{your} turn was passed",
    "kept": "the card {you} drew could not be discarded, so it joined the right end of "
            "{your} village facedown",
    "pick": "the top card of the deck was taken",
}


def _played_clause(event: Event, you: str, your: str) -> str | None:
    """One event of a timeout as a clause, or None when it is not one a timeout makes."""
    kind = event.get("type")
    if kind in _PLAYED:
        return _PLAYED[str(kind)].format(you=you, your=your)
    card = event.get("card")
    known = bool(card and card.get("id") is not None)
    if kind == "discard":
        return (f"{your} {card_words(card)} was discarded" if known
                else f"the card {you} drew was discarded")
    if kind == "put_back":
        return (f"the {card_words(card)} {you} took went back on the discard pile" if known
                else f"the card {you} took went back on the discard pile")
    if kind == "peek":
        positions = list(event.get("positions") or [])
        verb = "was" if len(positions) == 1 else "were"
        return f"{_spots(positions)} of {your} village {verb} looked at"
    if kind == "skip":
        return f"the {str(event.get('what') or 'choice').replace('_', ' ')} was declined"
    return None


def played_for(events: Sequence[Event], names: Sequence[str], seat: int, me: int | None,
               why: str = TIMED_OUT) -> list[str]:
    """What the server played for ``seat`` in one logged step (a timeout, R29), in words
    for reader ``me``: "Time ran out: your 10 Dracula was discarded for you." for the
    seat itself, "Time ran out for Eve: their 10 Dracula was discarded." for the others
    (``why`` AWAY: "You were away: ..."; RESIGNED: "Eve has resigned: ..."). Built from
    the step's public events only, like every sentence here; events of the step that a
    timeout does not make (the round ending with it) follow as sentences of their own."""
    lead, rest = played_parts(events, names, seat, me, why)
    return [lead, *rest] if lead else rest


def played_parts(events: Sequence[Event], names: Sequence[str], seat: int, me: int | None,
                 why: str = TIMED_OUT) -> tuple[str | None, list[str]]:
    """``played_for`` in two parts: the sentence of what was played (None when the step
    holds nothing a timeout makes) and the sentences of the step's other events."""
    if me is not None and events and isinstance(names, SeatNames) \
            and not names.holds(me, events[0]):
        me = None  # R49: someone else held the reader's seat then
    mine = me == seat
    then = names_for(names, events[0]) if events else names
    name = then[seat] if then is not None and 0 <= seat < len(then) else f"Seat {seat + 1}"
    you, your = ("you", "your") if mine else ("they", "their")
    clauses: list[str] = []
    rest: list[str] = []
    for event in events:
        clause = _played_clause(event, you, your) if event.get("seat") == seat else None
        if clause is None:
            rest.append(event_sentence(event, names, me))
        else:
            clauses.append(clause)
    rest = [line for line in rest if line]
    if not clauses:
        return None, rest
    if why == AWAY:
        lead = "You were away" if mine else f"{name} was away"
    elif why == RESIGNED:
        lead = "You have resigned" if mine else f"{name} has resigned"
    else:
        lead = "Time ran out" if mine else f"Time ran out for {name}"
    return f"{lead}: {', then '.join(clauses)}{' for you' if mine else ''}.", rest
