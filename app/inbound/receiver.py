"""The SMTP receiver: aiosmtpd taking replies for ``MAIL_DOMAIN`` into the inbox.

It accepts only recipients in our mail domain (anything else is 550 at RCPT
time: this is no open relay), refuses messages over 1 MB (the SIZE limit,
552) and messages with too many MIME parts (552 after DATA), and answers 250
only once the raw message is committed to the inbox. Then, unless told not
to, it applies that row at once on a worker thread of its own, so a reply
turns into a move within a moment; the clock applies whatever is left.
"""
from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiosmtpd.controller import Controller

from app.inbound import inbox, worker
from app.mail import reply_address as address

log = logging.getLogger("app.inbound")

DEFAULT_INBOUND_SMTP = "127.0.0.1:2525"


def host_port(value: str | None) -> tuple[str, int]:
    """``INBOUND_SMTP`` ("host:port", "[::1]:25", ":2525") as a pair."""
    text = (value or DEFAULT_INBOUND_SMTP).strip()
    host, _, port = text.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"INBOUND_SMTP must be host:port, not {text!r}")
    return (host.strip("[]") or "127.0.0.1"), int(port)


class InboxHandler:
    """aiosmtpd handler: RCPT checks the domain, DATA stores (and applies)."""

    def __init__(self, app: Any, *, apply: bool = True) -> None:
        self.app = app
        self.apply = apply
        with app.app_context():
            self.domain = address.mail_domain()
        self.storing = ThreadPoolExecutor(max_workers=2, thread_name_prefix="inbox-store")
        self.applying = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inbox-apply")

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, rcpt: str,
                          rcpt_options: list[str]) -> str:
        domain = rcpt.rsplit("@", 1)[-1].lower().rstrip(".") if "@" in rcpt else ""
        if domain != self.domain:
            return "550 5.1.1 No such mailbox here (we only take replies to our mail)"
        if len(envelope.rcpt_tos) >= 5:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(rcpt)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        loop = asyncio.get_running_loop()
        try:
            stored = await loop.run_in_executor(self.storing, self._store, raw,
                                                envelope.mail_from or "",
                                                list(envelope.rcpt_tos))
        except inbox.Refused as exc:
            return f"552 5.3.4 Refused: {exc}"
        except Exception:  # noqa: BLE001 - the database is down: let the sender retry
            log.exception("could not store an inbound message")
            return "451 4.3.0 Could not store the message now; please try again later"
        if self.apply and not stored.duplicate:
            loop.run_in_executor(self.applying, self._apply, stored.id)
        return "250 2.0.0 Stored"

    def _store(self, raw: bytes, mail_from: str, rcpt: list[str]) -> inbox.Stored:
        from app import deadlines as dl
        from app.db import get_engine

        with self.app.app_context():
            return inbox.store(get_engine(self.app), raw, via="smtp", mail_from=mail_from,
                               rcpt=rcpt, now=dl.now())

    def _apply(self, row_id: int | None = None) -> None:
        try:
            worker.apply_pending(self.app, only=row_id)
        except Exception:  # noqa: BLE001 - the clock applies it later
            log.exception("applying inbox row %s failed", row_id)

    def close(self) -> None:
        self.storing.shutdown(wait=True)
        self.applying.shutdown(wait=True)


def controller(app: Any, host: str, port: int, *, apply: bool = True) -> Controller:
    """A started-on-demand aiosmtpd controller (``.start()``/``.stop()``) for the inbox."""
    handler = InboxHandler(app, apply=apply)
    return Controller(handler, hostname=host, port=port, data_size_limit=inbox.MAX_BYTES,
                      enable_SMTPUTF8=True, server_hostname=handler.domain,
                      ident="Silver Eye Post inbound")
