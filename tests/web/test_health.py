"""``/healthz`` and ``/readyz``, as a load balancer and a monitor ask them (issue 17 item 1).

``/healthz`` says the web process answers, whatever the database does;
``/readyz`` says whether the service does its job (database reachable, clock
and sender beating, no mail late, mail not failing to leave) and why not, with a 503,
in words that show nothing of the machine (issue 45 item 6: no pid, no host name). The
database is taken away for real: the app reaches PostgreSQL through a small
TCP proxy in the test that is closed and opened again, as an outage does.
"""
from __future__ import annotations

import re
import socket
import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
import sqlalchemy as sa

from app import create_app, services
from app.clock import deadlines as dl
from app.runners import heartbeats
from app.db import get_engine
from tests.conftest import PEOPLE, TEST_DATABASE_URL, TEST_SECRET_KEY

GIVE_UP_SECONDS = 30.0


def beating(app: Any, *names: str, at: datetime | None = None, **detail: Any) -> None:
    """The loops ``names`` beat (at ``at``, default now), as their processes do."""
    for name in names:
        heartbeats.write(get_engine(app), name, every=5, detail=detail, at=at)


def ready(client: Any) -> tuple[int, dict[str, Any]]:
    answer = client.get("/readyz")
    return answer.status_code, answer.get_json()


def test_a_service_whose_clock_and_sender_beat_is_ready(app, client):
    beating(app, heartbeats.CLOCK, heartbeats.SENDER)
    status, body = ready(client)
    assert status == 200
    assert body == {"ready": True, "reason": "ready: the database answers, the clock and "
                                             "the mail sender beat, mail leaves"}
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_readyz_shows_no_pid_host_or_version_to_whoever_asks(app, client):
    """What it said before: each loop's pid and host, its beat's detail."""
    import os
    import socket as sockets

    beating(app, heartbeats.CLOCK, owner="sender-1234-abcd")
    beating(app, heartbeats.SENDER, at=datetime.now(timezone.utc) - timedelta(hours=1))
    heartbeats.Beater(get_engine(app), heartbeats.SENDER).died(
        "OperationalError: connection to server at db7.internal (10.0.0.7) failed")
    for _ in range(2):
        status, body = ready(client)
        assert set(body) == {"ready", "reason"}
        said = str(body)
        assert str(os.getpid()) not in said and sockets.gethostname() not in said
        assert "db7.internal" not in said and "10.0.0.7" not in said and "sender-1234" not in said
    assert status == 503 and body["reason"] == "not ready: the mail sender stopped"


def test_a_service_whose_clock_never_ran_is_not_ready_and_says_why(app, client):
    beating(app, heartbeats.SENDER)
    status, body = ready(client)
    assert status == 503
    assert body["reason"] == "not ready: the clock has never beaten"


def test_a_clock_that_stopped_beating_makes_the_service_unready(app, client):
    beating(app, heartbeats.SENDER)
    beating(app, heartbeats.CLOCK, at=datetime.now(timezone.utc) - timedelta(hours=1))
    status, body = ready(client)
    assert status == 503
    assert re.fullmatch(r"not ready: the clock's last heartbeat is (\d+) s old", body["reason"])
    assert int(re.findall(r"\d+", body["reason"])[0]) >= 3600


def test_while_the_tick_sends_the_mail_itself_a_silent_sender_is_no_failure(app, client):
    """``--no-waker``, or a sender that died: the clock says it sends the mail."""
    beating(app, heartbeats.CLOCK, sends_mail=True)
    status, body = ready(client)
    assert status == 200 and body["ready"] is True


def test_a_mail_due_for_too_long_makes_the_service_unready(app, client):
    app.config["READY_MAIL_LATE_SECONDS"] = 60
    beating(app, heartbeats.CLOCK, heartbeats.SENDER)
    players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
    game_id = services.create_game(players, {}, name="Late mail", seed="7").game_id
    with get_engine(app).begin() as conn:  # its invitations have waited ten minutes
        conn.execute(sa.text("UPDATE outbox SET next_attempt_at = :t WHERE game_id = :g"),
                     {"t": datetime.now(timezone.utc) - timedelta(minutes=10), "g": game_id})
    status, body = ready(client)
    assert status == 503
    said = re.fullmatch(r"not ready: a mail has been due for (\d+) s \(bound 60 s\)",
                        body["reason"])
    assert said and int(said.group(1)) >= 600


def test_readyz_and_healthz_only_read(app, client, db):
    beating(app, heartbeats.CLOCK, heartbeats.SENDER)
    before = db.dump()
    client.get("/readyz")
    client.get("/healthz")
    assert db.dump() == before


def test_with_no_database_at_all_the_process_is_healthy_but_not_ready(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = create_app({"TESTING": True, "SECRET_KEY": TEST_SECRET_KEY,
                      "DATABASE_URL": f"postgresql+psycopg://nobody@127.0.0.1:{port}/gone",
                      "INSTANCE_PATH": str(tmp_path / "instance")})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    status, body = ready(client)
    assert status == 503
    assert body == {"ready": False, "reason": "not ready: the database cannot be reached"}
    assert "nobody" not in str(body) and str(port) not in str(body)


# -- the database goes away and comes back ----------------------------------------------

class Proxy:
    """A TCP proxy to PostgreSQL that can be closed (every connection cut, nothing
    accepted) and opened again on the same port: a database outage from outside."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._pipes: list[socket.socket] = []
        self._lock = threading.Lock()

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            try:  # wakes the thread blocked in accept() (close alone would not)
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        with self._lock:
            pipes, self._pipes = self._pipes, []
        for sock in pipes:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pipes += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def app_through_proxy(database_url: str, tmp_path: Any, **config: Any) -> tuple[Proxy, Any]:
    """A web app whose database connections go through an open ``Proxy`` of its own."""
    real = sa.engine.make_url(database_url)
    proxy = Proxy((real.host or "127.0.0.1", real.port or 5432))
    proxy.open()
    web = create_app({"TESTING": True, "SECRET_KEY": TEST_SECRET_KEY,
                      "DATABASE_URL": real.set(port=proxy.port).render_as_string(
                          hide_password=False),
                      "INSTANCE_PATH": str(tmp_path / "web"), **config})
    return proxy, web


@pytest.mark.postgres
@pytest.mark.skipif(not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs TEST_DATABASE_URL pointing at PostgreSQL")
def test_readyz_fails_while_the_database_is_gone_and_recovers_after(app, database_url,
                                                                     tmp_path):
    # the heartbeats below stay fresh however slow this machine is
    proxy, web = app_through_proxy(database_url, tmp_path, HEARTBEAT_STALE_SECONDS=3600)
    client = web.test_client()
    beating(app, heartbeats.CLOCK, heartbeats.SENDER)  # written past the proxy
    try:
        assert ready(client)[0] == 200

        proxy.close()  # the database is gone
        for _ in range(3):  # the pooled connection dies, then no new one can be made
            status, body = ready(client)
            assert status == 503 and "database" in body["reason"], body
            assert client.get("/healthz").status_code == 200

        proxy.open()  # it is back
        end = time.monotonic() + GIVE_UP_SECONDS
        while (answer := ready(client))[0] != 200:
            assert time.monotonic() < end, f"still not ready: {answer}"
            time.sleep(0.2)
        assert answer[1]["ready"] is True
        assert client.get("/healthz").status_code == 200
    finally:
        get_engine(web).dispose()
        proxy.close()


# -- the mail server goes away and comes back --------------------------------------------

class MailServer:
    """A mail backend that refuses every mail while ``down`` (a connection refused, as an
    SMTP server that is gone answers) and takes them when it is back."""

    def __init__(self) -> None:
        self.down = False
        self.taken: list[str] = []

    def __enter__(self) -> "MailServer":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def send(self, message: Any, key: str, envelope_from: str | None = None,
             before_delivery: Any = lambda: None) -> None:
        if self.down:
            raise ConnectionRefusedError(111, "Connection refused")
        before_delivery()
        self.taken.append(key)


def test_a_60_s_smtp_outage_makes_the_service_unready_only_after_the_bound_and_ready_once_mail_leaves(
        app, client, monkeypatch):
    """Issue 45 item 6: /readyz said ready through a 60 s SMTP outage. The clock here is
    injected (the heartbeats' wall time and the sender's "now"): the sender runs every 5 s,
    the server refuses from T0 to T0 + 60 s, and the bound is 30 s."""
    from app.runners import sender

    app.config["READY_MAIL_FAILING_SECONDS"] = 30
    start = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)
    now = [start]
    monkeypatch.setattr(heartbeats, "wall_now", lambda: now[0])
    server = MailServer()
    with dl.at(start):
        players = [{"name": name, "email": email} for name, email in PEOPLE[:2]]
        services.create_game(players, {}, name="Outage", seed="7")

    said: dict[int, tuple[int, str]] = {}
    for second in range(0, 121, 5):
        now[0] = start + timedelta(seconds=second)
        server.down = second < 60
        beating(app, heartbeats.CLOCK, heartbeats.SENDER, at=now[0])
        sender.send_mail_due(app, now[0], backend=server)
        status, body = ready(client)
        said[second] = (status, body["reason"])

    # the first try failed at T0, the second at T0 + 30 s (its backoff): failing for 30 s
    # is within the bound; from then on the service is not ready, and says why
    assert all(said[second][0] == 200 for second in range(0, 31, 5)), said
    for second in range(35, 90, 5):
        status, reason = said[second]
        assert status == 503, (second, said)
        assert reason == (f"not ready: mail has failed to leave for {second} s "
                          "(bound 30 s)"), reason
    # the server came back at T0 + 60 s; the mail leaves at its next try (T0 + 90 s), and
    # the service is ready again at once
    assert server.taken and all(said[second][0] == 200 for second in range(90, 121, 5)), said
    assert said[90][1].startswith("ready:")
