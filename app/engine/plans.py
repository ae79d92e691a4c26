"""Deciding ahead (issue 35): a plan for the rest of a turn, and standing orders.

Long because: a plan's shapes, what it does next on a view, its words and its JSON
form change together (a new condition is all four); apart they would be four modules
that import each other's names.

Pure, like the rest of the engine, and it reads only a seat's *view* (``engine.view``):
a plan can never act on a card its seat does not know, so nothing it does tells more
than the move itself shows.

- A **plan** is a list of steps; a step is a list of choices, each an engine action
  with at most one simple condition (``Condition``) on the card the seat holds (just
  drawn or taken; before the turn's first step, the top of the discard pile) or on a
  card of its own village it knows. The first choice whose condition holds is taken;
  "ELSE" is a choice without one. ``decide`` says what the plan does next on a view:
  ``Move`` (this action, now), ``Wait`` (the seat's decision is not the plan's yet:
  its turn has not come, or its round-start peek comes first), ``Done`` (its turn is
  over), or ``Stop`` (the step does not fit, or no condition holds: the reason in words).
  The server applies a ``Move`` through the same path as any move and may still find
  it illegal (the engine's words then stop the plan).
- A **standing order** (``Order``) holds until changed: one step that answers one kind
  of decision whenever the seat faces it ("ALWAYS PEEK 1 2", "ALWAYS SKIP SEER",
  "ALWAYS DISCARD IF 9 OR MORE"). When none of its choices holds, it does nothing and
  the seat is asked as usual.

The words people write are read by ``app.plans.grammar`` (its steps are the reply
commands of ``app.mail.commands``); this module holds the shapes, their JSON form
(``from_json``: what the API and the store keep, checked like any action) and the words
said back ("When you draw: keep it at #2 if it is 3 or less, else discard it").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import action_schema, cards
from .meaning import decision_of
from app.i18n import _, current, pgettext
from app.i18n.forms import names as and_list

from .words import PENDING_WORDS, card_words, pending_words, spot, with_article

View = Mapping[str, Any]

#: The decisions each action type answers (``meaning.decision_of``'s names).
ANSWERS: dict[str, frozenset[str]] = {
    "draw": frozenset({"turn"}), "take": frozenset({"turn"}), "call": frozenset({"turn"}),
    "search": frozenset({"turn"}), "gamble": frozenset({"turn", "gamble_more"}),
    "pick": frozenset({"search"}), "peek": frozenset({"peek"}),
    "exchange": frozenset({"drawn", "taken"}), "tanner": frozenset({"drawn"}),
    "discard": frozenset({"drawn", "gamble_win"}), "twist": frozenset({"twister"}),
    "ghost": frozenset({"ghost"}), "see": frozenset({"seer"}),
    "dracula": frozenset({"dracula"}), "undermine": frozenset({"underminer"}),
    "drunk": frozenset({"drunk"}), "spot": frozenset({"spotter"}),
    "look": frozenset({"spotter"}), "done": frozenset({"gamble_more"}),
    "nelly": frozenset({"nelly"}), "bomb": frozenset({"bomb"}),
    "simon": frozenset({"simon_claims"}),
    "skip": frozenset({"twister", "ghost", "seer", "dracula", "underminer", "drunk",
                       "spotter", "nelly", "bomb", "simon_claims"}),
}
#: Decisions a standing order may answer, and how a person names them after SKIP.
ABILITY_NAMES: dict[str, str] = {
    "twister": "twister", "ghost": "ghost", "seer": "split seer", "dracula": "dracula",
    "underminer": "underminer", "drunk": "drunk", "spotter": "spotter", "nelly": "nelly",
    "bomb": "mad bomber",
}
#: Comparisons a condition may make, and how they are said.
COMPARE = {"le": "{} or less", "ge": "{} or more", "lt": "less than {}", "gt": "more than {}",
           "eq": "{}", "ne": "not {}"}
#: The limits of what may be sent, one source for the JSON API (``from_json``,
#: ``orders_from_json``), the reply grammar (``app.mail.commands``) and the page (issue
#: 45 item 5): what one refuses the others refuse, in the same words (``over_limit``).
#: Nothing over a limit is ever cut to fit: it is refused whole, the limit named.
MAX_STEPS = 8
MAX_CHOICES = 4
MAX_ORDERS = 8
#: The longest line a reply's command, plan or orders (and a plan's or step's own text)
#: may be: a plan cut at 200 characters may mean something else ("... IF 10 OR MORE"
#: cut after "IF 10" is "IF 10").
MAX_TEXT = 200
#: The comparisons a condition on a card's name may make ("it is a Simon", "it is not").
NAME_COMPARE = ("eq", "ne")


def compare_words(compare: str, what: str) -> str:
    """'it is 3 or less', 'it is your card #2', in the reader's language."""
    if compare == "le":
        return _("it is %(what)s or less", what=what)
    if compare == "ge":
        return _("it is %(what)s or more", what=what)
    if compare == "lt":
        return _("it is less than %(what)s", what=what)
    if compare == "gt":
        return _("it is more than %(what)s", what=what)
    if compare == "ne":
        return _("it is not %(what)s", what=what)
    return _("it is %(what)s", what=what)


def over_limit(what: str, count: int) -> str:
    """The words refusing ``count`` steps, choices, orders or characters (``what``), the
    limit named; the API, the page and a reply's answer say exactly these."""
    if what == "steps":
        said = _("A plan has at most %(most)s steps; this one has %(count)s.",
                 most=MAX_STEPS, count=count)
    elif what == "choices":
        said = _("A step has at most %(most)s choices (each IF, and the ELSE); this one has "
                 "%(count)s.", most=MAX_CHOICES, count=count)
    elif what == "orders":
        said = _("You can keep at most %(most)s standing orders; this would make %(count)s.",
                 most=MAX_ORDERS, count=count)
    else:
        said = _("A command, plan or set of standing orders is at most %(most)s characters "
                 "on one line; this one has %(count)s.", most=MAX_TEXT, count=count)
    return _("%(refused)s Nothing of it was kept, so nothing was changed.", refused=said)


class PlanError(ValueError):
    """A plan that cannot be read or makes no sense, with words for the player."""


class OverLimit(PlanError):
    """A plan or orders over one of the limits above (``over_limit`` words it): refused
    whole, wherever it came from."""


@dataclass(frozen=True)
class Condition:
    """A condition on the card the seat holds (or, before it holds one, the top discard):
    its value compared with a number (``value``) or with the seat's own card at
    ``mine`` (as the seat knows it), or its name (``name``, such as "Simon")."""

    compare: str = "eq"
    value: int | None = None
    mine: int | None = None
    name: str | None = None

    def holds(self, view: View, seat: int) -> bool | None:
        """True or False; None when the seat does not know what the condition asks."""
        card = subject_card(view, seat)
        if card is None or card.get("value") is None:
            return None
        if self.name is not None:
            named = cards.NAME.get(card["value"], "").lower() == self.name.lower() or (
                card.get("id") is not None and cards.name(card["id"]).lower() == self.name.lower())
            return named if self.compare == "eq" else not named   # "ne": it is not one
        other = self.value
        if self.mine is not None:
            village = (view.get("villages") or [])[seat] if seat < len(view.get("villages") or []) else []
            if not 0 <= self.mine < len(village) or village[self.mine].get("value") is None:
                return None
            other = village[self.mine]["value"]
        assert other is not None
        mine = int(card["value"])
        return {"le": mine <= other, "ge": mine >= other, "lt": mine < other,
                "gt": mine > other, "eq": mine == other, "ne": mine != other}[self.compare]

    def words(self) -> str:
        if self.name is not None:
            card = pgettext("card", self.name)
            if current() == "en":  # (English says "a Simon", "an Ogre")
                return f"it is {'not ' if self.compare == 'ne' else ''}{with_article(card)}"
            if self.compare == "ne":
                return _("it is not the %(card)s", card=card)
            return _("it is the %(card)s", card=card)
        if self.mine is not None:
            return compare_words(self.compare, _("your card %(spot)s", spot=spot(self.mine)))
        return compare_words(self.compare, str(self.value))

    def unknown(self, view: View, seat: int) -> str:
        """Why ``holds`` said None, in words."""
        if subject_card(view, seat) is None:
            return _("you hold no card to look at")
        return _("you do not know your card %(spot)s", spot=spot(self.mine or 0))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"compare": self.compare}
        for key in ("value", "mine", "name"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class Choice:
    action: dict[str, Any]
    when: Condition | None = None

    def to_json(self) -> dict[str, Any]:
        return {"action": dict(self.action),
                **({"if": self.when.to_json()} if self.when is not None else {})}


@dataclass(frozen=True)
class Step:
    choices: tuple[Choice, ...]
    #: The step as the player wrote it ("KEEP AT 2 IF 3 OR LESS, ELSE DISCARD").
    text: str = ""

    @property
    def answers(self) -> frozenset[str]:
        return frozenset().union(*(ANSWERS.get(c.action["type"], frozenset())
                                   for c in self.choices))

    def to_json(self) -> dict[str, Any]:
        return {"choices": [c.to_json() for c in self.choices], "text": self.text}


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"steps": [s.to_json() for s in self.steps], "text": self.text}


@dataclass(frozen=True)
class Order:
    """A standing order: ``step`` answers the decision ``on`` whenever the seat faces it."""

    on: str
    step: Step

    def to_json(self) -> dict[str, Any]:
        return {"on": self.on, **self.step.to_json()}


#: Actions whose ``positions`` are the seat's own cards, and those whose ``seat`` and
#: ``position`` name a card of a village (the target's).
_OWN_POSITIONS = frozenset({"peek", "exchange"})
_TARGET_POSITION = frozenset({"twist", "ghost", "see", "undermine", "nelly", "bomb"})


def missing_card(steps: "Sequence[Step]", view: Mapping[str, Any], seat: int) -> str | None:
    """Why a plan or order names a card that is not there, in a player's numbers (from 1),
    as it arrives (issue 51 item 3: "X 9" for a six-card village was kept without a word
    and failed at its turn); None when every card it names exists now."""
    villages = list(view.get("villages") or [])
    for step in steps:
        for choice in step.choices:
            action = choice.action
            kind = action.get("type")
            if kind in _OWN_POSITIONS:
                size = len(villages[seat]) if 0 <= seat < len(villages) else 0
                named = [int(p) for p in action.get("positions") or []]
                whose = "yours"
            elif kind in _TARGET_POSITION and isinstance(action.get("seat"), int) \
                    and "position" in action:
                target = int(action["seat"])
                if not 0 <= target < len(villages):
                    return _("“%(step)s” names player %(player)s: players are numbered 1 "
                             "to %(count)s.", step=step.text, player=target + 1,
                             count=len(villages))
                size, named, whose = len(villages[target]), [int(action["position"])], \
                    "that"
            else:
                continue
            for position in named:
                if not 0 <= position < size:
                    if whose == "yours":
                        return _("“%(step)s” names card #%(card)s, and your village has "
                                 "%(size)s cards (#1 to #%(size)s).", step=step.text,
                                 card=position + 1, size=size)
                    return _("“%(step)s” names card #%(card)s, and that village has "
                             "%(size)s cards (#1 to #%(size)s).", step=step.text,
                             card=position + 1, size=size)
    return None


# -- what a plan does next -----------------------------------------------------------

@dataclass(frozen=True)
class Move:
    action: dict[str, Any]
    step: Step


@dataclass(frozen=True)
class Wait:
    pass


@dataclass(frozen=True)
class Done:
    #: Steps left that were not needed ("SKIP": the card had no ability), in words.
    unused: str = ""


@dataclass(frozen=True)
class Stop:
    reason: str
    step: Step | None = None


Next = Move | Wait | Done | Stop


@dataclass
class Progress:
    """Where a plan stands: the step it is at, the round it was sent in, whether its
    turn has begun (then, once the seat no longer plays that turn, the plan is over)."""

    at: int = 0
    round: int = 0
    began: bool = False
    did: list[str] = field(default_factory=list)
    #: The step the plan was sent at: a turn of the seat begun after it without the
    #: plan (a timeout passed it, the seat drew on its page) ends the plan.
    sent_step: int = 0


def subject_card(view: View, seat: int) -> Mapping[str, Any] | None:
    """The card a condition speaks of: the one the seat holds, else the top discard."""
    if view.get("hand_seat") == seat and view.get("hand"):
        return view["hand"]
    pile = view.get("discard") or []
    return pile[-1] if pile else None


def _turn_over(view: View, seat: int, progress: Progress) -> bool:
    kind = decision_of(view, seat)
    return progress.began and (view.get("current") != seat or kind == "turn"
                               or view.get("phase") != "play")


def decide(plan: Plan, progress: Progress, view: View, seat: int) -> Next:
    """What ``plan`` does now for ``seat`` (see the module's docstring), on its view."""
    if progress.at >= len(plan.steps):
        return Done()
    step = plan.steps[progress.at]
    left = plan.steps[progress.at:]
    if view.get("phase") == "over" or int(view.get("round") or 0) != progress.round \
            or (view.get("phase") == "resolve" and not progress.began):
        if progress.began:
            return Done(_unused(left))
        return Stop(_("the round ended before your turn came"), step)
    if not progress.began:
        begun = _begun_without(view, seat, progress.sent_step)
        if begun is not None:
            return Stop(begun, step)
    if _turn_over(view, seat, progress):
        return Done(_unused(left)) if all(_optional(s) for s in left) else Stop(
            _("your turn ended before this step"), step)
    kind = decision_of(view, seat)
    if not kind:
        return Wait()
    if kind == "peek" and "peek" not in step.answers:
        return Wait()   # the round-start peek comes first (R5); its own mail asks for it
    if kind not in step.answers:
        if _optional(step) and all(_optional(s) for s in left):
            return Wait()   # (an ability the plan answers may still come this turn)
        return Stop(_("you must now %(decision)s",
                      decision=pending_words(kind) if kind in PENDING_WORDS
                      else kind.replace("_", " ")), step)
    return _choose(step, view, seat, kind)


#: Events that begin a seat's turn (a timeout's ``pass`` passes it, R29).
TURN_EVENTS = frozenset({"draw", "take", "call", "gamble", "search", "pass"})


def _begun_without(view: View, seat: int, since: int) -> str | None:
    """Why a waiting plan's turn is gone: the seat's turn began after ``since`` without it."""
    for event in view.get("log") or []:
        if event.get("seat") == seat and int(event.get("step") or 0) > since \
                and event.get("type") in TURN_EVENTS:
            if event["type"] == "pass":
                return _("time ran out and your turn was passed before your plan could "
                         "play it")
            chose = {"draw": pgettext("move", "draw"), "take": pgettext("move", "take"),
                     "call": pgettext("move", "call"), "gamble": pgettext("move", "gamble"),
                     "search": pgettext("move", "search")}.get(event["type"], event["type"])
            return _("your turn began without it (you chose %(move)s yourself)", move=chose)
    return None


def _choose(step: Step, view: View, seat: int, kind: str) -> Move | Stop:
    for choice in step.choices:
        if kind not in ANSWERS.get(choice.action["type"], ()):
            continue
        if choice.when is None:
            return Move(dict(choice.action), step)
        holds = choice.when.holds(view, seat)
        if holds is None:
            return Stop(choice.when.unknown(view, seat), step)
        if holds:
            return Move(dict(choice.action), step)
    card = subject_card(view, seat)
    return Stop(f"none of its conditions held: the card is {_card(card)}", step)


def order_move(orders: Sequence[Order], view: View, seat: int) -> tuple[Order, dict[str, Any]] | None:
    """The standing order that answers the seat's decision now, with its action (None:
    no order answers it, or none of its choices holds)."""
    kind = decision_of(view, seat)
    if not kind:
        return None
    for order in orders:
        if order.on != kind:
            continue
        found = _choose(order.step, view, seat, kind)
        if isinstance(found, Move):
            return order, found.action
    return None


def _optional(step: Step) -> bool:
    """A step that answers only an ability the turn may not offer (SKIP, SEE...)."""
    return not (step.answers & {"turn", "drawn", "taken", "peek", "search"})


def _unused(steps: Sequence[Step]) -> str:
    return and_list([s.text or "a step" for s in steps])


def _card(card: Mapping[str, Any] | None) -> str:
    if not card:
        return _("none")
    if card.get("id") is None:
        return _("a card you do not know")
    if current() == "en":
        return with_article(card_words(card))
    return card_words(card)


def began_with(action: Mapping[str, Any]) -> bool:
    """Whether an action begins a turn (the plan's turn has begun once it is applied)."""
    return "turn" in ANSWERS.get(str(action.get("type")), ())


# -- words -----------------------------------------------------------------------------

def action_words(action: Mapping[str, Any]) -> str:
    """An action of a plan in words ("keep it at #2", "discard it")."""
    kind = str(action.get("type"))
    positions = list(action.get("positions") or [])
    if kind == "draw":
        return pgettext("move", "draw")
    if kind == "take":
        return _("take the top discard")
    if kind == "call":
        return pgettext("move", "call")
    if kind == "exchange":
        if len(positions) == 1:
            return _("keep it at %(spot)s", spot=spot(positions[0]))
        return _("exchange it for your cards %(spots)s",
                 spots=and_list([spot(p) for p in positions]))
    if kind == "discard":
        if "position" not in action:
            return _("discard it")
        return _("discard your card %(spot)s", spot=spot(action["position"]))
    if kind == "skip":
        return _("skip the ability")
    if kind == "peek":
        return _("peek at %(spots)s", spots=and_list([spot(p) for p in positions]))
    if kind == "tanner":
        if action.get("end", "right") == "left":
            return _("place the Tanner at the left end")
        return _("place the Tanner at the right end")
    if kind in ("see", "twist", "ghost", "undermine") and "seat" in action:
        verb = {"see": pgettext("move", "see"), "twist": pgettext("move", "twist"),
                "ghost": pgettext("move", "ghost"),
                "undermine": pgettext("move", "undermine")}[kind]
        return _("%(verb)s player %(player)s's card %(spot)s", verb=verb,
                 player=int(action["seat"]) + 1, spot=spot(action.get("position", 0)))
    return kind


def step_words(step: Step) -> str:
    parts: list[str] = []
    for choice in step.choices:
        said = action_words(choice.action)
        if choice.when is not None:
            said = _("%(action)s if %(condition)s", action=said, condition=choice.when.words())
        elif parts:
            said = _("else %(action)s", action=said)
        parts.append(said)
    return _(", ").join(parts)


def plan_words(plan: Plan) -> str:
    """What a plan will do, in one sentence for the answer to it."""
    said = []
    for index, step in enumerate(plan.steps):
        words = step_words(step)
        before = plan.steps[index - 1] if index else None
        if before is not None and before.answers & {"turn"} and \
                any(c.action["type"] == "draw" for c in before.choices) and step.answers & {"drawn"}:
            words = _("when you draw: %(step)s", step=words)
        elif _optional(step):
            words = _("%(step)s (if it is offered)", step=words)
        said.append(words)
    text = _("; then ").join(said)
    return _("%(plan)s.", plan=text[:1].upper() + text[1:])


def order_words(order: Order) -> str:
    if order.on == "peek":
        return _("Every round: %(step)s.", step=step_words(order.step))
    if order.on in ABILITY_NAMES and all(c.action["type"] == "skip" for c in order.step.choices):
        return _("Always skip the %(card)s.",
                 card=pgettext("card", ABILITY_NAMES[order.on].title()))
    if order.on == "drawn":
        return _("When you draw: %(step)s.", step=step_words(order.step))
    if order.on == "taken":
        return _("When you take: %(step)s.", step=step_words(order.step))
    return _("Always, for %(decision)s: %(step)s.",
             decision=pending_words(order.on) if order.on in PENDING_WORDS else order.on,
             step=step_words(order.step))


def did_words(action: Mapping[str, Any], before: View, after: View, seat: int) -> str:
    """What one applied step did, from the seat's own views before and after it."""
    kind = str(action.get("type"))
    hand_after = after.get("hand") if after.get("hand_seat") == seat else None
    hand_before = before.get("hand") if before.get("hand_seat") == seat else None
    if kind == "draw":
        return _("drew %(card)s", card=_card(hand_after))
    if kind == "take":
        return _("took %(card)s", card=_card(hand_after))
    if kind == "exchange":
        del hand_before  # (the card kept is the one said when it was drawn or taken)
        positions = list(action.get("positions") or [])
        if len(positions) == 1:
            return _("kept it at %(spot)s", spot=spot(positions[0]))
        return _("exchanged it for your cards %(spots)s",
                 spots=and_list([spot(p) for p in positions]))
    if kind == "discard" and "position" not in action:
        return _("discarded it")
    if kind == "skip":
        ability = ABILITY_NAMES.get(str(decision_of(before, seat)))
        if ability is None:
            return _("skipped the Ability")
        return _("skipped the %(card)s", card=pgettext("card", ability.title()))
    if kind == "peek":
        seen = []
        village = (after.get("villages") or [[]] * (seat + 1))[seat]
        for p in action.get("positions") or []:
            card = village[p] if 0 <= p < len(village) else None
            seen.append(f"{spot(p)} ({_card(card)})")
        return _("peeked at %(spots)s", spots=and_list(seen))
    return action_words(action)


# -- the JSON form ---------------------------------------------------------------------

def _condition(data: Any) -> Condition:
    if not isinstance(data, Mapping):
        raise PlanError('A condition is an object, like {"compare": "le", "value": 3}.')
    compare = data.get("compare", "eq")
    if compare not in COMPARE:
        raise PlanError(f"A condition compares with one of {', '.join(COMPARE)}.")
    value, mine, name = data.get("value"), data.get("mine"), data.get("name")
    if name is not None:
        if not isinstance(name, str) or name.lower() not in {n.lower() for n in cards.NAME.values()} | {
                f"{k} obsessor" for k in ("even", "odd", "low", "high")}:
            raise PlanError(f"{name!r} is not the name of a card.")
        if compare not in NAME_COMPARE:
            raise PlanError('A card\'s name is compared with "eq" (it is one) or "ne" (it '
                            f'is not), not {compare!r}.')
        return Condition(compare=compare, name=name.title())
    if mine is not None:
        if isinstance(mine, bool) or not isinstance(mine, int) or not 0 <= mine < 64:
            raise PlanError("'mine' is one of your cards, 0 for the leftmost.")
        return Condition(compare=compare, mine=mine)
    if isinstance(value, bool) or value not in action_schema.VALUES:
        raise PlanError("A condition's value is a card value: -1, 0, 2 to 13.")
    assert isinstance(value, int)
    return Condition(compare=compare, value=value)


def _text(data: Mapping[str, Any], sent: bool) -> str:
    """The text a plan or step came with: when ``sent`` (by a person or a program, not
    read back from the store, where a text made of a step's words may be longer),
    refused over ``MAX_TEXT``; never cut."""
    text = str(data.get("text") or "")
    if sent and len(text) > MAX_TEXT:
        raise OverLimit(over_limit("text", len(text)))
    return text


def _step(data: Any, sent: bool = False) -> Step:
    if not isinstance(data, Mapping) or not isinstance(data.get("choices"), list) \
            or not data["choices"]:
        raise PlanError(f"A step holds 1 to {MAX_CHOICES} choices.")
    if len(data["choices"]) > MAX_CHOICES:
        raise OverLimit(over_limit("choices", len(data["choices"])))
    choices = []
    for item in data["choices"]:
        if not isinstance(item, Mapping):
            raise PlanError('A choice is an object, like {"action": {"type": "discard"}}.')
        try:
            action = action_schema.check(item.get("action"))
        except action_schema.ActionRefused as exc:
            raise PlanError(str(exc)) from None
        if action["type"] not in ANSWERS:
            raise PlanError(f"A plan cannot {action['type']}.")
        when = _condition(item["if"]) if item.get("if") is not None else None
        choices.append(Choice(action, when))
    text = _text(data, sent)
    step = Step(tuple(choices), text)
    return Step(step.choices, text or step_words(step))


def from_json(data: Any, *, sent: bool = False) -> Plan:
    """A plan from its JSON form, checked (``PlanError`` says what is wrong); ``sent``: as
    it arrives (its texts are held to ``MAX_TEXT``), not as the store gives it back."""
    if not isinstance(data, Mapping) or not isinstance(data.get("steps"), list) \
            or not data["steps"]:
        raise PlanError(f'A plan is {{"steps": [...]}} with 1 to {MAX_STEPS} steps.')
    if len(data["steps"]) > MAX_STEPS:
        raise OverLimit(over_limit("steps", len(data["steps"])))
    steps = tuple(_step(s, sent) for s in data["steps"])
    return Plan(steps, _text(data, sent) or ", ".join(s.text for s in steps).upper())


def order_from_json(data: Any, *, sent: bool = False) -> Order:
    if not isinstance(data, Mapping):
        raise PlanError('A standing order is an object, like {"on": "seer", "choices": [...]}.')
    step = _step(data, sent)
    on = data.get("on") or next(iter(sorted(step.answers)), None)
    if len(step.answers) > 1 and not data.get("on"):
        on = "drawn" if "drawn" in step.answers else sorted(step.answers)[0]
    if on not in step.answers:
        raise PlanError(f"That order does not answer {on!r}.")
    if on in ("turn", "search"):
        raise PlanError("A standing order cannot begin your turns: send a plan for one turn.")
    return Order(str(on), step)


def orders_from_json(data: Any, *, sent: bool = False) -> tuple[Order, ...]:
    if not isinstance(data, list):
        raise PlanError(f"Standing orders are a list of at most {MAX_ORDERS}.")
    if len(data) > MAX_ORDERS:
        raise OverLimit(over_limit("orders", len(data)))
    return tuple(order_from_json(item, sent=sent) for item in data)


def with_order(orders: Sequence[Order], new: Order) -> tuple[Order, ...]:
    """The orders with ``new`` in place of any that answered the same decision."""
    return (*(o for o in orders if o.on != new.on), new)
