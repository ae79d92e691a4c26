"""Who may play a seat by replying, and what we say about it (issue 17 item 6).

The reply address is what authorises a reply: like the seat link, it is a
bearer secret. A From line proves nothing (anyone can write ``From: Ann``), so
where the operator's own MTA checks senders and says so in an
``Authentication-Results`` header (RFC 8601) carrying its authserv-id
(``INBOUND_AUTHSERV_ID``), that verdict decides; headers with any other id, or
below the operator's own, may be the sender's invention and count for nothing.
"""
from __future__ import annotations

import email.policy

import pytest

from tests.inbound.conftest import Player, answers, reply_to

ANN = "ann@example.com"
MALLORY = "mallory@evil.example"
OURS = "mx.silver-eye.test"


@pytest.fixture
def checked(mail_app):
    """The operator's MTA checks senders and stamps its verdict as ``mx.silver-eye.test``."""
    mail_app.config["INBOUND_AUTHSERV_ID"] = OURS
    return mail_app


def send_with(inbound, ann: Player, command: str, *results: str,
              envelope_from: str = ANN) -> None:
    """Ann's reply (From: Ann, whoever sent it), with these headers on top, as an MTA
    that prepends its ``Authentication-Results`` would hand it on."""
    message = reply_to(ann.waiting(), command)
    top = "".join(f"Authentication-Results: {value}\r\n" for value in results).encode()
    inbound.send(top + message.as_bytes(policy=email.policy.SMTP), mail_from=envelope_from,
                 to=[str(message["To"])])


def outcomes(db) -> list[str]:
    import sqlalchemy as sa
    with db.engine.connect() as conn:
        return [row[0] for row in conn.execute(sa.text("SELECT outcome FROM inbox ORDER BY id"))]


def test_a_forged_from_that_fails_dmarc_is_refused_and_the_seat_is_told(
        checked, game, ann, inbound, deliver, db, smtp):
    send_with(inbound, ann, "peek 1 2",
              f"{OURS}; dmarc=fail (p=reject) header.from=example.com; spf=fail "
              f"smtp.mailfrom={MALLORY}", envelope_from=MALLORY)
    deliver()
    assert db.actions(game.game_id) == []
    assert outcomes(db) == ["not authenticated: dmarc=fail"]
    [answer] = answers(smtp, ANN)  # at the seat's own address, never at the forger's
    assert "may be forged" in answer.text and "Nothing was changed." in answer.text
    assert smtp.to(MALLORY) == []


def test_a_reply_that_passes_dmarc_is_applied(checked, game, ann, inbound, deliver, db):
    send_with(inbound, ann, "peek 1 2",
              f"{OURS} 1; dkim=pass header.d=example.com header.s=sel; "
              f"dmarc=pass (p=none dis=none) header.from=example.com")
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]


def test_without_dmarc_an_aligned_dkim_or_spf_pass_will_do_but_not_a_foreign_one(
        checked, game, ann, inbound, deliver, db):
    send_with(inbound, ann, "peek 1 2",
              f"{OURS}; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom={MALLORY}",
              envelope_from=MALLORY)
    deliver()
    assert db.actions(game.game_id) == []
    send_with(inbound, ann, "peek 1 2",
              f"{OURS}; dmarc=none header.from=example.com; spf=pass smtp.mailfrom={ANN}")
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]
    assert outcomes(db)[0] == ("not authenticated: not vouched for (dkim=pass, spf=pass)")


def test_a_header_with_another_authserv_id_is_ignored(checked, game, ann, inbound, deliver,
                                                      db, smtp):
    send_with(inbound, ann, "peek 1 2", "mx.evil.example; dmarc=pass header.from=example.com",
              envelope_from=MALLORY)
    deliver()
    assert db.actions(game.game_id) == []
    assert outcomes(db) == [f"not authenticated: no Authentication-Results of {OURS}"]
    assert smtp.to(MALLORY) == []


def test_our_id_below_the_operators_own_header_counts_for_nothing(
        checked, game, ann, inbound, deliver, db):
    # the top header is the operator's (no DMARC policy; SPF failed); the sender wrote
    # the rest, one of them in our name, under a header of another id
    send_with(inbound, ann, "peek 1 2",
              f"{OURS}; spf=fail smtp.mailfrom={MALLORY}",
              "mx.upstream.example; dkim=pass header.d=example.com",
              f"{OURS}; dmarc=pass header.from=example.com", envelope_from=MALLORY)
    deliver()
    assert db.actions(game.game_id) == []
    assert outcomes(db) == ["not authenticated: not vouched for (spf=fail)"]


def test_without_a_configured_authserv_id_the_reply_address_alone_plays_and_we_say_so(
        game, ann, inbound, deliver, db, smtp):
    # an honest mistake (another From) is answered, without claiming that it protects her
    inbound.send(reply_to(ann.waiting(), "peek 1 2", sender="Bob <bob@example.com>"),
                 mail_from="bob@example.com")
    deliver()
    [answer] = answers(smtp, ANN)
    assert "not yours" in answer.text and "like the link in them" in answer.text
    assert "Only replies from the address" not in answer.text
    # and with no header checks, anyone holding the reply address who writes Ann's From plays
    send_with(inbound, ann, "peek 1 2", "mx.evil.example; dmarc=fail", envelope_from=MALLORY)
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]
