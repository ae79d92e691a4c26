"""What an action may hold, field by field: the schema that decides what the log stores.

The action log is append-only and kept forever, and the engine reads only the
fields it knows, so before this schema any extra field was stored as it came
(60 kB of junk per action, 3.6 MB a second). ``check`` refuses an action whose
type is unknown, that carries a field its type does not have, or whose
fields are of the wrong kind or size; ``services.submit_action`` calls it
before the engine sees the action. Whether the move is *legal* is still the
engine's decision: this only bounds the shape (docs/actions.md lists the
same fields).

Pure: no Flask, SQL, clock or mail.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Callable

#: Far above any village, deck or pile index a real game reaches (the deck
#: has 60-odd cards), low enough that nothing absurd is stored.
MAX_INDEX = 200
#: An exchange lists at most every card of one village.
MAX_POSITIONS = 64
MAX_TYPE_LENGTH = 20
#: A player's name in a take-over (R49): as the lobby takes it, one line.
MAX_NAME = 60
END_CHOICES = ("left", "right")
VALUES = (-1, 0, *range(2, 14))


class ActionRefused(ValueError):
    """The action does not have the shape of any action; the message says why."""


def _index(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)
            and 0 <= value <= MAX_INDEX)


def _positions(value: Any) -> bool:
    return (isinstance(value, list) and 0 < len(value) <= MAX_POSITIONS
            and all(_index(item) for item in value))


def is_name(value: Any) -> bool:
    """A name of 1 to ``MAX_NAME`` characters on one line: no control character (tab,
    newline, escape...) and no line or paragraph separator."""
    return (isinstance(value, str) and 0 < len(value) <= MAX_NAME
            and all(unicodedata.category(ch) not in ("Cc", "Zl", "Zp") for ch in value))


@dataclass(frozen=True)
class Field:
    """One field: how to check it, and the words for the person when it is wrong."""

    check: Callable[[Any], bool]
    words: str


INDEX = Field(_index, f"a whole number from 0 to {MAX_INDEX}")
POSITIONS = Field(_positions, f"a list of 1 to {MAX_POSITIONS} whole numbers, like [0, 2]")
END = Field(lambda v: v in END_CHOICES and isinstance(v, str), '"left" or "right"')
FLAG = Field(lambda v: isinstance(v, bool), "true or false")
VALUE = Field(lambda v: not isinstance(v, bool) and v in VALUES, "a card value: -1, 0, 2 to 13")
NAME = Field(is_name, f"a name of 1 to {MAX_NAME} characters on one line")

#: Every action type and the fields it may carry besides "type" (docs/actions.md).
SCHEMA: dict[str, dict[str, Field]] = {
    "peek": {"positions": POSITIONS},
    "draw": {}, "take": {}, "call": {}, "search": {}, "dracula": {}, "skip": {}, "done": {},
    "pass": {}, "back": {}, "away": {},
    "resign": {},                                       # R48
    "take_over": {"name": NAME, "was": NAME},           # R49
    "gamble": {"value": VALUE, "end": END},
    "pick": {"position": INDEX},
    "discard": {"position": INDEX, "spotter": FLAG},
    "exchange": {"positions": POSITIONS, "into": INDEX, "end": END, "spotter": FLAG},
    "tanner": {"end": END},
    "twist": {"seat": INDEX, "position": INDEX},
    "ghost": {"seat": INDEX, "position": INDEX, "spotter": FLAG},
    "see": {"seat": INDEX, "position": INDEX},
    "undermine": {"seat": INDEX, "position": INDEX, "pile": INDEX},
    "drunk": {"seat": INDEX, "end": END},
    "spot": {"seat": INDEX},
    "look": {"position": INDEX},
    "simon": {"position": INDEX},
    "nelly": {"seat": INDEX, "position": INDEX},
    "bomb": {"seat": INDEX, "position": INDEX},
}
#: Actions that only record a seat's presence (R29); services rate-limits them.
PRESENCE = ("away", "back")


def check(action: Any) -> dict[str, Any]:
    """The action exactly as it will be stored, or ``ActionRefused`` with the reason."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ActionRefused('An action must be an object with a "type", like {"type": "draw"}.')
    kind = action["type"]
    fields = SCHEMA.get(kind)
    if fields is None:
        shown = kind[:MAX_TYPE_LENGTH] + ("…" if len(kind) > MAX_TYPE_LENGTH else "")
        raise ActionRefused(f"There is no action “{shown}”. The actions are listed in the "
                            "seat's legal_actions.")
    for key, value in action.items():
        if key == "type":
            continue
        field = fields.get(key) if isinstance(key, str) else None
        if field is None:
            allowed = ", ".join(f'"{name}"' for name in fields) or "no other field"
            raise ActionRefused(f"A “{kind}” action has no field “{str(key)[:MAX_TYPE_LENGTH]}”: "
                                f"it takes {allowed}. Nothing was stored.")
        if not field.check(value):
            raise ActionRefused(f"The field “{key}” of a “{kind}” action must be {field.words}.")
    return dict(action)
