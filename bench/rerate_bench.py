"""`python -m bench rerate`: ``flask --app app rerate`` on a store of 10,000 ended rated
games (issue 47 item 3: "in <= 10 s on this machine", and bit for bit).

The games' results are written by the game's end's own code (``settle.record``, one unit
of work a game, as a game that ends writes them) for 300 people, 2-4 of them a game,
in random places with ties; then ``rerate`` runs twice. Baseline in the same run: the
bare ``openskill`` calls for the same games in memory (what rating alone costs), so the
ratio says what reading and comparing the store adds."""
from __future__ import annotations

import random
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

GAMES = 10_000
PEOPLE = 300


def main() -> None:
    from app import create_app
    from app.db import upgrade
    from app.db.unit import unit_of_work
    from app.services import standing
    from app.standing import outcome as oc
    from app.standing.rating import Skill, rate
    from app.standing.settle import record

    workdir = Path(tempfile.mkdtemp(prefix="silver-eye-rerate-"))
    url = f"sqlite:///{workdir / 'rerate.db'}"
    upgrade(url)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench",
                      "INSTANCE_PATH": str(workdir / "instance")})
    rng = random.Random(47)
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    played = []
    with app.app_context():
        started = time.perf_counter()
        for g in range(GAMES):
            seats = rng.choice((2, 3, 4))
            people = rng.sample(range(PEOPLE), seats)
            places = sorted(rng.randint(1, seats) for _ in range(seats))
            places[0] = 1
            found = [oc.Outcome(seat, 0, f"p{person}@example.com", f"P{person}", oc.FINISHED,
                                rng.randint(20, 60), rng.randint(0, 3), places[seat])
                     for seat, person in enumerate(people)]
            played.append(([o.address for o in found], places))
            with unit_of_work() as unit:
                record(unit, f"g{g:05d}", seats, found, True, at + timedelta(minutes=g))
                unit.write()
        built = time.perf_counter() - started
        print(f"rerate: {GAMES:,} rated games of 2-4 of {PEOPLE} people written by the "
              f"game's end's code in {built:.1f} s")
        started = time.perf_counter()
        skills: dict[str, Skill] = {}
        for addresses, places in played:
            after = rate([skills.get(a, Skill()) for a in addresses], places)
            skills.update(zip(addresses, after))
        bare = time.perf_counter() - started
        for run in (1, 2):
            started = time.perf_counter()
            report = standing.rerate()
            took = time.perf_counter() - started
            print(f"  rerate run {run}: {took:.2f} s ({report.words()}); bare openskill for "
                  f"the same games {bare:.2f} s; ratio {took / bare:.2f}x")
            if report.results_fixed or report.people_fixed:
                print("  !! rerate changed stored values: not bit for bit")


if __name__ == "__main__":
    main()
