"""The game state: everything needed to go on, nothing a player is shown directly.

The state is plain data (lists of card ids, bitmasks) so that copying it for a
pure `apply_action` is cheap and two states compare equal exactly when replay
and live play agree. Views (app.engine.views) are the only way out of it.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields

from .cards import DECK_SIZE

SPECTATOR_BIT = 1 << 4          # "known to the table": what the spectator view shows
EVERYONE = 0b11111              # seats 0-3 and the spectator


def seat_bit(seat: int) -> int:
    return 1 << seat


class IllegalAction(Exception):
    """An action the rules do not allow now; the message is meant for the player."""


@dataclass(eq=True)
class State:
    seats: int
    seed: int
    options: dict
    decks: tuple | None
    round: int = 0
    phase: str = "play"                 # play | resolve | over
    villages: list[list[int]] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)      # draw pile, top is LAST
    pile: list[int] = field(default_factory=list)      # discard pile, top is LAST
    removed: list[int] = field(default_factory=list)   # out of the round (unused seats, Mad Bomber)
    faceup: list[bool] = field(default_factory=lambda: [False] * DECK_SIZE)
    know: list[int] = field(default_factory=lambda: [0] * DECK_SIZE)   # R30, bit per seat + table
    hand: int | None = None
    hand_seat: int | None = None
    current: int = 0
    start_player: int = 0
    stack: list[dict] = field(default_factory=list)   # pending decisions of `current`, top last
    peeks: list[int] = field(default_factory=list)    # seats that still owe their initial peek (R5)
    caller: int | None = None
    eye_holder: int = 0
    eye_open: bool = False
    round_scores: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)     # public events of this round
    prev_log: list[dict] = field(default_factory=list)  # those of the round before (never mutated)
    step: int = 0                                     # actions applied so far
    simon_window: dict | None = None                  # open Simon claims (R16)
    scoring: dict | None = None                       # round-end resolution (R24)
    winner: int | None = None
    rules: int = 1                                    # the rules version played (versions.py)
    round_end: str | None = None                      # rules 2: why the round ends once the
                                                      # Simon claims it waits for are made (R47)
    resigned: list[int] = field(default_factory=list)  # R48: seats that resigned, in order

    def __setstate__(self, saved: dict) -> None:
        """A state pickled by an older engine (a cache that ``check-games`` reads, whatever
        wrote it) lacks the fields added since: they take their defaults (R48's
        ``resigned``: nobody resigned), so it compares and clones like a new one."""
        self.__dict__.update(saved)
        for each in fields(self):
            if each.name not in self.__dict__:
                value = (each.default_factory() if each.default_factory is not MISSING
                         else each.default)
                setattr(self, each.name, value)

    def clone(self) -> "State":
        """A copy that shares only immutable parts (events, stack entries, finished rounds)."""
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        new.villages = [v[:] for v in self.villages]
        new.deck = self.deck[:]
        new.pile = self.pile[:]
        new.removed = self.removed[:]
        new.faceup = self.faceup[:]
        new.know = self.know[:]
        new.stack = self.stack[:]
        new.peeks = self.peeks[:]
        new.round_scores = self.round_scores[:]
        new.totals = self.totals[:]
        new.log = self.log[:]
        new.resigned = self.resigned[:]
        if self.simon_window is not None:
            new.simon_window = {**self.simon_window, "claims": dict(self.simon_window["claims"])}
        if self.scoring is not None:
            new.scoring = {**self.scoring, "tucks": dict(self.scoring["tucks"]),
                           "done": set(self.scoring["done"])}
        return new

    def option(self, name: str, default=None):
        return self.options.get(name, default)
