"""Stacked decks and small helpers so engine tests read like scenarios (R3).

    deck = stack(villages=[[...5 ids...], [...]], discard=ID, top=[next draws...])
    game = Game.start(2, deck)            # seat 0 starts unless `first` says otherwise
    game.peek_all()
    game.act(0, draw())
"""
from __future__ import annotations

from dataclasses import dataclass, field

from app import engine as E
from app.engine.cards import VALUE

# handy ids (R1)
NELLY = [0, 1, 2, 3]
ILLUSIONIST = [4, 5]


def ids(value: int) -> list[int]:
    """The card ids of a value, lowest first (R1)."""
    return [c for c in range(52) if VALUE[c] == value]


EVEN_OBSESSOR, ODD_OBSESSOR, LOW_OBSESSOR, HIGH_OBSESSOR = 34, 35, 36, 37
BOMBER = [50, 51]


def stack(villages: list[list[int]], discard: int, top: list[int] | None = None,
          bottom: list[int] | None = None) -> list[int]:
    """A full 52-card deck in dealing order (R3).

    `villages[s]` are seat s's cards left to right (5 each; missing seats and
    cards are filled with unused ids), `discard` starts the pile, `top` are the
    next cards drawn in order, `bottom` the last cards of the deck (bottom last).
    """
    top = top or []
    bottom = bottom or []
    chosen = [c for v in villages for c in v] + [discard] + top + bottom
    assert len(set(chosen)) == len(chosen), "a card is used twice in the stacked deck"
    spare = [c for c in range(52) if c not in set(chosen)]
    # fill with the dullest cards first (8s, 5s...) so that fillers rarely matter
    spare.sort(key=lambda c: (VALUE[c] in (-1, 0, 2, 3, 4, 9, 13), c))
    slots = []
    for s in range(4):
        vil = list(villages[s]) if s < len(villages) else []
        while len(vil) < 5:
            vil.append(spare.pop(0))
        slots += vil
    middle_len = 52 - 20 - 1 - len(top) - len(bottom)
    middle = [spare.pop(0) for _ in range(middle_len)]
    deck = slots + [discard] + top + middle + bottom
    assert sorted(deck) == list(range(52))
    return deck


@dataclass
class Game:
    state: E.State
    events: list[dict] = field(default_factory=list)

    @classmethod
    def start(cls, seats: int, *decks: list[int], first: int | None = None, seed: int = 1,
              options: dict | None = None, rules: int | None = None) -> "Game":
        """A game on stacked decks; `first` picks the seed so that this seat starts (R6);
        `rules` is the rules version (default: the newest)."""
        if first is not None:
            for s in range(1, 10_000):
                if E.new_game(seats, s, [decks[0]]).current == first:
                    seed = s
                    break
        return cls(E.new_game(seats, seed, list(decks), options, rules))

    # --- acting -------------------------------------------------------------
    def act(self, seat: int, action: dict) -> list[dict]:
        self.state, events = E.apply_action(self.state, seat, action)
        self.events += events
        return events

    def illegal(self, seat: int, action: dict) -> str:
        """The message of an action that must be refused (the state is unchanged)."""
        before = E.view(self.state, None)
        try:
            E.apply_action(self.state, seat, action)
        except E.IllegalAction as e:
            assert E.view(self.state, None) == before
            return str(e)
        raise AssertionError(f"{action} was accepted")

    def peek_all(self, positions=(0, 1)) -> None:
        for s in range(self.state.seats):
            if s in self.state.peeks:
                self.act(s, {"type": "peek", "positions": list(positions)})

    def legal(self, seat: int) -> list[dict]:
        return E.legal_actions(self.state, seat)

    def can(self, seat: int, action: dict) -> bool:
        return action in self.legal(seat)

    # --- looking ------------------------------------------------------------
    def view(self, seat: int | None) -> dict:
        return E.view(self.state, seat)

    def village(self, seat: int) -> list[int]:
        """Card ids of a village (white-box: the truth, not a view)."""
        return list(self.state.villages[seat])

    def faceup(self, card: int) -> bool:
        return self.state.faceup[card]

    def pile(self) -> list[int]:
        return list(self.state.pile)

    def top(self) -> int:
        return self.state.pile[-1]

    def deck(self) -> list[int]:
        """Deck from the top down."""
        return self.state.deck[::-1]

    def knows(self, seat: int | None, card: int) -> bool:
        """Whether the seat's view (or the spectator's) shows this card's identity."""
        v = self.view(seat)
        shown = [c for vil in v["villages"] for c in vil] + v["discard"]
        shown += [k["card"] for k in v["deck_known"]]
        if v["hand"]:
            shown.append(v["hand"])
        return any(c["id"] == card for c in shown)

    def types(self, events=None) -> list[str]:
        return [e["type"] for e in (self.events if events is None else events)]

    @property
    def current(self) -> int:
        return self.state.current

    @property
    def pending(self) -> str | None:
        return self.view(None)["pending"]


def draw():
    return {"type": "draw"}


def take():
    return {"type": "take"}


def discard():
    return {"type": "discard"}


def exchange(*positions, **extra):
    return {"type": "exchange", "positions": list(positions), **extra}
