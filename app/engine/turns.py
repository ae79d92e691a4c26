"""A turn (R7-R12): draw, take, call, gamble or search, and what follows a draw or a take.

Long because: the turn's decisions (draw, take, search, drawn, taken) share the
exchange and discard code, and each illegal move says why in a whole translatable
sentence (issue 50).

The exchange (R8, R9, R14, R15) is shared by drawn and taken cards; the pending
decision says where the card in hand came from.
"""
from __future__ import annotations

from app.i18n import N_, _, ngettext

import itertools
import random

from . import cards
from .abilities import placeable, gamble, gamble_options, gambles_left, offer_drawn_ability, start_spotter, tanner
from .cards import VALUE
from .decisions import Decision, register, replace_top
from .state import IllegalAction, State
from .table import (Step, add_at_end, draw_top, end_field, forget_deck, int_field, learn,
                    place_on_pile, public, refusal_text, refusing_obsessor, reveal,
                    spotter_field, turn_down, turn_up)

MAX_CALL_SIZE = 4
#: No value has more than four cards (R1), so a set of five or more never matches.
MAX_MATCH = 4
COPIES: dict[int, int] = {v: VALUE.count(v) for v in set(VALUE)}
#: Most exchanges listed at once (R32): guesses with unseen cards stop here.
EXCHANGE_LIMIT = 180


def exchange_pool(st: State, seat: int) -> tuple[int, ...]:
    """The village positions an exchange may choose from (R14); any set of them may be posted."""
    village = st.villages[seat]
    top = st.pile[-1] if st.pile else None
    if top is not None and cards.is_obsessor(top):
        return tuple(p for p, c in enumerate(village) if placeable(st, c))
    return tuple(range(len(village)))


def exchange_sets(st: State, seat: int) -> tuple[tuple[int, ...], ...]:
    """R32: the exchanges offered, smallest first.

    Each choosable card alone (R14); every set of two to four cards the seat knows to
    match (all seen by it, one value); then the guesses that could match as far as
    the seat knows (R30) -- known cards of one value v plus unseen cards that could
    all be v too (no more than the copies of v it has not seen), or unseen cards
    only -- fewest unseen cards first, while the list stays under EXCHANGE_LIMIT.
    Every other set is accepted when posted (and fails as R8 says if it does not
    match). Built from the seat's knowledge only, so it tells nothing about unseen
    cards, and its cost is bounded by the limit.
    """
    village = st.villages[seat]
    bit = 1 << seat
    faceup, know = st.faceup, st.know
    seen_of: dict[int, int] = {}              # value -> cards of it the seat has seen anywhere
    for card in range(len(VALUE)):
        if faceup[card] or know[card] & bit:
            seen_of[VALUE[card]] = seen_of.get(VALUE[card], 0) + 1
    by_value: dict[int, list[int]] = {}
    unseen: list[int] = []
    pool = exchange_pool(st, seat)
    for pos in pool:
        card = village[pos]
        if faceup[card] or know[card] & bit:
            by_value.setdefault(VALUE[card], []).append(pos)
        else:
            unseen.append(pos)
    out: list[tuple[int, ...]] = [(p,) for p in pool]
    for known in by_value.values():           # known matches: always listed
        for k in range(2, len(known) + 1):
            out.extend(itertools.combinations(known, k))
    room = max(0, EXCHANGE_LIMIT - len(out))
    free = {v: COPIES[v] - seen_of.get(v, 0) for v in COPIES}   # copies of v not seen
    out.extend(itertools.islice(_guesses(by_value, unseen, free), room))
    out.sort(key=lambda c: (len(c), c))
    return tuple(out)


def _guesses(by_value: dict[int, list[int]], unseen: list[int], free: dict[int, int]):
    """Sets with unseen cards that could match (R32), fewest unseen cards first."""
    most_free = min(MAX_MATCH, max(free.values()))
    for j in range(1, min(most_free, len(unseen)) + 1):
        for value, known in by_value.items():
            if free[value] >= j:
                for k in range(1, min(len(known), MAX_MATCH - j) + 1):
                    for part in itertools.combinations(known, k):
                        for blind in itertools.combinations(unseen, j):
                            yield tuple(sorted(part + blind))
        if j >= 2:
            yield from itertools.combinations(unseen, j)


def exchange_options(st: State, seat: int) -> list[dict]:
    return [{"type": "exchange", "positions": list(c)} for c in exchange_sets(st, seat)]


def _positions(st: State, seat: int, action: dict) -> list[int]:
    positions = action.get("positions")
    n = len(st.villages[seat])
    if not isinstance(positions, list) or not positions:
        raise IllegalAction(_("Say which of your cards to exchange: 'positions' is a list like [0] or [1, 3]."))
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, int):
            raise IllegalAction(_("Positions are whole numbers, 0 for your leftmost card."))
        if not 0 <= p < n:
            raise IllegalAction(ngettext(
                "You have no card at position %(position)s: your village has %(num)d card (0 to "
                "%(last)s).", "You have no card at position %(position)s: your village has "
                "%(num)d cards (0 to %(last)s).", n, position=p, last=n - 1))
    if len(set(positions)) != len(positions):
        raise IllegalAction(_("Each card can be chosen only once."))
    return positions


def exchange(step: Step, action: dict, source: str) -> None:
    """Swap the card in hand for one or more village cards (R8)."""
    st, seat = step.state, step.seat
    assert seat is not None  # a seat's own move
    village = st.villages[seat]
    positions = _positions(st, seat, action)
    into = action.get("into", min(positions))
    if isinstance(into, bool) or into not in positions:
        raise IllegalAction(_("'into' must be one of the positions you exchange."))
    end = end_field(action)
    spotters = spotter_field(st, seat, action)
    chosen = [village[p] for p in positions]
    for card in chosen:
        if st.faceup[card]:
            obsessor = refusing_obsessor(st, VALUE[card])
            if obsessor is not None:
                raise IllegalAction(refusal_text(obsessor, card))
    new = st.hand
    assert new is not None  # the card drawn or taken this turn
    st.hand = st.hand_seat = None
    st.stack.pop()
    if len(chosen) >= 2:
        for card in chosen:                     # R8: shown to everyone
            reveal(st, card)
    if len({VALUE[c] for c in chosen}) > 1:
        # R46: a non-matching set fails whole (R8): nothing of it reaches the pile, so no
        # Obsessor can end up below other cards of a non-matching set
        _failed(step, positions, chosen, new, source, end, penalty=len(chosen) >= 3, reason="mismatch")
        return
    obsessor = refusing_obsessor(st, VALUE[chosen[0]])
    if obsessor is not None:                    # R14: a facedown card the Obsessor refuses
        reveal(st, chosen[0])
        _failed(step, positions, chosen, new, source, end, penalty=False, reason="obsessor",
                obsessor=obsessor)
        return
    for card in chosen:                         # R10: in the order given, last on top
        place_on_pile(step, card)
    keep = set(positions)
    st.villages[seat] = [new if i == into else c for i, c in enumerate(village)
                         if i == into or i not in keep]
    _place_new(st, new, source)
    step.emit("exchange", positions=positions, into=into, source=source,
              discarded=[public(st, c) for c in chosen], card=public(st, new), spotter=bool(spotters))
    if spotters:
        start_spotter(st, VALUE[chosen[0]], spotters)


def _place_new(st: State, card: int, source: str) -> None:
    """R9: a drawn card goes in facedown (its drawer knows it), a taken one faceup."""
    if source == "discard":
        turn_up(st, card)
    else:
        turn_down(st, card)


def _failed(step: Step, positions, chosen, new, source, end, penalty, reason, obsessor=None) -> None:
    """R8/R14: the chosen cards go back facedown, the new card joins at an end; R44:
    a penalty card goes outside it, at the very end."""
    st, seat = step.state, step.seat
    assert seat is not None  # a seat's own move
    for card in chosen:
        turn_down(st, card)
    _place_new(st, new, source)
    add_at_end(st, seat, new, end)
    extra = draw_top(st) if penalty else None
    if extra is not None:                       # facedown and unseen by anyone
        turn_down(st, extra)
        add_at_end(st, seat, extra, end)
    step.emit("exchange_failed", positions=positions, source=source, reason=reason,
              obsessor=obsessor, revealed=[public(st, c) for c in chosen], card=public(st, new),
              end=end, penalty=extra is not None)


@register
class Turn(Decision):
    kind = "turn"
    prompt = N_("draw, take the top discard, call for a vote, or use a Gambler")

    def has_options(self, st, seat, entry):
        return True

    def options(self, st, seat, entry):
        acts = [{"type": "draw"}]
        if self._can_take(st, seat):
            acts.append({"type": "take"})
        if st.caller is None and len(st.villages[seat]) <= MAX_CALL_SIZE:
            acts.append({"type": "call"})
        acts += gamble_options(st, seat)
        if st.eye_holder == seat and st.eye_open and st.deck:
            acts.append({"type": "search"})
        return acts

    @staticmethod
    def _can_take(st: State, seat: int) -> bool:
        """R11b: not with an empty village or pile, nor when no card could be exchanged."""
        if not st.villages[seat] or not st.pile:
            return False
        below = st.pile[-2] if len(st.pile) >= 2 else None
        if below is None or not cards.is_obsessor(below):
            return True
        return any(not st.faceup[c] or cards.accepts(below, VALUE[c]) for c in st.villages[seat])

    def apply(self, step, entry, action):
        st, seat = step.state, step.seat
        kind = action["type"]
        if kind == "draw":
            card = draw_top(st)
            assert card is not None  # an empty deck ends the round before a turn (R12)
            was_public = public(st, card)
            st.hand, st.hand_seat = card, seat
            turn_down(st, card)
            learn(st, seat, card)
            replace_top(st, kind="drawn", source="deck")
            step.emit("draw", card=was_public)
        elif kind == "take":
            if not self._can_take(st, seat):
                raise IllegalAction(
                    _("You can't take the top discard now: you need a card to exchange it for, "
                      "and a card on the pile.") if not (st.villages[seat] and st.pile)
                    else _("You can't take it: none of your cards could go on the Obsessor "
                           "below it."))
            card = st.pile.pop()
            st.hand, st.hand_seat = card, seat
            step.pile_touched = True
            replace_top(st, kind="taken")
            step.emit("take", card=public(st, card))
        elif kind == "call":
            if st.caller is not None:
                raise IllegalAction(_("Someone has already called for a vote this round."))
            if len(st.villages[seat]) > MAX_CALL_SIZE:
                raise IllegalAction(_("You can call only with four or fewer cards; you have "
                                      "%(count)s.", count=len(st.villages[seat])))
            st.caller = seat
            st.stack.pop()
            step.emit("call")
        elif kind == "gamble":
            if gambles_left(st, seat) == 0:
                raise IllegalAction(_("You need a faceup Gambler in your village (and cards in the deck) to gamble."))
            gamble(step, action)
        elif kind == "search":
            if not (st.eye_holder == seat and st.eye_open):
                raise IllegalAction(_("Only the holder of the open silver eye can search the deck."))
            for card in st.deck:
                learn(st, seat, card)
            replace_top(st, kind="search")
            step.emit("search")
        else:
            raise IllegalAction(_("It's the start of your turn: %(prompt)s.", prompt=_(self.prompt)))

    def timeout(self, step, entry):
        """R29: the turn ends, no card moves."""
        step.state.stack.pop()
        step.emit("pass")


@register
class Search(Decision):
    kind = "search"
    prompt = N_("choose a card from the deck")

    def options(self, st, seat, entry):
        return [{"type": "pick", "position": p} for p in range(len(st.deck))]

    def apply(self, step, entry, action):
        if action["type"] != "pick":
            raise IllegalAction(_("Choose a card of the deck to take (pick, 0 = top)."))
        st = step.state
        pos = int_field(action, "position", "deck card")
        if not 0 <= pos < len(st.deck):
            raise IllegalAction(ngettext("The deck has %(num)d card (0 = top to %(last)s).",
                                         "The deck has %(num)d cards (0 = top to %(last)s).",
                                         len(st.deck), last=len(st.deck) - 1))
        self._pick(step, pos)

    @staticmethod
    def _pick(step: Step, pos: int) -> None:
        """R27: taken as if drawn, then the deck is reshuffled and the eye closes."""
        st, seat = step.state, step.seat
        assert seat is not None  # a seat's own move
        card = st.deck.pop(len(st.deck) - 1 - pos)
        st.hand, st.hand_seat = card, seat
        turn_down(st, card)
        learn(st, seat, card)
        random.Random(f"{st.seed}:eye:{st.round}:{st.step}").shuffle(st.deck)
        forget_deck(st)
        st.eye_open = False
        replace_top(st, kind="drawn", source="eye")
        step.emit("pick", position=pos)

    def timeout(self, step, entry):
        """R38: after a silver eye search the timeout picks the top card."""
        self._pick(step, 0)


@register
class Drawn(Decision):
    kind = "drawn"
    prompt = N_("discard the card you drew or exchange it for cards of your village")

    def options(self, st, seat, entry):
        others = self.other_options(st)
        return others[:1] + exchange_options(st, seat) + others[1:] if others and \
            others[0]["type"] == "discard" else exchange_options(st, seat) + others

    @staticmethod
    def other_options(st: State) -> list[dict]:
        """Everything but the exchanges: discard (if the pile takes it), a Tanner's ends."""
        assert st.hand is not None  # this decision is the card in hand
        acts = [] if refusing_obsessor(st, VALUE[st.hand]) is not None else [{"type": "discard"}]
        if VALUE[st.hand] == cards.TANNER:
            acts += [{"type": "tanner", "end": "left"}, {"type": "tanner", "end": "right"}]
        return acts

    def has_options(self, st, seat, entry):
        return (refusing_obsessor(st, VALUE[st.hand]) is None or VALUE[st.hand] == cards.TANNER
                or any(placeable(st, c) for c in st.villages[seat]))

    def apply(self, step, entry, action):
        st = step.state
        kind = action["type"]
        if kind == "discard" and "position" not in action:
            obsessor = refusing_obsessor(st, VALUE[st.hand])
            if obsessor is not None:
                raise IllegalAction(_("%(refusal)s Exchange it instead.",
                                      refusal=refusal_text(obsessor, st.hand)))
            self._discard(step, entry, with_ability=True)
        elif kind == "exchange":
            exchange(step, action, entry["source"])
        elif kind == "tanner":
            if VALUE[st.hand] != cards.TANNER:
                raise IllegalAction(_("Only a Tanner drawn from the deck can be put faceup into your village."))
            end = end_field(action)
            st.stack.pop()
            tanner(step, end)
        else:
            raise IllegalAction(_("You hold the card you drew: %(prompt)s.", prompt=_(self.prompt)))

    @staticmethod
    def _discard(step: Step, entry: dict, with_ability: bool) -> None:
        st = step.state
        card = st.hand
        assert card is not None  # this decision is the card in hand
        st.hand = st.hand_seat = None
        st.stack.pop()
        place_on_pile(step, card)
        step.emit("discard", card=public(st, card))
        if with_ability:
            offer_drawn_ability(st, card)

    def timeout(self, step, entry):
        """R29: discarded without its ability, or kept at the right end if the pile refuses it."""
        if refusing_obsessor(step.state, VALUE[step.state.hand]) is None:
            self._discard(step, entry, with_ability=False)
        else:
            self.forced(step, entry)

    def forced(self, step: Step, entry: dict) -> None:
        """R14: nothing can be attempted, so the drawn card joins the village facedown."""
        st = step.state
        card = st.hand
        assert card is not None and step.seat is not None  # the card the seat holds
        st.hand = st.hand_seat = None
        st.stack.pop()
        turn_down(st, card)
        add_at_end(st, step.seat, card, "right")
        step.emit("kept", end="right", card=public(st, card))


@register
class Taken(Decision):
    kind = "taken"
    prompt = N_("exchange the card you took for one or more cards of your village")

    def options(self, st, seat, entry):
        return exchange_options(st, seat)

    def has_options(self, st, seat, entry):
        return any(placeable(st, c) for c in st.villages[seat])

    def apply(self, step, entry, action):
        if action["type"] != "exchange":
            raise IllegalAction(_("You took the top discard: exchange it for one or more of your cards."))
        exchange(step, action, "discard")

    def timeout(self, step, entry):
        """R29: the card goes back on top unchanged (no Simon) and the turn counts as a pass."""
        st = step.state
        card = st.hand
        st.hand = st.hand_seat = None
        st.pile.append(card)
        step.pile_touched = True
        st.stack.pop()
        step.emit("put_back", card=public(st, card))

    def forced(self, step, entry):
        self.timeout(step, entry)
