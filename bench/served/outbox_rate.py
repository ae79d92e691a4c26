"""Mails/s through a tree's outbox, with that tree's own code (``bench against``).

``python outbox_rate.py URL MAILS`` from a tree's root with that tree's interpreter:
``upgrade(URL)``, MAILS turn mails queued to ``p<n>@example.com``, then sent by that
tree's ``sending.send_due`` run after run (as the clock sends them) to an aiosmtpd
server in this process, on the hour of the store's own clock; printed as one JSON line
``{"sent": ..., "seconds": ..., "smtplib": ..., "smtplib_bytes": ...}`` (``smtplib``: the
same number of one message straight through ``smtplib.send_message`` to the same server,
mails/s, the floor the issue measures against; ``smtplib_bytes``: its bytes written
once, ``sendmail`` only). No import of ``bench``: it runs in the tree before too.
"""
from __future__ import annotations

import json
import os
import smtplib
import socket
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from email.message import EmailMessage

NOW = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def main(url: str, mails: int) -> None:
    sys.path.insert(0, os.getcwd())
    import logging
    logging.disable(logging.WARNING)
    from aiosmtpd.controller import Controller

    from app import create_app
    from app.db import get_engine, upgrade, write_session
    from app.mail import compose, outbox
    from app.mail.backends import SmtpBackend, SmtpSettings
    from app.runners import sending

    class Sink:
        async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
            return "250 OK"

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    controller = Controller(Sink(), hostname="127.0.0.1", port=port)
    controller.start()
    upgrade(url)
    try:
        with tempfile.TemporaryDirectory(prefix="silver-eye-mail-") as tmp:
            app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-secret",
                              "INSTANCE_PATH": os.path.join(tmp, "instance")})
            engine = get_engine(app)
            tag = uuid.uuid4().hex[:8]
            with app.app_context():
                with write_session(engine) as session:
                    for n in range(mails):
                        mail = compose.Mail(
                            subject=f"Silver Eye · bench: round 1, your turn ({n})",
                            text="Your village: ? ? ? ?\n" * 20, html="<p>Your village</p>" * 20)
                        outbox.enqueue(session, game_id=f"g{n % 100}", seat=n % 4, kind="turn",
                                       to=f"p{n}@example.com", to_name=f"Player {n}", mail=mail,
                                       idempotency=f"bench:{tag}:{n}", domain="bench.test",
                                       now=NOW, unsubscribe=f"http://bench.test/unsubscribe/{n}")
                backend = SmtpBackend(SmtpSettings.from_url(f"smtp://127.0.0.1:{port}"))
                start, sent = time.perf_counter(), 0
                while True:
                    report = sending.send_due(engine, backend, NOW, sender="post@bench.test")
                    sent += report.sent
                    if report.claimed == 0:
                        break
                seconds = time.perf_counter() - start
            engine.dispose()
            # the floor: the same mail through smtplib alone, as a script would send it
            # (an ``EmailMessage`` flattened by ``send_message``), and its bytes written
            # once and handed over again and again (``sendmail``), written here and not
            # by the tree's own builder (a tree since issue 30 writes wire bytes)
            message = EmailMessage()
            message["From"], message["To"], message["Subject"] = (
                "Silver Eye Post <post@bench.test>", "P <p@example.com>", "s")
            message.set_content("Your village: ? ? ? ?\n" * 20)
            message.add_alternative("<p>Your village</p>" * 20, subtype="html")
            start = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", port) as conn:
                for _ in range(mails):
                    conn.send_message(message)
            bare = mails / (time.perf_counter() - start)
            raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
            start = time.perf_counter()
            with smtplib.SMTP("127.0.0.1", port) as conn:
                for _ in range(mails):
                    conn.sendmail("post@bench.test", ["p@example.com"], raw)
            bare_bytes = mails / (time.perf_counter() - start)
    finally:
        controller.stop()
    print(json.dumps({"sent": sent, "seconds": seconds, "smtplib": bare,
                      "smtplib_bytes": bare_bytes}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
