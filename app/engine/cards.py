"""The Silver Eye deck: 52 cards with stable ids (R1).

Ids are fixed so that a card can be followed through a whole game (knowledge,
replays, stacked test decks): 0-3 Nelly (-1), 4-5 Illusionist (0), then four ids
per value 2..12 in order (6-9 are the 2s, ..., 46-49 the 12s), 50-51 Mad Bomber
(13). The four 9s are four different Obsessors (R13): 34 Even, 35 Odd, 36 Low,
37 High.
"""
from __future__ import annotations

from functools import lru_cache

from app.i18n import N_, _, current, pgettext

DECK_SIZE = 52
VALUES: tuple[int, ...] = (-1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)


def _value_of(card: int) -> int:
    if card < 4:
        return -1
    if card < 6:
        return 0
    if card < 50:
        return 2 + (card - 6) // 4
    return 13


VALUE: tuple[int, ...] = tuple(_value_of(c) for c in range(DECK_SIZE))

NELLY, ILLUSIONIST, SIMON, SPOTTER, GAMBLER, TANNER, TWISTER, GHOST = -1, 0, 2, 3, 4, 5, 6, 7
SPLIT_SEER, OBSESSOR, DRACULA, UNDERMINER, DRUNK, MAD_BOMBER = 8, 9, 10, 11, 12, 13

EVEN_OBSESSOR, ODD_OBSESSOR, LOW_OBSESSOR, HIGH_OBSESSOR = 34, 35, 36, 37
OBSESSOR_KIND = {EVEN_OBSESSOR: "even", ODD_OBSESSOR: "odd", LOW_OBSESSOR: "low", HIGH_OBSESSOR: "high"}

NAME: dict[int, str] = {
    -1: "Nelly", 0: "Illusionist", 2: "Simon", 3: "Spotter", 4: "Gambler", 5: "Tanner",
    6: "Twister", 7: "Ghost", 8: "Split Seer", 9: "Obsessor", 10: "Dracula",
    11: "Underminer", 12: "Drunk", 13: "Mad Bomber",
}

#: Values whose ability works when the card is drawn from the deck (or found
#: with the silver eye) and then discarded; the Tanner goes into the village.
DRAWN_ABILITY_VALUES = frozenset({TWISTER, GHOST, SPLIT_SEER, DRACULA, UNDERMINER, DRUNK})

ABILITY: dict[int, str] = {
    -1: N_("Faceup at round end: tuck under a card in any village (not a 0 or a negative card); "
        "that card scores its negative."),
    0: N_("Faceup at scoring: worth minus the number of cards left in the deck."),
    2: N_("Faceup in your village: when a card of the same value lands on the pile, discard a "
       "faceup card of that value from your village."),
    3: N_("Faceup in your village: when you discard from your village, search one village for a "
       "facedown match and discard it too."),
    4: N_("Faceup in your village: instead of a turn, guess the top deck card; right: discard any "
       "card of yours, wrong: it joins your village."),
    5: N_("Drawn from the deck: put it faceup at an end of your village and turn all your cards faceup."),
    6: N_("Drawn and discarded: turn over as many cards (any villages) as you have in your village."),
    7: N_("Drawn and discarded: discard one card from any village."),
    8: N_("Drawn and discarded: look at one facedown card in each village."),
    9: N_("On top of the pile: only certain cards may be placed on it."),
    10: N_("Drawn and discarded: move the five cards under it to the bottom of the deck."),
    11: N_("Drawn and discarded: swap two cards of one village with two cards of the pile."),
    12: N_("Drawn and discarded: give the top deck card to an end of any village."),
    13: N_("Faceup at round end: remove itself and one other card in any village from the round."),
}

OBSESSOR_RULE = {
    "even": N_("only even values (0, 2, 4, 6, 8, 10, 12)"),
    "odd": N_("only odd values (-1, 3, 5, 7, 9, 11, 13)"),
    "low": N_("only values 6 or lower"),
    "high": N_("only values 7 or higher"),
}


def value(card: int) -> int:
    return VALUE[card]


@lru_cache(maxsize=None)
def _said(language: str) -> dict[int | str, str]:
    """The card names in ``language`` (German keeps the English names, Japanese says
    them in katakana): by value, and the Obsessors by kind."""
    del language  # (the cache key: pgettext reads the language being written in)
    return {
        -1: pgettext("card", "Nelly"), 0: pgettext("card", "Illusionist"),
        2: pgettext("card", "Simon"), 3: pgettext("card", "Spotter"),
        4: pgettext("card", "Gambler"), 5: pgettext("card", "Tanner"),
        6: pgettext("card", "Twister"), 7: pgettext("card", "Ghost"),
        8: pgettext("card", "Split Seer"), 9: pgettext("card", "Obsessor"),
        10: pgettext("card", "Dracula"), 11: pgettext("card", "Underminer"),
        12: pgettext("card", "Drunk"), 13: pgettext("card", "Mad Bomber"),
        "even": pgettext("card", "Even Obsessor"), "odd": pgettext("card", "Odd Obsessor"),
        "low": pgettext("card", "Low Obsessor"), "high": pgettext("card", "High Obsessor"),
    }


def value_name(card_value: int) -> str:
    """The name of the cards of a value, in the reader's language ('Ghost' for 7)."""
    return _said(current()).get(card_value, NAME.get(card_value, ""))


def name(card: int) -> str:
    """Full name of a card, with the Obsessor's kind: 'Odd Obsessor', 'Ghost'."""
    kind = OBSESSOR_KIND.get(card)
    if kind:
        return _said(current())[kind]
    return _said(current())[VALUE[card]]


def label(card: int) -> str:
    """Value and name, as a player says it: '7 Ghost', '-1 Nelly'."""
    return _("%(value)s %(name)s", value=VALUE[card], name=name(card))


def obsessor_rule(obsessor: int) -> str:
    """What an Obsessor accepts, in the reader's language."""
    return _(OBSESSOR_RULE[OBSESSOR_KIND[obsessor]])


def ability(card: int) -> str:
    kind = OBSESSOR_KIND.get(card)
    if kind:
        return _("On top of the pile: accepts %(rule)s.", rule=_(OBSESSOR_RULE[kind]))
    return _(ABILITY[VALUE[card]])


def accepts(obsessor: int, card_value: int) -> bool:
    """Whether the Obsessor `obsessor` lets a card of `card_value` be placed on it (R13)."""
    kind = OBSESSOR_KIND[obsessor]
    if kind == "even":
        return card_value % 2 == 0
    if kind == "odd":
        return card_value % 2 != 0
    if kind == "low":
        return card_value <= 6
    return card_value >= 7


def is_obsessor(card: int) -> bool:
    return card in OBSESSOR_KIND
