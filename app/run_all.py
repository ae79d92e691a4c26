"""``python -m app.run_all`` (what ``make run`` starts): migrate, then web, inbound, clock.

The web server (gunicorn, two workers, 127.0.0.1 only), the inbound receiver
(``python -m app.processes inbound``) and the clock process (``python -m app.processes clock``) run
as child processes; Ctrl-C or SIGTERM stops them all, and if one of them dies
the others are stopped too and this exits non-zero, so nothing is left running
half-way. The clock and the receiver heal what they can themselves (a lost
database, a dead sender thread) and exit non-zero when they cannot (issue 17
item 1: ``app.runners.supervisor.EXIT_GAVE_UP``), which ends ``make run`` here and has a
process manager restart them in production.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

HOST = "127.0.0.1"
STOP_GRACE_SECONDS = 10
#: gunicorn's settings (metrics across workers, masked logs): the repository's root.
CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "gunicorn.conf.py")


def _commands(port: int) -> list[tuple[str, list[str]]]:
    # gunicorn.conf.py: metrics summed across workers, masked logs, gunicorn's access log off
    commands = [("web", [sys.executable, "-m", "gunicorn", "--workers", "2", "-c", CONFIG,
                         "--bind", f"{HOST}:{port}", "app:create_app()"])]
    commands.append(("inbound", [sys.executable, "-m", "app.processes", "inbound"]))  # replies (SMTP)
    commands.append(("clock", [sys.executable, "-m", "app.processes", "clock"]))
    return commands


def _stop(children: dict[str, subprocess.Popen]) -> None:
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for child in children.values():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


#: The inbound receiver's port when ``PORT`` is the default 5000 (``INBOUND_SMTP``'s default).
INBOUND_BASE = 2525


def inbound_port(port: int) -> int:
    """The receiver's port for a web port (issue 51 item 5): 2525 beside 5000, and as far
    from 2525 as ``port`` is from 5000 (5500: 3025), so that two servers started side by
    side with their own ``PORT`` each get their own inbound port. Set ``INBOUND_SMTP`` to
    choose it yourself."""
    chosen = INBOUND_BASE + (port - 5000)
    return chosen if 1024 < chosen < 65536 and chosen != port else port + 1


def main() -> int:
    from app import create_app
    from app.db import upgrade_words

    port = int(os.environ.get("PORT", "5000"))
    os.environ.setdefault("BASE_URL", f"http://{HOST}:{port}")
    os.environ.setdefault("INBOUND_SMTP", f"{HOST}:{inbound_port(port)}")
    # the embedded defaults: mail lands in the file mailbox, readable at /dev/mail
    os.environ.setdefault("DEBUG", "1")
    app = create_app()  # creates instance/ and its secret key before the workers start
    print(upgrade_words(app.config["DATABASE_URL"]), flush=True)

    children = {name: subprocess.Popen(cmd) for name, cmd in _commands(port)}
    print(f"\nSilver Eye Post is running. Open the lobby at http://{HOST}:{port}/ "
          f"(Ctrl-C stops everything)\n", flush=True)
    if app.config.get("DEBUG"):
        print(f"Mail is written to the file mailbox: http://{HOST}:{port}/dev/mail\n", flush=True)
    print(f"Replies by mail are received on {os.environ['INBOUND_SMTP']} (INBOUND_SMTP)\n",
          flush=True)

    def on_signal(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    code = 0
    try:
        while True:
            for name, child in children.items():
                if child.poll() is not None:
                    if child.returncode in (-signal.SIGINT, 128 + signal.SIGINT):
                        raise KeyboardInterrupt  # the terminal's Ctrl-C reached it first
                    print(f"{name} exited with code {child.returncode}; stopping", flush=True)
                    code = child.returncode or 1
                    raise KeyboardInterrupt
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        # a Ctrl-C reaches every process of the terminal's group at once: the children
        # stop on it themselves, and a second one while they do must not end this one
        # half-way (make would then say "Error 1" after a clean stop)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _stop(children)
    return code


if __name__ == "__main__":
    sys.exit(main())
