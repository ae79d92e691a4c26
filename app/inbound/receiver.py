"""The SMTP receiver: aiosmtpd taking replies for ``MAIL_DOMAIN`` into the inbox.

It accepts only reply addresses of ours, ``play+<token>@MAIL_DOMAIN`` whose
token's signature verifies (anything else is 550 at RCPT time: no open relay,
and no storage for whatever local part a stranger makes up, issue 17 item 5),
refuses messages over 1 MB (the SIZE limit, 552), with too many MIME parts
(552) or nested too deep (554) after DATA, always permanently: the same bytes
would be refused again, and a 4xx makes an MTA retry for days. It answers 250
only once the raw message is committed to the inbox. Then, given an ``apply``
(``app.runners.inbound.apply_one``, passed in by the process that runs it: the
runner sits above this layer), it applies that row at once on a worker thread
of its own, so a reply turns into a move within a moment; the apply loop and
the clock apply whatever is left.

One client IP holds at most ``INBOUND_CONNECTIONS_PER_CLIENT`` connections
(the next is told ``421`` and closed), and a connection idle for
``INBOUND_IDLE_SECONDS`` is closed (aiosmtpd's ``timeout``): 900 idle
connections from one client used to be held open.
"""
from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP

from app.inbound import inbox
from app.access import reply_address as address
from app.config import setting

log = logging.getLogger("app.inbound")

DEFAULT_INBOUND_SMTP = "127.0.0.1:2525"
#: Connections one client IP may hold at once (``INBOUND_CONNECTIONS_PER_CLIENT``): an MTA
#: delivering a queue opens a few; a hundred idle ones are someone holding the door.
DEFAULT_CONNECTIONS_PER_CLIENT = 10
#: Seconds a connection may sit idle before it is closed (``INBOUND_IDLE_SECONDS``).
DEFAULT_IDLE_SECONDS = 60

#: Applies one stored row at once: ``apply(app, row_id)``.
Apply = Callable[[Any, int], Any]


def host_port(value: str | None) -> tuple[str, int]:
    """``INBOUND_SMTP`` ("host:port", "[::1]:25", ":2525") as a pair."""
    text = (value or DEFAULT_INBOUND_SMTP).strip()
    host, _, port = text.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"INBOUND_SMTP must be host:port, not {text!r}")
    return (host.strip("[]") or "127.0.0.1"), int(port)


class InboxHandler:
    """aiosmtpd handler: RCPT checks the domain, DATA stores (and applies)."""

    def __init__(self, app: Any, *, apply: Apply | None = None) -> None:
        self.app = app
        self.apply = apply
        with app.app_context():
            self.domain = address.mail_domain()
        self.storing = ThreadPoolExecutor(max_workers=2, thread_name_prefix="inbox-store")
        self.applying = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inbox-apply")

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, rcpt: str,
                          rcpt_options: list[str]) -> str:
        with self.app.app_context():  # the signing keys; no database on the event loop
            ours = inbox.is_reply_address(rcpt)
        if not ours:
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
            return f"{exc.smtp} Refused: {exc}"
        except Exception:  # noqa: BLE001 - the database is down: let the sender retry
            log.exception("could not store an inbound message")
            return "451 4.3.0 Could not store the message now; please try again later"
        if self.apply is not None and stored.to_apply:
            loop.run_in_executor(self.applying, self._apply, stored.id)
        return "250 2.0.0 Stored"

    def _store(self, raw: bytes, mail_from: str, rcpt: list[str]) -> inbox.Received:
        from app.clock import deadlines as dl
        from app.db import get_engine

        with self.app.app_context():
            return inbox.store(get_engine(self.app), raw, via="smtp", mail_from=mail_from,
                               rcpt=rcpt, now=dl.now())

    def _apply(self, row_id: int) -> None:
        assert self.apply is not None
        try:
            self.apply(self.app, row_id)
        except Exception:  # noqa: BLE001 - the clock applies it later
            log.exception("applying inbox row %s failed", row_id)

    def close(self) -> None:
        self.storing.shutdown(wait=True)
        self.applying.shutdown(wait=True)


class Door:
    """The connections each client IP holds on one listener (touched on its loop thread only)."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self.open_by_ip: dict[str, int] = {}
        self.refusing: set[str] = set()  # IPs told 421 since they last held none: logged once

    def enter(self, ip: str) -> bool:
        """Count a new connection of ``ip``; whether it stays within the cap."""
        count = self.open_by_ip.get(ip, 0) + 1
        self.open_by_ip[ip] = count
        if count <= self.per_client:
            return True
        if ip not in self.refusing:
            self.refusing.add(ip)
            log.warning("refusing connections from %s: it holds %s (at most %s)", ip,
                        count - 1, self.per_client)
        return False

    def leave(self, ip: str) -> None:
        left = self.open_by_ip.get(ip, 1) - 1
        if left > 0:
            self.open_by_ip[ip] = left
        else:
            self.open_by_ip.pop(ip, None)
            self.refusing.discard(ip)


class CappedSMTP(SMTP):
    """aiosmtpd's SMTP session, refusing a client IP past its share of connections.

    A connection past the cap gets ``421`` (RFC 5321: "service not available,
    closing transmission channel"), which an MTA retries later, and is closed
    at once; idle ones are closed by aiosmtpd's own ``timeout``. (``_handle_client``
    is aiosmtpd 1.x's session coroutine; the greeting is the first thing it sends.)
    """

    def __init__(self, handler: Any, *, door: Door, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.door = door
        self.client_ip: str | None = None
        self.admitted = True

    def connection_made(self, transport: Any) -> None:
        first = self.client_ip is None and self.transport is None  # not a STARTTLS re-entry
        super().connection_made(transport)
        if first:
            peer = transport.get_extra_info("peername")
            self.client_ip = str(peer[0]) if peer else "?"
            self.admitted = self.door.enter(self.client_ip)

    def connection_lost(self, error: Exception | None) -> None:
        if self.client_ip is not None:
            self.door.leave(self.client_ip)
            self.client_ip = None
        super().connection_lost(error)

    async def _handle_client(self) -> None:
        if not self.admitted:
            try:
                await self.push("421 4.7.0 Too many connections from your address; "
                                "try again later")
            except ConnectionError:
                pass  # it hung up first: nothing to tell
            if self.transport is not None:
                self.transport.close()
            return
        await super()._handle_client()


class InboxController(Controller):
    """aiosmtpd's threaded controller, making ``CappedSMTP`` sessions that share one door."""

    def __init__(self, handler: InboxHandler, *, per_client: int, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.door = Door(per_client)

    def factory(self) -> SMTP:
        return CappedSMTP(self.handler, door=self.door, **self.SMTP_kwargs)


def controller(app: Any, host: str, port: int, *, apply: Apply | None = None) -> Controller:
    """A started-on-demand aiosmtpd controller (``.start()``/``.stop()``) for the inbox;
    ``apply``: what applies a stored row at once (None: store only)."""
    handler = InboxHandler(app, apply=apply)
    with app.app_context():
        per_client = int(setting("INBOUND_CONNECTIONS_PER_CLIENT",
                                 DEFAULT_CONNECTIONS_PER_CLIENT))
        idle = float(setting("INBOUND_IDLE_SECONDS", DEFAULT_IDLE_SECONDS))
    return InboxController(handler, per_client=per_client, hostname=host, port=port,
                           data_size_limit=inbox.MAX_BYTES, enable_SMTPUTF8=True,
                           server_hostname=handler.domain, timeout=idle,
                           ident="Silver Eye Post inbound")
