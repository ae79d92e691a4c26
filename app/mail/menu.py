"""The menu of a turn mail: the legal moves of a seat's decision as commands.

Built from the seat's own view (its ``legal_actions``), so it offers exactly
what the engine would accept now. Each entry has a short command, words for
it and a ``mailto:`` link that opens a reply with the command filled in. A
decision with many choices (exchanging several cards, turning any card of
any village) is shown as a pattern and one example instead of hundreds of
lines.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from app.mail.commands import command_for

#: Up to this many choices of one kind are listed one by one.
LIST_LIMIT = 8

#: What each kind of action does, for the menu (``{}`` takes the arguments).
WORDS: dict[str, str] = {
    "draw": "draw the top card of the deck",
    "take": "take the top card of the discard pile",
    "call": "call: this is the last round of turns",
    "skip": "skip / decline",
    "search": "search the deck with the silver eye",
    "done": "end your turn",
    "dracula": "use your Dracula",
    "discard": "discard the card in your hand",
    "tanner": "put the Tanner faceup at that end",
    "exchange": "exchange the card in hand for your card(s) with these numbers",
    "peek": "look at these two of your cards",
    "pick": "take that deck card (1 = top)",
    "gamble": "guess the value of the top deck card",
    "twist": "turn over that player's card",
    "ghost": "discard that player's card",
    "see": "look at that player's card",
    "undermine": "choose that card for the Underminer",
    "drunk": "give the top deck card to that end of that player's village",
    "spot": "search that player's village",
    "look": "look at that card",
    "simon": "discard that faceup card with your Simon",
    "nelly": "tuck your Nelly under that player's card",
    "bomb": "blow up that player's card with your Mad Bomber",
}
#: How the arguments of a pattern read.
PATTERNS: dict[str, str] = {
    "exchange": "X <your card numbers>",
    "peek": "peek <card> <card>",
    "gamble": "gamble <value>",
    "pick": "pick <deck position>",
    "twist": "twist <player> <card>",
    "ghost": "ghost <player> <card>",
    "see": "see <player> <card>",
    "undermine": "undermine <player> <card>",
    "drunk": "drunk <player> left|right",
    "spot": "spot <player>",
    "look": "look <card>",
    "discard": "discard <card>",
    "nelly": "nelly <player> <card>",
    "bomb": "bomb <player> <card>",
    "simon": "simon <card>",
}


@dataclass(frozen=True)
class MenuItem:
    command: str
    words: str
    mailto: str


@dataclass(frozen=True)
class Menu:
    """What a turn mail shows below the view; empty when the seat has nothing to decide."""

    address: str | None
    items: list[MenuItem] = field(default_factory=list)
    players: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.items)


def mailto(address: str, command: str, subject: str = "") -> str:
    """A ``mailto:`` link whose reply body is the command (RFC 6068 encoding)."""
    query = f"body={quote(command)}"
    if subject:
        query = f"subject={quote(subject)}&{query}"
    return f"mailto:{address}?{query}"


def build(view: dict[str, Any], seat: int, address: str | None, names: list[str],
          subject: str = "") -> Menu:
    """The menu of ``seat``'s decision in ``view`` (the seat's own view)."""
    legal = [a for a in view.get("legal_actions") or [] if isinstance(a, dict)]
    if seat not in (view.get("to_act") or []) or not legal or not address:
        return Menu(address)
    groups: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        key = str(action.get("type"))
        if key == "undermine" and "pile" in action:
            key = "undermine pile"
        groups.setdefault(key, []).append(action)
    items: list[MenuItem] = []
    for key, actions in groups.items():
        kind = str(actions[0].get("type"))
        if kind == "exchange":
            singles = [a for a in actions if len(a.get("positions") or []) == 1]
            for action in singles[:LIST_LIMIT * 2]:
                items.append(_item(address, action, subject, names))
            if len(singles) < len(actions):
                several = next(a for a in actions if len(a.get("positions") or []) > 1)
                items.append(MenuItem(command_for(several),
                                      f"several cards of one value at once: "
                                      f"{PATTERNS['exchange']}",
                                      mailto(address, command_for(several), subject)))
            continue
        if len(actions) <= LIST_LIMIT or kind not in PATTERNS:
            items.extend(_item(address, action, subject, names) for action in actions)
            continue
        example = command_for(actions[0])
        items.append(MenuItem(example, f"{WORDS.get(kind, kind)}: {PATTERNS[kind]} "
                                       f"({len(actions)} choices; for example {example})",
                              mailto(address, example, subject)))
    items.append(MenuItem("help", "send this menu again", mailto(address, "help", subject)))
    players = [f"{i + 1} = {name}" + (" (you)" if i == seat else "")
               for i, name in enumerate(names)]
    return Menu(address, items, players)


def _item(address: str, action: dict[str, Any], subject: str, names: list[str]) -> MenuItem:
    command = command_for(action)
    words = WORDS.get(str(action.get("type")), str(action.get("type")))
    target = action.get("seat")
    if isinstance(target, int) and 0 <= target < len(names) and "player" in words:
        words = words.replace("that player's", f"{names[target]}'s")
    return MenuItem(command, words, mailto(address, command, subject))
