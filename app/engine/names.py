"""Who held each seat when, as the words about the past need it (R49: a seat changes
hands and the game goes on; R53: what was done or said keeps its people; issue 32).
Pure data: the server builds it from its tenures (``app.people.tenures``) or from the
log's ``take_over`` entries, and ``describe`` names each event by the holders of its
step."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

Event = Mapping[str, Any]


class SeatNames(list[str]):
    """The players' names now (this list, indexed by seat as everywhere) and who held each
    seat before (R49: a seat changes hands and the game goes on), so that words about an
    earlier step name whoever sat there then, never today's holder.

    ``eras`` maps a step to the names from that step on (a step as the state counts it:
    a move of seq ``s`` was made at step ``s - 1``, and a hand-over's newcomer holds the
    seat from the ``take_over``'s seq); without eras it is just the names now. Pure data:
    the server builds it from its tenures or from the log's ``take_over`` entries."""

    def __init__(self, names: Sequence[str], eras: Mapping[int, Sequence[str]] | None = None,
                 since: Sequence[int] | None = None):
        super().__init__(names)
        self.eras = tuple(sorted((int(step), tuple(named))
                                 for step, named in (eras or {}).items()
                                 if len(named) == len(self)))
        #: per seat, the step from which its holder now holds it (0: from the start;
        #: given by the builder, else where the seat's name last changed)
        if since is None or len(since) != len(self):
            since = [0] * len(self)
            for step, named in self.eras:
                for seat, name in enumerate(named):
                    if step > 0 and name != self.at_step(step - 1)[seat]:
                        since[seat] = step
        self.since = tuple(int(step) for step in since)

    def shown(self, show: Callable[[int, str], str]) -> "SeatNames":
        """The same names as a reader shows them (``show(seat, name)``: a mail's clean
        names), now and before."""
        return SeatNames([show(seat, name) for seat, name in enumerate(self)],
                         {since: [show(seat, name) for seat, name in enumerate(named)]
                          for since, named in self.eras}, self.since)

    def at_step(self, step: int) -> list[str]:
        """The names of whoever held each seat at ``step`` (talk, a gift, a vote carry it)."""
        chosen: Sequence[str] = self
        for since, named in self.eras:
            if since > step:
                break
            chosen = named
        return list(chosen)

    def of_event(self, event: Event) -> list[str]:
        """The names for an event (its ``step`` is the seq of the move that made it)."""
        return self.at_step(max(int(event.get("step") or 0) - 1, 0))

    def as_of(self, step: int) -> "SeatNames":
        """The names as they were at ``step`` (a replay's frame), knowing what came before."""
        eras = {since: named for since, named in self.eras if since <= step}
        if all(held <= step for held in self.since):
            return SeatNames(self.at_step(step), eras, self.since)
        return SeatNames(self.at_step(step), eras)

    def holds(self, seat: int, event: Event) -> bool:
        """Whether ``seat``'s holder now is who acted at ``event`` (its own ``take_over``
        included: "You took over Kenji's seat")."""
        return not 0 <= seat < len(self.since) or int(event.get("step") or 0) >= self.since[seat]


def name_at(names: Sequence[str], seat: int, step: int, default: str = "?") -> str:
    """``seat``'s name at ``step`` (talk, a gift, a vote carry one): its holder then where
    ``names`` knows it (``SeatNames``, R49), else its name now."""
    then = names.at_step(step) if isinstance(names, SeatNames) else names
    return then[seat] if 0 <= seat < len(then) else default


def holds_now(names: Sequence[str], seat: int, step: int) -> bool:
    """Whether ``seat``'s holder now held it at ``step`` (what a reader said herself is
    "mine", not what the seat's earlier holder said)."""
    return not isinstance(names, SeatNames) or not 0 <= seat < len(names.since) \
        or step >= names.since[seat]


def names_for(names: Sequence[str] | None, event: Event) -> Sequence[str] | None:
    """R49: the names of the seats' holders when ``event`` happened, where ``names`` knows
    them (``SeatNames``); else ``names`` as they are."""
    return names.of_event(event) if isinstance(names, SeatNames) else names
