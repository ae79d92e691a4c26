"""A person's settings change costs the same in one game as in eight (issue 46 item 2).

Eve sets her zone and quiet hours with her mailed settings link. Her open decision in
every running game falls in the new quiet hours and moves; the change is one unit of
work: her row once, one read of every open decision of her running games, one write of
the decisions, one of their reminders, one insert of the new reminders, the change kept
and its mail queued. Counted, never timed: a person in eight games sends exactly the
statements of a person in one.
"""
from __future__ import annotations

from typing import Any

from app import services
from app.clock import deadlines as dl
from app.services import person_settings
from tests.clock.test_week_clock import decision
from tests.conftest import statements_sent

from .conftest import T0, hours

EVE = "eve@example.com"


def games_with_eve(count: int) -> list[services.Created]:
    """``count`` games, Eve to decide first in each, 19 hours a decision (04:00 UTC is
    23:00 in New York: inside the quiet hours she is about to set)."""
    with dl.at(T0):
        return [services.create_game([{"name": "Eve", "email": EVE},
                                      {"name": f"Bob{n}", "email": f"bob{n}@example.com"}],
                                     {"first": 0, "deadline_hours": 19}, name=f"Game {n}",
                                     seed=str(40 + n)) for n in range(count)]


def change(app: Any) -> list[str]:
    """The statements of Eve's change (zone and quiet hours), as her settings page's
    post stores it."""
    asked = person_settings.check({"time_zone": "America/New_York",
                                   "quiet_start": "22:00", "quiet_end": "08:00"})
    with dl.at(T0):
        return statements_sent(app, lambda: person_settings.save(EVE, asked, "settings"))


def test_a_change_in_eight_games_costs_what_it_costs_in_one(app):
    one = games_with_eve(1)
    once = change(app)
    assert [decision(g.game_id, 0) for g in one] != [T0 + hours(19)], "it moved"
    # the same change again, for a person in eight games (a fresh Eve: reset her row)
    from sqlalchemy import text

    from app.db import get_engine
    with get_engine(app).begin() as conn:
        conn.execute(text("DELETE FROM person WHERE address = :a"), {"a": EVE})
    eight = games_with_eve(8)
    moved_before = [decision(g.game_id, 0) for g in eight]
    eightfold = change(app)
    assert all(decision(g.game_id, 0) > due for g, due in zip(eight, moved_before)), \
        "every one of the eight games' decisions moved out of her quiet hours"
    assert len(eightfold) == len(once), (once, eightfold)
    reads = [s for s in eightfold if s.upper().startswith("SELECT")]
    assert len(reads) <= 4, reads
