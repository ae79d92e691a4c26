"""What one ended game says about each person who held a seat in it (issue 47): the
facts a reliability record and a rating are made of, read from the log and the tenures
only (no votes, no thumbs), as a pure function so the game's end and ``rerate`` reach
exactly the same answer.

Each **stretch** at a seat (a tenure, issue 32) that a person played themselves at least
once gets one outcome:

- ``finished``: held the seat when the game ended, without resigning and not away;
- ``resigned``: held it at the end, having resigned (R48);
- ``timed_out``: held it at the end while marked away (R29), never back;
- ``handed_over``: the seat was handed to someone else (R49, only ever a seat whose
  player was away or had resigned: R51): the *abandoned* mark, no rating change.

A stretch played only by the clock from its first move, and a bot's, count for nobody:
a person who never sat down is unknown, not unreliable ("beginners are not unreliable,
they are unknown").

The **place** of each seat at the end (R54, docs/rules.md) is R28 with R48: the winner
first (R28's tie-break decides it), the other seats that did not resign by total,
lowest first, *equal* where their totals are equal (the rules break a tie only for the
win), then the resigned seats, the last to resign ranking highest.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from app.i18n import _, ngettext

#: Outcomes, as stored (``app.standing.models.Result.outcome``).
FINISHED, RESIGNED, TIMED_OUT, HANDED_OVER = "finished", "resigned", "timed_out", "handed_over"
#: Outcomes that count as having left a game (reliability).
LEFT = (RESIGNED, TIMED_OUT, HANDED_OVER)
#: A person's own move (not the clock, not the server): ``app.gamelog.store.OWN_SOURCES``.
OWN_SOURCES = ("player", "mail")
#: A decision the clock played because a deadline passed (R29).
CLOCK_SOURCE = "timeout"
#: Log entries that are about presence, not a decision of the game.
PRESENCE = ("away", "back", "resign", "take_over")


@dataclass(frozen=True)
class Stretch:
    """A tenure as the outcome reads it: who held ``seat`` from ``from_step`` until
    ``to_step`` (None: to the end)."""

    seat: int
    from_step: int
    to_step: int | None
    address: str
    name: str

    def holds(self, step: int) -> bool:
        return self.from_step <= step and (self.to_step is None or step < self.to_step)


@dataclass(frozen=True)
class Logged:
    """One row of the action log as the outcome reads it."""

    seq: int
    seat: int
    kind: str
    source: str


@dataclass(frozen=True)
class Final:
    """How the game ended: ``order`` every seat best first (``engine.scoring.ranking``),
    ``totals`` and ``resigned`` (in the order they resigned); ``over`` False for a game
    abandoned because nobody was left (R29), which has no order."""

    over: bool
    order: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    resigned: tuple[int, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """One stretch's result: the person (``address``), the seat, what became of it, how
    many of its decisions the person made and the clock made, and the seat's ``place``
    when its holder at the end takes the result (None otherwise)."""

    seat: int
    from_step: int
    address: str
    name: str
    outcome: str
    own_moves: int
    clock_moves: int
    place: int | None


def places(final: Final) -> dict[int, int]:
    """Each seat's place, 1 best (R54): equal totals share a place, except the winner's
    (R28 breaks that tie) and the resigned seats' (R48 orders them)."""
    resigned = set(final.resigned)
    result: dict[int, int] = {}
    previous: int | None = None
    for index, seat in enumerate(final.order):
        if index == 0 or seat in resigned:
            result[seat] = index + 1
        elif previous is not None and previous != final.order[0] \
                and previous not in resigned and final.totals[seat] == final.totals[previous]:
            result[seat] = result[previous]
        else:
            result[seat] = index + 1
        previous = seat
    return result


def outcomes(stretches: Sequence[Stretch], log: Sequence[Logged], final: Final,
             humans: Sequence[int]) -> list[Outcome]:
    """Every counted stretch of the game's people (``humans``: the seats people hold;
    a bot's seat and an address-less stretch count for nobody), in seat order."""
    placed = places(final) if final.over else {}
    away = _away_at_end(log)
    result: list[Outcome] = []
    for stretch in sorted(stretches, key=lambda s: (s.seat, s.from_step)):
        if stretch.seat not in humans or not stretch.address:
            continue
        mine = [row for row in log if row.seat == stretch.seat and stretch.holds(row.seq - 1)]
        own = sum(1 for row in mine if row.source in OWN_SOURCES and row.kind not in PRESENCE)
        if own == 0:
            continue  # played only by the clock from the first move: unknown, not unreliable
        clock = sum(1 for row in mine if row.source == CLOCK_SOURCE)
        if stretch.to_step is not None:
            outcome = HANDED_OVER
        elif stretch.seat in final.resigned:
            outcome = RESIGNED
        elif stretch.seat in away:
            outcome = TIMED_OUT
        else:
            outcome = FINISHED
        place = placed.get(stretch.seat) if stretch.to_step is None else None
        result.append(Outcome(stretch.seat, stretch.from_step, stretch.address, stretch.name,
                              outcome, own, clock, place))
    return result


def _away_at_end(log: Sequence[Logged]) -> set[int]:
    """The seats whose last word on presence was ``away`` (R29; a ``back`` or a
    ``take_over`` after it ends it)."""
    last: dict[int, str] = {}
    for row in sorted(log, key=lambda r: r.seq):
        if row.kind in ("away", "back", "take_over"):
            last[row.seat] = row.kind
    return {seat for seat, kind in last.items() if kind == "away"}


def counts_for_rating(found: Sequence[Outcome]) -> bool:
    """A rated game counts only when at least two people each made a move themselves."""
    return len({o.address.casefold() for o in found}) >= 2


def place_words(view: Mapping[str, Any], seat: int) -> str | None:
    """The reader's place at the end, first thing in the game-over mail and page (issue
    51 item 4): "You finished second of three (135 points)." R54's places: a tie shares
    a place ("second of four, tied"), the winner's tie is broken (R28), a resigned seat
    is last (R48). None while the game runs or for a spectator."""
    ranking = view.get("ranking")
    if not ranking or seat not in ranking:
        return None
    totals = list(view.get("totals") or [])
    final = Final(True, tuple(ranking), tuple(totals), tuple(view.get("resigned") or ()))
    placed = places(final)
    place = placed[seat]
    count = len(ranking)
    points = totals[seat] if seat < len(totals) else 0
    if seat in final.resigned:
        return _place_sentence(_RESIGNED, place, count, points)
    if place == 1 and ranking[0] == seat:
        return _place_sentence(_WON, 1, count, points)
    tied = sum(1 for other in placed.values() if other == place) > 1
    return _place_sentence(_TIED if tied else _FINISHED, place, count, points)


_RESIGNED, _WON, _TIED, _FINISHED = "resigned", "won", "tied", "finished"


def _place_sentence(how: str, place: int, count: int, points: int) -> str:
    """One whole sentence per way of finishing, so that each language says "second of
    three" its own way ("Zweiter von drei", "3人中2位")."""
    said = ngettext("(%(num)d point)", "(%(num)d points)", points)
    where = _place_of(place, count)
    if how == _RESIGNED:
        return _("You resigned, so you finished last: %(place)s %(points)s.", place=where,
                 points=said)
    if how == _WON:
        return _("You won: %(place)s %(points)s.", place=where, points=said)
    if how == _TIED:
        return _("You finished %(place)s, tied %(points)s.", place=where, points=said)
    return _("You finished %(place)s %(points)s.", place=where, points=said)


def _place_of(place: int, count: int) -> str:
    """'second of three' (R54's places among 2 to 4 players)."""
    said = {
        (1, 2): _("first of two"), (2, 2): _("second of two"),
        (1, 3): _("first of three"), (2, 3): _("second of three"), (3, 3): _("third of three"),
        (1, 4): _("first of four"), (2, 4): _("second of four"), (3, 4): _("third of four"),
        (4, 4): _("fourth of four"),
    }
    if (place, count) in said:
        return said[(place, count)]
    return _("#%(place)s of %(count)s", place=place, count=count)
