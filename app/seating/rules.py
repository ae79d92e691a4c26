"""Who may sit down at an open table, said in words (issue 48 item 3). Pure: the
records and counts come from ``store``; this only decides and words the refusal.

The gates are Diplicity's ``min_reliability`` (PR#855), over the tiers of
``app.standing.record``:

- ``open``: anyone;
- ``new_reliable``: a new person or a reliable one (not one who left 2 of their last 10);
- ``reliable``: reliable only (a new person has not shown it yet).

A creator may not gate above their own tier (a new creator cannot ask for reliable
players only; an unreliable one can only open the table to all). The cap of open-table
games a person may be in at once is BGA's and Diplicity's (#710): ``NEW_CAP`` while new,
one more for each game they finished, at most the operator's ``OPEN_TABLE_CAP_MAX``.
"""
from __future__ import annotations

from app.standing.record import NEW, NEW_UNDER, RELIABLE, UNRELIABLE, Record

OPEN_GATE, NEW_RELIABLE, RELIABLE_ONLY = "open", "new_reliable", "reliable"
GATES = (OPEN_GATE, NEW_RELIABLE, RELIABLE_ONLY)

#: Each gate in a few words, as the lobby's choice and the list show it.
GATE_WORDS = {
    OPEN_GATE: "open to everyone",
    NEW_RELIABLE: "new and reliable players",
    RELIABLE_ONLY: "reliable players only",
}
#: What each gate means, for /help and the list's explanation.
GATE_MEANING = {
    OPEN_GATE: "anyone may sit down.",
    NEW_RELIABLE: "new players and players who finish their games; not someone who left "
                  "two or more of their last ten games.",
    RELIABLE_ONLY: "players who finished at least three games here and left at most one "
                   "of their last ten.",
}

#: The tiers each gate lets in.
LETS_IN = {OPEN_GATE: (NEW, RELIABLE, UNRELIABLE), NEW_RELIABLE: (NEW, RELIABLE),
           RELIABLE_ONLY: (RELIABLE,)}
#: The highest gate a creator of each tier may choose.
HIGHEST_GATE = {RELIABLE: RELIABLE_ONLY, NEW: NEW_RELIABLE, UNRELIABLE: OPEN_GATE}

#: Open-table games (waiting or running) a new person may be in at once.
NEW_CAP = 3


def gate_allowed(gate: str, creator: Record) -> str | None:
    """Why ``creator`` may not choose ``gate`` (None: they may)."""
    if gate not in GATES:
        return "Choose who may sit down: open, new and reliable players, or reliable only."
    if GATES.index(gate) <= GATES.index(HIGHEST_GATE[creator.tier]):
        return None
    if creator.tier == NEW:
        return ("A table for reliable players only needs a creator who is reliable: you "
                f"have finished {_games(creator.ended)} here so far (three make a record). "
                "Choose “new and reliable players” or “open to everyone”.")
    return ("Your own record says you left " f"{creator.recent_left} of your last "
            f"{creator.recent} games, so your table can only be open to everyone.")


def refusal(gate: str, person: Record) -> str | None:
    """Why a person with ``person``'s record may not sit at a table gated ``gate``
    (None: they may), in words addressed to them."""
    if person.tier in LETS_IN[gate]:
        return None
    if gate == RELIABLE_ONLY and person.tier == NEW:
        return ("This table is for reliable players: you have finished "
                f"{_games(person.ended)} here so far, and a record starts at three. "
                "Tables open to everyone or to new players will take you.")
    return ("This table is for players who finish their games: the record of that "
            f"address says {person.recent_left} of its last {person.recent} games were "
            "left before the end. Tables open to everyone will take you.")


def finished(record: Record) -> int:
    """The games a record says were finished: ended, less those left of the last ten
    (a game left does not earn a place at one more table)."""
    return max(0, record.ended - record.recent_left)


def cap(record: Record, most: int) -> int:
    """How many open-table games (waiting or running) a person with ``record`` may be in:
    ``NEW_CAP`` while new, then one more for each game finished from the third on, at
    most ``most``."""
    if record.tier == NEW:
        return min(NEW_CAP, int(most))
    return min(int(most), NEW_CAP + max(0, finished(record) - NEW_UNDER + 1))


def cap_words(count: int, record: Record, most: int) -> str | None:
    """Why a person in ``count`` open-table games may not sit down at one more."""
    allowed = cap(record, most)
    if count < allowed:
        return None
    more = ("Each game you finish lets you take one more."
            if allowed < int(most) else "That is the most this server allows.")
    return (f"That address is already in {count} open-table games that have not ended "
            f"(at most {allowed} at once for it). Finish one first. {more}")


def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"
