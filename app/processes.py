"""The server's processes besides the web workers, one entry point each (the Procfile):

- ``python -m app.processes clock``: the clock (deadlines, the outbox, digests,
  pruning; ``app.runners.clock``);
- ``python -m app.processes inbound``: the inbound SMTP receiver and its apply loop
  (``app.inbound.receiver``, ``app.runners.inbound``).

``python -m app.run_all`` starts them beside gunicorn for ``make run``. This module
sits at the root because it makes the Flask app (``create_app``): nothing below the
root imports the root.
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from app import create_app
from app.access import masking
from app.inbound import receiver
from app.runners import clock as runner
from app.runners import heartbeats
from app.runners import inbound as runners_inbound
from app.runners import supervisor as supervision
from app.config import setting

log = logging.getLogger("app.processes")


def clock(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.processes clock", description=runner.__doc__)
    parser.add_argument("--once", action="store_true", help="run one tick and exit")
    parser.add_argument("--tick", type=float, default=None,
                        help="seconds between ticks (CLOCK_TICK_SECONDS, default 30)")
    parser.add_argument("--no-waker", action="store_true",
                        help="send mail only on ticks (no sender thread woken by commits)")
    args = parser.parse_args(argv)
    masking.install()  # one masked JSON/text format (LOG_FORMAT), tokens never logged
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # one line per run is noise
    app = create_app()
    seconds = args.tick or float(app.config.get("CLOCK_TICK_SECONDS")
                                 or setting("CLOCK_TICK_SECONDS", runner.DEFAULT_TICK_SECONDS))
    if args.once:
        report = runner.tick(app)
        log.info("tick: deadlines %s, mail %s", report.fired, report.mail)
        return 0
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    return runner.run(app, seconds, waker=not args.no_waker, stop=stop)


def inbound(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.processes inbound", description=receiver.__doc__)
    parser.add_argument("--listen", default=None, help="host:port (INBOUND_SMTP)")
    parser.add_argument("--store-only", action="store_true",
                        help="store replies, leave applying them to the clock")
    args = parser.parse_args(argv)
    masking.install()  # one masked JSON/text format (LOG_FORMAT), tokens never logged
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd: a line per connection
    app = create_app()
    host, port = receiver.host_port(args.listen or app.config.get("INBOUND_SMTP"))
    if not args.store_only:
        try:
            left = runners_inbound.apply_pending(app)  # what a killed receiver stored but did not apply
        except Exception:  # noqa: BLE001 - the apply loop tries again
            log.exception("could not apply what the inbox held from before; retrying shortly")
        else:
            if left.handled:
                log.info("applied from before: %s", left.outcomes)
    smtpd = receiver.controller(app, host, port,
                                apply=None if args.store_only else runners_inbound.apply_one)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    supervisor = supervision.Supervisor()
    supervisor.add(heartbeats.INBOUND, runners_inbound.ApplyLoop(app, apply=not args.store_only))
    smtpd.start()
    log.info("inbound SMTP on %s:%s for @%s", host, port, smtpd.handler.domain)
    print(f"inbound SMTP listening on {host}:{port}", flush=True)
    supervisor.start()
    code = 0
    try:
        while not stop.wait(0.5):
            supervisor.check()
            thread = getattr(smtpd, "_thread", None)
            if thread is None or not thread.is_alive():
                raise supervision.GaveUp("the SMTP server's thread stopped")
    except supervision.GaveUp as exc:
        log.error("%s: exiting so that the process manager starts a fresh receiver", exc)
        code = supervision.EXIT_GAVE_UP
    except KeyboardInterrupt:
        pass
    finally:
        supervisor.shutdown()
        try:
            smtpd.stop(no_assert=True)
        except Exception:  # noqa: BLE001 - stopping a dead server
            log.exception("stopping the SMTP server failed")
        smtpd.handler.close()
    return code


PROCESSES = {"clock": clock, "inbound": inbound}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in PROCESSES:
        print(f"usage: python -m app.processes {{{'|'.join(PROCESSES)}}} [options]", file=sys.stderr)
        return 2
    return PROCESSES[args[0]](args[1:])


if __name__ == "__main__":
    sys.exit(main())
