"""Commands of play by replying: one line of text <-> one engine action (or a plan).

``command_for`` writes the command of a legal action (what the turn mail's
menu shows) and ``parse`` reads one back, so every command the menu offers
parses into exactly the action it was made from. People type numbers from 1
(the first card of a village, the first player, the top of the deck), the
engine counts from 0; this module is the only place that converts.

Short forms: D draw, T take, C call, S skip, X exchange ("X 2 5" exchanges my
cards #2 and #5). Long forms are the engine's action names with the same
arguments ("exchange 2 5 into 2 right", "twist 2 3" turns player 2's card #3).
Case, spaces and punctuation around the words do not matter. German and Japanese words
for every command work too, in any game (issue 50: "ZIEHEN", "引く", "HIKU", "ＫＥＥＰ　２"):
``app.plans.aliases`` turns them into these English words before a line is read. A line
of several steps
(a plan, standing orders: issue 35) is read by ``app.plans.grammar``, whose steps are
these commands (``read_plan`` hands it this module's readers).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Any

from app.engine import plans
from app.i18n import N_, _
from app.plans import aliases, grammar
from app.plans import words as refusals

#: Short letters and other words people use for an action name.
ALIASES = {
    "d": "draw", "t": "take", "c": "call", "s": "skip", "x": "exchange",
    "pass": "skip", "no": "skip", "swap": "exchange", "eye": "search", "stop": "done",
    "look at": "look", "keep": "exchange",
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
#: "I'm back" by replying (R29, R51): the seat's return, as its page's button; it also
#: ends a substitute vote about the seat (a player who answers is not away).
BACK_WORDS = frozenset({"back", "i m back", "im back", "i am back"})
#: The longest command line (a plan's or standing orders' too): one limit with the API's
#: (``plans.MAX_TEXT``, issue 45 item 5). A longer line is refused whole, never cut.
MAX_LINE = plans.MAX_TEXT
#: How much of an overlong line is read to tell a command refused for its length from a
#: long sentence that is no command at all.
LONGEST_READ = 10 * MAX_LINE
#: A reply that talks to the table (issue 20 item 2): its first line is "SAY nice one"
#: or "say: nice one", in any case; "sayonara" is not it. Talk is no move: it is read
#: from the first line of the person's words, or from a line under a command (issue 45
#: item 5), never from anywhere else, so nothing is posted by accident.
#: (German "SAGE ..." and Japanese "言う ..." too: issue 50.)
_SAY = re.compile(r"(?:say|sage|sag|iu|言う|いう)(?:\s*[:：、]|\s+|$)(.*)", re.I | re.S)


def said(text: str) -> str | None:
    """The words of a text that starts with ``SAY`` (what follows it, stripped), else
    None."""
    match = _SAY.match(str(text).lstrip())
    return match.group(1).strip() if match else None


def say_reply(own: str) -> "Parsed | None":
    """A ``SAY`` reply (issue 20 item 2): the first non-empty line of ``own`` (the
    person's own words, without the quoted mail and the signature:
    ``app.inbound.own_words.own_text``) starts with ``SAY`` (or ``say:``); what it says
    is the rest of that line and every line after it. None for any other text."""
    lines = str(own).replace("\r\n", "\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        return None
    first = said(lines[start])
    if first is None:
        return None
    kept = [first, *(line.rstrip() for line in lines[start + 1:])]
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
    #: What a ``SAY`` line under this command says at the table (issue 45 item 5): the
    #: reply does both, or its answer says which it did not do.
    also_say: str | None = None
    #: The line reads as a command but is over a limit (``problem`` names it): the reply
    #: is refused whole, and nothing else in it is read in its place.
    limit: bool = False
    #: An answer to the game's open vote (issue 21): True yes / accept, False no /
    #: decline / veto, None when the line is no answer.
    vote: bool | None = None
    #: ``BACK`` ("I'm back", R29): the seat returns from away.
    back: bool = False
    #: A plan for the rest of the turn and/or standing orders (issue 35, ``read_plan``):
    #: ``{"plan": <plan JSON> | None, "orders": [<order JSON>...], "clear_orders": bool,
    #: "cancel": bool}``; ``action`` is then the plan's first step when it has no
    #: condition (the move the reply makes now).
    plan: dict[str, Any] | None = None

    @property
    def readable(self) -> bool:
        return (self.action is not None or self.help or self.say is not None
                or self.vote is not None or self.plan is not None or self.back)


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
    text = "".join(ch if ch.isprintable() else " " for ch in str(line))
    return " ".join(_NOISE.sub(" ", text.lower()).replace(".", " ").split())


def parse(line: str) -> Parsed:
    """Read one command line. Never raises: a line we cannot read says why. A line over
    ``MAX_LINE`` that reads as a command is refused whole, the limit named (``limit``);
    one that does not is a sentence like any other (issue 45 item 5: a plan cut to fit
    meant something else)."""
    original = " ".join(str(line).split())
    if len(original) > MAX_LINE:
        return _too_long(original)
    return _parse(original)


def _too_long(original: str) -> Parsed:
    whole = _parse(original[:LONGEST_READ])   # (a look only: nothing is taken from it)
    if whole.readable or whole.limit:
        return Parsed(original, problem=plans.over_limit("text", len(original)), limit=True)
    return whole


def _parse(line: str) -> Parsed:
    original = " ".join(str(line).split())
    planned = _read_plan(line)
    if planned is not None:
        return planned
    text = normalise(aliases.english(line))
    if not text:
        return Parsed(original, problem=_("There is no command in it."))
    if text in HELP_WORDS:
        return Parsed(original, help=True)
    if text in VOTE_WORDS:
        return Parsed(original, vote=VOTE_WORDS[text])
    if text in BACK_WORDS:
        return Parsed(original, back=True)
    words = text.split()
    verb = words[0]
    rest = words[1:]
    if verb == "look" and rest[:1] == ["at"]:
        rest = rest[1:]
    verb = ALIASES.get(verb, verb)
    if verb not in SHAPES:
        return Parsed(original, problem=_('"%(word)s" is not a command we know.',
                                          word=words[0]))
    try:
        action = _arguments(verb, rest)
    except ValueError as exc:
        return Parsed(original, problem=str(exc))
    return Parsed(original, action=action)


def _number(word: str, what: str) -> int:
    """``word`` as a number; ``what``: "card", "seat", "value" or "pile"."""
    if not re.fullmatch(r"-?\d{1,3}", word):
        raise ValueError(_(refusals.SHOULD_BE[what], word=word))
    return int(word)


def _from_one(word: str, what: str) -> int:
    """A number people count from 1 (a card, a player, a pile card), as the engine's 0-based
    index: "0" or "-2" is refused here, in the menu's words, not by the engine in its own
    (issue 17 item 4: the mail says "Cards count from 1", the answer said "0 to 4")."""
    number = _number(word, what)
    if number < 1:
        raise ValueError(_(refusals.NOT_FROM_ONE[what], word=word))
    return number - 1


def _arguments(verb: str, words: list[str]) -> dict[str, Any]:
    action: dict[str, Any] = {"type": verb}
    if verb == "undermine" and words[:1] == ["pile"]:
        if len(words) != 2:
            raise ValueError(_('Say which pile card, like "undermine pile 2".'))
        action["pile"] = _from_one(words[1], "pile")
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
            raise ValueError(_(refusals.WANTS[name], verb=verb))
        if name == "positions":
            action[name] = [_from_one(w, "card") for w in words]
            words = []
        elif name == "end":
            if words[0] not in ("left", "right", "l", "r"):
                raise ValueError(_('"%(word)s" should be left or right.', word=words[0]))
            action[name] = "left" if words.pop(0).startswith("l") else "right"
        elif name == "value":
            action[name] = _number(words.pop(0), "value")
        else:
            action[name] = _from_one(words.pop(0), "seat" if name == "seat" else "card")
    if words:
        raise ValueError(_('"%(words)s" is more than "%(verb)s" takes.',
                           words=" ".join(words), verb=verb))
    return action




def _exchange(action: dict[str, Any], words: list[str]) -> dict[str, Any]:
    """``X 2 5 [into 2] [left|right]``; "my", "card(s)", "and", "with" may stand between."""
    positions: list[int] = []
    words = list(words)
    while words:
        word = words.pop(0)
        if re.fullmatch(r"\d{1,3}", word):
            positions.append(_from_one(word, "card"))
        elif word == "into" and words:
            action["into"] = _from_one(words.pop(0), "card")
        elif word in ("left", "right", "l", "r"):
            action["end"] = "left" if word.startswith("l") else "right"
        elif word not in ("and", "with", "for", "card", "cards", "my", "number", "numbers",
                          "it", "at", "as", "on", "in"):
            raise ValueError(_('"%(word)s" is not part of an exchange.', word=word))
    if not positions:
        raise ValueError(_('Say which of your cards, like "X 2" or "X 2 5".'))
    action["positions"] = positions
    return action


# -- the engine's words, counted as people count ----------------------------------

def _plus_one(match: re.Match[str], template: str) -> str:
    numbers = [int(n) for n in match.groups()]
    return _(template).format(*numbers, *(n + 1 for n in numbers))


_SAY_WHICH = re.compile(r"Say which (.+?) with a whole number in '\w+'\.")


def mail_words(message: str) -> str:
    """An engine (or service) refusal as a mail says it: every card, player, pile and
    deck number counted from 1, as the menu counts, and commands instead of JSON."""
    text = str(message)
    for pattern, template in refusals.ENGINE_NUMBERS:
        text = pattern.sub(functools.partial(_plus_one, template=template), text)
    for engine_words, said in refusals.ENGINE_PHRASES:
        text = text.replace(engine_words, _(said))
    return _SAY_WHICH.sub(lambda m: _("Say which %(what)s by its number (from 1).",
                                      what=m.group(1)), text)


# -- plans and standing orders (issue 35): their grammar is ``app.plans.grammar`` ----------

def _step(said: str) -> dict[str, Any]:
    """The words of one step of a plan as one command's action (``ValueError`` with why)."""
    parsed = parse_plain(said)
    if parsed.action is None:
        raise ValueError(parsed.problem or _("It is not a command we know."))
    return parsed.action


_PLANS = grammar.Grammar(grammar.Commands(
    normalise=normalise, action=_step,
    card=functools.partial(_from_one, what="card")))


def read_plan(line: str) -> Parsed | None:
    """A plan and/or standing orders (``app.plans.grammar``), None when the line is not one
    (a single command reads as before). A line that looks like a plan but does not read is
    answered with why; a line like "X 2, 5" that is one command after all reads as that
    command. A plan over ``MAX_LINE`` is refused whole, the limit named (as ``parse`` does)."""
    if len(" ".join(str(line).split())) > MAX_LINE:
        refused = parse(line)
        return refused if refused.limit else None
    return _read_plan(line)


def _read_plan(line: str) -> Parsed | None:
    original = " ".join(str(line).split())
    try:
        read = _PLANS.read(aliases.english(line))
    except grammar.PlanWords as exc:
        if exc.limit:   # the API's words, as they are (issue 45 item 5)
            return Parsed(original, problem=str(exc), limit=True)
        single = _single(line)
        if single is not None:
            return single
        return Parsed(original, problem=f"{exc} {_(grammar.PLAN_HELP)}")
    if read is None:
        return None
    payload, first = read
    return Parsed(original, action=first, plan=payload)


def _single(line: str) -> Parsed | None:
    """The line as one old-style command ("X 2, 5"), if it reads as one."""
    parsed = parse_plain(line)
    single = " ".join(str(line).split())[:MAX_LINE]
    return replace(parsed, line=single) if parsed.action is not None else None


def parse_plain(text: str) -> Parsed:
    """``parse`` without plans (the words of one step)."""
    words = normalise(aliases.english(text)).split()
    if not words:
        return Parsed(text, problem=_("There is no command in it."))
    verb = ALIASES.get(words[0], words[0])
    if verb not in SHAPES:
        return Parsed(text, problem=_('"%(word)s" is not a command we know.', word=words[0]))
    try:
        return Parsed(text, action=_arguments(verb, words[1:]))
    except ValueError as exc:
        return Parsed(text, problem=str(exc))
