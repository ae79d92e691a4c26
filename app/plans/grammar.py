"""The words of plans and standing orders in a reply or on the seat page (issue 35):
words -> the JSON form of ``app.engine.plans``, pure text.

A plan is a line of steps separated by commas (or "then"): "TAKE, EXCHANGE 3";
"DRAW, KEEP AT 2 IF 3 OR LESS, ELSE DISCARD"; "DRAW, DISCARD, SKIP". A clause with IF,
and the ELSE after it, are choices of one step. A sentence (between ";") that starts with
ALWAYS or EVERY ROUND is a standing order: "ALWAYS PEEK 1 2", "ALWAYS SKIP SPLIT SEER",
"ALWAYS DISCARD IF 9 OR MORE"; "NO ORDERS" clears them, "NO PLAN" cancels a plan that
waits. The shapes, their limits and what they do are ``app.engine.plans``'; this module
reads the words around them (commas, IF/ELSE, conditions, ALWAYS, KEEP AT).

A step's own move is a one-line reply command ("DRAW", "X 2", "PEEK 1 2"), which
``app.mail.commands`` reads: that module is the reply grammar's entry (``parse`` reads a
plan here first) and is above this package, so it hands its readers over
(``Commands``) instead of this module importing them. Its words, its numbers counted
from 1 and its normalised text are then the same in a plan as in a single command.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from app.engine import plans
from app.i18n import N_, _

#: Between the steps of a plan (and the choices of one step).
_CLAUSES = re.compile(r"\s*(?:,|;|\bthen\b|\band then\b)\s*", re.I)
_SENTENCES = re.compile(r"\s*;\s*")
_ORDER_START = re.compile(r"^(always|every round|each round)\s+(.*)$")
_ORDER_END = re.compile(r"^(.*?)\s+(every round|each round|always)$")
CLEAR_ORDERS = ("no orders", "clear orders", "orders off", "stop orders", "cancel orders",
                "no standing orders", "clear standing orders")
CANCEL_PLAN = ("no plan", "cancel plan", "cancel my plan", "clear plan", "plan off")
_KEEP = re.compile(r"^(?:keep|put|place)(?: it)?(?: (?:at|in|into|as|on))?(?: card| my card| my)? (\d{1,2})$")
_FILLER = ("it is ", "it's ", "it s ", "its ", "the card is ", "card is ", "it ")
_LESS = ("or less", "or lower", "or below", "or under", "or fewer", "or smaller")
_MORE = ("or more", "or higher", "or above", "or over", "or greater", "or bigger")
_LT = ("less than", "lower than", "smaller than", "under", "below", "fewer than")
_GT = ("more than", "higher than", "greater than", "bigger than", "over", "above")
_NAMES = {name.lower(): name for name in
          ("Nelly", "Illusionist", "Simon", "Spotter", "Gambler", "Tanner", "Twister", "Ghost",
           "Split Seer", "Obsessor", "Dracula", "Underminer", "Drunk", "Mad Bomber")}
_ABILITY_WORDS = {"split seer": "seer", "seer": "seer", "twister": "twister", "ghost": "ghost",
                  "dracula": "dracula", "underminer": "underminer", "drunk": "drunk",
                  "spotter": "spotter", "nelly": "nelly", "mad bomber": "bomb",
                  "bomber": "bomb"}

PLAN_HELP = N_('A plan lists the steps of your turn with commas, like "DRAW, KEEP AT 2 IF 3 '
             'OR LESS, ELSE DISCARD"; a standing order starts with ALWAYS, like "ALWAYS '
             'PEEK 1 2".')

#: What a plan read to: ``({"plan": <plan JSON> | None, "orders": [<order JSON>...],
#: "clear_orders": bool, "cancel": bool}, the first step's action when it has no
#: condition, else None)``.
Read = tuple[dict[str, Any], dict[str, Any] | None]


class PlanWords(ValueError):
    """A line that is a plan, but one we cannot read: the words say why (``limit``: it
    reads, but is over a limit of ``engine.plans``, whose words are said as they are)."""

    def __init__(self, words: str, limit: bool = False) -> None:
        super().__init__(words)
        self.limit = limit


def _plan_error(exc: plans.PlanError) -> PlanWords:
    return PlanWords(str(exc), limit=isinstance(exc, plans.OverLimit))


@dataclass(frozen=True)
class Commands:
    """The one-line reply commands a plan's steps are written in (``app.mail.commands``)."""

    #: A line as lower-case words, the punctuation around them gone.
    normalise: Callable[[str], str]
    #: The words of one step as one move's action; ``ValueError`` with words if none.
    action: Callable[[str], dict[str, Any]]
    #: A card number as people count it (from 1), as the engine's index (``ValueError``).
    card: Callable[[str], int]


class Grammar:
    """The plan grammar over the one-line commands it is handed."""

    def __init__(self, commands: Commands) -> None:
        self.commands = commands

    def read(self, line: str) -> Read | None:
        """A plan and/or standing orders, None when the line is not one (a single command
        reads as one). ``PlanWords`` when it looks like a plan but does not read."""
        text = re.sub(r"#\s*(\d)", r"card \1", str(line))
        if not self._is_plan(text):
            return None
        return self._payload(text)

    def _is_plan(self, text: str) -> bool:
        normalise = self.commands.normalise
        lowered = f" {text.lower()} "
        return bool(_CLAUSES.search(text) or " if " in lowered
                    or _ORDER_START.match(normalise(text)) or _ORDER_END.match(normalise(text))
                    or normalise(text) in CLEAR_ORDERS or normalise(text) in CANCEL_PLAN)

    def _payload(self, text: str) -> Read:
        said_steps: list[str] = []
        orders: list[dict[str, Any]] = []
        steps: list[dict[str, Any]] = []
        clear = cancel = False
        for sentence in _SENTENCES.split(text.strip()):
            said = self.commands.normalise(sentence)
            if not said:
                continue
            if said in CLEAR_ORDERS:
                clear = True
                continue
            if said in CANCEL_PLAN:
                cancel = True
                continue
            start = _ORDER_START.match(said) or _ORDER_END.match(said)
            if start is not None:
                body = start.group(2) if start.re is _ORDER_START else start.group(1)
                orders.append(self._order(sentence, body))
                continue
            steps.extend(self._steps(sentence))
            said_steps.append(" ".join(sentence.split()).upper())
        if not (steps or orders or clear or cancel):
            raise PlanWords(_("There is no step in it."))
        plan = None
        first: dict[str, Any] | None = None
        if steps:
            try:
                checked = plans.from_json({"steps": steps, "text": "; ".join(said_steps)},
                                          sent=True)
            except plans.PlanError as exc:
                raise _plan_error(exc) from None
            plan = checked.to_json()
            opening = checked.steps[0].choices
            if len(opening) == 1 and opening[0].when is None:
                first = dict(opening[0].action)
        try:  # the API's own check of a list of orders, its limit and words included
            plans.orders_from_json(orders, sent=True)
        except plans.PlanError as exc:
            raise _plan_error(exc) from None
        return {"plan": plan, "orders": orders, "clear_orders": clear, "cancel": cancel}, first

    def _steps(self, sentence: str) -> list[dict[str, Any]]:
        """The steps of one sentence of a plan (commas between steps, IF/ELSE within one)."""
        steps: list[dict[str, Any]] = []
        for clause in _CLAUSES.split(sentence):
            said = self.commands.normalise(clause)
            if not said:
                continue
            choice, conditional, is_else = self._choice(said)
            open_step = steps[-1] if steps else None
            continues = open_step is not None and open_step["choices"][-1].get("if") is not None
            if is_else:
                if not continues:
                    raise PlanWords(_('"%(clause)s" has no IF before it.', clause=clause.strip()))
            elif not (conditional and continues):
                steps.append({"choices": [], "text": ""})
            step = steps[-1]
            step["choices"].append(choice)
            step["text"] = ", ".join(filter(None, [step["text"], " ".join(clause.split()).upper()]))
        return steps

    def _choice(self, said: str) -> tuple[dict[str, Any], bool, bool]:
        """One clause: ``(choice JSON, has a condition, is an ELSE)``."""
        is_else = False
        for word in ("else ", "otherwise ", "or else "):
            if said.startswith(word):
                said, is_else = said[len(word):], True
        condition = None
        if " if " in f" {said} ":
            head, _, tail = f" {said} ".partition(" if ")
            said, condition = head.strip(), self._condition(tail.strip())
        action = self._step_action(said)
        choice: dict[str, Any] = {"action": action}
        if condition is not None:
            choice["if"] = condition
        return choice, condition is not None, is_else

    def _step_action(self, said: str) -> dict[str, Any]:
        keep = _KEEP.match(said)
        if keep:
            return {"type": "exchange", "positions": [self._card(keep.group(1), said)]}
        if said in ("keep", "keep it"):
            raise PlanWords(_('Say where to keep it, like "KEEP AT 2".'))
        if said in ("discard it", "throw it away", "discard the card", "bin it"):
            return {"type": "discard"}
        if said in ("skip it", "skip ability", "skip the ability", "no thanks"):
            return {"type": "skip"}
        try:
            return self.commands.action(said)
        except ValueError as exc:
            raise PlanWords(_('"%(said)s": %(why)s', said=said, why=exc)) from None

    def _card(self, word: str, said: str) -> int:
        """A card number of the clause ``said`` ("keep at 0": cards count from 1)."""
        try:
            return self.commands.card(word)
        except ValueError as exc:
            raise PlanWords(_('"%(said)s": %(why)s', said=said, why=exc)) from None

    def _condition(self, said: str) -> dict[str, Any]:
        """The words after IF: "3 or less", "more than 8", "less than card 3", "a simon"."""
        text = said
        for filler in _FILLER:
            if text.startswith(filler):
                text = text[len(filler):]
        negated = re.match(r"^(?:not|no|isn t|is not)\s+(.*)$", text)
        named = re.sub(r"^(an? |the )", "", negated.group(1) if negated else text)
        if named in _NAMES or named.rstrip("s") in _NAMES:   # "a Simon", "not a Simon"
            return {"compare": "ne" if negated else "eq",
                    "name": _NAMES.get(named) or _NAMES[named.rstrip("s")]}
        text = re.sub(r"^(an? |the )", "", text)
        compare = "eq"
        suffixes: tuple[tuple[tuple[str, ...], str], ...] = ((_LESS, "le"), (_MORE, "ge"))
        for words, kind in suffixes:
            for word in words:
                if text.endswith(" " + word):
                    text, compare = text[:-len(word) - 1].strip(), kind
        prefixes: tuple[tuple[tuple[str, ...], str], ...] = (
            (("at most",), "le"), (("at least",), "ge"), (_LT, "lt"), (_GT, "gt"),
            (("not",), "ne"))
        for words, kind in prefixes:
            for word in words:
                if compare == "eq" and text.startswith(word + " "):
                    text, compare = text[len(word) + 1:].strip(), kind
        mine = re.fullmatch(r"(?:my |than my )?(?:card |my card |number )(\d{1,2})|my (\d{1,2})",
                            text)
        if mine:
            return {"compare": compare, "mine": self._card(mine.group(1) or mine.group(2),
                                                           f"if {said}")}
        if re.fullmatch(r"-?\d{1,2}", text):
            return {"compare": compare, "value": int(text)}
        raise PlanWords(_('"if %(said)s" is not a condition we can read (say "IF 3 OR LESS", '
                          '"IF 9 OR MORE", "IF LESS THAN #3", "IF A SIMON" or "IF NOT A '
                          'SIMON").', said=said))

    def _order(self, sentence: str, body: str) -> dict[str, Any]:
        """One standing order's JSON (see ``app.engine.plans.Order``)."""
        skip = re.fullmatch(r"(?:skip|decline|pass on|no)(?: the)? (.+)", body)
        if skip and skip.group(1) in _ABILITY_WORDS:
            return {"on": _ABILITY_WORDS[skip.group(1)], "choices": [{"action": {"type": "skip"}}],
                    "text": " ".join(sentence.split()).upper()}
        step = self._steps(body)
        if len(step) != 1:
            raise PlanWords(_('"%(sentence)s": a standing order is one step, like '
                              '"ALWAYS DISCARD IF 9 OR MORE".', sentence=sentence.strip()))
        return {**step[0], "text": " ".join(sentence.split()).upper()}
