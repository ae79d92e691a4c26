"""A person's reliability record in words (issue 47 item 1), apart from their skill.

The model is Diplicity's 2026 record, with BGA's Karma as what to avoid: a *tier* that a
gate can use (``new``, ``reliable``, ``unreliable``) and a line in words, never a bare
percentage, and one bad weekend must not make anyone unreliable:

- **new**: fewer than ``NEW_UNDER`` (3) ended games counted. A beginner is unknown, not
  unreliable: a new person is shown as new whatever those games say.
- **reliable**: at most ``RELIABLE_LEFT`` (1) game left of their last ``RECENT`` (10).
- **unreliable**: two or more left of their last ten.

Left means resigned (R48), handed over (R49: the seat went to a substitute because its
player was away or had resigned) or timed out to the end (R29, away and never back).
Decisions the clock played (a deadline passed) are said beside it but do not make the
tier: a missed deadline is already the game's business (R29), and an announced absence
stops the clock, so it plays nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.i18n import _, ngettext, pgettext
from app.standing.outcome import LEFT

#: How many of a person's last ended games the record reads.
RECENT = 10
#: Fewer ended games than this: *new*.
NEW_UNDER = 3
#: At most this many left of the last ``RECENT``: *reliable*.
RELIABLE_LEFT = 1

NEW, RELIABLE, UNRELIABLE = "new", "reliable", "unreliable"
TIERS = (NEW, RELIABLE, UNRELIABLE)


def tier_word(tier: str) -> str:
    """A tier in a word, in the reader's language (``Record.short``, a person's page)."""
    return {NEW: pgettext("tier", "new"), RELIABLE: pgettext("tier", "reliable"),
            UNRELIABLE: pgettext("tier", "unreliable")}.get(tier, tier)


@dataclass(frozen=True)
class Record:
    """The figures of a person's record (``app.standing.models.Standing``)."""

    ended: int = 0
    recent: int = 0
    recent_left: int = 0
    recent_moves: int = 0
    recent_clock: int = 0

    @classmethod
    def of(cls, row: Any) -> "Record":
        """From a ``standing`` row (or anything with its columns; None: nothing yet)."""
        if row is None:
            return cls()
        return cls(int(row.ended or 0), int(row.recent or 0), int(row.recent_left or 0),
                   int(row.recent_moves or 0), int(row.recent_clock or 0))

    @property
    def tier(self) -> str:
        if self.ended < NEW_UNDER:
            return NEW
        return RELIABLE if self.recent_left <= RELIABLE_LEFT else UNRELIABLE

    def words(self, who: str = "they") -> str:
        """The record as a sentence about ``who`` ("they", or "you" on their own page):
        "Finished 9 of their last 10 games; the clock played 2 of their 140 moves."."""
        you = who == "you"
        if self.ended == 0:
            return (_("New here: none of your games has ended yet.") if you
                    else _("New here: none of their games has ended yet."))
        finished = self.recent - self.recent_left
        if self.recent > 1:
            games = (_("Finished %(finished)s of your last %(recent)s games", finished=finished,
                       recent=self.recent) if you else
                     _("Finished %(finished)s of their last %(recent)s games",
                       finished=finished, recent=self.recent))
        elif finished:
            games = (_("Finished your one game so far") if you
                     else _("Finished their one game so far"))
        else:
            games = _("Left your one game so far") if you else _("Left their one game so far")
        moves = self.recent_moves + self.recent_clock
        if self.recent_clock == 0:
            clock = (_("the clock played none of your moves") if you
                     else _("the clock played none of their moves"))
        elif you:
            clock = ngettext("the clock played %(clock)s of your %(num)d move",
                             "the clock played %(clock)s of your %(num)d moves", moves,
                             clock=self.recent_clock)
        else:
            clock = ngettext("the clock played %(clock)s of their %(num)d move",
                             "the clock played %(clock)s of their %(num)d moves", moves,
                             clock=self.recent_clock)
        line = _("%(games)s; %(clock)s.", games=games, clock=clock)
        if self.tier == NEW:
            return ngettext("New here (%(num)d game ended). %(line)s",
                            "New here (%(num)d games ended). %(line)s", self.ended, line=line)
        return line

    def short(self) -> str:
        """The tier in one word or two, for a list ("new", "reliable", "left 2 of 10")."""
        if self.tier == UNRELIABLE:
            return _("left %(left)s of their last %(recent)s games", left=self.recent_left,
                     recent=self.recent)
        return tier_word(self.tier)


def summed(rows: list[tuple[str, int, int]], ended: int) -> Record:
    """The record from a person's last ended games, newest first: ``rows`` of
    ``(outcome, own moves, clock moves)`` (at most ``RECENT`` are read), ``ended`` how
    many games counted ever."""
    recent = rows[:RECENT]
    return Record(ended=ended, recent=len(recent),
                  recent_left=sum(1 for outcome, _, _ in recent if outcome in LEFT),
                  recent_moves=sum(own for _, own, _ in recent),
                  recent_clock=sum(clock for _, _, clock in recent))
