"""Ratings (issue 47 item 3): OpenSkill's Plackett-Luce model (``openskill``, pinned in
pyproject.toml), not a formula of our own. Plackett-Luce takes the ranks of any number
of players and ties, which a three- or four-seat game of Silver Eye needs and which
Glicko-2 and Elo, made for two players, do not.

A person's rating is the model's μ (how well they are believed to play) and σ (how
unsure that belief is), starting at the model's 25 and 25/3. People see one number:

    shown = round(1500 + 40 · (μ − 3σ))

μ − 3σ is the model's own conservative estimate (its ``ordinal``): a newcomer starts
at 0 (shown 1500) and rises as games make the server surer, so nobody climbs a
leaderboard by one lucky game. The rating stays **provisional** while σ is at least
``PROVISIONAL_SIGMA`` (5): about a dozen rated games for a newcomer. A provisional
rating is shown with its reason in words, never as a bare "?".

The bits are the library's: ``rate`` asks ``openskill`` and stores what it answers, so
``rerate`` (every rated game again, in order) gives exactly the stored values.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from openskill.models import PlackettLuce

from app.i18n import _, ngettext

#: The model, with its defaults (μ 25, σ 25/3, β 25/6, τ 25/300).
MODEL = PlackettLuce()
#: A fresh person's μ and σ.
START_MU: float = float(MODEL.mu)
START_SIGMA: float = float(MODEL.sigma)
#: σ from which on a rating is no longer provisional.
PROVISIONAL_SIGMA = 5.0
#: The shown scale: ``BASE + SCALE * (μ - 3σ)``.
BASE, SCALE = 1500, 40


@dataclass(frozen=True)
class Skill:
    """A person's μ and σ."""

    mu: float = START_MU
    sigma: float = START_SIGMA

    @property
    def shown(self) -> int:
        """The one number people see (module docstring)."""
        return round(BASE + SCALE * (self.mu - 3 * self.sigma))

    @property
    def provisional(self) -> bool:
        return self.sigma >= PROVISIONAL_SIGMA


def rate(before: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Everyone's new skill after one game in which person ``i`` finished at
    ``places[i]`` (1 best; equal places are a tie)."""
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in before]
    rated = MODEL.rate(teams, ranks=[float(place) for place in places])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in rated]


def explained(skill: Skill, games: int) -> str:
    """The rating in words, for pages: the number, and why it may still move a lot."""
    if games == 0:
        return _("No rated game yet.")
    if skill.provisional:
        return ngettext("%(rating)s, provisional: after %(num)d rated game the server is not "
                        "sure yet (a rating settles after about a dozen rated games).",
                        "%(rating)s, provisional: after %(num)d rated games the server is not "
                        "sure yet (a rating settles after about a dozen rated games).",
                        games, rating=skill.shown)
    return ngettext("%(rating)s after %(num)d rated game.",
                    "%(rating)s after %(num)d rated games.", games, rating=skill.shown)


def moved(before: Skill, after: Skill, games: int) -> str:
    """What one rated game did to a rating, in words (the game-over mail and page)."""
    if games == 1:
        line = _("Your rating moved from a fresh rating of %(before)s to %(after)s",
                 before=before.shown, after=after.shown)
    else:
        line = _("Your rating moved from %(before)s to %(after)s", before=before.shown,
                 after=after.shown)
    if after.provisional:
        return ngettext("%(line)s, still provisional after %(num)d rated game: a rating "
                        "settles after about a dozen.",
                        "%(line)s, still provisional after %(num)d rated games: a rating "
                        "settles after about a dozen.", games, line=line)
    return _("%(line)s.", line=line)
