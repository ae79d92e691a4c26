"""DKIM (issue 19 item 2): with the three settings every mail that leaves carries a
signature dkim.verify accepts; without them none; half of them stops the start."""
from __future__ import annotations

import subprocess
from email import message_from_bytes, policy
from datetime import datetime, timezone
from pathlib import Path

import dkim
import pytest

from app import services
from app.mail import dkim_signing
from app.mail.backends import FileBackend
from app.runners import clock
from app.mail.wire import WireMessage
from tests.summary.mail_kinds import every_kind
from tests.summary.test_spam_score import as_sent



@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, bytes]:
    """A fresh 2048-bit RSA key and the TXT record that publishes it."""
    private = tmp_path / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(private), "2048"], check=True,
                   capture_output=True)
    public = subprocess.run(["openssl", "rsa", "-in", str(private), "-pubout", "-outform", "DER"],
                            check=True, capture_output=True).stdout
    import base64
    return private, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def dns_for(record: bytes):  # noqa: ANN201
    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == b"sel1._domainkey.silver-eye.test." else None
    return lookup


def play_some(app, new_game) -> list[bytes]:  # noqa: ANN001
    """A game made, its mail sent through the file mailbox: every file's bytes."""
    new_game()
    clock.send_mail_due(app, datetime.now(timezone.utc))
    folder = Path(app.config["MAIL_DIR"])
    return [p.read_bytes() for p in sorted(folder.glob("*.eml"))]


def dkim_app(app, tmp_path, private):  # noqa: ANN001, ANN201
    dkim_signing._read_key.cache_clear()
    app.config.update(MAIL_BACKEND="file", MAIL_DIR=str(tmp_path / "box"),
                      MAIL_FROM="Silver Eye Post <post@silver-eye.test>",
                      DKIM_DOMAIN="silver-eye.test", DKIM_SELECTOR="sel1",
                      DKIM_PRIVATE_KEY_FILE=str(private))
    return app


def test_every_mail_of_a_game_is_signed_and_verifies(app, new_game, tmp_path, key):
    private, record = key
    raws = play_some(dkim_app(app, tmp_path, private), new_game)
    assert raws, "the game sent mail"
    for raw in raws:
        assert raw.split(b"\r\n", 2)[1].startswith(b"DKIM-Signature:"), "signed, under the Return-Path"
        assert b"c=relaxed/relaxed" in raw.split(b"\n\n")[0].replace(b"\r", b"")
        assert dkim.verify(raw, dnsfunc=dns_for(record)), raw[:400]
        header = raw.split(b"From:", 1)[0]
        assert b"list-unsubscribe" in header.lower() or b"List-Unsubscribe" not in raw


def test_a_body_changed_on_the_way_fails_verification(app, new_game, tmp_path, key):
    private, record = key
    raw = play_some(dkim_app(app, tmp_path, private), new_game)[0]
    assert not dkim.verify(raw.replace(b"Your", b"Our", 1) if b"Your" in raw
                           else raw + b"tampered\r\n", dnsfunc=dns_for(record))


def test_without_the_settings_no_mail_is_signed(app, new_game, tmp_path):
    app.config.update(MAIL_BACKEND="file", MAIL_DIR=str(tmp_path / "box"))
    raws = play_some(app, new_game)
    assert raws and not any(b"DKIM-Signature" in raw for raw in raws)


def test_mail_over_smtp_is_signed_too(app, new_game, tmp_path, key):
    private, record = key
    box: list[bytes] = []
    from aiosmtpd.controller import Controller

    class Raw:
        async def handle_DATA(self, server_, session, envelope):  # noqa: ANN001, ANN201
            box.append(envelope.original_content or envelope.content)
            return "250 OK"

    from .conftest import free_port
    port = free_port()
    controller = Controller(Raw(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        dkim_app(app, tmp_path, private).config.update(
            MAIL_BACKEND="smtp", SMTP_URL=f"smtp://127.0.0.1:{port}")
        new_game()
        clock.send_mail_due(app, datetime.now(timezone.utc))
    finally:
        controller.stop()
    assert box and all(dkim.verify(raw, dnsfunc=dns_for(record)) for raw in box)


@pytest.mark.parametrize("settings, words", [
    ({"DKIM_DOMAIN": "silver-eye.test"}, "DKIM_SELECTOR, DKIM_PRIVATE_KEY_FILE missing"),
    ({"DKIM_DOMAIN": "silver-eye.test", "DKIM_SELECTOR": "s",
      "DKIM_PRIVATE_KEY_FILE": "/nonexistent/key.pem"}, "cannot be read"),
])
def test_half_set_dkim_stops_the_start_with_words(app, settings, words):
    dkim_signing._read_key.cache_clear()
    app.config.update(**settings)
    with app.app_context(), pytest.raises(dkim_signing.DkimSettingError, match=words):
        clock.mail_backend(app)


def test_a_file_that_is_no_key_is_refused(app, tmp_path):
    dkim_signing._read_key.cache_clear()
    bad = tmp_path / "k.pem"
    bad.write_text("hello")
    app.config.update(DKIM_DOMAIN="x.test", DKIM_SELECTOR="s", DKIM_PRIVATE_KEY_FILE=str(bad))
    with app.app_context(), pytest.raises(dkim_signing.DkimSettingError, match="no PEM"):
        clock.mail_backend(app)


def test_every_kind_of_mail_as_it_leaves_is_signed_over_the_headers_readers_rely_on(
        app, tmp_path, key):
    """Each mail kind (tests/summary/mail_kinds.py), with the headers the outbox gives it,
    through the file mailbox: signed, verified, and List-Unsubscribe among what is
    signed (a filter trusts the one-click header only when it is)."""
    private, record = key
    with dkim_app(app, tmp_path, private).app_context():
        signer = dkim_signing.signer()
    backend = FileBackend(tmp_path / "kinds", signer)
    with backend:
        for kind, mail in every_kind().items():
            message = WireMessage(raw=as_sent(kind, mail), mail_from="post@silver-eye.test",
                                  to="ann@example.org", utf8=False)
            backend.send(message, key=kind, envelope_from="bounce+1.x@silver-eye.test")
    for kind in every_kind():
        raw = (tmp_path / "kinds" / f"{kind}.eml").read_bytes()
        assert dkim.verify(raw, dnsfunc=dns_for(record)), kind
        signed = message_from_bytes(raw, policy=policy.default)["DKIM-Signature"]
        names = {h.strip().lower() for h in str(signed).split("h=", 1)[1].split(";")[0].split(":")}
        assert {"from", "to", "subject", "date", "message-id", "list-unsubscribe",
                "list-unsubscribe-post"} <= names, (kind, names)
