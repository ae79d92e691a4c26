"""Servers a benchmark starts, and the CPU they spend.

A rate alone hides where the time went: a server that answers fewer moves per
second may be waiting on the database, or on the client that shares its two
cores. So the HTTP and peer benchmarks read the CPU seconds of the server's
processes and of the PostgreSQL backends serving it from ``/proc`` before and
after each measured section, and divide by the moves made.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import sqlalchemy as sa

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent
_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of one process (all its threads) so far; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime: stat(5) fields 14, 15


def wait_until_ready(ready: Callable[[], bool], process: subprocess.Popen[Any],
                     seconds: float, what: Callable[[], str]) -> None:
    """Poll ``ready()`` until it is true; ``RuntimeError(what())`` if ``process``
    exits first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if ready():
                return
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(what())
        time.sleep(0.2)


def tree(pid: int) -> list[int]:
    """``pid`` and its children (gunicorn's master and its workers; node alone)."""
    found = [pid]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            found.append(int(entry))
    return found


def backends(admin: sa.engine.Engine, application_name: str) -> list[int]:
    """The PostgreSQL backend processes of connections named ``application_name``."""
    with admin.connect() as conn:
        return [row[0] for row in conn.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
            {"name": application_name})]


def _stat(pid: int | str) -> tuple[str, list[str]] | None:
    """A process's name and its ``/proc/<pid>/stat`` fields after the name (state first)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    head, _, tail = text.rpartition(")")
    return head.partition("(")[2], tail.split()


def postgres_cpu() -> float:
    """CPU seconds so far of every PostgreSQL process on this machine: each postmaster
    (a ``postgres`` whose parent is not one) with the children it reaped, and every
    child alive now: the backends, the WAL writer, the checkpointer, the background
    writer, the autovacuum launcher and its workers.

    A child that ends is waited for by its postmaster, whose ``cutime``/``cstime`` (stat
    fields 16, 17) then hold its CPU, so the total never loses an autovacuum worker or a
    connection that came and went between two readings: the difference of two totals
    is what PostgreSQL spent between them (a child alive at the first reading and gone
    at the second is counted whole once it ends, from its start: rare, and small)."""
    processes = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(entry)
            if found is not None and found[0] == "postgres":
                processes[int(entry)] = found[1]
    total = 0.0
    for fields in processes.values():
        ppid = int(fields[1])
        if ppid in processes:  # a child of a postmaster
            total += (int(fields[11]) + int(fields[12])) / _TICKS
        else:  # a postmaster: its own CPU and its reaped children's
            total += sum(int(value) for value in fields[11:15]) / _TICKS
    return total


class CpuMeter:
    """CPU spent by a changing set of processes between ``start()`` and ``stop()``.

    ``pids()`` is asked at both ends: a process that appeared meanwhile counts
    from zero, one that left takes its CPU with it (rare: pools keep their
    connections, workers live as long as the server)."""

    def __init__(self, pids: Callable[[], list[int]]) -> None:
        self.pids = pids
        self.before: dict[int, float] = {}

    def start(self) -> None:
        self.before = {pid: cpu_seconds(pid) or 0.0 for pid in self.pids()}

    def stop(self) -> float:
        return sum((cpu_seconds(pid) or 0.0) - self.before.get(pid, 0.0) for pid in self.pids())


@contextmanager
def gunicorn(env: dict[str, str], args: list[str], ready: Callable[[int], bool],
             startup_seconds: float = 30, output: Path | None = None,
             ) -> Iterator[tuple[int, subprocess.Popen[Any]]]:
    """``gunicorn args 'app:create_app()'`` on a free port, once ``ready(port)``;
    ``output``: a file for what it writes (its access lines), instead of ours."""
    port = free_port()
    sink = open(output, "wb") if output is not None else None
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", *args, "--bind", f"{HOST}:{port}",
         "--log-level", "warning", "app:create_app()"],
        cwd=ROOT, env=dict(env, BASE_URL=f"http://{HOST}:{port}"), stdout=sink,
        stderr=None if sink is None else subprocess.STDOUT)
    if sink is not None:
        sink.close()  # the child holds its own
    try:
        wait_until_ready(lambda: ready(port), server, startup_seconds,
                         lambda: f"gunicorn {' '.join(args)} did not start")
        yield port, server
    finally:
        stop(server)


def stop(process: subprocess.Popen[Any], seconds: float = 15) -> None:
    """SIGTERM, and SIGKILL if it is still there after ``seconds``."""
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
