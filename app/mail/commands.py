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

import functools
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
#: Answers to a game's open vote by replying (issue 21: the vote mails say "VOTE YES or
#: VOTE NO", a rematch's "ACCEPT or DECLINE"). A bare "no" stays ``skip``, a move.
VOTE_WORDS = {"vote yes": True, "vote y": True, "vote no": False, "vote n": False,
              "accept": True, "rematch": True, "decline": False, "veto": False,
              "agree": True}
MAX_LINE = 200
#: A reply that talks to the table (issue 20 item 2): its first line is "SAY nice one"
#: or "say: nice one", in any case; "sayonara" is not it. Talk is no move: it is never
#: read from a line that is not the first, so nothing is posted by accident.
_SAY = re.compile(r"say(?:\s*:|\s+|$)(.*)", re.I | re.S)


def said(text: str) -> str | None:
    """The words of a text that starts with ``SAY`` (what follows it, stripped), else
    None."""
    match = _SAY.match(str(text).lstrip())
    return match.group(1).strip() if match else None


#: The line a mail client writes above the quoted mail ("On Tue, ... wrote:").
_WROTE = re.compile(r"^\s*(on|le|am|el|il|op)\b.{0,200}\b(wrote|a écrit|schrieb|escribió|"
                    r"ha scritto|schreef)\s*:\s*$", re.I)


def say_reply(reply: str) -> "Parsed | None":
    """A ``SAY`` reply (issue 20 item 2): the newest reply's first non-empty line starts
    with ``SAY`` (or ``say:``); what it says is the rest of that line and the lines
    after it, up to the quoted mail or a signature. None for any other reply."""
    lines = str(reply).replace("\r\n", "\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None or lines[start].lstrip().startswith(">"):
        return None
    first = said(lines[start])
    if first is None:
        return None
    kept = [first]
    for line in lines[start + 1:]:
        if line.strip() in ("--", "__") or line.startswith("-- ") or line.startswith(">") \
                or _WROTE.match(line):
            break
        kept.append(line.rstrip())
    return Parsed(" ".join(lines[start].split())[:MAX_LINE], say="\n".join(kept).strip())


@dataclass(frozen=True)
class Parsed:
    """What one line said: an action, a request for help, or nothing we understand."""

    line: str
    action: dict[str, Any] | None = None
    help: bool = False
    problem: str = ""
    #: What a ``SAY`` reply says at the table (issue 20 item 2; "" when it says nothing).
    say: str | None = None
    #: An answer to the game's open vote (issue 21): True yes / accept, False no /
    #: decline / veto, None when the line is no answer.
    vote: bool | None = None

    @property
    def readable(self) -> bool:
        return (self.action is not None or self.help or self.say is not None
                or self.vote is not None)


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
    if text in VOTE_WORDS:
        return Parsed(original, vote=VOTE_WORDS[text])
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


def _from_one(word: str, what: str) -> int:
    """A number people count from 1 (a card, a player, a pile card), as the engine's 0-based
    index: "0" or "-2" is refused here, in the menu's words, not by the engine in its own
    (issue 17 item 4: the mail says "Cards count from 1", the answer said "0 to 4")."""
    number = _number(word, what)
    if number < 1:
        raise ValueError(f'"{word}" is not {what}: numbers count from 1, as in the menu.')
    return number - 1


def _arguments(verb: str, words: list[str]) -> dict[str, Any]:
    action: dict[str, Any] = {"type": verb}
    if verb == "undermine" and words[:1] == ["pile"]:
        if len(words) != 2:
            raise ValueError('Say which pile card, like "undermine pile 2".')
        action["pile"] = _from_one(words[1], "a pile card number (1 = bottom)")
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
            action[name] = [_from_one(w, "a card number") for w in words]
            words = []
        elif name == "end":
            if words[0] not in ("left", "right", "l", "r"):
                raise ValueError(f'"{words[0]}" should be left or right.')
            action[name] = "left" if words.pop(0).startswith("l") else "right"
        elif name == "value":
            action[name] = _number(words.pop(0), "a card value")
        else:
            action[name] = _from_one(words.pop(0), _WANTS[name])
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
            positions.append(_from_one(word, "a card number"))
        elif word == "into" and words:
            action["into"] = _from_one(words.pop(0), "a card number")
        elif word in ("left", "right", "l", "r"):
            action["end"] = "left" if word.startswith("l") else "right"
        elif word not in ("and", "with", "for", "card", "cards", "my", "number", "numbers"):
            raise ValueError(f'"{word}" is not part of an exchange.')
    if not positions:
        raise ValueError('Say which of your cards, like "X 2" or "X 2 5".')
    action["positions"] = positions
    return action


# -- the engine's words, counted as people count ----------------------------------

def _plus_one(match: re.Match[str], template: str) -> str:
    numbers = [int(n) for n in match.groups()]
    return template.format(*numbers, *(n + 1 for n in numbers))


#: The engine's messages that name a 0-based number, and how a mail says them
#: (issue 17 item 4: "no card at position 8 ... (0 to 4)" under "Cards count from 1").
#: In each template ``{0}``.. are the numbers as the engine said them, ``{k}``..
#: (k = how many it said) the same plus one.
_ENGINE_NUMBERS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), template) for pattern, template in (
        (r"There is no card at position (\d+): that village has (\d+) cards \(0 to -?\d+\)\.",
         "There is no card #{2}: that village has {1} cards (#1 to #{1})."),
        (r"You have no card at position (\d+): your village has (\d+) cards \(0 to -?\d+\)\.",
         "You have no card #{2}: your village has {1} cards (#1 to #{1})."),
        (r"There is no village (\d+): villages are numbered 0 to (\d+)\.",
         "There is no player {2}: players are numbered 1 to {3}."),
        (r"There is no seat (\d+) in this game\.", "There is no player {1} in this game."),
        (r"It's not your turn: seat (\d+) is playing\.",
         "It's not your turn: player {1} is playing."),
        (r"Position (\d+) is not one of your facedown cards\.",
         "Card #{1} is not one of your facedown cards."),
        (r"The pile has (\d+) cards \(0 = bottom to -?\d+ = top\)\.",
         "The pile has {0} cards (1 = bottom to {0} = top)."),
        (r"The deck has (\d+) cards \(0 = top to -?\d+\)\.",
         "The deck has {0} cards (1 = top to {0})."),
        (r"This page is ahead of the game: step (\d+) has not happened \(the game is at "
         r"step (\d+)\)\.", "This reply answers a mail about a position the game has "
                             "not reached."),
    ))
_ENGINE_PHRASES = (
    ('like {"type": "peek", "positions": [0, 1]}', 'like "peek 1 2"'),
    ("Positions are whole numbers, 0 for your leftmost card.",
     "Cards are numbered from 1, your leftmost card."),
    ("Say which of your cards to exchange: 'positions' is a list like [0] or [1, 3].",
     'Say which of your cards to exchange, like "X 1" or "X 2 4".'),
    ("'into' must be one of the positions you exchange.",
     '"into" must be one of the cards you exchange.'),
)
_SAY_WHICH = re.compile(r"Say which (.+?) with a whole number in '\w+'\.")


def mail_words(message: str) -> str:
    """An engine (or service) refusal as a mail says it: every card, player, pile and
    deck number counted from 1, as the menu counts, and commands instead of JSON."""
    text = str(message)
    for pattern, template in _ENGINE_NUMBERS:
        text = pattern.sub(functools.partial(_plus_one, template=template), text)
    for engine_words, words in _ENGINE_PHRASES:
        text = text.replace(engine_words, words)
    return _SAY_WHICH.sub(lambda m: f"Say which {m.group(1)} by its number (from 1).", text)
