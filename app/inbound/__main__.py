"""``python -m app.inbound``: the SMTP receiver (the ``inbound:`` line of the Procfile).

Listens on ``INBOUND_SMTP`` (host:port, default 127.0.0.1:2525), applies
whatever the inbox still holds from before a restart, then stores and
applies replies as they come, until SIGTERM or Ctrl-C.
"""
from __future__ import annotations

import argparse
import logging
import signal
import threading


def main(argv: list[str] | None = None) -> None:
    from app import create_app
    from app.inbound import receiver, worker

    parser = argparse.ArgumentParser(prog="python -m app.inbound", description=__doc__)
    parser.add_argument("--listen", default=None, help="host:port (INBOUND_SMTP)")
    parser.add_argument("--store-only", action="store_true",
                        help="store replies, leave applying them to the clock")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd: a line per connection
    app = create_app()
    host, port = receiver.host_port(args.listen or app.config.get("INBOUND_SMTP"))
    if not args.store_only:
        left = worker.apply_pending(app)  # what a killed receiver stored but did not apply
        if left.handled:
            logging.getLogger("app.inbound").info("applied from before: %s", left.outcomes)
    smtpd = receiver.controller(app, host, port, apply=not args.store_only)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    smtpd.start()
    logging.getLogger("app.inbound").info("inbound SMTP on %s:%s for @%s", host, port,
                                          smtpd.handler.domain)
    print(f"inbound SMTP listening on {host}:{port}", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        smtpd.stop()
        smtpd.handler.close()


if __name__ == "__main__":
    main()
