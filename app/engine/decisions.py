"""The shape of a pending decision, and the registry the rules dispatch through.

A decision is an entry on the state's stack (`{"kind": ..., ...}`) and a class
that knows its options, how to apply a chosen action, and what a timeout does
(R29). Turn decisions live in `turns.py`, card abilities in `abilities.py`.
"""
from __future__ import annotations

from app.i18n import _

from .state import IllegalAction, State
from .table import Step

SKIP = {"type": "skip"}
DONE = {"type": "done"}


class Decision:
    kind = ""
    #: words for the player: "choose a card to turn over"
    prompt = ""

    def options(self, st: State, seat: int, entry: dict) -> list[dict]:
        raise NotImplementedError

    def apply(self, step: Step, entry: dict, action: dict) -> None:
        raise NotImplementedError

    def timeout(self, step: Step, entry: dict) -> None:
        """R29: an optional decision is declined."""
        step.state.stack.pop()
        step.emit("skip", what=self.kind, timeout=True)

    def has_options(self, st: State, seat: int, entry: dict) -> bool:
        return bool(self.options(st, seat, entry))

    def forced(self, step: Step, entry: dict) -> None:
        """Nothing can be chosen any more (the cards moved): the decision lapses."""
        step.state.stack.pop()

    def skip(self, step: Step, entry: dict) -> None:
        assert step.seat is not None  # a seat's own move
        if SKIP not in self.options(step.state, step.seat, entry):
            raise IllegalAction(_("You can't skip this: %(prompt)s.", prompt=_(self.prompt)))
        step.state.stack.pop()
        step.emit("skip", what=self.kind)


REGISTRY: dict[str, Decision] = {}


def register(cls: type[Decision]) -> type[Decision]:
    REGISTRY[cls.kind] = cls()
    return cls


def replace_top(st: State, **changes) -> dict:
    entry = {**st.stack[-1], **changes}
    st.stack[-1] = entry
    return entry
