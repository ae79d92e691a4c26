"""Fault bench (issue 17 item 1): whole games by links and by reply through real faults.

WARNING: with ``BENCH_FAULT_RESTART_POSTGRES=1`` this RESTARTS THE POSTGRESQL SERVER
(``pg_ctlcluster --skip-systemctl-redirect <version> main restart``): every other
session, test run and benchmark using that server loses its connections. Never run
it that way on a shared server, and never from a test. Without that variable the
PostgreSQL fault is its stand-in: every connection of the bench's own database is
terminated (``pg_terminate_backend``), which is what a restart does to the processes.

The real processes run as in production: the web server (gunicorn), the clock
(``python -m app.processes clock``) and the inbound receiver (``python -m app.processes inbound``),
against a database of their own on PostgreSQL (``BENCH_DATABASE_URL`` or
``TEST_DATABASE_URL``), mailing an SMTP server in this process. A small process
manager here restarts any of them that exits, as systemd or a Procfile runner would.
Players: ``LINK_GAMES`` games of three people moving through the JSON API (a short
pause between moves), and ``REPLY_GAMES`` games of one person against a bot who
answers every turn mail by SMTP reply as soon as it arrives (retrying a refused or
unreachable receiver, as an MTA does). Meanwhile, in order: the SMTP server goes down
for ``SMTP_DOWN_SECONDS``; PostgreSQL restarts (or its stand-in); the clock is
killed (SIGKILL); the receiver is killed. "Fault end" is when the last one is over.

Reported, after every game ended and the outbox drained:
- moves lost (a 200 answer whose move is not in the log) and doubled (a web move in
  the log that no request asked for), and web answers 5xx during the faults;
- mails: every sent outbox row arrived once (by Message-ID), none twice, none
  pending at the end; turn mails per (seat, step, decision) at most once;
- replies: every reply the receiver took (250) ended applied/answered/ignored, and
  each applied one is exactly one ``mail`` action of the log;
- the latest mail relative to fault end: the worst (arrival - max(written, fault
  end)) over all mails; the issue asks for at most 10 s.

``python -m bench fault`` (also part of ``make bench``, without the real restart).
Turn mails leave without the grace period and the hourly cap (``TURN_MAIL_DELAY_SECONDS``
and ``MAIL_PER_ADDRESS_PER_HOUR`` 0), so that the games move at the players' pace.
"""
from __future__ import annotations

import email
import email.policy
import http.client
import json
import os
import random
import re
import signal
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bench.processes import HOST, ROOT, free_port

LINK_GAMES = 3
REPLY_GAMES = 3
MOVE_PAUSE_SECONDS = 0.4
WARM_UP_SECONDS = 10
SMTP_DOWN_SECONDS = 60
PLAY_LIMIT_SECONDS = 600
DRAIN_SECONDS = 180
SECRET = "fault-bench-secret"
DOMAIN = "fault.silver-eye.test"
MENU_LINE = re.compile(r"^  (\S.*?)\s{2,}(.*)$")


# -- the mail server the processes send to ---------------------------------------------

class Sink:
    """An SMTP server that records each message's Message-ID, recipient and arrival."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[tuple[float, str, EmailMessage]] = []
        self.lock = threading.Lock()
        self.controller: Any = None

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.received.append((time.time(), envelope.rcpt_tos[0], message))
        return "250 OK"

    def start(self) -> None:
        from aiosmtpd.controller import Controller

        self.controller = Controller(self, hostname=HOST, port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for _, rcpt, m in self.received if rcpt == address]


# -- a process manager ---------------------------------------------------------------------

@dataclass
class Managed:
    name: str
    command: list[str]
    env: dict[str, str]
    log: Path
    process: subprocess.Popen | None = None
    exits: list[int] = field(default_factory=list)

    def start(self) -> None:
        with open(self.log, "a") as out:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=out,
                                            stderr=subprocess.STDOUT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Manager:
    """Restarts any managed process that exited (one second later), like systemd."""

    def __init__(self, processes: list[Managed]) -> None:
        self.processes = processes
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stopping.wait(0.5):
            for managed in self.processes:
                if managed.process is not None and managed.process.poll() is not None:
                    managed.exits.append(managed.process.returncode)
                    time.sleep(1.0)
                    if not self.stopping.is_set():
                        managed.start()

    def start(self) -> None:
        for managed in self.processes:
            managed.start()
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        for managed in self.processes:
            managed.stop()


# -- players -----------------------------------------------------------------------------

@dataclass
class LinkLedger:
    """What link players asked for: answered moves by (game, seq), and the attempts
    whose answer was lost (their move may or may not be in the log)."""

    answered: dict[tuple[str, int], int] = field(default_factory=dict)  # -> seat
    unsure: set[tuple[str, int, int]] = field(default_factory=set)   # (game, seq, seat)
    errors_5xx: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _call(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data,
                     headers={"Content-Type": "application/json"} if data else {})
        response = conn.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw or b"null")
        except ValueError:
            return response.status, None
    finally:
        conn.close()


def play_by_links(port: int, game_id: str, tokens: list[str], ledger: LinkLedger,
                  seed: int, until: float) -> None:
    rng = random.Random(seed)
    while time.time() < until:
        time.sleep(MOVE_PAUSE_SECONDS)
        seat = rng.randrange(len(tokens))
        try:
            status, legal = _call(port, "GET", f"/api/play/{tokens[seat]}/actions")
        except OSError:
            continue
        if status >= 500:
            ledger.errors_5xx += 1
            continue
        if status != 200:
            continue
        try:
            status, state = _call(port, "GET", f"/api/play/{tokens[0]}")
            if status == 200 and state["game"]["status"] != "running":
                return
        except OSError:
            continue
        if not legal["legal_actions"]:
            continue
        seq = legal["seq"]
        try:
            status, answer = _call(port, "POST", f"/api/play/{tokens[seat]}/actions",
                                   {"action": rng.choice(legal["legal_actions"]),
                                    "expected_seq": seq})
        except OSError:
            with ledger.lock:
                ledger.unsure.add((game_id, seq + 1, seat))
            continue
        with ledger.lock:
            if status == 200:
                ledger.answered[(game_id, seq + 1)] = seat
            elif status >= 500:
                ledger.errors_5xx += 1
                ledger.unsure.add((game_id, seq + 1, seat))


@dataclass
class Replies:
    taken: list[str] = field(default_factory=list)      # Message-IDs answered 250
    refused: int = 0                                      # 4xx or unreachable, retried


def play_by_reply(sink: Sink, inbound_port: int, address: str, replies: Replies,
                  seed: int, until: float, over: Any) -> None:
    rng = random.Random(seed)
    answered: set[str] = set()
    while time.time() < until and not over():
        time.sleep(0.2)
        with_menu = [m for m in sink.to(address) if m["Reply-To"]]
        if not with_menu or str(with_menu[-1]["Message-ID"]) in answered:
            continue
        mail = with_menu[-1]
        answered.add(str(mail["Message-ID"]))
        text = mail.get_body(preferencelist=("plain",)).get_content().splitlines()
        try:
            start = next(i for i, line in enumerate(text) if line.startswith("Play by replying"))
        except StopIteration:
            continue
        commands = []
        for line in text[start + 1:]:
            match = MENU_LINE.match(line)
            if not match:
                break
            if match.group(1) != "help":
                commands.append(match.group(1))
        if not commands:
            continue
        reply = EmailMessage()
        reply["From"] = address
        reply["To"] = str(mail["Reply-To"])
        reply["Subject"] = f"Re: {mail['Subject']}"
        reply["Message-ID"] = make_msgid(domain="player.example")
        reply["In-Reply-To"] = str(mail["Message-ID"])
        reply.set_content(("C" if "C" in commands and rng.random() < 0.4
                           else rng.choice(commands)) + "\n")
        data = reply.as_bytes(policy=email.policy.SMTP)
        while time.time() < until:  # an MTA retries a 4xx or an unreachable server
            try:
                with smtplib.SMTP(HOST, inbound_port, timeout=30) as client:
                    client.sendmail(address, [str(mail["Reply-To"])], data)
                replies.taken.append(str(reply["Message-ID"]))
                break
            except (smtplib.SMTPException, OSError):
                replies.refused += 1
                time.sleep(2.0)


# -- the faults ----------------------------------------------------------------------------

def restart_postgres(admin: sa.engine.Engine, database: str) -> str:
    """The real restart when ``BENCH_FAULT_RESTART_POSTGRES=1`` (see the warning above),
    else every connection of ``database`` terminated."""
    if os.environ.get("BENCH_FAULT_RESTART_POSTGRES") == "1":
        version = sorted(os.listdir("/etc/postgresql"))[-1]
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main",
                        "restart"], check=True)
        return f"PostgreSQL {version} restarted"
    with admin.begin() as conn:
        killed = conn.execute(sa.text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = :d AND pid <> pg_backend_pid()"), {"d": database}).scalar()
    return f"{killed} connections of {database} terminated (stand-in for a restart)"


def main() -> None:
    from app import create_app, services
    from app.db import get_engine, make_engine, upgrade

    base = (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL") or
            "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    if not base.startswith("postgresql"):
        print("== fault: skipped (needs PostgreSQL in BENCH_DATABASE_URL)")
        return
    print("== fault (issue 17): games by links and by reply through real faults")
    database = f"bench_fault_{uuid.uuid4().hex[:8]}"
    admin = make_engine(base, poolclass=sa.pool.NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
    url = sa.engine.make_url(base).set(database=database).render_as_string(hide_password=False)
    folder = Path(tempfile.mkdtemp(prefix="fault-bench-"))
    sink = Sink()
    sink.start()
    manager: Manager | None = None
    try:
        upgrade(url)
        web_port, inbound_port = free_port(), free_port()
        env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": SECRET,
               "BASE_URL": f"http://{HOST}:{web_port}", "MAIL_BACKEND": "smtp",
               "SMTP_URL": f"smtp://{HOST}:{sink.port}?timeout=5",
               "MAIL_FROM": f"Silver Eye Post <post@{DOMAIN}>", "MAIL_DOMAIN": DOMAIN,
               "TURN_MAIL_DELAY_SECONDS": "0", "MAIL_PER_ADDRESS_PER_HOUR": "0",
               "CLOCK_TICK_SECONDS": "1", "PYTHONUNBUFFERED": "1"}
        python = sys.executable
        web = Managed("web", [python, "-m", "gunicorn", "--workers", "2", "--bind",
                              f"{HOST}:{web_port}", "--log-level", "warning",
                              "app:create_app()"], env, folder / "web.log")
        clock = Managed("clock", [python, "-m", "app.processes", "clock"], env, folder / "clock.log")
        inbound = Managed("inbound", [python, "-m", "app.processes", "inbound", "--listen",
                                      f"{HOST}:{inbound_port}"], env, folder / "inbound.log")
        manager = Manager([web, clock, inbound])
        manager.start()
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": SECRET,
                          "INSTANCE_PATH": str(folder / "bench"), "MAIL_DOMAIN": DOMAIN,
                          "BASE_URL": f"http://{HOST}:{web_port}",
                          "TURN_MAIL_DELAY_SECONDS": 0, "MAIL_PER_ADDRESS_PER_HOUR": 0})
        end = time.time() + 60
        while True:
            try:
                if _call(web_port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > end:
                raise RuntimeError(f"the web server did not start:\n{(folder / 'web.log').read_text()}")
            time.sleep(0.3)

        with app.app_context():
            link_games = [services.create_game(
                [{"name": n, "email": f"{n.lower()}{g}@link.example"} for n in ("Ann", "Bob", "Cid")],
                {}, name=f"Links {g}", seed=str(500 + g)) for g in range(LINK_GAMES)]
            reply_games = [services.create_game(
                [{"name": "Eve", "email": f"eve{g}@reply.example"}, {"name": "Robo", "kind": "bot"}],
                {}, name=f"Replies {g}", seed=str(700 + g)) for g in range(REPLY_GAMES)]
        engine = get_engine(app)

        def over(game_id: str) -> Any:
            def check() -> bool:
                try:
                    with engine.connect() as conn:
                        return conn.execute(sa.text("SELECT status FROM game WHERE id = :g"),
                                            {"g": game_id}).scalar() != "running"
                except Exception:  # noqa: BLE001 - the database is restarting
                    return False
            return check

        ledger, replies = LinkLedger(), Replies()
        until = time.time() + PLAY_LIMIT_SECONDS
        players = [threading.Thread(target=play_by_links, daemon=True,
                                    args=(web_port, c.game_id, c.tokens, ledger, i, until))
                   for i, c in enumerate(link_games)]
        players += [threading.Thread(target=play_by_reply, daemon=True,
                                     args=(sink, inbound_port, f"eve{g}@reply.example", replies,
                                           g, until, over(c.game_id)))
                    for g, c in enumerate(reply_games)]
        for player in players:
            player.start()

        time.sleep(WARM_UP_SECONDS)
        faults_began = time.time()
        sink.stop()
        print(f"  t+0 s: SMTP down for {SMTP_DOWN_SECONDS} s")
        time.sleep(5)
        print(f"  t+{time.time() - faults_began:.0f} s: {restart_postgres(admin, database)}")
        time.sleep(10)
        clock.kill()
        print(f"  t+{time.time() - faults_began:.0f} s: clock killed (SIGKILL)")
        time.sleep(10)
        inbound.kill()
        print(f"  t+{time.time() - faults_began:.0f} s: inbound receiver killed (SIGKILL)")
        time.sleep(max(0.0, faults_began + SMTP_DOWN_SECONDS - time.time()))
        sink.start()
        fault_end = time.time()
        print(f"  t+{fault_end - faults_began:.0f} s: SMTP back: fault end")

        for player in players:
            player.join(max(0.0, until - time.time()))
        drained_by = time.time() + DRAIN_SECONDS
        while time.time() < drained_by:
            with engine.connect() as conn:
                if not conn.execute(sa.text(
                        "SELECT count(*) FROM outbox WHERE status = 'pending'")).scalar():
                    break
            time.sleep(1.0)
        time.sleep(2.0)  # a mail in flight lands
        report(engine, sink, ledger, replies, link_games, reply_games, fault_end,
               [web, clock, inbound])
    finally:
        if manager is not None:
            manager.stop()
        sink.stop()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.dispose()


def report(engine: sa.engine.Engine, sink: Sink, ledger: LinkLedger, replies: Replies,
           link_games: list, reply_games: list, fault_end: float,
           processes: list[Managed]) -> None:
    with engine.connect() as conn:
        games = dict(conn.execute(sa.text("SELECT id, status FROM game")).all())
        log = conn.execute(sa.text("SELECT game_id, seq, seat, source FROM action")).all()
        outbox = conn.execute(sa.text(
            "SELECT message_id, status, created_at, kind, game_id, seat, announces, attempts "
            "FROM outbox")).all()
        inbox = conn.execute(sa.text("SELECT message_id, status, applied_seq, game_id "
                                     "FROM inbox")).all()
    link_ids = {c.game_id for c in link_games}
    web_moves = {(g, seq): seat for g, seq, seat, source in log
                 if g in link_ids and source == "player"}
    lost = [key for key in ledger.answered if key not in web_moves]
    doubled = [key for key, seat in web_moves.items()
               if key not in ledger.answered and (key[0], key[1], seat) not in ledger.unsure]
    with sink.lock:
        arrivals = Counter(str(m["Message-ID"]) for _, _, m in sink.received)
        arrived_at = {}
        for at, _, m in sink.received:
            arrived_at.setdefault(str(m["Message-ID"]), at)
    sent = [row for row in outbox if row[1] == "sent"]
    missing = [row[0] for row in sent if arrivals[row[0]] == 0]
    twice = [mid for mid, n in arrivals.items() if n > 1]
    pending = [row for row in outbox if row[1] == "pending"]
    decisions = Counter()
    for _mid, status, _created, kind, game_id, seat, announces, _attempts in sent:
        said = announces if isinstance(announces, dict) else json.loads(announces or "null") or {}
        if kind == "turn" and said.get("what") == "decision":
            decisions[(game_id, seat, said.get("step"), said.get("decision"))] += 1
    late, latest = [], []
    for mid, _status, created, kind, *_rest, attempts in sent:
        if mid in arrived_at:
            late.append(arrived_at[mid] - max(created.timestamp(), fault_end))
            latest.append((late[-1], kind, attempts, created.timestamp() - fault_end))
    mail_actions = Counter((g, seq) for g, seq, _, source in log if source == "mail")
    by_id = {row[0]: row for row in inbox}
    unfinished = [mid for mid in replies.taken if mid not in by_id or by_id[mid][1] == "pending"]
    applied = [row for row in inbox if row[1] == "applied"]
    applied_once = all(mail_actions[(row[3], row[2])] == 1 for row in applied)
    print(f"  games over: {sum(1 for g in games.values() if g == 'over')} of {len(games)}")
    print(f"  moves by link: {len(ledger.answered)} answered, {len(lost)} lost, "
          f"{len(doubled)} doubled, {len(ledger.unsure)} without an answer, "
          f"{ledger.errors_5xx} answers 5xx")
    print(f"  mail: {len(sent)} sent, {len(missing)} never arrived, {len(twice)} arrived twice, "
          f"{len(pending)} still pending; turn mails per (seat, step, decision) at most "
          f"{max(decisions.values(), default=0)}")
    print(f"  replies: {len(replies.taken)} taken (250), {replies.refused} refused or "
          f"unreachable and retried, {len(applied)} applied, {len(unfinished)} unfinished, "
          f"each applied reply one action: {'yes' if applied_once else 'NO'}")
    worst = max(late, default=0.0)
    print(f"  latest mail after fault end: {worst:.1f} s (issue 17 asks at most 10 s); "
          f"{sum(1 for x in late if x > 10)} mails later than that")
    for lateness, kind, attempts, written in sorted(latest, reverse=True)[:3]:
        print(f"    {kind} mail written {written:+.0f} s from fault end, {attempts} attempts, "
              f"arrived {lateness:.1f} s after")
    print("  process exits (restarted by the manager): " + ", ".join(
        f"{p.name} {p.exits or 'none'}" for p in processes))


if __name__ == "__main__":
    main()
