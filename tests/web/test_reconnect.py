"""A PostgreSQL restart (or a dropped idle connection) does not cost players a failed page.

The pool no longer pings on every checkout (issue 10: a round trip per request);
a connection that sat idle is pinged, and a dead one is replaced before the
request uses it. The test kills the pooled connection's backend from outside,
as a restart does, and asks for a page.
"""
from __future__ import annotations

import pytest
import sqlalchemy as sa

from app import create_app
from app.db import get_engine, make_engine, upgrade
from tests.conftest import PEOPLE, TEST_DATABASE_URL, TEST_SECRET_KEY

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                       reason="needs TEST_DATABASE_URL pointing at PostgreSQL"),
]


def pooled_backend_pid(app) -> int:
    with get_engine(app).connect() as conn:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


def kill_backend(pid: int) -> None:
    admin = make_engine(TEST_DATABASE_URL, poolclass=sa.pool.NullPool)
    try:
        with admin.begin() as conn:
            conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        admin.dispose()


@pytest.fixture
def idle_app(database_url, tmp_path):
    """The app with connections pinged after any idle time at all (0 s)."""
    app = create_app({"TESTING": True, "DATABASE_URL": database_url,
                      "SECRET_KEY": TEST_SECRET_KEY, "BASE_URL": "http://silver-eye.test",
                      "INSTANCE_PATH": str(tmp_path / "instance"),
                      "DB_IDLE_PING_SECONDS": 0})
    upgrade(database_url)
    with app.app_context():
        yield app
    get_engine(app).dispose()


def test_a_connection_killed_while_idle_is_replaced_before_a_request_uses_it(idle_app):
    from app import services

    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    created = services.create_game(players, {}, seed="77")
    client = idle_app.test_client()
    assert client.get(f"/api/play/{created.tokens[0]}/actions").status_code == 200
    old = pooled_backend_pid(idle_app)
    kill_backend(old)
    answer = client.get(f"/api/play/{created.tokens[0]}/actions")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert pooled_backend_pid(idle_app) != old, "the dead connection was replaced"


def test_a_busy_connection_is_not_pinged(app):
    """Within the idle time no ping is sent: the checkout costs no round trip."""
    engine = get_engine(app)
    pings: list[int] = []
    original = engine.dialect.do_ping

    def counting_ping(dbapi_connection):
        pings.append(1)
        return original(dbapi_connection)

    engine.dialect.do_ping = counting_ping  # type: ignore[method-assign]
    try:
        for _ in range(5):
            with engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
    finally:
        del engine.dialect.do_ping
    assert pings == []
