"""The menu of a turn mail: the legal moves of a seat's decision as commands.

Built from the seat's own view (its ``legal_actions``), so it offers exactly
what the engine would accept now. Each entry has a short command, words for
it and a ``mailto:`` link that opens a reply with the command filled in. A
decision with many choices (exchanging several cards, turning any card of
any village) is shown as a pattern and one example instead of hundreds of
lines.

The menu is in the reader's language (issue 50, ``i18n.current()``): its words, and its
commands in that language's words (``app.plans.aliases.local``: "ZIEHEN", "引く"), with
the English commands beside them (``Menu.english``), which always work.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from app import i18n
from app.i18n import N_, _, ngettext
from app.mail.commands import command_for
from app.plans import aliases

#: Up to this many choices of one kind are listed one by one.
LIST_LIMIT = 8

#: What each kind of action does, for the menu (``{}`` takes the arguments).
WORDS: dict[str, str] = {
    "draw": N_("draw the top card of the deck"),
    "take": N_("take the top card of the discard pile"),
    "call": N_("call: this is the last round of turns"),
    "skip": N_("skip / decline"),
    "search": N_("search the deck with the silver eye"),
    "done": N_("end your turn"),
    "dracula": N_("use your Dracula"),
    "discard": N_("discard the card in your hand"),
    "tanner": N_("put the Tanner faceup at that end"),
    "exchange": N_("exchange the card in hand for your card(s) with these numbers"),
    "peek": N_("look at these two of your cards"),
    "pick": N_("take that deck card (1 = top)"),
    "gamble": N_("guess the value of the top deck card"),
    "twist": N_("turn over that player's card"),
    "ghost": N_("discard that player's card"),
    "see": N_("look at that player's card"),
    "undermine": N_("choose that card for the Underminer"),
    "drunk": N_("give the top deck card to that end of that player's village"),
    "spot": N_("search that player's village"),
    "look": N_("look at that card"),
    "simon": N_("discard that faceup card with your Simon"),
    "nelly": N_("tuck your Nelly under that player's card"),
    "bomb": N_("blow up that player's card with your Mad Bomber"),
}
#: What the actions that name a player do, with the player's name (whole sentences).
NAMED: dict[str, str] = {
    "twist": N_("turn over %(name)s's card"),
    "ghost": N_("discard %(name)s's card"),
    "see": N_("look at %(name)s's card"),
    "drunk": N_("give the top deck card to that end of %(name)s's village"),
    "spot": N_("search %(name)s's village"),
    "nelly": N_("tuck your Nelly under %(name)s's card"),
    "bomb": N_("blow up %(name)s's card with your Mad Bomber"),
}
#: How the arguments of a pattern read.
PATTERNS: dict[str, str] = {
    "exchange": N_("X <your card numbers>"),
    "peek": N_("peek <card> <card>"),
    "gamble": N_("gamble <value>"),
    "pick": N_("pick <deck position>"),
    "twist": N_("twist <player> <card>"),
    "ghost": N_("ghost <player> <card>"),
    "see": N_("see <player> <card>"),
    "undermine": N_("undermine <player> <card>"),
    "drunk": N_("drunk <player> left|right"),
    "spot": N_("spot <player>"),
    "look": N_("look <card>"),
    "discard": N_("discard <card>"),
    "nelly": N_("nelly <player> <card>"),
    "bomb": N_("bomb <player> <card>"),
    "simon": N_("simon <card>"),
}


@dataclass(frozen=True)
class MenuItem:
    command: str
    words: str
    mailto: str
    #: The command in English (the same as ``command`` in an English menu).
    english: str = ""


@dataclass(frozen=True)
class Menu:
    """What a turn mail shows below the view; empty when the seat has nothing to decide."""

    address: str | None
    items: list[MenuItem] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    #: The menu's commands in English, which work in any language (issue 50); empty in
    #: an English menu, whose commands are English already.
    english: list[str] = field(default_factory=list)

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
                items.append(_entry(address, command_for(several), _(
                    "several cards of one value at once: %(pattern)s",
                    pattern=_(PATTERNS["exchange"])), subject))
            continue
        if len(actions) <= LIST_LIMIT or kind not in PATTERNS:
            items.extend(_item(address, action, subject, names) for action in actions)
            continue
        example = command_for(actions[0])
        items.append(_entry(address, example, ngettext(
            "%(words)s: %(pattern)s (%(num)d choice; for example %(example)s)",
            "%(words)s: %(pattern)s (%(num)d choices; for example %(example)s)",
            len(actions), words=_(WORDS[kind]) if kind in WORDS else kind,
            pattern=_(PATTERNS[kind]), example=shown(example)), subject))
    items.append(_entry(address, "help", _("send this menu again"), subject))
    players = [_("%(num)d = %(name)s (you)", num=i + 1, name=name) if i == seat
               else _("%(num)d = %(name)s", num=i + 1, name=name)
               for i, name in enumerate(names)]
    english = [item.english for item in items] if i18n.current() != i18n.DEFAULT else []
    return Menu(address, items, players, english)


def shown(command: str) -> str:
    """An English command as the reader's language writes it (issue 50)."""
    return aliases.local(i18n.current(), command)


def _entry(address: str, command: str, words: str, subject: str) -> MenuItem:
    """One line of the menu: the command in the reader's words, and its reply link."""
    local = shown(command)
    return MenuItem(local, words, mailto(address, local, subject), command)


def _item(address: str, action: dict[str, Any], subject: str, names: list[str]) -> MenuItem:
    command = command_for(action)
    kind = str(action.get("type"))
    words = _(WORDS[kind]) if kind in WORDS else kind
    target = action.get("seat")
    if isinstance(target, int) and 0 <= target < len(names) and kind in NAMED:
        words = _(NAMED[kind], name=names[target])
    return _entry(address, command, words, subject)
