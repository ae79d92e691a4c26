"""What people see of each other's standing (issue 47 item 4): a seated person's line at
the table, a person's public page, the leaderboard, and what a game did to its people's
ratings. Reads only; the writes are the game's end's (``app.standing.settle``).

Nothing here ever carries an address: a person is named by the name they chose (or the
name of their last seat) and addressed by ``Standing.public_id``. A person who hides
their standing (``Person.standing_hidden``) shows others only their tier (*new*,
*reliable*, *unreliable*), which a table's gate needs; they still see their page whole
through their own settings.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa

from app.clock.time import iso_in
from app import i18n
from app.db import read_session
from app.db.statements import table_of
from app.gamelog import store
from app.people.models import Person
from app.services.errors import NotFound
from app.standing.models import Result, Standing
from app.standing.outcome import HANDED_OVER, RESIGNED, TIMED_OUT
from app.standing.rating import Skill, explained
from app.standing.record import Record

_RESULTS = table_of(Result)
_STANDING = table_of(Standing)
_PERSONS = table_of(Person)
_GAMES = table_of(store.Game)

#: The leaderboard lists rated people with at least this many rated games.
LEADERBOARD_MIN_GAMES = 3
#: How many of a person's ended games their page lists.
PAGE_GAMES = 10

OUTCOME_WORDS = {
    "finished": i18n.N_("finished"), RESIGNED: i18n.N_("resigned"),
    TIMED_OUT: i18n.N_("timed out to the end"),
    HANDED_OVER: i18n.N_("handed over (away or resigned)"),
}


@dataclass(frozen=True)
class Line:
    """A seated person's standing as a table shows it."""

    tier: str
    words: str
    short: str
    public_id: str | None
    rating: int | None
    provisional: bool

    #: What the game just ended did to the rating (``{"before", "after"}``; None).
    change: dict[str, int] | None = None

    def public(self) -> dict[str, Any]:
        return {"tier": self.tier, "words": self.words, "short": self.short,
                "public_id": self.public_id, "rating": self.rating,
                "provisional": self.provisional, "change": self.change}


def with_change(shown: Line, change: dict[str, int]) -> Line:
    """``shown`` with what this game did to the rating (a hidden person's stays hidden)."""
    if shown.public_id is None and shown.rating is None:
        return shown
    return replace(shown, change=change)


def line(row: Any, hidden: bool = False) -> Line:
    """The line of a person from their ``standing`` row (None: no game of theirs ended)."""
    record = Record.of(row)
    if hidden:
        return Line(record.tier, i18n._("Keeps their record to themselves; %(tier)s.",
                                        tier=record.tier),
                    record.tier, None, None, False)
    skill = _skill(row)
    return Line(record.tier, record.words(), record.short(),
                getattr(row, "public_id", None) if row is not None else None,
                skill.shown if skill is not None else None,
                bool(skill is not None and skill.provisional))


def _skill(row: Any) -> Skill | None:
    if row is None or row.mu is None or row.sigma is None:
        return None
    return Skill(float(row.mu), float(row.sigma))


def person_page(public_id: str, zone: Any = None) -> dict[str, Any]:
    """A person's public page: the name they chose, their record in words, their rating
    and their last ended games; only the tier when they hide it. ``NotFound`` for an id
    nobody has (the same answer for a malformed one)."""
    if not (0 < len(public_id) <= 24 and all(c.isalnum() or c in "-_" for c in public_id)):
        raise NotFound(i18n._("There is nobody with this id."))
    with read_session() as session:
        connection = session.connection()
        found = connection.execute(
            sa.select(_STANDING, _PERSONS.c.name.label("chosen"), _PERSONS.c.standing_hidden)
            .select_from(_STANDING.join(_PERSONS, _PERSONS.c.id == _STANDING.c.person_id))
            .where(_STANDING.c.public_id == public_id)).first()
        if found is None:
            raise NotFound(i18n._("There is nobody with this id."))
        games = [] if found.standing_hidden else list(connection.execute(
            sa.select(_RESULTS, _GAMES.c.name.label("game_name"), _GAMES.c.status)
            .select_from(_RESULTS.join(_GAMES, _GAMES.c.id == _RESULTS.c.game_id))
            .where(_RESULTS.c.person_id == found.person_id)
            .order_by(_RESULTS.c.ended_at.desc(), _RESULTS.c.id.desc()).limit(PAGE_GAMES)))
    shown = line(found, bool(found.standing_hidden))
    skill = _skill(found)
    page: dict[str, Any] = {
        "public_id": public_id, "name": found.chosen or found.name or i18n._("A player"),
        "hidden": bool(found.standing_hidden), "tier": shown.tier, "record": shown.words}
    if found.standing_hidden:
        return page
    page.update({
        "rating": shown.rating, "provisional": shown.provisional,
        "rating_words": explained(skill, int(found.rated_games or 0)) if skill is not None
        else i18n._("No rated game yet."),
        "rated_games": int(found.rated_games or 0),
        "games": [_game(row, zone) for row in games]})
    return page


def _game(row: Any, zone: Any) -> dict[str, Any]:
    """One ended game on a person's page: never another person's address or record."""
    change = None
    if row.mu_after is not None:
        before = Skill(float(row.mu_before), float(row.sigma_before))
        after = Skill(float(row.mu_after), float(row.sigma_after))
        change = {"before": before.shown, "after": after.shown}
    place = (_place(int(row.place), int(row.seats)) if row.place is not None else None)
    return {"game_id": row.game_id, "game": row.game_name, "as": row.name,
            "outcome": row.outcome, "words": i18n._(OUTCOME_WORDS[row.outcome]) if row.outcome in OUTCOME_WORDS
            else row.outcome,
            "place": place, "rating": change, "ended": iso_in(row.ended_at, zone)}


def _place(place: int, seats: int) -> str:
    """'2nd of 4' (a place at one game's end), in the reader's language."""
    if i18n.current() == i18n.DEFAULT:
        return f"{_ordinal(place)} of {seats}"
    return i18n._("place %(place)s of %(seats)s", place=place, seats=seats)


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def leaderboard(min_games: int = LEADERBOARD_MIN_GAMES, limit: int = 100) -> list[dict[str, Any]]:
    """Rated people with at least ``min_games`` rated games, best shown rating first
    (those who hide their standing are left out)."""
    with read_session() as session:
        rows = session.connection().execute(
            sa.select(_STANDING, _PERSONS.c.name.label("chosen"))
            .select_from(_STANDING.join(_PERSONS, _PERSONS.c.id == _STANDING.c.person_id))
            .where(_STANDING.c.mu.is_not(None), _STANDING.c.rated_games >= min_games,
                   _PERSONS.c.standing_hidden.is_(sa.false()))
            # (the expression of ix_standing_board, 3 written out: a bound 3 would not match it)
            .order_by((_STANDING.c.mu - sa.literal_column("3") * _STANDING.c.sigma).desc(),
                      _STANDING.c.person_id)
            .limit(limit)).all()
    board = []
    for place, row in enumerate(rows, start=1):
        skill = Skill(float(row.mu), float(row.sigma))
        board.append({"place": place, "public_id": row.public_id,
                      "name": row.chosen or row.name or i18n._("A player"), "rating": skill.shown,
                      "provisional": skill.provisional, "rated_games": int(row.rated_games),
                      "record": Record.of(row).words()})
    return board


def changes_of(session: Any, game_id: str) -> dict[int, dict[str, int]]:
    """What an ended rated game did to each seat's rating (game over page): seat ->
    ``{"before", "after"}`` shown ratings (empty for a friendly game)."""
    found = session.connection().execute(
        sa.select(_RESULTS.c.seat, _RESULTS.c.mu_before, _RESULTS.c.sigma_before,
                  _RESULTS.c.mu_after, _RESULTS.c.sigma_after)
        .where(_RESULTS.c.game_id == game_id, _RESULTS.c.mu_after.is_not(None))).all()
    return {int(seat): {"before": Skill(float(mb), float(sb)).shown,
                        "after": Skill(float(ma), float(sa_)).shown}
            for seat, mb, sb, ma, sa_ in found}


def rerate(from_log: bool = False) -> Any:
    """``flask --app app rerate``: every rated game again, in order, and every record
    summed again (``app.standing.rerate``), in one transaction; ``from_log``: first the
    results of ended games that have none, from their logs."""
    from app.db.unit import unit_of_work
    from app.standing import rerate as again

    with unit_of_work() as unit:
        backfilled = again.backfill(unit) if from_log else []
        report = again.rerate(unit.session)
        report.backfilled = backfilled
    return report
