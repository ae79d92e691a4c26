"""Moving cards on the table, and who learns what while they move (R14, R30).

Every card movement of the rules goes through these few functions so that
knowledge and the Obsessor's demands are kept in one place.
"""
from __future__ import annotations

from app.i18n import N_, _, current, ngettext

from . import cards
from .cards import VALUE
from .words import with_article
from .state import EVERYONE, SPECTATOR_BIT, IllegalAction, State, seat_bit


class Step:
    """What one applied action did so far: its events and what it did to the pile."""
    __slots__ = ("state", "seat", "kind", "events", "placed_on_top", "pile_touched")

    def __init__(self, state: State, seat: int | None, kind: str = "") -> None:
        self.state = state
        self.seat = seat
        self.kind = kind
        self.events: list[dict] = []
        self.placed_on_top = False   # a card went on top of the pile (Simon, R16)
        self.pile_touched = False    # the top of the pile may have changed otherwise

    def emit(self, type_: str, seat: int | None = None, **details) -> dict:
        event = {"type": type_, "seat": self.seat if seat is None else seat,
                 "step": self.state.step, "round": self.state.round, **details}
        self.events.append(event)
        self.state.log.append(event)
        return event


# --- knowledge (R30) -------------------------------------------------------

def learn(st: State, seat: int, card: int) -> None:
    st.know[card] |= seat_bit(seat)


def reveal(st: State, card: int) -> None:
    """Shown to everyone; the card keeps its orientation."""
    st.know[card] = EVERYONE


def turn_up(st: State, card: int) -> None:
    st.faceup[card] = True
    st.know[card] = EVERYONE


def turn_down(st: State, card: int) -> None:
    """Facedown again; whoever saw it keeps knowing it (R30)."""
    st.faceup[card] = False


def public(st: State, card: int) -> dict | None:
    """The card as the table knows it, for public events; None if it is a secret."""
    if st.faceup[card] or st.know[card] & SPECTATOR_BIT:
        return {"id": card, "value": VALUE[card]}
    return None


# --- the deck --------------------------------------------------------------

def draw_top(st: State) -> int | None:
    """Take the top deck card (None if the deck is empty, R12); a faceup card
    that comes to the top is seen by everyone."""
    if not st.deck:
        return None
    card = st.deck.pop()
    if st.deck and st.faceup[st.deck[-1]]:
        st.know[st.deck[-1]] = EVERYONE
    return card


def forget_deck(st: State) -> None:
    """A shuffle: nobody knows where any deck card is any more (R27, R30)."""
    for card in st.deck:
        st.know[card] = 0
    if st.deck and st.faceup[st.deck[-1]]:
        st.know[st.deck[-1]] = EVERYONE


# --- the pile and the Obsessor (R13-R15) -------------------------------------

def refusing_obsessor(st: State, value: int) -> int | None:
    """The Obsessor on top of the pile if it refuses a card of this value."""
    if st.pile:
        top = st.pile[-1]
        if cards.is_obsessor(top) and not cards.accepts(top, value):
            return top
    return None


def refusal_text(obsessor: int, card: int | None = None, value: int | None = None) -> str:
    if card is not None:
        return _("The %(obsessor)s on top of the pile accepts %(rule)s, so %(card)s can't go "
                 "on it.", obsessor=cards.name(obsessor), rule=cards.obsessor_rule(obsessor),
                 card=cards.label(card))
    return _("The %(obsessor)s on top of the pile accepts %(rule)s, so %(value)s can't go on "
             "it.", obsessor=cards.name(obsessor), rule=cards.obsessor_rule(obsessor),
             value=with_article(str(value)) if current() == "en" else value)


def place_on_pile(step: Step, card: int) -> None:
    st = step.state
    st.pile.append(card)
    turn_up(st, card)
    step.placed_on_top = True
    step.pile_touched = True


# --- villages ----------------------------------------------------------------

def add_at_end(st: State, seat: int, card: int, end: str) -> None:
    if end == "left":
        st.villages[seat].insert(0, card)
    else:
        st.villages[seat].append(card)


def faceup_count(st: State, seat: int, value: int) -> int:
    return sum(1 for c in st.villages[seat] if VALUE[c] == value and st.faceup[c])


def facedown_positions(st: State, seat: int) -> list[int]:
    return [i for i, c in enumerate(st.villages[seat]) if not st.faceup[c]]


# --- reading actions ---------------------------------------------------------

def int_field(action: dict, key: str, what: str) -> int:
    value = action.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        said = {"village": N_("Say which village with a whole number in '%(key)s'."),
                "card": N_("Say which card with a whole number in '%(key)s'."),
                "pile card": N_("Say which pile card with a whole number in '%(key)s'."),
                "deck card": N_("Say which deck card with a whole number in '%(key)s'.")}
        if what in said:
            raise IllegalAction(_(said[what], key=key))
        raise IllegalAction(f"Say which {what} with a whole number in '{key}'.")
    return value


def seat_field(st: State, action: dict) -> int:
    seat = int_field(action, "seat", "village")
    if not 0 <= seat < st.seats:
        raise IllegalAction(_("There is no village %(seat)s: villages are numbered 0 to "
                              "%(last)s.", seat=seat, last=st.seats - 1))
    return seat


def position_field(st: State, seat: int, action: dict, key: str = "position") -> int:
    pos = int_field(action, key, "card")
    n = len(st.villages[seat])
    if not 0 <= pos < n:
        if n == 0:
            raise IllegalAction(_("That village has no cards."))
        raise IllegalAction(ngettext(
            "There is no card at position %(position)s: that village has %(num)d card (0 to "
            "%(last)s).", "There is no card at position %(position)s: that village has "
            "%(num)d cards (0 to %(last)s).", n, position=pos, last=n - 1))
    return pos


def end_field(action: dict) -> str:
    end = action.get("end", "right")
    if end not in ("left", "right"):
        raise IllegalAction(_("'end' must be \"left\" or \"right\"."))
    return end


def spotter_field(st: State, seat: int, action: dict) -> int:
    """How many Spotter searches a discarding action declares (R17); 0 if none."""
    flag = action.get("spotter", False)
    if not isinstance(flag, bool):
        raise IllegalAction(_("'spotter' must be true or false."))
    if not flag:
        return 0
    n = faceup_count(st, seat, cards.SPOTTER)
    if n == 0:
        raise IllegalAction(_("You have no faceup Spotter to use."))
    return n
