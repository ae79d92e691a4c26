"""DKIM signing of every outgoing mail (issue 19 item 2), as a setting.

Gmail's and Yahoo's bulk-sender rules want DKIM aligned with From. With
``DKIM_DOMAIN``, ``DKIM_SELECTOR`` and ``DKIM_PRIVATE_KEY_FILE`` (a PEM RSA key)
all set, each backend that sends (SMTP and the file mailbox, so tests can verify
it) puts a ``DKIM-Signature`` (relaxed/relaxed) on the bytes it hands over. None
set: no signature. Some set, or a key that cannot be read: ``DkimSettingError``
with a sentence saying what is wrong, raised when the backend is chosen (at start),
never a mail silently left unsigned.
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from pathlib import Path

import dkim

from app.config import setting

log = logging.getLogger("app.mail.dkim")

#: The headers a reader or a filter relies on, signed where present; From is signed
#: twice (oversigned), so a second From added on the way breaks the signature.
SIGNED = (b"From", b"To", b"Subject", b"Date", b"Message-ID", b"In-Reply-To", b"References",
          b"List-Unsubscribe", b"List-Unsubscribe-Post", b"MIME-Version", b"Content-Type",
          b"Reply-To")
KEYS = ("DKIM_DOMAIN", "DKIM_SELECTOR", "DKIM_PRIVATE_KEY_FILE")


class DkimSettingError(ValueError):
    """The DKIM settings are half set or name a key that cannot be used."""


@dataclass(frozen=True)
class Signer:
    domain: str
    selector: str
    key: bytes

    def sign(self, raw: bytes) -> bytes:
        """``raw`` with a DKIM-Signature header in front."""
        present = {line.split(b":", 1)[0].strip().lower()
                   for line in raw.split(b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n", 1)[0]
                   .splitlines() if line[:1] not in (b" ", b"\t") and b":" in line}
        headers = [h for h in SIGNED if h.lower() in present] + [b"From"]
        signature = dkim.sign(raw, self.selector.encode(), self.domain.encode(), self.key,
                              canonicalize=(b"relaxed", b"relaxed"), include_headers=headers)
        return signature + raw


@functools.cache
def _read_key(path: str) -> bytes:
    """The key file's bytes, read once per process."""
    try:
        key = Path(path).read_bytes()
    except OSError as exc:
        raise DkimSettingError(f"DKIM_PRIVATE_KEY_FILE {path!r} cannot be read: "
                               f"{exc.strerror or exc}") from exc
    if b"PRIVATE KEY-----" not in key:
        raise DkimSettingError(f"DKIM_PRIVATE_KEY_FILE {path!r} holds no PEM private key")
    try:
        dkim.sign(b"From: a@b\r\n\r\nx\r\n", b"s", b"b", key)
    except Exception as exc:  # noqa: BLE001 - dkimpy's KeyFormatError and friends
        raise DkimSettingError(f"DKIM_PRIVATE_KEY_FILE {path!r} is not a usable RSA key: "
                               f"{exc}") from exc
    return key


def signer() -> Signer | None:
    """The signer the settings ask for, or None when DKIM is off; raises on half a setting."""
    values = {key: str(setting(key) or "").strip() for key in KEYS}
    if not any(values.values()):
        return None
    missing = [key for key, value in values.items() if not value]
    if missing:
        raise DkimSettingError("DKIM is half set: " + ", ".join(missing) + " missing (set "
                               "DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE, or none)")
    domain = values["DKIM_DOMAIN"].lower().rstrip(".")
    made = Signer(domain, values["DKIM_SELECTOR"], _read_key(values["DKIM_PRIVATE_KEY_FILE"]))
    _warn_unaligned(domain, str(setting("MAIL_FROM") or ""))
    return made


@functools.cache
def _warn_unaligned(domain: str, mail_from: str) -> None:
    """Log once when d= does not align with MAIL_FROM's domain (DMARC would not count it)."""
    sender = mail_from.rsplit("@", 1)[-1].strip(" >").lower().rstrip(".")
    if sender != domain and not sender.endswith("." + domain):
        log.warning("DKIM_DOMAIN %s does not align with MAIL_FROM's domain %s: DMARC will "
                    "not count the signature", domain, sender)
