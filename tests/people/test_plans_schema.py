"""Issue 35: the ``plan`` table Alembic builds (migration 0022) is the one the model
describes, and a move reads it with the seats (no statement of its own)."""
from __future__ import annotations

from app.plans import models  # noqa: F401  (registers the plan table)
from tests.schema_drift import drift


def test_the_plans_migration_matches_the_model(database_url):
    assert drift(database_url, {"plan"}) == []


def _moves_statements(app, new_game, orders: bool) -> tuple[list[str], str]:
    from app import services
    from app.services import plans
    from tests.conftest import statements_sent

    created = new_game(seats=3, bots=(2,), first=0)
    gid = created.game_id
    if orders:   # Bob keeps orders for decisions he does not face now
        plans.send(gid, 1, {"orders": [{"on": "seer", "choices": [{"action": {"type": "skip"}}]}]},
                   None)
    snap = services.snapshot(gid)
    services.submit_action(gid, 0, {"type": "peek", "positions": [0, 1]}, snap.seq)
    snap = services.snapshot(gid)
    sent = statements_sent(app, lambda: services.submit_action(gid, 0, {"type": "draw"}, snap.seq))
    return sent, app.config.get("DATABASE_URL", "")


def test_r35_a_move_reads_the_plans_with_its_seats_and_costs_no_statement_more(app, new_game):
    """The move's one read joins the ``plan`` rows (``move_read``): a game where nobody
    decided ahead, and one where a seat keeps standing orders, send as many statements
    per move as before (PostgreSQL: the read and the write)."""
    plain, url = _moves_statements(app, new_game, orders=False)
    ordered, _ = _moves_statements(app, new_game, orders=True)
    assert len(ordered) == len(plain)
    assert "plan" in plain[0]   # (the seats' read brings the plan rows along)
    if url.startswith("postgresql"):
        assert len(plain) == 2, plain
