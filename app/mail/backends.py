"""Where outgoing mail goes: a folder of .eml files (default) or an SMTP server.

Both take a message as it goes on the wire (``app.mail.wire.WireMessage``: its bytes
and its envelope), written once by the sender. The file backend names each file
after the outbox row, so delivering the same row twice overwrites one file
instead of adding a second one; SMTP relies on the outbox never handing the
same row out twice and on the stable Message-ID for the rare crash between
"sent" and "marked sent".
"""
from __future__ import annotations

import os
import re
import smtplib
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from app.config import setting
from app.mail import dkim_signing
from app.mail.wire import WireMessage

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class PermanentFailure(Exception):
    """The server refused this message for good (e.g. an unknown recipient).

    ``address``: the refusal is of the recipient's address (it then bounces in every
    game: ``app.mail.bounces``), not of this one message (too big, no SMTPUTF8)."""

    def __init__(self, words: str, *, address: bool = False) -> None:
        super().__init__(words)
        self.address = address


#: What a backend calls at the last moment before a message is delivered: a crash
#: before it delivers nothing (``app.runners.sending`` waits there for the previous
#: mail's end to be stored, so that a crash doubles at most one mail).
BeforeDelivery = Callable[[], object]


def _nothing_to_wait_for() -> None:
    return None


class MailBackend(Protocol):
    """Sends messages; used as a context manager around one batch.

    ``send`` calls ``before_delivery`` once, at the last moment before the message is
    delivered (SMTP: with everything but the DATA's final dot on the wire; the file
    mailbox: before the file takes its name), and delivers nothing if it raises."""

    def __enter__(self) -> "MailBackend": ...
    def __exit__(self, *exc: object) -> None: ...
    def send(self, message: WireMessage, key: str, envelope_from: str | None = None,
             before_delivery: BeforeDelivery = _nothing_to_wait_for) -> None: ...


class FileBackend:
    """Writes each message as ``<key>.eml`` under a folder (``instance/mail/``)."""

    def __init__(self, folder: str | os.PathLike[str],
                 signer: dkim_signing.Signer | None = None) -> None:
        self.folder = Path(folder)
        self.signer = signer  # DKIM (issue 19 item 2): the file mailbox signs as SMTP does

    def __enter__(self) -> "FileBackend":
        self.folder.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def send(self, message: WireMessage, key: str, envelope_from: str | None = None,
             before_delivery: BeforeDelivery = _nothing_to_wait_for) -> None:
        """Write the message as delivered: with the ``Return-Path`` (the envelope
        sender, where its bounce would go) that a receiving server puts on top."""
        target = self.folder / f"{key}.eml"
        partial = target.with_suffix(".eml.part")
        raw = self.signer.sign(message.raw) if self.signer is not None else message.raw
        if envelope_from:
            raw = f"Return-Path: <{envelope_from}>\r\n".encode() + raw
        partial.write_bytes(raw)
        try:
            before_delivery()
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        os.replace(partial, target)  # readers never see half a message


@dataclass(frozen=True)
class SmtpSettings:
    """What an ``SMTP_URL`` says: smtp://user:pass@host:port?starttls=1, smtps://..."""

    host: str
    port: int
    ssl: bool
    starttls: bool
    username: str | None
    password: str | None
    timeout: float = 30.0
    #: The name given in EHLO/HELO (``SMTP_HELO``; None: this host's name, as smtplib
    #: finds it): receivers and Postfix's logs compare it with the sending IP's PTR name.
    helo: str | None = None

    @classmethod
    def from_url(cls, url: str, helo: str | None = None) -> "SmtpSettings":
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps"):
            raise ValueError(f"SMTP_URL must start with smtp:// or smtps://, not {parts.scheme!r}")
        if not parts.hostname:
            raise ValueError("SMTP_URL names no host")
        query = parse_qs(parts.query)
        starttls = query.get("starttls", ["0"])[-1].lower() in ("1", "true", "yes", "on")
        timeout = float(query.get("timeout", ["30"])[-1])
        use_ssl = parts.scheme == "smtps"
        return cls(host=parts.hostname, port=parts.port or (465 if use_ssl else 25),
                   ssl=use_ssl, starttls=starttls and not use_ssl,
                   username=unquote(parts.username) if parts.username else None,
                   password=unquote(parts.password) if parts.password else None,
                   timeout=timeout, helo=checked_helo(helo))


#: What EHLO may name (RFC 5321 section 4.1.1.1): a domain, or an address literal.
_HELO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}"
                   r"[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\]|\[IPv6:[0-9A-Fa-f:.]+\]")


def checked_helo(name: str | None) -> str | None:
    """``SMTP_HELO`` as given, or None when empty; a name that is neither a domain nor an
    address literal fails at start with words (a space or a line break in it would
    end the command early)."""
    name = (name or "").strip()
    if not name:
        return None
    if not _HELO.fullmatch(name):
        raise ValueError(f"SMTP_HELO must be a host name (such as mail.example.org) or an "
                         f"address literal (such as [192.0.2.1]), not {name!r}")
    return name


class _DotHeld(smtplib.SMTP):
    """smtplib's DATA with its end held back: the message goes on the wire, then
    ``before_delivery`` is called, and only then the final ``.`` that makes the server
    take it. A server drops a DATA that never ended (RFC 5321 section 4.1.1.4: the
    mail transaction is incomplete), so a crash or an error before the dot delivers
    nothing; what the caller waits for there overlaps with the whole of the envelope
    and the message's transfer (issue 30: the previous mail's end, stored while this
    one goes, half a mail's time)."""

    before_delivery: BeforeDelivery = _nothing_to_wait_for

    def data(self, msg: "ReadableBuffer | str") -> tuple[int, bytes]:
        self.putcmd("data")
        code, reply = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        raw = msg.encode("ascii") if isinstance(msg, str) else bytes(msg)
        raw = _LEADING_DOT.sub(b"..", raw)  # (RFC 5321 section 4.5.2, as smtplib quotes)
        self.send(raw if raw.endswith(b"\r\n") else raw + b"\r\n")
        try:
            self.before_delivery()
        except BaseException:
            self.close()  # the DATA never ends: the server delivers nothing
            raise
        self.send(b".\r\n")
        return self.getreply()


#: A line that starts with a dot (after a CRLF, or the message's first): doubled.
_LEADING_DOT = re.compile(rb"(?m)^\.")


class _DotHeldSsl(_DotHeld, smtplib.SMTP_SSL):
    pass


class SmtpBackend:
    """Delivers over one SMTP connection while entered (opened on the first message:
    the sender enters it once for a run, batch after batch)."""

    def __init__(self, settings: SmtpSettings,
                 signer: dkim_signing.Signer | None = None) -> None:
        self.settings = settings
        self.signer = signer
        self._conn: _DotHeld | None = None
        self._context: ssl.SSLContext | None = None

    def __enter__(self) -> "SmtpBackend":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None:
            try:
                self._conn.quit()
            except (smtplib.SMTPException, OSError):
                self._conn.close()
            self._conn = None

    def _connect(self) -> _DotHeld:
        s = self.settings
        conn: _DotHeld
        if s.ssl:
            conn = _DotHeldSsl(s.host, s.port, local_hostname=s.helo, timeout=s.timeout,
                               context=self._tls())
        else:
            conn = _DotHeld(s.host, s.port, local_hostname=s.helo, timeout=s.timeout)
        try:
            # the DATA's dot leaves alone, a moment after the message (``_DotHeld``):
            # Nagle would hold it until the server acknowledged the message, which a
            # server that answers only after the dot delays by up to 40 ms
            if conn.sock is not None:
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if s.starttls:
                conn.starttls(context=self._tls())
            if s.username:
                conn.login(s.username, s.password or "")
        except BaseException:
            conn.close()
            raise
        return conn

    def _tls(self) -> ssl.SSLContext:
        """The TLS context, made once and only for a server spoken to over TLS: loading
        the system's certificates cost more than a plain connection itself, on every
        connection (issue 30: a sending batch's first mail)."""
        if self._context is None:
            self._context = ssl.create_default_context()
        return self._context

    def send(self, message: WireMessage, key: str, envelope_from: str | None = None,
             before_delivery: BeforeDelivery = _nothing_to_wait_for) -> None:
        """Hand ``message`` over; ``envelope_from`` is the MAIL FROM (the per-message
        bounce address, issue 19 item 3), else the From; ``before_delivery`` is called
        before the DATA's dot (``_DotHeld``): if it raises, the connection is dropped
        and nothing is delivered. DKIM signs the bytes that leave (issue 19 item 2).
        SMTPUTF8 is asked for when an address needs it: a server without it refuses
        the MAIL FROM for good (an IDNA domain is plain ASCII already)."""
        if self._conn is None:
            self._conn = self._connect()
        self._conn.before_delivery = before_delivery
        raw = self.signer.sign(message.raw) if self.signer is not None else message.raw
        try:
            refused = self._conn.sendmail(envelope_from or message.mail_from, [message.to],
                                          raw, mail_options=["SMTPUTF8"] if message.utf8 else [])
        except smtplib.SMTPNotSupportedError as exc:
            raise PermanentFailure("the mail server does not offer SMTPUTF8, which this "
                                   "address (non-ASCII before the @) needs") from exc
        except smtplib.SMTPRecipientsRefused as exc:
            raise PermanentFailure(f"recipient refused: {_said(exc.recipients)}",
                                   address=True) from exc
        except smtplib.SMTPResponseException as exc:
            if 500 <= exc.smtp_code < 600:
                raise PermanentFailure(f"{exc.smtp_code} {exc.smtp_error!r}") from exc
            self._drop()
            raise
        except (smtplib.SMTPException, OSError):
            self._drop()
            raise
        finally:
            if self._conn is not None:
                self._conn.before_delivery = _nothing_to_wait_for
                if self._conn.sock is None:  # (closed in the DATA: ``before_delivery`` raised)
                    self._conn = None
        if refused:
            raise PermanentFailure(f"recipient refused: {_said(refused)}", address=True)

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _said(refused: dict[str, tuple[int, bytes]]) -> str:
    """The server's words of a refusal ("550 5.1.1 No such user"), not a dict's repr:
    the game's creator reads them on the page."""
    return "; ".join(f"{code} {text.decode('utf-8', 'replace') if isinstance(text, bytes) else text}"
                     for code, text in refused.values()) or "no reason given"


def mail_folder(config: dict, instance_path: str | os.PathLike[str]) -> Path:
    """Where the file backend writes (and ``/dev/mail`` reads): ``MAIL_DIR``, else
    ``mail/`` in the instance folder."""
    return Path(config.get("MAIL_DIR") or setting("MAIL_DIR") or Path(instance_path) / "mail")


def backend_from_config(config: dict, instance_path: str | os.PathLike[str]) -> MailBackend:
    """Choose the backend named by ``MAIL_BACKEND`` (``file`` unless said otherwise)."""
    name = str(config.get("MAIL_BACKEND") or setting("MAIL_BACKEND")).lower()
    signer = dkim_signing.signer()  # half-set DKIM settings fail here, at start
    if name == "file":
        return FileBackend(mail_folder(config, instance_path), signer)
    if name == "smtp":
        url = config.get("SMTP_URL") or setting("SMTP_URL")
        if not url:
            raise ValueError("MAIL_BACKEND=smtp needs SMTP_URL (smtp://user:pass@host:port)")
        helo = config.get("SMTP_HELO") or setting("SMTP_HELO")
        return SmtpBackend(SmtpSettings.from_url(url, helo), signer)
    raise ValueError(f"MAIL_BACKEND must be 'file' or 'smtp', not {name!r}")
