"""Make the checked-in database of today's games once (issue 10: `check-games` in CI).

    .venv/bin/python -m tests.golden.make_db_fixture     # writes tests/golden/games_v1.sqlite

A SQLite store migrated to revision 0004 (the schema before rules versions),
with games made through `app.services` as the lobby makes them: finished
all-bot games, running games with humans part way (their state cache written
by the code of the time), one with the memory option and Simon `off`, and an
abandoned one. `tests/web/test_check_games.py` copies it, migrates it to head
and runs `flask --app app check-games` on it. Frozen: do not regenerate. (It ran
on commit 992e5f3, the last code of rules version 1 at revision 0004; later code
writes columns that revision does not have.)
"""
from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
from pathlib import Path

from alembic import command

from app import create_app, services
from app.db import alembic_config, get_engine
from app.engine import bots

TARGET = Path(__file__).parent / "games_v1.sqlite"


def human(name: str) -> dict:
    return {"kind": "human", "name": name, "email": f"{name.lower()}@example.com"}


def bot(name: str) -> dict:
    return {"kind": "bot", "name": name}


def play_humans(game_id: str, moves: int, rng: random.Random) -> None:
    """Humans move as the random bot would, through `submit_action` like the pages."""
    for _ in range(moves):
        snap = services.snapshot(game_id)
        to_act = snap.view(None)["to_act"]
        if not to_act:
            return
        seat = to_act[0]
        action = bots.choose("random", snap.state, seat, rng)
        services.submit_action(game_id, seat, action, snap.seq)


def main() -> int:
    if TARGET.exists():
        print(f"{TARGET} exists: the fixture is frozen")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{TARGET}"
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": "fixture", "TESTING": True,
                          "BASE_URL": "http://silver-eye.test", "INSTANCE_PATH": tmp,
                          "MAIL_BACKEND": "null"})
        command.upgrade(alembic_config(url), "0004")
        rng = random.Random(10)
        with app.app_context():
            services.create_game([bot("A"), bot("B")], {}, name="bots 2", seed="101")
            services.create_game([bot("A"), bot("B"), bot("C"), bot("D")], {"memory": True},
                                 name="bots 4 memory", seed="102")
            g = services.create_game([human("Ann"), bot("B"), human("Cy")], {}, name="running 3",
                                     seed="103")
            play_humans(g.game_id, 60, rng)
            g = services.create_game([human("Ann"), human("Bo")],
                                     {"memory": True, "simon": ["off", "off"]},
                                     name="memory simon off", seed="104")
            play_humans(g.game_id, 150, rng)
            g = services.create_game([human("Ann"), bot("B"), bot("C"), human("Di")], {},
                                     name="abandoned", seed="105")
            play_humans(g.game_id, 25, rng)
            services.abandon_game(g.game_id)
            g = services.create_game([human("Ann"), bot("B")], {"simon": ["off", "auto"]},
                                     name="just started", seed="106")
        get_engine(app).dispose()
    conn = sqlite3.connect(TARGET)   # one file, no -wal beside it
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("VACUUM")
    conn.close()
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
