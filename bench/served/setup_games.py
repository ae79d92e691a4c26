"""Migrate a database and make the games of one benchmark round, with a tree's own code.

``python setup_games.py URL GAMES SEATS SEED`` from a tree's root with that tree's
interpreter: ``upgrade(URL)``, then GAMES games of SEATS people (no memory
variant, as ``bench/http_bench.py`` makes them), printed as one JSON line
``[{"game_id": ..., "tokens": [...]}, ...]``. No import of ``bench``: it runs in
the tree before the redesign too.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile


def main(url: str, games: int, seats: int, seed: int) -> None:
    sys.path.insert(0, os.getcwd())
    import logging
    logging.disable(logging.WARNING)
    from app import create_app, services
    from app.db import get_engine, upgrade

    upgrade(url)
    with tempfile.TemporaryDirectory(prefix="silver-eye-setup-") as tmp:
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": os.environ["SECRET_KEY"],
                          "INSTANCE_PATH": os.path.join(tmp, "instance")})
        people = [{"name": f"P{i}", "email": f"p{i}@example.com"} for i in range(seats)]
        with app.app_context():
            made = [services.create_game(people, {"memory": False}, seed=str(seed + g))
                    for g in range(games)]
            out = [{"game_id": g.game_id, "tokens": list(g.tokens)} for g in made]
        get_engine(app).dispose()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
