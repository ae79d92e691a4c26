"""Commands of play by replying: one line of text <-> one engine action.

``command_for`` writes the command of a legal action (what the turn mail's
menu shows) and ``parse`` reads one back, so every command the menu offers
parses into exactly the action it was made from. People type numbers from 1
(the first card of a village, the first player, the top of the deck), the
engine counts from 0; this module is the only place that converts.

Short forms: D draw, T take, C call, S skip, X exchange ("X 2 5" exchanges my
cards #2 and #5). Long forms are the engine's action names with the same
arguments ("exchange 2 5 into 2 right", "twist 2 3" turns player 2's card #3).
Case, spaces and punctuation around the words do not matter.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Short letters and other words people use for an action name.
ALIASES = {
    "d": "draw", "t": "take", "c": "call", "s": "skip", "x": "exchange",
    "pass": "skip", "no": "skip", "swap": "exchange", "eye": "search", "stop": "done",
    "look at": "look",
}
#: What the arguments of each action are, in order: ``positions`` (one or
#: more card numbers), ``position``, ``seat`` (player number), ``end``
#: (left/right), ``value`` (a card value as printed), ``pile`` (1 = bottom).
SHAPES: dict[str, tuple[str, ...]] = {
    "draw": (), "take": (), "call": (), "skip": (), "search": (), "done": (),
    "dracula": (), "discard": ("position?",), "peek": ("positions",),
    "exchange": ("positions",), "pick": ("position",), "tanner": ("end",),
    "gamble": ("value", "end?"), "twist": ("seat", "position"), "ghost": ("seat", "position"),
    "see": ("seat", "position"), "undermine": ("seat", "position"),
    "drunk": ("seat", "end"), "spot": ("seat",), "look": ("position",),
    "simon": ("position",), "nelly": ("seat", "position"), "bomb": ("seat", "position"),
}
HELP_WORDS = ("help", "h", "?", "menu", "commands")
MAX_LINE = 200


@dataclass(frozen=True)
class Parsed:
    """What one line said: an action, a request for help, or nothing we understand."""

    line: str
    action: dict[str, Any] | None = None
    help: bool = False
    problem: str = ""

    @property
    def readable(self) -> bool:
        return self.action is not None or self.help


# -- writing ---------------------------------------------------------------------

def command_for(action: dict[str, Any]) -> str:
    """The short command of an engine action (the one the menu offers)."""
    kind = str(action.get("type"))
    if kind in ("draw", "take", "call", "skip"):
        return kind[0].upper()
    if kind == "exchange":
        words = ["X", *(str(p + 1) for p in action.get("positions") or [])]
        if "into" in action:
            words += ["into", str(int(action["into"]) + 1)]
        if "end" in action:
            words.append(str(action["end"]))
        return " ".join(words)
    if kind == "undermine" and "pile" in action:
        return f"undermine pile {int(action['pile']) + 1}"
    words = [kind]
    for name in SHAPES.get(kind, ()):
        name = name.rstrip("?")
        if name not in action:
            continue
        value = action[name]
        if name == "positions":
            words += [str(p + 1) for p in value]
        elif name in ("position", "seat"):
            words.append(str(int(value) + 1))
        else:
            words.append(str(value))
    return " ".join(words)


# -- reading -----------------------------------------------------------------------

_NOISE = re.compile(r"[\s,;:!()\[\]#*_\"'`>]+")


def normalise(line: str) -> str:
    """The line as words: lower case, punctuation around words gone, one space between."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(line))[:MAX_LINE]
    return " ".join(_NOISE.sub(" ", text.lower()).replace(".", " ").split())


def parse(line: str) -> Parsed:
    """Read one command line. Never raises: a line we cannot read says why."""
    original = " ".join(str(line).split())[:MAX_LINE]
    text = normalise(line)
    if not text:
        return Parsed(original, problem="There is no command in it.")
    if text in HELP_WORDS:
        return Parsed(original, help=True)
    words = text.split()
    verb = words[0]
    rest = words[1:]
    if verb == "look" and rest[:1] == ["at"]:
        rest = rest[1:]
    verb = ALIASES.get(verb, verb)
    if verb not in SHAPES:
        return Parsed(original, problem=f'"{words[0]}" is not a command we know.')
    try:
        action = _arguments(verb, rest)
    except ValueError as exc:
        return Parsed(original, problem=str(exc))
    return Parsed(original, action=action)


def _number(word: str, what: str) -> int:
    if not re.fullmatch(r"-?\d{1,3}", word):
        raise ValueError(f'"{word}" should be {what}.')
    return int(word)


def _arguments(verb: str, words: list[str]) -> dict[str, Any]:
    action: dict[str, Any] = {"type": verb}
    if verb == "undermine" and words[:1] == ["pile"]:
        if len(words) != 2:
            raise ValueError('Say which pile card, like "undermine pile 2".')
        action["pile"] = _number(words[1], "a pile card number (1 = bottom)") - 1
        return action
    if verb == "exchange":
        return _exchange(action, words)
    words = list(words)
    for name in SHAPES[verb]:
        optional = name.endswith("?")
        name = name.rstrip("?")
        if not words:
            if optional:
                continue
            raise ValueError(f'"{verb}" needs {_WANTS[name]}.')
        if name == "positions":
            action[name] = [_number(w, "a card number") - 1 for w in words]
            words = []
        elif name == "end":
            if words[0] not in ("left", "right", "l", "r"):
                raise ValueError(f'"{words[0]}" should be left or right.')
            action[name] = "left" if words.pop(0).startswith("l") else "right"
        elif name == "value":
            action[name] = _number(words.pop(0), "a card value")
        else:
            action[name] = _number(words.pop(0), _WANTS[name]) - 1
    if words:
        raise ValueError(f'"{" ".join(words)}" is more than "{verb}" takes.')
    return action


_WANTS = {"positions": "card numbers", "position": "a card number", "seat": "a player number",
          "end": "left or right", "value": "a card value"}


def _exchange(action: dict[str, Any], words: list[str]) -> dict[str, Any]:
    """``X 2 5 [into 2] [left|right]``; "my", "card(s)", "and", "with" may stand between."""
    positions: list[int] = []
    words = list(words)
    while words:
        word = words.pop(0)
        if re.fullmatch(r"\d{1,3}", word):
            positions.append(int(word) - 1)
        elif word == "into" and words:
            action["into"] = _number(words.pop(0), "a card number") - 1
        elif word in ("left", "right", "l", "r"):
            action["end"] = "left" if word.startswith("l") else "right"
        elif word not in ("and", "with", "for", "card", "cards", "my", "number", "numbers"):
            raise ValueError(f'"{word}" is not part of an exchange.')
    if not positions:
        raise ValueError('Say which of your cards, like "X 2" or "X 2 5".')
    action["positions"] = positions
    return action
