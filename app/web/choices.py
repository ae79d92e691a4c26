"""Choosing by tapping cards: which cards a decision lets a seat tick, and the moves a ticked form means.

The seat page draws the cards of a card decision (peek, exchange, Twister,
Ghost, Split Seer, Spotter, Underminer, Nelly, Mad Bomber, Simon, a Gambler's
discard) as checkboxes of one form. What may be ticked is read off the view's
legal actions, only to draw the page; what is posted is turned back into
engine actions *by position* and validated by the engine's ``apply_action``
(not by looking the set up in a list), so an exchange the listing leaves out
(R32, big villages) can still be made. A form may carry several engine steps
(a whole Twister, the Underminer's four choices): ``services.submit_actions``
applies them in one transaction, all or nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from app import services
from app.engine import cards, words
from app.i18n import N_, _

View = Mapping[str, Any]

#: Decisions made by ticking cards, with the submit button's words.
CARD_KINDS: dict[str, str] = {
    "peek": N_("Peek at the ticked cards"),
    "exchange": N_("Exchange the ticked cards"),
    "twist": N_("Turn the ticked cards over"),
    "ghost": N_("Discard the ticked card"),
    "see": N_("Look at the ticked cards"),
    "look": N_("Look at the ticked card"),
    "nelly": N_("Tuck the Nelly under the ticked card"),
    "bomb": N_("Blow up the ticked card"),
    "simon": N_("Discard the ticked card"),
    "discard": N_("Discard the ticked card"),
    "undermine": N_("Swap the ticked cards"),
}
#: Kinds whose targets are always the seat's own village.
OWN_VILLAGE = ("peek", "exchange", "simon", "discard")
#: Kinds where each ticked card is one engine step (the rest take exactly one card).
STEPWISE = ("twist", "see", "undermine", "simon")


def pick_value(seat: int, position: int) -> str:
    return f"v-{seat}-{position}"


def pile_value(index: int) -> str:
    return f"p-{index}"


@dataclass
class CardChoice:
    """One card decision as the page draws it."""

    kind: str
    title: str
    help: str
    submit: str
    least: int
    most: int
    #: (seat, position) → the checkbox value, for cards that may be ticked.
    village: dict[tuple[int, int], str] = field(default_factory=dict)
    #: (seat, position) → why this card is left out (Obsessor refusal).
    refused: dict[tuple[int, int], str] = field(default_factory=dict)
    #: pile index → the checkbox value (Underminer).
    pile: dict[int, str] = field(default_factory=dict)
    exchange_options: bool = False
    spotter: int = 0

    def value_for(self, seat: int, position: int) -> str | None:
        return self.village.get((seat, position))


def card_choice(view: View, me: int) -> CardChoice | None:
    """The card decision this seat faces now, or None (buttons only)."""
    legal = [a for a in view.get("legal_actions") or [] if a.get("type") != "simon"]
    return _choice_for(view, me, legal)


def simon_choice(view: View, me: int) -> CardChoice | None:
    """A Simon claim (R16, preference off): open whoever's turn it is, so a form of its own."""
    claims = [a for a in view.get("legal_actions") or [] if a.get("type") == "simon"]
    return _choice_for(view, me, claims)


def _choice_for(view: View, me: int, legal: Sequence[Mapping[str, Any]]) -> CardChoice | None:
    kinds = [str(a.get("type")) for a in legal
             if a.get("type") in CARD_KINDS and aimed(a)]
    if not kinds:
        return None
    kind = kinds[0]
    mine = [a for a in legal if a.get("type") == kind and aimed(a)]
    title, help_text = words.ACTION_GROUPS.get(kind, (kind.capitalize(), ""))
    if kind in words.ACTION_GROUPS:  # marked N_ by the engine: said in the reader's language
        title, help_text = _(title), _(help_text)
    choice = CardChoice(kind, title, help_text, _(CARD_KINDS[kind]), 1, 1)
    detail = view.get("pending_detail") or {}
    for action in mine:
        for seat, position in _targets(action, me, detail):
            choice.village[(seat, position)] = pick_value(seat, position)
        if "pile" in action:
            choice.pile[int(action["pile"])] = pile_value(int(action["pile"]))
    if kind == "peek":
        choice.least = choice.most = min(2, len(choice.village))
    elif kind == "exchange":
        choice.most = len((view.get("villages") or [[]])[me])
        choice.exchange_options = True
        choice.spotter = _faceup_spotters(view, me)
        _refusals(view, me, choice)
    elif kind in ("ghost", "discard"):
        choice.spotter = _faceup_spotters(view, me)     # R17: discarding from one's own village
    elif kind == "twist":
        left = detail.get("left")
        choice.most = left if isinstance(left, int) else min(
            len(view["villages"][me]), len(choice.village))
        choice.least = 1
    elif kind == "see":
        choice.most = len(view.get("villages") or [])
    elif kind == "simon":
        choice.most = len(choice.village)
    elif kind == "undermine":
        _underminer(view, detail, choice)
    return choice


def aimed(action: Mapping[str, Any]) -> bool:
    """Whether an action names a card (a position, positions or a pile index)."""
    return any(key in action for key in ("position", "positions", "pile"))


def _targets(action: Mapping[str, Any], me: int,
             detail: Mapping[str, Any]) -> list[tuple[int, int]]:
    kind = action.get("type")
    if "positions" in action:
        return [(me, int(p)) for p in action["positions"]]
    if "position" not in action:
        return []
    if kind == "look":
        seat = detail.get("target")
    elif kind in OWN_VILLAGE:
        seat = me
    else:
        seat = action.get("seat")
    return [(int(seat), int(action["position"]))] if isinstance(seat, int) else []


def _faceup_spotters(view: View, me: int) -> int:
    village = (view.get("villages") or [[]])[me]
    return sum(1 for c in village if c and c.get("faceup") and c.get("id") is not None
               and cards.VALUE[c["id"]] == cards.SPOTTER)


def _refusals(view: View, me: int, choice: CardChoice) -> None:
    """Say why an own card cannot be exchanged: the Obsessor on top refuses it (R13)."""
    pile = view.get("discard") or []
    top = pile[-1] if pile else None
    if not top or top.get("id") is None or not cards.is_obsessor(top["id"]):
        return
    for position, card in enumerate(view["villages"][me]):
        if (me, position) not in choice.village:
            choice.refused[(me, position)] = words.refusal(top["id"], (card or {}).get("id"))


def _underminer(view: View, detail: Mapping[str, Any], choice: CardChoice) -> None:
    """All four choices in one form: the village cards still to choose, then two pile cards.

    At the first steps only village cards are listed; the pile cards that may
    follow are every pile card but the Underminer itself (on top), which the
    engine checks again when the step is applied.
    """
    chosen = int(detail.get("chosen") or 0)
    if chosen < 2:
        pile = view.get("discard") or []
        choice.pile = {i: pile_value(i) for i in range(len(pile) - 1)}
    choice.least = choice.most = 4 - chosen


# -- from a posted form to engine actions ---------------------------------------------


def actions_from_form(kind: str, picks: Sequence[str], form: Mapping[str, Any],
                      me: int) -> list[dict[str, Any]]:
    """The engine steps a ticked form stands for, in the order the engine takes them."""
    if kind not in CARD_KINDS:
        raise services.BadRequest(_("That choice was not understood. Reload your page and try again."))
    village, pile = _parse(picks)
    if not village and not pile:
        raise services.BadRequest(_("Tap the cards you choose first, then press the button."))
    if kind in OWN_VILLAGE and any(seat != me for seat, _ in village):
        raise services.BadRequest(_("Choose cards of your own village for this."))
    positions = [p for _, p in village]
    if kind == "peek":
        return [{"type": "peek", "positions": positions}]
    if kind == "exchange":
        return [_exchange(positions, form)]
    if kind == "undermine":
        if len(village) > 2 or len(pile) > 2:
            raise services.BadRequest(_("For the Underminer, tick two cards of one village and "
                                        "two cards of the discard pile."))
        return ([{"type": "undermine", "seat": s, "position": p} for s, p in village]
                + [{"type": "undermine", "pile": i} for i in pile])
    if kind not in STEPWISE and len(village) > 1:
        raise services.BadRequest(_("Tick one card for the %(what)s.",
                                    what=_(words.ACTION_GROUPS[kind][0])))
    spotter = {"spotter": True} if form.get("spotter") in ("1", "on", "true") else {}
    if kind in ("look", "simon", "discard"):
        return [{"type": kind, "position": p, **(spotter if kind == "discard" else {})}
                for p in positions]
    return [{"type": kind, "seat": s, "position": p, **(spotter if kind == "ghost" else {})}
            for s, p in village]


def _parse(picks: Sequence[str]) -> tuple[list[tuple[int, int]], list[int]]:
    village: list[tuple[int, int]] = []
    pile: list[int] = []
    for pick in picks:
        parts = str(pick).split("-")
        try:
            if parts[0] == "v" and len(parts) == 3:
                spot_ = (int(parts[1]), int(parts[2]))
                if spot_ not in village:
                    village.append(spot_)
                continue
            if parts[0] == "p" and len(parts) == 2:
                if int(parts[1]) not in pile:
                    pile.append(int(parts[1]))
                continue
        except ValueError:
            pass
        raise services.BadRequest(_("A ticked card was not understood. Reload your page and try again."))
    return village, pile


def _exchange(positions: list[int], form: Mapping[str, Any]) -> dict[str, Any]:
    """An exchange of the ticked positions with its options (design.md: into, end, spotter)."""
    action: dict[str, Any] = {"type": "exchange", "positions": sorted(positions)}
    if len(positions) > 1:
        if form.get("end") in ("left", "right"):
            action["end"] = form["end"]
        if form.get("into_side") == "rightmost":
            action["into"] = max(positions)
    if form.get("spotter") in ("1", "on", "true"):
        action["spotter"] = True
    return action
