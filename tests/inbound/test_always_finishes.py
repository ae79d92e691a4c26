"""Every inbound message finishes, and the receiver cannot be used as a store (issue 17 item 5).

Ann and Bob play a 2-seat game by mail. Each scenario sends what a hostile or
broken sender would (a From that does not parse, 3,000 nested MIME parts, made-up
addresses, a thousand idle connections) or breaks the database under a reply,
and checks what is left: a finished row, a refusal the sender's MTA will not
retry, and a real reply that still gets through.
"""
from __future__ import annotations

import email.policy
import smtplib
import socket
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from app.clock import deadlines as dl
from app import services
from app.runners import pruning
from app.inbound import worker
from app.runners import inbound as runners_inbound
from tests.inbound.conftest import DOMAIN, Inbound, Player, answers, reply_to

ANN, BOB = "ann@example.com", "bob@example.com"
SECRET = "relay-shared-secret"


def rows(db) -> list[dict]:
    with db.engine.connect() as conn:
        return [dict(row._mapping) for row in conn.execute(sa.text(
            "SELECT id, status, outcome, attempts, raw, last_error, done_at FROM inbox "
            "ORDER BY id"))]


def nested_multipart(levels: int, to: str) -> bytes:
    """A message whose multiparts nest ``levels`` deep, with a command at the bottom."""
    out = [f"From: {ANN}\r\nTo: {to}\r\nSubject: Re: deep\r\nMessage-ID: <deep@player.example>"
           f"\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n"
           .encode()]
    for level in range(1, levels):
        out.append(f"--b{level - 1}\r\nContent-Type: multipart/mixed; boundary=\"b{level}\""
                   f"\r\n\r\n".encode())
    out.append(f"--b{levels - 1}\r\nContent-Type: text/plain\r\n\r\npeek 1 2\r\n"
               f"--b{levels - 1}--\r\n".encode())
    out.extend(f"--b{level}--\r\n".encode() for level in range(levels - 2, -1, -1))
    return b"".join(out)


def test_a_from_that_does_not_parse_is_finished_at_once_and_never_retried(
        game, ann, inbound, deliver, db, smtp, caplog):
    mail = ann.waiting()
    poison = (f"From: =?utf-8?q?Ann=0D=0ABcc=3A_x=40evil=2Eexample?= <{ANN}>\r\n"
              f"To: {mail.header('Reply-To')}\r\nSubject: Re: your turn\r\n"
              f"Message-ID: <poison-1@player.example>\r\n\r\npeek 1 2\r\n").encode()
    inbound.send(poison, mail_from=ANN, to=[mail.header("Reply-To")])
    for _ in range(5):  # five clock ticks: the first finishes it, the others find nothing
        deliver()
    [row] = rows(db)
    assert row["status"] == "answered" and row["attempts"] == 1
    assert row["outcome"].startswith("unreadable: the From header does not parse")
    assert bytes(row["raw"]) == b""
    assert not [r for r in caplog.records if r.exc_info], "no traceback, not even once"
    assert db.actions(game.game_id) == []
    [answer] = answers(smtp, ANN)  # the seat hears of it, at its own address, once
    assert "could not read it" in answer.text and "Nothing was changed." in answer.text
    assert all("evil" not in r for m in smtp.received for r in m.rcpt)


def test_three_thousand_nested_parts_are_refused_for_good_over_smtp(game, ann, inbound, db):
    message = nested_multipart(3000, ann.waiting().header("Reply-To"))
    with pytest.raises(smtplib.SMTPDataError) as refused:
        inbound.send(message, mail_from=ANN, to=[ann.waiting().header("Reply-To")])
    assert refused.value.smtp_code == 554  # permanent: no MTA retries it for days
    assert b"nested too deep" in refused.value.smtp_error
    assert db.count("inbox") == 0


def test_three_thousand_nested_parts_are_refused_with_words_over_http(game, ann, mail_app,
                                                                      client, db):
    mail_app.config["INBOUND_SECRET"] = SECRET
    to = ann.waiting().header("Reply-To")
    answer = client.post("/inbound/mail", data=nested_multipart(3000, to),
                         headers={"X-Inbound-Secret": SECRET, "X-Envelope-To": to})
    assert answer.status_code == 422
    assert "nested too deep" in answer.get_json()["error"]
    assert db.count("inbox") == 0


def test_a_reply_nested_a_few_levels_still_plays(game, ann, inbound, deliver, db):
    to = ann.waiting().header("Reply-To")
    inbound.send(nested_multipart(3, to), mail_from=ANN, to=[to])
    deliver()
    assert db.actions(game.game_id) == [(1, 0, "mail")]


def test_made_up_addresses_at_our_domain_are_refused_at_rcpt(game, ann, inbound, db):
    mail = ann.waiting()
    message = reply_to(mail, "peek 1 2")
    for made_up in (f"anything@{DOMAIN}", f"play+madeup@{DOMAIN}", f"postbox.{DOMAIN}@{DOMAIN}",
                    f"play+{'x' * 60}.0.1.0.abc@{DOMAIN}"):
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            inbound.send(message, mail_from=ANN, to=[made_up])
        assert refused.value.recipients[made_up][0] == 550
    assert db.count("inbox") == 0


@pytest.mark.slow  # a thousand connections and a real idle timeout
def test_a_thousand_idle_connections_get_the_cap_then_are_closed_and_a_reply_gets_through(
        mail_app, game, ann, smtp, deliver, db):
    mail_app.config["INBOUND_IDLE_SECONDS"] = 5
    cap = 10  # the default INBOUND_CONNECTIONS_PER_CLIENT
    server = Inbound(mail_app, apply=False)
    server.controller.start()
    held: list[socket.socket] = []
    refused = 0
    try:
        for _ in range(1000):  # one client holding the door open
            for sock in held:  # the held ones talk, so none of them is idle meanwhile
                sock.sendall(b"NOOP\r\n")
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            greeting = sock.recv(200)
            if greeting.startswith(b"421"):
                refused += 1
                assert sock.recv(200) in (b"", b"\r\n")  # and closed by the server
                sock.close()
                continue
            assert greeting.startswith(b"220"), greeting
            held.append(sock)
            assert len(held) <= cap, "more connections held open than the cap"
        assert len(held) >= cap - 1 and refused >= 1000 - cap  # the start-up probe may hold one
        # now they are idle: the receiver closes every one of them; each socket is read
        # (its NOOP answers, then the end) with a generous bound on every read
        for sock in held:
            sock.settimeout(60)
            for _ in range(10_000):
                if not sock.recv(65536):
                    break
            else:
                raise AssertionError("an idle connection was never closed")
        ann.answer(server, ann.waiting(), "peek 1 2")  # a real reply still gets through
        deliver()
        assert db.actions(game.game_id) == [(1, 0, "mail")]
    finally:
        for sock in held:
            sock.close()
        server.controller.stop()
        server.controller.handler.close()


def test_a_transient_failure_is_retried_then_dead_lettered_with_its_error(
        game, ann, inbound, db, mail_app, monkeypatch, deliver):
    ann.answer(inbound, ann.waiting(), "peek 1 2")

    def database_gone(*args, **kwargs):
        raise OperationalError("INSERT INTO action ...", {}, ConnectionError(
            "server closed the connection unexpectedly"))

    monkeypatch.setattr(services, "submit_action", database_gone)
    now = dl.now()
    seen = []
    for attempt in range(1, 6):
        report = runners_inbound.apply_pending(mail_app, now)
        again = runners_inbound.apply_pending(mail_app, now)  # waiting out its backoff: not claimed
        [row] = rows(db)
        seen.append((row["status"], row["attempts"], report.outcomes, again.outcomes))
        now += worker.retry_wait(attempt) + timedelta(seconds=1)
    assert seen == [("pending", n, {"error": 1}, {}) for n in range(1, 5)] + \
        [("dead", 5, {"dead": 1}, {})]
    [row] = rows(db)
    assert row["outcome"].startswith("dead after 5 attempts: OperationalError")
    assert "server closed the connection unexpectedly" in row["last_error"]
    assert bytes(row["raw"]) != b""  # a dead row keeps its message for the operator
    assert runners_inbound.apply_pending(mail_app, now + timedelta(days=1)).outcomes == {}
    assert db.actions(game.game_id) == []
    # Ann's move did not happen: she is told so, once, at her own address
    monkeypatch.undo()
    before = len(ann.mails())
    with dl.at(now + timedelta(minutes=1)):  # the clock, when the answer is due
        deliver()
        told = [m for m in ann.mails()[before:] if "could not apply it" in m.text]
        assert len(told) == 1
        assert ("after 5 tries we gave up on it. Nothing was changed."
                in " ".join(told[0].text.split()))
        deliver()
    assert len([m for m in ann.mails() if "could not apply it" in m.text]) == 1


def test_a_row_whose_worker_died_on_every_attempt_is_dead_lettered(
        game, ann, inbound, db, mail_app):
    ann.answer(inbound, ann.waiting(), "peek 1 2")
    now = dl.now()
    for _ in range(5):  # claimed, then the process is killed before it writes anything
        assert runners_inbound.claim(db.engine, now, "killed-worker")
        now += runners_inbound.LEASE + timedelta(seconds=1)
    assert runners_inbound.apply_pending(mail_app, now).outcomes == {}
    [row] = rows(db)
    assert row["status"] == "dead" and row["attempts"] == 5
    assert row["outcome"] == ("dead after 5 attempts: its worker stopped before "
                              "finishing it")


def test_a_finished_reply_keeps_no_raw_bytes_and_old_rows_are_pruned(
        game, ann, smtp, mail_app, deliver, db):
    bob = Player("Bob", BOB, smtp)
    storing = Inbound(mail_app, apply=False)
    storing.controller.start()
    try:
        ann.answer(storing, ann.waiting(), "peek 1 2")
        bob.answer(storing, bob.waiting(), "peek 3 4")
        deliver()
        first_turn = [m for m in ann.mails() if m.header("Reply-To")][0]
        late = reply_to(first_turn, "help")  # stored, not applied yet
        storing.send(late.as_bytes(policy=email.policy.SMTP), mail_from=ANN,
                     to=[str(late["To"])])
    finally:
        storing.controller.stop()
        storing.controller.handler.close()
    finished = [row for row in rows(db) if row["status"] == "applied"]
    assert len(finished) == 2 and all(bytes(row["raw"]) == b"" for row in finished)
    assert pruning.prune(db.engine, dl.now() + timedelta(days=29)).deleted["inbox"] == 0
    report = pruning.prune(db.engine, dl.now() + timedelta(days=31))
    assert report.deleted["inbox"] == 2
    assert [row["status"] for row in rows(db)] == ["pending"]  # never a pending row
