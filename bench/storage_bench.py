"""Storage benchmark (issue 46 item 5): the bytes a game-hour leaves in the store.

The same complete games are played twice on PostgreSQL through the services, a move an
hour of the clock's time, the clock ticking after each move with the sender on (every
mail composed and delivered to the file mailbox, every deadline opened and closed as in
production): once as the tree before issue 46 kept a delivered mail (its whole body and
headers: the baseline, in the same run), once as the tree keeps it now (``outbox.
delivered``: ids, threading headers, status, times; no body). Printed: the bytes kept
per move in each table (``pg_column_size`` of the rows: what the rows hold, not the
pages' slack or the indexes), and what that means for a million games at a move a
game-hour, for the rows kept ``MAIL_RETENTION_DAYS`` (outbox, deadlines) and for the
action log, which is kept for ever (replays).
"""
from __future__ import annotations

import random
import shutil
import tempfile
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bench.prune_bench import _pg_url  # (the same store as the prune benchmark's)

PLAYED = 4
SEATS = 3
GAMES = 1_000_000
TABLES = ("action", "outbox", "deadline")


def _play(keep_bodies: bool) -> dict[str, Any]:
    """Play ``PLAYED`` games in a schema of their own; the rows' bytes per table."""
    from app import create_app, engine, services
    from app.clock import deadlines as dl
    from app.db import get_engine, upgrade
    from app.runners import clock, sending

    base = _pg_url()
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.engine.make_url(base).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    workdir = tempfile.mkdtemp(prefix="silver-eye-storage-")
    kept = sending._Letter.kept
    if keep_bodies:  # the tree before issue 46: a delivered row kept what composing wrote
        sending._Letter.kept = lambda self, row: dict(self.written)  # type: ignore[method-assign]
    try:
        upgrade(url)
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench",
                          "INSTANCE_PATH": str(Path(workdir) / "instance"),
                          "TURN_MAIL_DELAY_SECONDS": 0, "MAIL_PER_ADDRESS_PER_HOUR": 0})
        people = [{"name": f"P{i}", "email": f"p{i}@example.com"} for i in range(SEATS)]
        rng = random.Random(5)
        at = dl.now().replace(microsecond=0)
        moves = 0
        with app.app_context():
            for g in range(PLAYED):
                with dl.at(at):
                    created = services.create_game(people, {"memory": False}, seed=str(g))
                while True:
                    snap = services.snapshot(created.game_id)
                    to_act = snap.view(None).get("to_act") or []
                    if snap.view(None).get("phase") == "over" or not to_act:
                        break
                    seat = rng.choice(to_act)
                    action = rng.choice(engine.legal_actions(snap.state, seat))
                    at += timedelta(hours=1)
                    with dl.at(at):
                        services.submit_action(created.game_id, seat, action, snap.seq)
                        clock.tick(app, send_mail=True)
                    moves += 1
        db = get_engine(app)
        with db.connect() as conn:
            sizes = {table: int(conn.execute(sa.text(
                f"SELECT COALESCE(sum(pg_column_size(t.*)), 0) FROM {table} t")).scalar_one())
                for table in TABLES}
            mails, delivered = conn.execute(sa.text(
                "SELECT count(*), COALESCE(sum(pg_column_size(o.*)), 0) FROM outbox o "
                "WHERE status IN ('sent', 'notified')")).one()
            sizes["mails"], sizes["delivered"] = int(mails), int(delivered)
        db.dispose()
        return {"moves": moves, **sizes}
    finally:
        sending._Letter.kept = kept  # type: ignore[method-assign]
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    from app.config import DEFAULTS

    days = float(DEFAULTS["MAIL_RETENTION_DAYS"])
    before, now = _play(keep_bodies=True), _play(keep_bodies=False)
    print(f"Storage benchmark: {PLAYED} complete {SEATS}-seat games, a move an hour, the "
          f"clock and the sender on, on PostgreSQL ({now['moves']} moves, "
          f"{now['mails']} mails delivered)")
    print("  bytes kept per move (row data):  " + "  ".join(
        f"{t} {before[t] / before['moves']:,.0f} -> {now[t] / now['moves']:,.0f}"
        for t in TABLES))
    print(f"  a delivered mail keeps {now['delivered'] / max(now['mails'], 1):,.0f} bytes, "
          f"was {before['delivered'] / max(before['mails'], 1):,.0f}; the rest of the outbox "
          f"(superseded before it left, never composed) "
          f"{(now['outbox'] - now['delivered']) / now['moves']:,.0f} bytes a move")
    hours = days * 24
    for label, run in (("before issue 46", before), ("now", now)):
        retained = (run["outbox"] + run["deadline"]) / run["moves"] * GAMES * hours
        log_hour = run["action"] / run["moves"] * GAMES
        print(f"  {GAMES:,} games at a move a game-hour, {label}: outbox and deadlines "
              f"({days:.0f} days kept) {retained / 1e9:,.1f} GB; the action log grows "
              f"{log_hour / 1e6:,.0f} MB an hour ({log_hour * 24 * 365 / 1e12:,.2f} TB a year)")
    print(f"  ratio now / before, outbox bytes per move: "
          f"{(now['outbox'] / now['moves']) / (before['outbox'] / before['moves']):.2f}x")


if __name__ == "__main__":
    main()
