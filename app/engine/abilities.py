"""Card abilities, one per card, as the reference guide lists them (R16-R23).

"Drawn from deck" abilities (Twister, Ghost, Split Seer, Dracula, Underminer,
Drunk) are offered as a decision after the drawn card is discarded; the Tanner
goes into the village instead; Simon, Spotter and Gambler work from a faceup
card in the village. Round-end cards (Nelly, Illusionist, Mad Bomber) are in
`scoring.py`.

Long because: one `Decision` class per choice a card offers (Twister, Ghost,
Split Seer, Dracula, Underminer, Drunk, Spotter, the Gambler's two), each with
its options, its default and its step, next to the helpers they share; split
by card they would only import each other's helpers back.
"""
from __future__ import annotations

from app.i18n import N_, _, ngettext

from . import cards
from .cards import VALUE, VALUES
from .decisions import DONE, SKIP, Decision, register, replace_top
from .state import IllegalAction, State
from .table import (Step, add_at_end, draw_top, end_field, facedown_positions, faceup_count,
                    int_field, learn, place_on_pile, position_field, public, refusal_text,
                    refusing_obsessor, reveal, seat_field, spotter_field, turn_down, turn_up)

ABILITY_KIND = {cards.TWISTER: "twister", cards.GHOST: "ghost", cards.SPLIT_SEER: "seer",
                cards.DRACULA: "dracula", cards.UNDERMINER: "underminer", cards.DRUNK: "drunk"}


def offer_drawn_ability(st: State, card: int) -> None:
    """After a card drawn from the deck (or found with the eye) is discarded."""
    kind = ABILITY_KIND.get(VALUE[card])
    if kind:
        st.stack.append({"kind": kind, "card": card})


def every_card(st: State, first_seat: int):
    """(seat, position, card) for every village card, clockwise from `first_seat`."""
    for i in range(st.seats):
        seat = (first_seat + i) % st.seats
        for pos, card in enumerate(st.villages[seat]):
            yield seat, pos, card


def placeable(st: State, card: int) -> bool:
    """R14: a faceup card the Obsessor refuses cannot be chosen at all."""
    return not (st.faceup[card] and refusing_obsessor(st, VALUE[card]) is not None)


def discard_from_village(step: Step, seat: int, pos: int) -> bool:
    """Put a village card on the pile, or show it if the Obsessor refuses it (R14).

    Returns whether the card was discarded.
    """
    st = step.state
    card = st.villages[seat][pos]
    obsessor = refusing_obsessor(st, VALUE[card])
    if obsessor is not None:
        if st.faceup[card]:
            raise IllegalAction(refusal_text(obsessor, card))
        reveal(st, card)
        step.emit("refused", target=seat, position=pos, card=public(st, card), obsessor=obsessor)
        return False
    del st.villages[seat][pos]
    place_on_pile(step, card)
    return True


# --- 5 Tanner (R19) -----------------------------------------------------------

def tanner(step: Step, end: str) -> None:
    """Faceup at an end of the village, and every card of the village turned faceup."""
    st, seat = step.state, step.seat
    card = st.hand
    assert seat is not None and card is not None  # the Tanner is the card the seat holds
    st.hand = st.hand_seat = None
    turn_up(st, card)
    add_at_end(st, seat, card, end)
    turned = []
    for c in st.villages[seat]:
        if not st.faceup[c]:
            turn_up(st, c)
            turned.append(public(st, c))
    step.emit("tanner", end=end, card=public(st, card), revealed=turned)


# --- 6 Twister (R20) ----------------------------------------------------------

@register
class Twister(Decision):
    kind = "twister"
    prompt = N_("turn over cards in any villages")

    @staticmethod
    def count(st: State, seat: int) -> int:
        return min(len(st.villages[seat]), sum(len(v) for v in st.villages))

    def options(self, st, seat, entry):
        turned = entry.get("turned", ())
        if entry.get("left") is None and self.count(st, seat) == 0:
            return []
        acts = [{"type": "twist", "seat": s, "position": p}
                for s, p, c in every_card(st, seat) if c not in turned]
        if entry.get("left") is None and acts:
            acts.append(SKIP)
        return acts

    def apply(self, step, entry, action):
        if action["type"] != "twist":
            raise IllegalAction(_("Choose a card to turn over (twist), or skip the Twister."))
        st = step.state
        target = seat_field(st, action)
        pos = position_field(st, target, action)
        self._twist(step, entry, target, pos)

    def _twist(self, step, entry, target, pos):
        st = step.state
        card = st.villages[target][pos]
        turned = entry.get("turned", ())
        if card in turned:
            raise IllegalAction(_("You already turned that card with this Twister: choose another."))
        left = entry.get("left")
        if left is None:
            left = self.count(st, step.seat)
        if st.faceup[card]:
            turn_down(st, card)
        else:
            turn_up(st, card)
        step.emit("twist", target=target, position=pos, faceup=st.faceup[card], card=public(st, card))
        left -= 1
        if left <= 0:
            st.stack.pop()
        else:
            replace_top(st, left=left, turned=turned + (card,))

    def timeout(self, step, entry):
        """R29: declined if not started; R37: else the leftmost untwisted cards, own
        village first, then the other villages clockwise."""
        if entry.get("left") is None:
            return super().timeout(step, entry)
        st = step.state
        while st.stack and st.stack[-1].get("kind") == self.kind:
            entry = st.stack[-1]
            turned = entry.get("turned", ())
            for s, p, c in every_card(st, step.seat):
                if c not in turned:
                    self._twist(step, entry, s, p)
                    break
            else:
                st.stack.pop()


# --- 7 Ghost (R21) ------------------------------------------------------------

@register
class Ghost(Decision):
    kind = "ghost"
    prompt = N_("discard one card from any village")

    def options(self, st, seat, entry):
        acts = [{"type": "ghost", "seat": s, "position": p}
                for s, p, c in every_card(st, seat) if placeable(st, c)]
        return acts + [SKIP] if acts else []

    def apply(self, step, entry, action):
        if action["type"] != "ghost":
            raise IllegalAction(_("Choose a card for the Ghost to discard, or skip it."))
        st = step.state
        target = seat_field(st, action)
        pos = position_field(st, target, action)
        spotters = spotter_field(st, step.seat, action)
        if spotters and target != step.seat:
            raise IllegalAction(_("A Spotter only helps when you discard from your own village."))
        card = st.villages[target][pos]
        st.stack.pop()
        if discard_from_village(step, target, pos):
            step.emit("ghost", target=target, position=pos, card=public(st, card),
                      spotter=bool(spotters))
            if spotters:
                start_spotter(st, VALUE[card], spotters)


# --- 8 Split Seer (R22) -------------------------------------------------------

@register
class SplitSeer(Decision):
    """R39: the villages may be looked into in any order; `skip` ends the Split Seer."""
    kind = "seer"
    prompt = N_("look at one facedown card in each village")

    def options(self, st, seat, entry):
        seen = entry.get("seen", ())
        acts = [{"type": "see", "seat": s, "position": p}
                for s in range(st.seats) if s not in seen for p in facedown_positions(st, s)]
        return acts + [SKIP] if acts else []

    def apply(self, step, entry, action):
        if action["type"] != "see":
            raise IllegalAction(_("Choose a facedown card to look at (see), or skip."))
        st = step.state
        target = seat_field(st, action)
        if target in entry.get("seen", ()):
            raise IllegalAction(_("You already looked at a card in that village."))
        pos = position_field(st, target, action)
        card = st.villages[target][pos]
        if st.faceup[card]:
            raise IllegalAction(_("That card is faceup: choose a facedown one."))
        learn(st, step.seat, card)
        step.emit("see", target=target, position=pos)
        replace_top(st, seen=entry.get("seen", ()) + (target,))


# --- 10 Dracula (R23) ---------------------------------------------------------

@register
class Dracula(Decision):
    kind = "dracula"
    prompt = N_("move the five cards under the Dracula to the bottom of the deck")

    def options(self, st, seat, entry):
        card = entry["card"]
        if card in st.pile and st.pile.index(card) > 0:
            return [{"type": "dracula"}, SKIP]
        return []

    def apply(self, step, entry, action):
        if action["type"] != "dracula":
            raise IllegalAction(_("Use the Dracula (dracula) or skip it."))
        st = step.state
        # R41: the cards directly beneath the Dracula's own card, even if Simon
        # discards were put on top of it since
        idx = st.pile.index(entry["card"])
        start = max(0, idx - 5)
        moved = st.pile[start:idx]
        del st.pile[start:idx]
        # the card just under the Dracula ends nearest the top: drawn first of them
        st.deck[0:0] = moved
        step.pile_touched = True
        step.emit("dracula", cards=[public(st, c) for c in moved])
        st.stack.pop()


# --- 11 Underminer (R23) ------------------------------------------------------

@register
class Underminer(Decision):
    """Four small steps: two cards of one village, then the two pile cards for them.

    R34: nothing moves until all four are chosen (so `skip` cancels cleanly); the
    first village card goes to the very bottom of the pile, the second just above
    it, the first pile card takes the first village spot; a chosen card gone
    meanwhile (a Simon claim) makes the Underminer lapse.
    """
    kind = "underminer"
    prompt = N_("swap two cards of one village with two cards of the pile")

    def options(self, st, seat, entry):
        card = entry["card"]
        if card not in st.pile or len(st.pile) < 3:
            return []
        targets = entry.get("targets", ())
        if not targets:
            acts = [{"type": "undermine", "seat": s, "position": p}
                    for s in range(st.seats) if len(st.villages[s]) >= 2
                    for p in range(len(st.villages[s]))]
        elif len(targets) == 1:
            s, first = targets[0]
            acts = [{"type": "undermine", "seat": s, "position": p}
                    for p, c in enumerate(st.villages[s]) if c != first]
        else:
            takes = entry.get("takes", ())
            acts = [{"type": "undermine", "pile": i}
                    for i, c in enumerate(st.pile) if c != card and c not in takes]
        return acts + [SKIP] if acts else []

    def apply(self, step, entry, action):
        if action["type"] != "undermine":
            raise IllegalAction(_("Choose the Underminer's cards (undermine), or skip it."))
        st = step.state
        targets = entry.get("targets", ())
        if len(targets) < 2:
            target = seat_field(st, action)
            if targets and target != targets[0][0]:
                raise IllegalAction(_("Both cards must come from the same village."))
            if len(st.villages[target]) < 2:
                raise IllegalAction(_("That village has fewer than two cards."))
            pos = position_field(st, target, action)
            card = st.villages[target][pos]
            if targets and card == targets[0][1]:
                raise IllegalAction(_("Choose two different cards."))
            replace_top(st, targets=targets + ((target, card),))
            return
        idx = int_field(action, "pile", "pile card")
        if not 0 <= idx < len(st.pile):
            raise IllegalAction(ngettext(
                "The pile has %(num)d card (0 = bottom to %(last)s = top).",
                "The pile has %(num)d cards (0 = bottom to %(last)s = top).", len(st.pile),
                last=len(st.pile) - 1))
        card = st.pile[idx]
        takes = entry.get("takes", ())
        if card == entry["card"]:
            raise IllegalAction(_("You can't take the Underminer you just played."))
        if card in takes:
            raise IllegalAction(_("You already chose that pile card."))
        takes = takes + (card,)
        if len(takes) < 2:
            replace_top(st, takes=takes)
            return
        st.stack.pop()
        self._swap(step, targets, takes)

    @staticmethod
    def _swap(step, targets, takes):
        st = step.state
        seat = targets[0][0]
        village = st.villages[seat]
        if any(c not in village for _, c in targets) or any(c not in st.pile for c in takes):
            step.emit("underminer_lapsed")
            return
        positions = [village.index(c) for _, c in targets]
        for pos, new in zip(positions, takes):
            st.pile.remove(new)
            village[pos] = new
        # the village cards go to the bottom, the first chosen lowest, orientation kept
        st.pile[0:0] = [c for _, c in targets]
        step.pile_touched = True
        step.emit("undermine", target=seat, positions=positions,
                  taken=[public(st, c) for c in takes],
                  given=[public(st, c) for _, c in targets])


# --- 12 Drunk (R23) -----------------------------------------------------------

@register
class Drunk(Decision):
    kind = "drunk"
    prompt = N_("give the top deck card to an end of any village")

    def options(self, st, seat, entry):
        if not st.deck:
            return []
        return [{"type": "drunk", "seat": s, "end": e}
                for s in range(st.seats) for e in ("left", "right")] + [SKIP]

    def apply(self, step, entry, action):
        if action["type"] != "drunk":
            raise IllegalAction(_("Choose the village and end for the Drunk's card, or skip it."))
        st = step.state
        target = seat_field(st, action)
        end = end_field(action)
        card = draw_top(st)
        assert card is not None  # offered only while the deck has a card (options)
        add_at_end(st, target, card, end)   # orientation kept, unseen if facedown
        step.emit("drunk", target=target, end=end, card=public(st, card))
        st.stack.pop()


# --- 3 Spotter (R17) ----------------------------------------------------------

def start_spotter(st: State, value: int, uses: int) -> None:
    st.stack.append({"kind": "spotter", "value": value, "uses": uses})


@register
class Spotter(Decision):
    """R33: one search per faceup Spotter counted before the discard; a search ends at
    the first match or when the village has no unlooked facedown card; `skip` gives
    up the remaining searches too."""
    kind = "spotter"
    prompt = N_("look through one village's facedown cards for a match")

    def options(self, st, seat, entry):
        target = entry.get("target")
        if target is None:
            acts = [{"type": "spot", "seat": s} for s in range(st.seats) if facedown_positions(st, s)]
        else:
            looked = entry.get("looked", ())
            acts = [{"type": "look", "position": p} for p in facedown_positions(st, target)
                    if st.villages[target][p] not in looked]
        return acts + [SKIP] if acts else []

    def apply(self, step, entry, action):
        st = step.state
        target = entry.get("target")
        if target is None:
            if action["type"] != "spot":
                raise IllegalAction(_("Choose the village to search with your Spotter (spot), or skip."))
            target = seat_field(st, action)
            if not facedown_positions(st, target):
                raise IllegalAction(_("That village has no facedown card to look at."))
            replace_top(st, target=target, looked=())
            step.emit("spot", target=target, value=entry["value"])
            return
        if action["type"] != "look":
            raise IllegalAction(_("Choose a facedown card to look at (look), or skip."))
        pos = position_field(st, target, action)
        card = st.villages[target][pos]
        if st.faceup[card]:
            raise IllegalAction(_("That card is faceup: choose a facedown one."))
        if card in entry.get("looked", ()):
            raise IllegalAction(_("You already looked at that card."))
        learn(st, step.seat, card)
        if VALUE[card] != entry["value"]:
            step.emit("look", target=target, position=pos, found=False)
            entry = replace_top(st, looked=entry.get("looked", ()) + (card,))
            if not self.options(st, step.seat, entry):
                self._end_search(st, entry)
            return
        step.emit("look", target=target, position=pos, found=True)
        # R45: the match is discarded with the cards of the declaring action, on top of
        # them, so it is never the first card placed on an Obsessor (R15)
        del st.villages[target][pos]
        place_on_pile(step, card)
        step.emit("spotted", target=target, position=pos, card=public(st, card))
        self._end_search(st, st.stack[-1])

    @staticmethod
    def _end_search(st, entry):
        uses = entry["uses"] - 1
        if uses > 0:
            replace_top(st, uses=uses, target=None, looked=())
        else:
            st.stack.pop()


# --- 4 Gambler (R18) ----------------------------------------------------------

def gambles_left(st: State, seat: int, used: int = 0, start: int | None = None) -> int:
    """Unused Gamblers (R35): each Gambler faceup when the turn's gambling began gives
    one guess; a Gambler that left the village since is taken to be a used one."""
    if not st.deck:
        return 0
    now = faceup_count(st, seat, cards.GAMBLER)
    if start is None:
        return now
    gone = max(0, start - now)
    used_still_here = used - min(gone, used)
    return max(0, min(start - used, now - used_still_here))


def gamble_options(st: State, seat: int, used: int = 0, start: int | None = None) -> list[dict]:
    if gambles_left(st, seat, used, start) == 0:
        return []
    return [{"type": "gamble", "value": v} for v in VALUES]


def gamble(step: Step, action: dict, used: int = 0, start: int | None = None) -> None:
    """Name a value, turn the top deck card up; right: discard a card, wrong: it joins."""
    st, seat = step.state, step.seat
    assert seat is not None  # a seat's own move
    guess = action.get("value")
    if isinstance(guess, bool) or guess not in VALUES:
        raise IllegalAction(_("Name a card value to gamble on: -1, 0, 2 to 13."))
    end = end_field(action)
    if start is None:
        start = faceup_count(st, seat, cards.GAMBLER)
    card = st.deck[-1]
    turn_up(st, card)
    right = VALUE[card] == guess
    to_pile = refusing_obsessor(st, VALUE[card]) is None
    if to_pile:
        draw_top(st)
        place_on_pile(step, card)
    joined = None
    if not right:
        # R42: the next top deck card joins (unseen if facedown), even when the flipped
        # card went to the pile; with the deck then empty, nothing joins
        joined = draw_top(st)
        if joined is not None:
            add_at_end(st, seat, joined, end)
    step.emit("gamble", value=guess, card=public(st, card), right=right, to_pile=to_pile,
              end=end if joined is not None else None,
              joined=None if joined is None else public(st, joined))
    st.stack.pop()
    st.stack.append({"kind": "gamble_more", "used": used + 1, "start": start})
    if right and st.villages[seat]:
        st.stack.append({"kind": "gamble_win"})


@register
class GambleMore(Decision):
    kind = "gamble_more"
    prompt = N_("use another Gambler or end your turn")

    def options(self, st, seat, entry):
        acts = gamble_options(st, seat, entry["used"], entry["start"])
        return acts + [DONE] if acts else []

    def apply(self, step, entry, action):
        if action["type"] == "done":
            step.state.stack.pop()
            step.emit("done", what=self.kind)
            return
        if action["type"] != "gamble":
            raise IllegalAction(_("Gamble again with another Gambler, or end your turn (done)."))
        if gambles_left(step.state, step.seat, entry["used"], entry["start"]) == 0:
            raise IllegalAction(_("You have no unused faceup Gambler left."))
        gamble(step, action, entry["used"], entry["start"])

    def skip(self, step, entry):
        self.apply(step, entry, DONE)


@register
class GambleWin(Decision):
    kind = "gamble_win"
    prompt = N_("discard any one card of your village")

    def options(self, st, seat, entry):
        acts = [{"type": "discard", "position": p}
                for p, c in enumerate(st.villages[seat]) if placeable(st, c)]
        return acts + [SKIP] if acts else []

    def apply(self, step, entry, action):
        if action["type"] != "discard" or "position" not in action:
            raise IllegalAction(_("You guessed right: discard a card of your village (discard with a position), or skip."))
        st, seat = step.state, step.seat
        pos = position_field(st, seat, action)
        spotters = spotter_field(st, seat, action)
        card = st.villages[seat][pos]
        st.stack.pop()
        if discard_from_village(step, seat, pos):
            step.emit("gamble_discard", position=pos, card=public(st, card), spotter=bool(spotters))
            if spotters:
                start_spotter(st, VALUE[card], spotters)


# --- 2 Simon (R16) ------------------------------------------------------------

SIMON_IDS = tuple(c for c, v in enumerate(VALUE) if v == cards.SIMON)


def simon_preference(st: State, seat: int) -> str:
    prefs = st.option("simon") or []
    return prefs[seat] if seat < len(prefs) and prefs[seat] in ("auto", "off") else "auto"


def simon_reactions(step: Step) -> None:
    """After a step that put a card on top: auto seats discard their matches, the
    others get a window to claim theirs by hand while that value is on top (R36:
    it opens at the end of the step that put the card there)."""
    st = step.state
    if not any(st.faceup[c] for c in SIMON_IDS):    # no Simon faceup anywhere: nothing to do
        st.simon_window = None
        return
    top_value = VALUE[st.pile[-1]]
    first = step.seat if step.seat is not None else st.current
    allow = {}
    for i in range(st.seats):
        seat = (first + i) % st.seats
        simons = faceup_count(st, seat, cards.SIMON)
        if not simons:
            continue
        if simon_preference(st, seat) == "off":
            allow[seat] = simons
            continue
        if top_value < 1:
            continue
        done = 0
        pos = 0
        while done < simons and pos < len(st.villages[seat]):
            card = st.villages[seat][pos]
            if VALUE[card] == top_value and st.faceup[card] and refusing_obsessor(st, top_value) is None:
                del st.villages[seat][pos]
                place_on_pile(step, card)
                step.emit("simon", seat=seat, position=pos, card=public(st, card), auto=True)
                done += 1
            else:
                pos += 1
    st.simon_window = {"value": top_value, "claims": {s: 0 for s in allow}, "allow": allow} if allow else None


def simon_claim_options(st: State, seat: int) -> list[dict]:
    """R36: open while the window's value is on top; a claim never opens a new window."""
    window = st.simon_window
    if window is None or seat not in window["allow"] or not st.pile:
        return []
    if window["claims"][seat] >= window["allow"][seat] or VALUE[st.pile[-1]] != window["value"]:
        return []
    return [{"type": "simon", "position": p} for p, c in enumerate(st.villages[seat])
            if st.faceup[c] and VALUE[c] == window["value"] and placeable(st, c)]


def simon_decline(step: Step, timeout: bool = False) -> None:
    """R47: a seat waited for at round end gives up its remaining Simon claims."""
    st, seat = step.state, step.seat
    assert seat is not None and st.simon_window is not None  # a seat the open window waits for
    st.simon_window["claims"][seat] = st.simon_window["allow"][seat]
    step.emit("skip", what="simon_claim", timeout=timeout)


def simon_claim(step: Step, action: dict) -> None:
    st, seat = step.state, step.seat
    assert seat is not None  # a seat's own move
    if not simon_claim_options(st, seat):
        raise IllegalAction(_("You have no Simon discard to make now: the top of the pile must "
                              "match a faceup card of yours while you have an unused faceup "
                              "Simon."))
    pos = position_field(st, seat, action)
    if {"type": "simon", "position": pos} not in simon_claim_options(st, seat):
        raise IllegalAction(_("That card can't be discarded with Simon: it must be faceup and "
                              "match the top of the pile."))
    card = st.villages[seat][pos]
    del st.villages[seat][pos]
    place_on_pile(step, card)
    assert st.simon_window is not None  # a claim option needs an open window
    st.simon_window["claims"][seat] += 1
    step.emit("simon", position=pos, card=public(st, card), auto=False)
