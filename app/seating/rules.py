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

from app.i18n import N_, _, ngettext
from app.standing.record import NEW, NEW_UNDER, RELIABLE, UNRELIABLE, Record

OPEN_GATE, NEW_RELIABLE, RELIABLE_ONLY = "open", "new_reliable", "reliable"
GATES = (OPEN_GATE, NEW_RELIABLE, RELIABLE_ONLY)

#: Each gate in a few words, as the lobby's choice and the list show it.
GATE_WORDS = {
    OPEN_GATE: N_("open to everyone"),
    NEW_RELIABLE: N_("new and reliable players"),
    RELIABLE_ONLY: N_("reliable players only"),
}
#: What each gate means, for /help and the list's explanation.
GATE_MEANING = {
    OPEN_GATE: N_("anyone may sit down."),
    NEW_RELIABLE: N_("new players and players who finish their games; not someone who left "
                     "two or more of their last ten games."),
    RELIABLE_ONLY: N_("players who finished at least three games here and left at most one "
                      "of their last ten."),
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
        return _("Choose who may sit down: open, new and reliable players, or reliable only.")
    if GATES.index(gate) <= GATES.index(HIGHEST_GATE[creator.tier]):
        return None
    if creator.tier == NEW:
        return ngettext(
            "A table for reliable players only needs a creator who is reliable: you "
            "have finished %(num)d game here so far (three make a record). "
            "Choose “new and reliable players” or “open to everyone”.",
            "A table for reliable players only needs a creator who is reliable: you "
            "have finished %(num)d games here so far (three make a record). "
            "Choose “new and reliable players” or “open to everyone”.", creator.ended)
    return _("Your own record says you left %(left)s of your last %(recent)s games, so your "
             "table can only be open to everyone.", left=creator.recent_left,
             recent=creator.recent)


def refusal(gate: str, person: Record) -> str | None:
    """Why a person with ``person``'s record may not sit at a table gated ``gate``
    (None: they may), in words addressed to them."""
    if person.tier in LETS_IN[gate]:
        return None
    if gate == RELIABLE_ONLY and person.tier == NEW:
        return ngettext(
            "This table is for reliable players: you have finished %(num)d game here so "
            "far, and a record starts at three. Tables open to everyone or to new players "
            "will take you.",
            "This table is for reliable players: you have finished %(num)d games here so "
            "far, and a record starts at three. Tables open to everyone or to new players "
            "will take you.", person.ended)
    return _("This table is for players who finish their games: the record of that "
             "address says %(left)s of its last %(recent)s games were left before the end. "
             "Tables open to everyone will take you.", left=person.recent_left,
             recent=person.recent)


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
    if allowed < int(most):
        return _("That address is already in %(count)s open-table games that have not "
                 "ended (at most %(allowed)s at once for it). Finish one first. Each game you "
                 "finish lets you take one more.", count=count, allowed=allowed)
    return _("That address is already in %(count)s open-table games that have not ended "
             "(at most %(allowed)s at once for it). Finish one first. That is the most this "
             "server allows.", count=count, allowed=allowed)
