"""Turning an ``engine.view`` into what a page shows: cards, buttons, the recent log.

Everything here reads a *view* (the dict ``engine.view(state, seat)`` returns)
and never the engine's state, so a template cannot show more than the viewer is
allowed to know. The helpers do not interpret rules either: the actions offered
are exactly the view's ``legal_actions``; this module only finds words for them
and sorts them into groups so that a list of forty Twister targets stays usable.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from flask import Flask
from flask.blueprints import BlueprintSetupState

from app import engine
from app.engine import cards as card_info

View = Mapping[str, Any]


# -- cards -----------------------------------------------------------------------

def value_band(value: int | None) -> str:
    """A colour band for a card value: few werewolves are good, many are bad."""
    if value is None:
        return ""
    if value < 1:
        return "band-neg"
    if value <= 4:
        return "band-low"
    if value <= 8:
        return "band-mid"
    return "band-high"


def card_face(card: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a card macro needs to draw one card of a view.

    ``kind`` is ``faceup`` (everyone sees it), ``known`` (facedown, but this
    viewer knows it), ``back`` (facedown and unknown: only its back is drawn)
    or ``empty`` (no card). A card the viewer does not know carries no id and
    no value in the view, so nothing about it can be drawn by mistake.
    """
    if not card:
        return {"kind": "empty", "id": None, "value": None}
    card_id = card.get("id")
    faceup = bool(card.get("faceup"))
    if card_id is None:
        return {"kind": "back", "id": None, "value": None, "faceup": faceup}
    return {
        "kind": "faceup" if faceup else "known",
        "id": card_id,
        "value": card_info.VALUE[card_id],
        "name": card_info.name(card_id),
        "label": card_info.label(card_id),
        "ability": card_info.ability(card_id),
        "band": value_band(card_info.VALUE[card_id]),
        "faceup": faceup,
    }


def card_words(card: Mapping[str, Any] | None) -> str:
    """A card in words for a sentence: '7 Ghost', or 'a facedown card'."""
    if not card:
        return "no card"
    if card.get("id") is None:
        return "a facedown card"
    return card_info.label(card["id"])


# -- names -----------------------------------------------------------------------

def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _whose(seat: int | None, me: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return ""
    if seat == me:
        return "your"
    return possessive(names[seat]) if 0 <= seat < len(names) else f"seat {seat + 1}'s"


def spot(position: int) -> str:
    """Village positions are 0-based in the engine, counted from 1 for people."""
    return f"#{int(position) + 1}"


def _village_card(view: View, seat: int | None, position: Any) -> Mapping[str, Any] | None:
    try:
        return view["villages"][seat][int(position)]
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def _target(view: View, seat: int | None, position: Any, me: int | None,
            names: Sequence[str]) -> str:
    """'Ann's card #2 (7 Ghost)' — the value only when this viewer knows it."""
    whose = _whose(seat, me, names)
    card = _village_card(view, seat, position)
    known = f" ({card_words(card)})" if card and card.get("id") is not None else ""
    return f"{whose} card {spot(position)}{known}".strip()


# -- actions ---------------------------------------------------------------------

#: Group order, titles and one line of help per action type.
ACTION_GROUPS: dict[str, tuple[str, str]] = {
    "peek": ("Peek at two of your cards",
             "Secretly look at two facedown cards of your village before you first act."),
    "draw": ("Draw", "Take the top card of the deck; then keep it or discard it."),
    "search": ("Silver eye", "Look through the whole deck and take any card as if drawn."),
    "pick": ("Pick from the deck", "Choose the card you want; the deck is shuffled afterwards."),
    "take": ("Take the top discard", "Take it, then exchange it for cards of your village."),
    "gamble": ("Gamble", "Guess the value of the top deck card."),
    "call": ("Call for a vote", "Everyone else gets one more turn, then the round ends."),
    "exchange": ("Exchange", "Swap the card in your hand for one or more cards of your village "
                             "(several only if they all have the same value)."),
    "discard": ("Discard", "Put the card in your hand on the discard pile."),
    "tanner": ("Tanner", "Place the Tanner at an end of your village; all your cards turn faceup."),
    "twist": ("Twister", "Turn a card over (faceup or facedown)."),
    "ghost": ("Ghost", "Discard one card from any village."),
    "see": ("Split Seer", "Look at one facedown card of a village."),
    "dracula": ("Dracula", "Move the five cards under it to the bottom of the deck."),
    "undermine": ("Underminer", "Swap two cards of one village with two cards of the pile."),
    "drunk": ("Drunk", "Give the top deck card to an end of a village."),
    "spot": ("Spotter", "Choose the village to search for a matching card."),
    "look": ("Spotter", "Look at one facedown card of that village."),
    "simon": ("Simon", "Discard a faceup card of yours that matches the top discard."),
    "nelly": ("Nelly", "Tuck your Nelly under a card: it scores its negative."),
    "bomb": ("Mad Bomber", "Remove your Mad Bomber and one other card from the round."),
    "done": ("Finish", "End this choice here."),
    "skip": ("Decline", "Do not use this; go on."),
    "pass": ("Pass", "Let this turn go by."),
}


def action_label(action: Mapping[str, Any], view: View, me: int | None,
                 names: Sequence[str]) -> str:
    """The words on the button for one legal action, from the viewer's side."""
    kind = action.get("type", "")
    seat = action.get("seat")
    position = action.get("position")
    positions = action.get("positions") or []
    hand = view.get("hand")
    discard = view.get("discard") or []
    if kind == "peek":
        return "Peek at " + " and ".join(spot(p) for p in positions)
    if kind == "draw":
        return "Draw from the deck"
    if kind == "search":
        return "Search the deck (silver eye)"
    if kind == "pick":
        deck_card = None
        for entry in view.get("deck_known") or []:
            if entry.get("position") == position:
                deck_card = entry.get("card")
        what = f" ({card_words(deck_card)})" if deck_card else ""
        return f"Take deck card {spot(position)}{what}"
    if kind == "take":
        top = discard[-1] if discard else None
        return f"Take the {card_words(top)}" if top else "Take the top discard"
    if kind == "gamble":
        value = action.get("value")
        named = card_info.NAME.get(value, "") if isinstance(value, int) else ""
        return f"Guess {value} ({named})" if named else f"Guess {value}"
    if kind == "call":
        return "Call for a vote"
    if kind == "exchange":
        if len(positions) == 1:
            return f"Swap with {_target(view, me, positions[0], me, names)}"
        return "Swap with your cards " + ", ".join(spot(p) for p in positions)
    if kind == "discard":
        if position is not None:
            return f"Discard {_target(view, me, position, me, names)}"
        return f"Discard the {card_words(hand)}" if hand else "Discard it"
    if kind == "tanner":
        return f"Place it at the {action.get('end', 'right')} end"
    if kind == "twist":
        return f"Turn over {_target(view, seat, position, me, names)}"
    if kind == "ghost":
        return f"Discard {_target(view, seat, position, me, names)}"
    if kind == "see":
        return f"Look at {_target(view, seat, position, me, names)}"
    if kind == "look":
        return f"Look at {_target(view, seat, position, me, names)}"
    if kind == "spot":
        return f"Search {_whose(seat, me, names)} village"
    if kind == "drunk":
        return f"Give it to the {action.get('end', 'right')} end of {_whose(seat, me, names)} village"
    if kind == "simon":
        return f"Discard {_target(view, me, position, me, names)}"
    if kind == "nelly":
        return f"Tuck under {_target(view, seat, position, me, names)}"
    if kind == "bomb":
        return f"Blow up {_target(view, seat, position, me, names)}"
    if kind == "undermine":
        if "pile" in action:
            index = action.get("pile")
            try:
                card = discard[int(index)]
            except (IndexError, TypeError, ValueError):
                card = None
            return f"Take the {card_words(card)} from the pile ({_ordinal(int(index) + 1)} from the bottom)"
        return f"Swap out {_target(view, seat, position, me, names)}"
    if kind == "dracula":
        return "Use Dracula"
    if kind == "skip":
        return "No thanks, skip it"
    if kind == "done":
        return "Done"
    if kind == "pass":
        return "Pass"
    return _generic_label(action, view, me, names)


def _generic_label(action: Mapping[str, Any], view: View, me: int | None,
                   names: Sequence[str], title: str | None = None) -> str:
    """Words for an action shape this module has no special sentence for."""
    parts = [title or str(action.get("type", "act")).replace("_", " ").capitalize()]
    for key, value in action.items():
        if key == "type":
            continue
        if key == "seat" and isinstance(value, int):
            parts.append(f"{_whose(value, me, names)} village")
        elif key in ("position", "positions", "pile", "village") or key.endswith("positions"):
            values = value if isinstance(value, list) else [value]
            parts.append(f"{key.replace('_', ' ')} " + ", ".join(
                spot(v) if isinstance(v, int) else str(v) for v in values))
        else:
            parts.append(f"{key.replace('_', ' ')} {value}")
    return " · ".join(parts)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def action_json(action: Mapping[str, Any]) -> str:
    """The action exactly as the engine listed it, for a form field."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def group_actions(actions: Sequence[Mapping[str, Any]], view: View, me: int | None,
                  names: Sequence[str]) -> list[dict[str, Any]]:
    """Legal actions sorted into groups by type, each with a title and help text.

    Order follows ``ACTION_GROUPS`` (the order of a turn), unknown types last;
    within a group the engine's order is kept.
    """
    groups: dict[str, dict[str, Any]] = {}
    for action in actions:
        kind = str(action.get("type", ""))
        if kind not in groups:
            title, help_text = ACTION_GROUPS.get(kind, (kind.replace("_", " ").capitalize(), ""))
            groups[kind] = {"type": kind, "title": title, "help": help_text, "items": [],
                            "multi": False, "positioned": False}
        if "position" in action:
            groups[kind]["positioned"] = True
        if len(action.get("positions") or []) > 1:
            groups[kind]["multi"] = True
        groups[kind]["items"].append({
            "action": dict(action),
            "json": action_json(action),
            "label": action_label(action, view, me, names),
        })
    order = list(ACTION_GROUPS)
    result = sorted(groups.values(),
                    key=lambda g: order.index(g["type"]) if g["type"] in order else len(order))
    for group in result:
        group["sections"] = _sections(group["items"], me, names)
    return result


#: Words for an exchange of n cards, the sub-heading its buttons sit under.
SET_SIZES = {1: "One card", 2: "Two cards (they must match)", 3: "Three cards (they must match)",
             4: "Four cards (they must match)", 5: "Five cards", 6: "Six cards", 7: "Seven cards"}


def _sections(items: list[dict[str, Any]], me: int | None,
              names: Sequence[str]) -> list[dict[str, Any]]:
    """Split a long group into sub-lists a thumb can handle.

    Exchanges by how many cards they swap; choices aimed at a village (Twister,
    Ghost, Split Seer, Nelly, Mad Bomber...) by whose village it is, the
    viewer's own first. Short groups stay one list.
    """
    def key(item: dict[str, Any]) -> tuple[int, str]:
        action = item["action"]
        if isinstance(action.get("positions"), list) and action.get("type") == "exchange":
            size = len(action["positions"])
            return size, SET_SIZES.get(size, f"{size} cards")
        seat = action.get("seat")
        if isinstance(seat, int) and 0 <= seat < len(names):
            title = "Your village" if seat == me else f"{possessive(names[seat])} village"
            return (-1 if seat == me else seat), title
        return 0, ""

    def several(bucket: list[dict[str, Any]]) -> bool:
        """Whether a section holds swaps of several cards (the page adds their options)."""
        return any(len(item["action"].get("positions") or []) > 1 for item in bucket)

    buckets: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for item in items:
        buckets.setdefault(key(item), []).append(item)
    if len(items) <= 6 or len(buckets) == 1:
        return [{"title": "", "items": items, "open": True, "multi": several(items)}]
    ordered = sorted(buckets.items(), key=lambda kv: kv[0][0])
    return [{"title": title, "items": bucket, "open": index == 0, "multi": several(bucket)}
            for index, ((_, title), bucket) in enumerate(ordered)]


def top_discard_value(view: View) -> int | None:
    """The value of the card on top of the discard pile (faceup: everyone sees it)."""
    pile = view.get("discard") or []
    top = pile[-1] if pile else None
    if not top or top.get("id") is None:
        return None
    return card_info.VALUE[top["id"]]


def exchange_choices(view: View, me: int | None) -> dict[str, Any]:
    """Extra controls the exchange form offers (design.md: ``into``, ``end``, ``spotter``).

    ``end`` matters only when a multi-card exchange fails; ``into`` only when it
    matches. ``spotter`` is offered when the viewer has a faceup Spotter in its
    own village — a fact read off the view, the engine decides whether it applies.
    """
    village = []
    if isinstance(me, int):
        try:
            village = view["villages"][me]
        except (KeyError, IndexError, TypeError):
            village = []
    spotters = sum(1 for card in village
                   if card and card.get("faceup") and card.get("id") is not None
                   and card_info.VALUE[card["id"]] == card_info.SPOTTER)
    return {"spotter": spotters}


# -- the log ---------------------------------------------------------------------

def describe(event: Mapping[str, Any], names: Sequence[str]) -> str:
    """One event in words (the engine's sentence)."""
    return engine.describe(dict(event), list(names))


def last_own_step(log: Sequence[Mapping[str, Any]], me: int | None) -> int:
    """The step of the viewer's last own action in this round's log (0 if none)."""
    if me is None:
        return 0
    steps = [int(e.get("step") or 0) for e in log if e.get("seat") == me]
    return max(steps, default=0)


def log_entries(log: Sequence[Mapping[str, Any]], names: Sequence[str],
                me: int | None = None, since_step: int | None = None) -> list[dict[str, Any]]:
    """The round's public log as sentences, marking the viewer's and newer events."""
    if since_step is None:
        since_step = last_own_step(log, me)
    entries = []
    for event in log:
        step = int(event.get("step") or 0)
        entries.append({
            "text": describe(event, names),
            "step": step,
            "mine": me is not None and event.get("seat") == me,
            "new": me is not None and step > since_step and event.get("seat") != me,
            "type": event.get("type"),
        })
    return entries


def since_last_acted(view: View, names: Sequence[str], me: int | None) -> list[str]:
    """What the others did since this seat's last action, in words.

    Looks back into the previous round's log too, so the first page of a new
    round still tells how the last one ended.
    """
    log = list(view.get("previous_log") or []) + list(view.get("log") or [])
    since = last_own_step(log, me)
    return [describe(e, names) for e in log
            if int(e.get("step") or 0) > since and e.get("seat") != me]


# -- the table -------------------------------------------------------------------

def pending_words(view: View, me: int | None, names: Sequence[str]) -> str:
    """One sentence about whose turn it is and what they must decide."""
    phase = view.get("phase")
    if phase == "over":
        winner = view.get("winner")
        if winner is None:
            return "The game is over."
        return "You won the game!" if winner == me else f"{names[winner]} won the game."
    to_act = list(view.get("to_act") or [])
    current = view.get("current")
    pending = view.get("pending") or ""
    what = PENDING_WORDS.get(pending, pending.replace("_", " ") if pending else "")
    detail = view.get("pending_detail") or {}
    if pending == "twister" and isinstance(detail.get("left"), int):
        what += f" ({detail['left']} more to turn)"
    elif pending == "spotter" and isinstance(detail.get("value"), int):
        what += f" (looking for a {detail['value']})"
    elif pending == "underminer" and isinstance(detail.get("chosen"), int) \
            and 0 <= detail["chosen"] < len(UNDERMINER_STEPS):
        what += f" (step {detail['chosen'] + 1} of 4: {UNDERMINER_STEPS[detail['chosen']]})"
    elif pending in ("nelly", "bomb") and what:
        what += _which_card(view, detail, me, names)
    if me is not None and me in to_act:
        if "peek" in _types(view):
            return "Your move: peek at two of your cards."
        if phase == "resolve" and what:
            return f"Your move (scoring the round): {what}."
        if me == current and what:
            return f"Your move: {what}."
        return "Your move."
    waiting = [names[s] for s in to_act if 0 <= s < len(names)]
    if phase == "resolve":
        if waiting and what:
            return f"Scoring the round: waiting for {_and(waiting)} to {what}."
        return "Scoring the round."
    if not waiting:
        return "Waiting."
    if current is not None and current in to_act and what:
        others = [n for s, n in enumerate(names) if s in to_act and s != current]
        extra = f" ({_and(others)} still to peek)" if others else ""
        return f"Waiting for {names[current]} to {what}{extra}."
    return f"Waiting for {_and(waiting)}."


#: The four choices of an Underminer, in order (R23).
UNDERMINER_STEPS = ("a first card of one village", "a second card of that village",
                    "a first card of the pile", "a second card of the pile")


def _which_card(view: View, detail: Mapping[str, Any], me: int | None,
                names: Sequence[str]) -> str:
    """' (your Nelly #14)': which card a round-end choice is about, when it can be found."""
    seat, card = detail.get("seat"), detail.get("card") or {}
    if not isinstance(seat, int) or card.get("id") is None:
        return ""
    try:
        village = view["villages"][seat]
    except (KeyError, IndexError, TypeError):
        return ""
    for position, village_card in enumerate(village):
        if village_card and village_card.get("id") == card["id"]:
            return f" ({_whose(seat, me, names)} {card_info.name(card['id'])} {spot(position)})"
    return ""


PENDING_WORDS = {
    "turn": "draw, take the top discard or call for a vote",
    "drawn": "keep the drawn card or discard it",
    "taken": "exchange the card taken from the pile",
    "search": "pick a card from the deck with the silver eye",
    "twister": "turn cards over with the Twister",
    "ghost": "discard a card with the Ghost",
    "seer": "look at cards with the Split Seer",
    "dracula": "decide on the Dracula",
    "underminer": "swap cards with the Underminer",
    "drunk": "give the Drunk's card to a village",
    "spotter": "search a village with the Spotter",
    "gamble_more": "use another Gambler or end the turn",
    "gamble_win": "discard a card after a right guess",
    "nelly": "tuck a Nelly under a card",
    "bomb": "use a Mad Bomber",
}


def _types(view: View) -> set[str]:
    return {str(a.get("type")) for a in view.get("legal_actions") or []}


def _and(words: Sequence[str]) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def score_rows(view: View, names: Sequence[str], me: int | None = None) -> list[dict[str, Any]]:
    """One row per player: name, round scores (None for unplayed) and total."""
    rounds = view.get("round_scores") or []
    totals = view.get("totals") or []
    rows = []
    for seat, name in enumerate(names):
        per_round = []
        for r in range(4):
            try:
                per_round.append(rounds[r][seat])
            except (IndexError, TypeError):
                per_round.append(None)
        total = totals[seat] if seat < len(totals) else None
        rows.append({"seat": seat, "name": name, "rounds": per_round, "total": total,
                     "mine": seat == me, "winner": view.get("winner") == seat})
    return rows


def village_rows(view: View, names: Sequence[str], me: int | None,
                 kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The villages with their owners, the viewer's own first."""
    villages = view.get("villages") or []
    eye = view.get("silver_eye") or {}
    rows = []
    for seat, village in enumerate(villages):
        if seat >= len(names):
            break
        rows.append({
            "seat": seat,
            "name": names[seat],
            "cards": [card_face(c) for c in village],
            "mine": seat == me,
            "current": view.get("current") == seat and view.get("phase") == "play",
            "to_act": seat in (view.get("to_act") or []),
            "eye": eye.get("holder") == seat,
            "eye_open": eye.get("holder") == seat and bool(eye.get("open")),
            "caller": view.get("caller") == seat,
            "bot": bool(kinds and seat < len(kinds) and kinds[seat] == "bot"),
        })
    rows.sort(key=lambda row: (not row["mine"], row["seat"]))
    return rows


def deck_known(view: View) -> list[dict[str, Any]]:
    """Cards of the deck this viewer knows, with their place from the top (1 = top)."""
    known = []
    for entry in view.get("deck_known") or []:
        known.append({"place": int(entry.get("position", 0)) + 1,
                      "card": card_face(entry.get("card"))})
    return sorted(known, key=lambda e: e["place"])


# -- registration ----------------------------------------------------------------

def install(setup: BlueprintSetupState | Flask) -> None:
    """Make the helpers available to every template (called once per app)."""
    app = setup.app if isinstance(setup, BlueprintSetupState) else setup
    app.jinja_env.filters.setdefault("card_face", card_face)
    app.jinja_env.filters.setdefault("card_words", card_words)
    app.jinja_env.filters.setdefault("spot", spot)
    app.jinja_env.globals.setdefault("value_band", value_band)


def table_context(view: View, names: Sequence[str], kinds: Sequence[str] | None,
                  me: int | None) -> dict[str, Any]:
    """Everything the table macros need, for a seat (``me``) or a spectator (None)."""
    log = view.get("log") or []
    return {
        "view": view,
        "names": list(names),
        "me": me,
        "villages": village_rows(view, names, me, kinds),
        "scores": score_rows(view, names, me),
        "log": log_entries(log, names, me),
        "deck_cards": deck_known(view),
        "pending": pending_words(view, me, names),
    }
