"""The operator's commands (issue 19 item 5), each driven as an operator would: the command
line (Flask's CliRunner), then what the store, the seat pages and the outbox say after.

Scenarios: a server with a game nobody moved in for days and one whose clock is down; mail
that failed and mail a cap holds; a reply the worker gave up on; a failed mail re-sent
(once, never twice); a deadline extended (its reminders follow, the seat page shows it);
a seat given a new address (old links die, the new address gets the new link).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app import services
from app.clock import deadlines as dl
from app.clock.time import as_utc
from app.db import get_engine, write_session
from app.inbound.models import InboxMessage
from app.mail import bounces
from app.mail.models import FAILED, PENDING, SUPERSEDED, Outbox
from tests.clock.test_status import a_dead_reply
from tests.conftest import PEOPLE

def right_now() -> datetime:
    """Now, read when a test needs it (a module-wide value would age while the suite runs)."""
    return datetime.now(timezone.utc)


def a_game(name: str, seed: str = "7", people=PEOPLE[:2]) -> services.Created:
    players = [{"name": person, "email": address} for person, address in people]
    return services.create_game(players, {}, name=name, seed=seed)


def execute(app, sql: str, **values) -> list[tuple]:
    with get_engine(app).begin() as conn:
        result = conn.execute(sa.text(sql), values)
        return [tuple(row) for row in result] if result.returns_rows else []


def outbox(app, **where) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        query = select(Outbox)
        for key, value in where.items():
            query = query.where(getattr(Outbox, key) == value)
        return list(session.exec(query.order_by(col(Outbox.id))).all())


def open_deadlines(app, game_id: str, kind: str) -> list[dl.Deadline]:
    with Session(get_engine(app)) as session:
        return dl.open_rows(session, game_id, kind=kind)


# -- stuck-games -------------------------------------------------------------------------

def test_stuck_games_names_the_game_nobody_moved_in_and_the_one_whose_clock_is_down(
        app, runner):
    quiet, overdue, lively = a_game("Quiet"), a_game("Overdue"), a_game("Lively")
    five_days_ago = right_now() - timedelta(days=5)
    execute(app, "UPDATE game SET created = :t WHERE id = :g", t=five_days_ago,
            g=quiet.game_id)
    execute(app, "UPDATE action SET created = :t WHERE game_id = :g", t=five_days_ago,
            g=quiet.game_id)
    execute(app, "UPDATE deadline SET due_at = :t WHERE game_id = :g AND kind = 'decision' "
                 "AND done_at IS NULL", t=right_now() - timedelta(days=4), g=overdue.game_id)
    waited = sorted({row.seat for row in open_deadlines(app, overdue.game_id, dl.DECISION)})
    assert waited, "a new game waits on someone"

    result = runner.invoke(args=["stuck-games", "--days", "3"])

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    quiet_line = next(line for line in lines if quiet.game_id in line)
    assert '"Quiet"' in quiet_line and "last move 120.0 h ago" in quiet_line
    overdue_line = next(line for line in lines if overdue.game_id in line)
    assert "deadline overdue since" in overdue_line and "(96.0 h)" in overdue_line
    for seat in waited:
        assert f"seat {seat} {PEOPLE[seat][0]}" in overdue_line
    assert lively.game_id not in result.output
    assert lines[-1].startswith("2 stuck games")
    assert runner.invoke(args=["stuck-games", "--days", "6"]).output.splitlines()[-1] \
        .startswith("0 stuck games")


def test_stuck_games_refuses_a_number_of_days_that_is_not_positive(app, runner):
    result = runner.invoke(args=["stuck-games", "--days", "0"])
    assert result.exit_code != 0 and "--days" in result.output


# -- failed-mails and dead-inbound ---------------------------------------------------------

def test_failed_mails_lists_the_failed_and_the_held_by_game_and_by_address(app, runner):
    first, second = a_game("One"), a_game("Two", people=PEOPLE[2:4])
    ids = [row.id for row in outbox(app, game_id=first.game_id)]
    execute(app, "UPDATE outbox SET status = 'failed', attempts = 3, "
                 "last_error = '550 5.1.1 no such user' WHERE id = :i", i=ids[0])
    execute(app, "UPDATE outbox SET held_until = :t, held_why = 'hour', last_error = "
                 "'held back: 60 mails to this address in the last hour' WHERE id = :i",
            t=right_now() + timedelta(minutes=30), i=ids[1])
    other = outbox(app, game_id=second.game_id)[0]
    execute(app, "UPDATE outbox SET status = 'failed', last_error = 'mailbox full' "
                 "WHERE id = :i", i=other.id)

    everything = runner.invoke(args=["failed-mails"])
    by_game = runner.invoke(args=["failed-mails", "--game", first.game_id])
    by_address = runner.invoke(args=["failed-mails", "--address", other.to.upper()])

    assert everything.exit_code == 0, everything.output
    assert everything.output.splitlines()[-1] == "2 failed, 1 held"
    failed_line = next(line for line in by_game.output.splitlines()
                       if line.startswith(f"#{ids[0]} "))
    assert "failed" in failed_line and "3 attempts" in failed_line
    assert "550 5.1.1 no such user" in failed_line and f"game {first.game_id}" in failed_line
    held_line = next(line for line in by_game.output.splitlines()
                     if line.startswith(f"#{ids[1]} "))
    assert "held until" in held_line and "held (hour)" in held_line
    assert "mailbox full" not in by_game.output
    assert by_game.output.splitlines()[-1] == "1 failed, 1 held"
    assert f"#{other.id} failed" in by_address.output and "mailbox full" in by_address.output
    assert by_address.output.splitlines()[-1] == "1 failed, 0 held"


def test_dead_inbound_lists_the_replies_the_worker_gave_up_on(app, runner):
    dead_id = a_dead_reply(app)  # from ann@example.com, 5 attempts, the database failing
    with Session(get_engine(app)) as session:
        session.add(InboxMessage(message_id="<fine@example.com>", received_at=right_now(),
                                 via="smtp", mail_from="bob@example.com", rcpt=[], raw=b"",
                                 status="applied"))
        session.commit()

    result = runner.invoke(args=["dead-inbound"])

    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.startswith(f"#{dead_id} "))
    assert "from ann@example.com" in line and "5 attempts" in line
    assert "OperationalError: server closed the connection" in line
    assert "bob@example.com" not in result.output
    assert result.output.splitlines()[-1] == "1 dead inbound message"


# -- resend-mail ---------------------------------------------------------------------------

def test_a_failed_mail_is_queued_again_once_and_a_pending_one_is_never_doubled(app, runner):
    created = a_game("Resend")
    invitation = outbox(app, game_id=created.game_id, kind="invitation")[0]
    execute(app, "UPDATE outbox SET status = 'failed', attempts = 30, "
                 "last_error = 'not delivered after 30 attempts' WHERE id = :i", i=invitation.id)

    result = runner.invoke(args=["resend-mail", str(invitation.id)])

    assert result.exit_code == 0, result.output
    copies = [row for row in outbox(app, to=invitation.to) if row.id > invitation.id
              and row.idempotency.startswith("resend:")]
    assert len(copies) == 1
    copy = copies[0]
    assert f"mail {invitation.id} queued again as mail {copy.id}" in result.output
    assert copy.status == PENDING and copy.attempts == 0
    assert (copy.subject, copy.text, copy.html, copy.kind) == (
        invitation.subject, invitation.text, invitation.html, invitation.kind)
    assert copy.message_id != invitation.message_id
    assert outbox(app, id=invitation.id)[0].status == FAILED, "the record stays"

    again = runner.invoke(args=["resend-mail", str(invitation.id)])
    assert again.exit_code == 1
    assert f"already queued again as mail {copy.id}, which is still pending" in again.output
    still_pending = runner.invoke(args=["resend-mail", str(copy.id)])
    assert still_pending.exit_code == 1
    assert "still pending" in still_pending.output and "twice" in still_pending.output
    assert len([row for row in outbox(app, to=invitation.to)
                if row.idempotency.startswith("resend:")]) == 1

    execute(app, "UPDATE outbox SET status = 'sent', sent_at = :t WHERE id = :i", t=right_now(),
            i=copy.id)
    assert runner.invoke(args=["resend-mail", str(invitation.id)]).exit_code == 0, \
        "once the copy went, a second re-send is a new mail"
    assert runner.invoke(args=["resend-mail", "999999"]).output.strip().endswith(
        "There is no mail 999999.")


def test_a_mail_to_an_address_the_seat_no_longer_has_is_not_re_sent(app, runner):
    created = a_game("Moved")
    invitation = outbox(app, game_id=created.game_id, kind="invitation", seat=1)[0]
    execute(app, "UPDATE outbox SET status = 'sent' WHERE id = :i", i=invitation.id)
    assert runner.invoke(args=["change-address", created.game_id, "1",
                               "bob@new.example"]).exit_code == 0

    result = runner.invoke(args=["resend-mail", str(invitation.id)])

    assert result.exit_code == 1
    assert "the seat's address is now bob@new.example: its links are dead" in result.output


def test_a_mail_to_an_address_that_bounces_is_not_re_sent_and_the_operator_is_told_how(
        app, runner):
    """Issue 34 item 5: re-sending to a bouncing address would only fail again (and count
    against the server's reputation); the operator is told how to clear the mark first."""
    created = a_game("Bouncing")
    invitation = outbox(app, game_id=created.game_id, kind="invitation", seat=1)[0]
    execute(app, "UPDATE outbox SET status = 'failed', last_error = '550 no such user' "
                 "WHERE id = :i", i=invitation.id)
    with write_session() as session:
        bounces.mark_bouncing(session, invitation.to, "550 no such user", right_now())

    refused = runner.invoke(args=["resend-mail", str(invitation.id)])

    assert refused.exit_code == 1
    assert f"goes to {invitation.to}, which bounces (550 no such user)" in refused.output
    assert f"flask mail-works {invitation.to}" in refused.output
    assert not [row for row in outbox(app, to=invitation.to)
                if row.idempotency.startswith("resend:")], "nothing was queued"

    assert runner.invoke(args=["mail-works", invitation.to]).exit_code == 0
    assert runner.invoke(args=["resend-mail", str(invitation.id)]).exit_code == 0, \
        "once the mark is cleared the mail goes again"


# -- extend-deadline -----------------------------------------------------------------------

def test_extending_a_deadline_moves_it_and_its_reminders_and_the_seat_page_shows_it(
        app, runner, client):
    created = a_game("Slow", seed="11")
    [before] = open_deadlines(app, created.game_id, dl.DECISION)[:1]
    seat, due = before.seat, as_utc(before.due_at)

    result = runner.invoke(args=["extend-deadline", created.game_id, "--seat", str(seat),
                                 "--by", "36h"])

    assert result.exit_code == 0, result.output
    after = next(row for row in open_deadlines(app, created.game_id, dl.DECISION)
                 if row.seat == seat)
    assert as_utc(after.due_at) == due + timedelta(hours=36)
    assert after.id == before.id, "the same decision, later"
    reminders = [as_utc(row.due_at) for row in open_deadlines(app, created.game_id, dl.REMINDER)
                 if row.seat == seat]
    settings = dl.ClockSettings.from_options({})
    expected = [at for at in settings.reminder_times(as_utc(after.opened_at), due +
                                                     timedelta(hours=36)) if at > right_now()]
    assert reminders == expected and reminders, "the reminders follow the new deadline"
    assert f"seat {seat}: deadline {due:%Y-%m-%d %H:%M} UTC → " in result.output
    page = client.get(f"/play/{created.tokens[seat]}").get_data(as_text=True)
    assert f'datetime="{as_utc(after.due_at).replace(microsecond=0).isoformat()}"' in page


def test_an_overdue_deadline_is_extended_from_now_and_nonsense_is_refused(app, runner):
    created = a_game("Late", seed="12")
    execute(app, "UPDATE deadline SET due_at = :t WHERE game_id = :g AND done_at IS NULL",
            t=right_now() - timedelta(days=3), g=created.game_id)

    started = right_now()
    result = runner.invoke(args=["extend-deadline", created.game_id, "--by", "2d"])
    ended = right_now()

    assert result.exit_code == 0, result.output
    for row in open_deadlines(app, created.game_id, dl.DECISION):
        assert started + timedelta(days=2) <= as_utc(row.due_at) <= ended + timedelta(days=2)
    bad = runner.invoke(args=["extend-deadline", created.game_id, "--by", "soon"])
    assert bad.exit_code == 1 and "'soon' is not a duration" in bad.output
    huge = runner.invoke(args=["extend-deadline", created.game_id, "--by", "999999999999d"])
    assert huge.exit_code == 1 and "more than a year" in huge.output
    nobody = runner.invoke(args=["extend-deadline", created.game_id, "--seat", "3",
                                 "--by", "1h"])
    assert nobody.exit_code == 1 and "Seat 3 has no open deadline" in nobody.output
    missing = runner.invoke(args=["extend-deadline", "nope", "--by", "1h"])
    assert missing.exit_code == 1 and "There is no game nope." in missing.output


def test_a_deadline_the_clock_holds_right_now_is_not_moved_under_it(app, runner):
    created = a_game("Leased", seed="13")
    execute(app, "UPDATE deadline SET lease_owner = 'clock-1', lease_until = :t "
                 "WHERE game_id = :g AND done_at IS NULL", t=right_now() + timedelta(minutes=5),
            g=created.game_id)
    dues = [row.due_at for row in open_deadlines(app, created.game_id, dl.DECISION)]

    result = runner.invoke(args=["extend-deadline", created.game_id, "--by", "1d"])

    assert result.exit_code == 1 and "try again in a minute" in result.output
    assert [row.due_at for row in open_deadlines(app, created.game_id, dl.DECISION)] == dues


# -- change-address ------------------------------------------------------------------------

def test_a_new_address_kills_the_old_links_and_gets_the_new_one(app, runner, client):
    created = a_game("Moving", seed="21")
    old_link = created.tokens[1]
    assert client.get(f"/play/{old_link}").status_code == 200
    old_address = PEOPLE[1][1]
    unsent = [row.id for row in outbox(app, game_id=created.game_id, seat=1, status=PENDING)]
    assert unsent

    result = runner.invoke(args=["change-address", created.game_id, "1", " Bob@New.Example "])

    assert result.exit_code == 0, result.output
    new_link = result.output.strip().splitlines()[-1]
    new_token = new_link.rsplit("/", 1)[-1]
    assert client.get(f"/play/{old_link}").status_code == 403
    assert client.get(f"/play/{new_token}").status_code == 200
    [link_mail] = outbox(app, game_id=created.game_id, seat=1, kind="link")
    assert link_mail.to == "Bob@new.example" and link_mail.status == PENDING
    assert new_link in link_mail.text and old_link not in link_mail.text
    assert link_mail.text.startswith("Your seat's mail now comes to this address, with a new link")
    assert "as you asked" not in link_mail.text, "nobody asked: the operator changed it"
    for row in outbox(app, game_id=created.game_id, seat=1):
        if row.id in unsent:
            assert row.status == SUPERSEDED and row.to == old_address
            assert "address changed" in (row.last_error or "")
    assert not [row for row in outbox(app, status=PENDING) if row.to == old_address]


def test_an_address_that_cannot_be_mailed_is_refused_and_nothing_changes(app, runner, db,
                                                                         client):
    created = a_game("Typo", seed="22")
    before = db.dump()

    bad = runner.invoke(args=["change-address", created.game_id, "1", "bob at example"])
    same = runner.invoke(args=["change-address", created.game_id, "1", PEOPLE[1][1]])
    missing = runner.invoke(args=["change-address", created.game_id, "7", "x@example.com"])

    assert bad.exit_code == 1 and "'bob at example' is not an address we can mail" in bad.output
    assert same.exit_code == 1 and "already has the address" in same.output
    assert missing.exit_code == 1 and "has no seat 7" in missing.output
    assert db.dump() == before
    assert client.get(f"/play/{created.tokens[1]}").status_code == 200


def test_the_existing_commands_still_answer(app, runner):
    created = a_game("Old friends")
    shown = runner.invoke(args=["show-game", created.game_id])
    assert shown.exit_code == 0 and '"Old friends"' in shown.output
    rotated = runner.invoke(args=["rotate-link", created.game_id, "0"])
    assert rotated.exit_code == 0
    assert rotated.output.strip().startswith("http://silver-eye.test/play/")
