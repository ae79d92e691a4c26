"""Where outgoing mail goes: a folder of .eml files (default) or an SMTP server.

Both take a fully built ``EmailMessage``. The file backend names each file
after the outbox row, so delivering the same row twice overwrites one file
instead of adding a second one; SMTP relies on the outbox never handing the
same row out twice and on the stable Message-ID for the rare crash between
"sent" and "marked sent".
"""
from __future__ import annotations

import os
import re
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import getaddresses
from pathlib import Path
from typing import Protocol, cast
from urllib.parse import parse_qs, unquote, urlsplit

from app.config import setting
from app.mail import dkim_signing


class PermanentFailure(Exception):
    """The server refused this message for good (e.g. an unknown recipient).

    ``address``: the refusal is of the recipient's address (it then bounces in every
    game: ``app.mail.bounces``), not of this one message (too big, no SMTPUTF8)."""

    def __init__(self, words: str, *, address: bool = False) -> None:
        super().__init__(words)
        self.address = address


class MailBackend(Protocol):
    """Sends messages; used as a context manager around one batch."""

    def __enter__(self) -> "MailBackend": ...
    def __exit__(self, *exc: object) -> None: ...
    def send(self, message: EmailMessage, key: str,
             envelope_from: str | None = None) -> None: ...


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

    def send(self, message: EmailMessage, key: str,
             envelope_from: str | None = None) -> None:
        """Write the message as delivered: with the ``Return-Path`` (the envelope
        sender, where its bounce would go) that a receiving server puts on top."""
        target = self.folder / f"{key}.eml"
        partial = target.with_suffix(".eml.part")
        # typeshed types a message's policy as the base Policy; compose builds every
        # message with an EmailPolicy, the one that knows ``utf8``
        policy = cast("EmailPolicy[EmailMessage]", message.policy)
        raw = (message.as_bytes(policy=policy.clone(utf8=True))
               if not str(message["To"]).isascii() else bytes(message))
        raw = self.signer.sign(raw) if self.signer is not None else raw
        if envelope_from:
            end = b"\r\n" if b"\r\n" in raw[:2000] else b"\n"
            raw = f"Return-Path: <{envelope_from}>".encode() + end + raw
        partial.write_bytes(raw)
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


class SmtpBackend:
    """Delivers over one SMTP connection while entered (opened on the first message:
    the sender enters it once for a run, batch after batch)."""

    def __init__(self, settings: SmtpSettings,
                 signer: dkim_signing.Signer | None = None) -> None:
        self.settings = settings
        self.signer = signer
        self._conn: smtplib.SMTP | None = None
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

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        conn: smtplib.SMTP
        if s.ssl:
            conn = smtplib.SMTP_SSL(s.host, s.port, local_hostname=s.helo, timeout=s.timeout,
                                    context=self._tls())
        else:
            conn = smtplib.SMTP(s.host, s.port, local_hostname=s.helo, timeout=s.timeout)
        try:
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

    def send(self, message: EmailMessage, key: str,
             envelope_from: str | None = None) -> None:
        """Hand ``message`` over; ``envelope_from`` is the MAIL FROM (the per-message
        bounce address, issue 19 item 3), else the From."""
        if self._conn is None:
            self._conn = self._connect()
        try:
            # smtplib asks for SMTPUTF8 itself when an address needs it and the
            # server offers it; an IDNA domain is plain ASCII already.
            refused = (self._conn.send_message(message, from_addr=envelope_from)
                       if self.signer is None else self._send_signed(message, envelope_from))
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
        if refused:
            raise PermanentFailure(f"recipient refused: {_said(refused)}", address=True)

    def _send_signed(self, message: EmailMessage,
                     envelope_from: str | None) -> dict[str, tuple[int, bytes]]:
        """Hand over the DKIM-signed bytes: what is signed must be what leaves, so the
        message is serialised once, here (SMTPUTF8 asked for when an address needs it;
        a server without it refuses the MAIL FROM for good, as ``send_message`` would)."""
        assert self._conn is not None and self.signer is not None
        policy = cast("EmailPolicy[EmailMessage]", message.policy)
        sender, to = str(message["From"]), str(message["To"])
        utf8 = not (sender.isascii() and to.isascii())
        raw = message.as_bytes(policy=policy.clone(utf8=utf8, linesep="\r\n"))
        recipients = [address for _, address in getaddresses([to])]
        return self._conn.sendmail(envelope_from or getaddresses([sender])[0][1], recipients,
                                   self.signer.sign(raw),
                                   mail_options=["SMTPUTF8"] if utf8 else [])

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
