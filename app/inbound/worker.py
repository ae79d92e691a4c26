"""Applying stored replies: one inbox row becomes one action, or one answer, or nothing.

``apply_pending`` leases pending rows (like the outbox: one UPDATE, ``FOR
UPDATE SKIP LOCKED`` inside on PostgreSQL) and decides each:

- mail that cannot be read at all (a header or From that does not parse):
  finished at once as unreadable, never retried (issue 17 item 5);
- mail from a machine (bounce, auto-reply, list) or without a genuine reply
  address of ours: ignored, never answered;
- a retired token (the seat's link was rotated), a sender that is not the
  seat's address (a mistake caught, not a safeguard: the reply address is the
  bearer secret, issue 17 item 6) or, with ``INBOUND_AUTHSERV_ID``, a reply the
  operator's MTA does not vouch for: refused, and the seat is told at its own
  address;
- "help" or a line we cannot read: answered with the menu;
- a command: ``services.submit_action(..., expected_seq=step, source="mail")``.
  When the game moved on since the mail, the engine decides (issue 17 item 4,
  ``late.judge``): the same decision and the same cards named, whoever moved
  in between, and it is applied now; otherwise the answer says in mail words
  which mail it was to, what happened since, and that nothing changed. An
  illegal move gets the engine's words counted from 1 and the menu. Over the
  hourly answer cap, the answers collapse into one that leaves when room is
  free; a re-sent reply never adds a second copy of a mail.

The move commits in the service's transaction; the row's final state and its
answer (or the seat's next mail) commit together afterwards. A worker that
dies in between leaves the row leased; the next one submits the same action
at the same step, finds it already applied, and the row is finished without
a second action or a second answer.

Every row finishes (issue 17 item 5): a failure outside reading (the database,
say) is retried after a doubling wait and, after ``INBOUND_MAX_ATTEMPTS``
attempts, dead-lettered (``dead``) with its error in ``last_error``; a finished
row's raw bytes are dropped.
"""
from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app import engine as rules
from app import services
from app.gamelog import store
from app.access import tokens
from app.db import read_session
from app.clock.deadlines import as_utc
from app.inbound import reading
from app.inbound import late
from app.mail import commands
from app.mail.commands import Parsed
from app.mail.menu import build as build_menu
from app.inbound.models import ANSWERED, APPLIED, DEAD, IGNORED, PENDING, InboxMessage
from app.mail import compose, notify
from app.config import setting
from app.mail.models import PENDING as MAIL_PENDING, SUPERSEDED, Outbox
from app.mail.outbox import enqueue

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=2)
BATCH = 50
#: Attempts before a transient failure dead-letters a row (``INBOUND_MAX_ATTEMPTS``), and
#: the wait after the first failed one, doubling each time (issue 17 item 5).
DEFAULT_MAX_ATTEMPTS = 5
RETRY_AFTER = timedelta(seconds=30)
MAX_RETRY_WAIT = timedelta(hours=1)
#: Answers one seat may get in an hour (config ``INBOUND_ANSWERS_PER_HOUR``):
#: enough for a confused player, too few for two auto-responders to loop.
DEFAULT_ANSWERS_PER_HOUR = 5
ANSWER_KIND = "answer"
#: Mails of the seat's next decision (sent by the hooks, or by us after a reply).
TURN_KINDS = ("turn", "reminder", "digest")


@dataclass
class ApplyReport:
    """What one ``apply_pending`` call did, by final state."""

    outcomes: dict[str, int] = field(default_factory=dict)

    def add(self, status: str) -> None:
        self.outcomes[status] = self.outcomes.get(status, 0) + 1

    @property
    def handled(self) -> int:
        return sum(self.outcomes.values())


@dataclass(frozen=True)
class Verdict:
    """How a row ends: its state, why, and the answer to enqueue with it (if any)."""

    status: str
    outcome: str
    answer: tuple[str, str, str | None] | None = None  # (why, quoted line, what to show)
    applied_seq: int | None = None
    follow_up: bool = False


# -- leasing -------------------------------------------------------------------------

def max_attempts() -> int:
    """Attempts a row gets before a transient failure dead-letters it (issue 17 item 5)."""
    return max(1, int(setting("INBOUND_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS)))


def retry_wait(attempts: int) -> timedelta:
    """How long a row that failed its ``attempts``-th time waits: 30 s, 1, 2, 4 min..."""
    return min(RETRY_AFTER * (2 ** max(0, attempts - 1)), MAX_RETRY_WAIT)


def claim(engine: Engine, now: datetime, owner: str, limit: int = BATCH,
          only: int | None = None) -> list[int]:
    """Lease pending rows (oldest first) to ``owner``; return their ids.

    A row is due when it has no lease, or its lease (or its retry wait, issue
    17 item 5) ran out, and it has attempts left; one out of attempts is
    dead-lettered first (``_give_up``), so a message that kills its worker
    every time cannot be claimed for ever either.
    """
    now = as_utc(now)
    _give_up(engine, now, only=only)
    due = (select(InboxMessage.id)
           .where(col(InboxMessage.status) == PENDING,
                  col(InboxMessage.attempts) < max_attempts(),
                  col(InboxMessage.lease_until).is_(None) | (col(InboxMessage.lease_until) < now))
           .order_by(col(InboxMessage.received_at), col(InboxMessage.id))
           .limit(limit).with_for_update(skip_locked=True))
    if only is not None:
        due = due.where(col(InboxMessage.id) == only)
    with Session(engine) as session:
        ids = list(session.exec(update(InboxMessage)  # type: ignore[call-overload]
                                .where(col(InboxMessage.id).in_(due.scalar_subquery()))
                                .values(lease_owner=owner, lease_until=now + LEASE,
                                        attempts=InboxMessage.attempts + 1)
                                .returning(col(InboxMessage.id))
                                .execution_options(synchronize_session=False)).scalars())
        session.commit()
    return sorted(ids)


def _give_up(engine: Engine, now: datetime, *, only: int | None = None) -> int:
    """Dead-letter the pending rows that used every attempt and whose lease ran out.

    They got here without their worker writing down a failure (it was killed,
    or the database went away before it could): the last error it did write is
    kept, and the outcome says the attempts ran out.
    """
    spent = (select(InboxMessage)
             .where(col(InboxMessage.status) == PENDING,
                    col(InboxMessage.attempts) >= max_attempts(),
                    col(InboxMessage.lease_until).is_(None) | (col(InboxMessage.lease_until) < now))
             .limit(BATCH).with_for_update(skip_locked=True))
    if only is not None:
        spent = spent.where(col(InboxMessage.id) == only)
    with Session(engine) as session:
        rows = list(session.exec(spent))
        for row in rows:
            error = row.last_error or "its worker stopped before finishing it"
            _dead_letter(row, error, now, session)
            session.add(row)
            log.error("inbox row %s dead after %s attempts: %s", row.id, row.attempts,
                      error.splitlines()[0] if error else "")
        session.commit()
    return len(rows)


def _dead_letter(row: InboxMessage, error: str, now: datetime,
                 session: Session | None = None) -> None:
    """Finish ``row`` as dead, its error kept (the raw bytes too: an operator may replay it).

    With a ``session``, the seat the reply was for is told in the same transaction
    (``_tell_dead``): a move that did not happen is never silent (issue 17 item 4)."""
    first = " ".join((error.splitlines() or [""])[0].split())
    row.status = DEAD
    row.outcome = f"dead after {row.attempts} attempts: {first}"[:300]
    row.last_error = error[:4000]
    row.done_at = now
    row.lease_owner = row.lease_until = None
    if session is not None:
        _tell_dead(session, row, now)


#: What the seat hears when its reply was given up on (the fault was ours, not theirs).
DEAD_WORDS = ("We received a reply for your seat but could not apply it: something went "
              "wrong on our side, and after {attempts} tries we gave up on it. Nothing was "
              "changed. Reply again with your command, or use the link to your seat.")


def _tell_dead(session: Session, row: InboxMessage, now: datetime) -> None:
    """Answer the seat of a dead-lettered reply at its own address, if the reply's
    address names a current seat. In a savepoint: if the answer cannot be written
    either (the fault is still there), the row is dead all the same, and only the
    log and ``flask status`` tell of it."""
    seat = _seat_of(_token([reading.normalise_address(r) for r in (row.rcpt or [])]))
    if isinstance(seat, Verdict) or seat[2] != seat[0].version:
        return
    verdict = Verdict(DEAD, str(row.outcome or "dead"),
                      answer=(DEAD_WORDS.format(attempts=row.attempts), "", "menu"))
    try:
        with session.begin_nested():
            _answer(session, row, seat[0], verdict, now)
    except Exception:  # noqa: BLE001 - the row must end dead even if nobody can be told
        log.exception("could not tell the seat of dead inbox row %s", row.id)


def _failed(engine: Engine, row_id: int, owner: str, now: datetime, error: BaseException) -> str:
    """Write down a failed attempt: retry after a wait, or dead-letter when out of attempts.

    A failure outside reading is the database, the outbox, the SMTP server or a
    bug, none of which the message itself decides: it is retried with backoff,
    ``INBOUND_MAX_ATTEMPTS`` times in all, then kept as ``dead`` with its error.
    If even this write fails, the lease runs out and ``_give_up`` decides later.
    """
    text = f"{type(error).__name__}: {error}"
    try:
        with Session(engine) as session:
            row = session.get(InboxMessage, row_id)
            if row is None or row.status != PENDING or row.lease_owner != owner:
                return "error"
            if row.attempts >= max_attempts():
                _dead_letter(row, text, now, session)
            else:
                row.last_error = text[:4000]
                row.lease_owner = None
                row.lease_until = now + retry_wait(row.attempts)
            session.add(row)
            session.commit()
            return str(row.status) if row.status == DEAD else "error"
    except Exception:  # noqa: BLE001 - the database is gone too: the lease expires instead
        log.exception("could not record the failure of inbox row %s", row_id)
        return "error"


def apply_pending(app: Any, now: datetime | None = None, *, only: int | None = None,
                  limit: int = BATCH) -> ApplyReport:
    """Apply the pending inbox rows (or just row ``only``); safe to run in many processes."""
    from app.clock import deadlines as dl
    from app.db import get_engine

    report = ApplyReport()
    owner = f"inbound-{uuid.uuid4().hex[:12]}"
    with app.app_context():
        engine = get_engine(app)
        now = as_utc(now or dl.now())
        for row_id in claim(engine, now, owner, limit=limit, only=only):
            try:
                report.add(apply_row(engine, row_id, owner, now))
            except Exception as exc:  # noqa: BLE001 - one bad message must not stop the others
                log.exception("inbox row %s failed; it is retried after a wait", row_id)
                report.add(_failed(engine, row_id, owner, now, exc))
    return report


# -- one row -------------------------------------------------------------------------

def apply_row(engine: Engine, row_id: int, owner: str, now: datetime) -> str:
    """Decide one leased row, then finish it and enqueue its answer in one transaction.

    A message that does not read is finished at once (issue 17 item 5): no
    attempt could read it better. A finished row drops its raw bytes: what
    became of it is in its columns, and a stored reply is a copy of a mail
    nobody needs kept (and 40 x 1 MB of strangers' bytes used to stay for ever).
    """
    with Session(engine) as session:
        row = session.get(InboxMessage, row_id)
        if row is None or row.status != PENDING or row.lease_owner != owner:
            return "skipped"
        raw, rcpt, mail_from = bytes(row.raw), list(row.rcpt or []), row.mail_from
    try:
        read = reading.read(raw, mail_from, rcpt,
                            authserv_id=setting("INBOUND_AUTHSERV_ID", None) or None)
    except reading.Unreadable as exc:
        ref, verdict = _unreadable(rcpt, str(exc))
    else:
        ref, verdict = judge(read, mail_from)
    with Session(engine) as session:
        row = session.get(InboxMessage, row_id)
        assert row is not None
        if row.status != PENDING or row.lease_owner != owner:
            return "skipped"  # our lease ran out and another worker finished it
        if ref is not None:
            row.game_id, row.seat, row.step = ref.game, ref.seat, ref.step
        row.status, row.outcome = verdict.status, verdict.outcome[:300]
        row.applied_seq, row.done_at = verdict.applied_seq, now
        row.lease_owner = row.lease_until = None
        row.raw = b""
        session.add(row)
        if ref is not None and (verdict.answer or verdict.follow_up):
            _answer(session, row, ref, verdict, now)
        session.commit()
    return verdict.status


def _unreadable(rcpt: list[str], why: str) -> tuple[tokens.ReplyRef | None, Verdict]:
    """A message that cannot be read: answered at the seat's own address if its envelope
    names a current seat of ours (a player whose reply went wrong hears of it), else ignored.
    """
    seat = _seat_of(_token([reading.normalise_address(r) for r in rcpt]))
    if isinstance(seat, Verdict) or seat[2] != seat[0].version:
        return None, Verdict(IGNORED, f"unreadable: {why}")
    return seat[0], Verdict(ANSWERED, f"unreadable: {why}", answer=(
        "We received a reply for your seat but could not read it: the mail itself is "
        "malformed (its sender line or its parts). Nothing was changed. Reply again with "
        "just the command, or use the commands below.", "", "menu"))


def _seat_of(token: str | None) -> tuple[tokens.ReplyRef, str, int] | Verdict:
    """The reply address's seat: (its reference, the seat's address, its link version),
    or the verdict of a token that names no seat of ours."""
    if token is None:
        return Verdict(IGNORED, "no reply address of ours")
    try:
        ref = tokens.read_reply_token(token)
    except tokens.BadToken:
        return Verdict(IGNORED, "forged or foreign reply address")
    with read_session() as session:
        seat = session.get(store.Seat, (ref.game, ref.seat))
        if seat is None or seat.kind != "human":
            return Verdict(IGNORED, "reply address of no seat")
        return ref, str(seat.email or ""), int(seat.token_version)


def judge(read: reading.Reading, mail_from: str | None) -> tuple[tokens.ReplyRef | None, Verdict]:
    """What to do with one message; applies the move when it is one.

    The reply address is what authorises a reply (issue 17 item 6): it is a
    bearer secret like the seat link. The From is compared with the seat's
    address only to catch honest mistakes (Bob answering Ann's mail), since
    anyone can write any From. Where the operator's own MTA vouches for
    senders (``INBOUND_AUTHSERV_ID``), a reply it does not vouch for is refused
    and the seat is told at its own address, never at the claimed sender.
    """
    if read.machine:
        return None, Verdict(IGNORED, read.machine)
    seat = _seat_of(_token(read.recipients))
    if isinstance(seat, Verdict):
        return None, seat
    ref, seat_address, version = seat
    if version != ref.version:
        return ref, Verdict(ANSWERED, "retired reply address", answer=(
            "This reply came to an address that no longer plays your seat (your seat's link "
            "was replaced). Nothing was changed. Reply to the newest mail, or use the "
            "commands below.", "", "menu"))
    sent_by = read.sender
    if not sent_by or sent_by != reading.normalise_address(seat_address):
        return ref, Verdict(ANSWERED, "sender is not the seat's address", answer=(
            "A reply for your seat came from an address that is not yours "
            f"({_shown(sent_by) or 'no address'}). Nothing was changed. We take replies "
            "only when they say they are from your address, but a sender line is easy to "
            "fake: what lets a reply play your seat is the reply address of your mails, "
            "like the link in them, so keep your turn mails to yourself.", "", "menu"))
    refused = _not_vouched_for(read, seat_address)
    if refused is not None:
        return ref, refused
    parsed = read.command
    if parsed.help:
        return ref, Verdict(ANSWERED, "help", answer=("Here are your commands again.",
                                                      parsed.line, "menu"))
    if parsed.action is None:
        return ref, Verdict(ANSWERED, "unreadable", answer=(
            f"We could not read a command in your reply: {parsed.problem}",
            parsed.line, "menu"))
    return ref, _submit(ref, parsed)


def _not_vouched_for(read: reading.Reading, seat_address: str) -> Verdict | None:
    """With ``INBOUND_AUTHSERV_ID`` set: the refusal of a reply the operator's MTA did not
    vouch for (DMARC, else aligned DKIM or SPF, for the seat's domain), else None."""
    authserv_id = setting("INBOUND_AUTHSERV_ID", None)
    if not authserv_id:
        return None
    domain = seat_address.rsplit("@", 1)[-1]
    if read.authentication is None:
        ok, why = False, f"no Authentication-Results of {authserv_id}"
    else:
        ok, why = reading.authenticated(read.authentication, domain)
    if ok:
        return None
    return Verdict(ANSWERED, f"not authenticated: {why}"[:300], answer=(
        "A reply for your seat said it came from your address, but our mail server could "
        f"not confirm that your mail provider sent it ({why}), so it may be forged. Nothing "
        "was changed. If you sent it, reply again from your usual mail account; the "
        "commands are below.", "", "menu"))


#: How often a late reply is re-judged when yet another move lands while it is applied.
REBASE_TRIES = 4


def _submit(ref: tokens.ReplyRef, parsed: Parsed) -> Verdict:
    """Apply the command at its mail's step; if the game moved on since, wherever the
    engine says it still means what it said (issue 17 item 4), else answer why not.

    A refusal is said in mail words with positions from 1 (``commands.mail_words``);
    a busy database is not the player's problem: the row is retried (it raises).
    """
    assert parsed.action is not None
    step = ref.step
    for _ in range(REBASE_TRIES):
        try:
            done = services.submit_action(ref.game, ref.seat, parsed.action, step,
                                          source="mail")
        except services.Conflict as exc:
            reason = exc.details.get("reason")
            if reason == "busy":
                raise RuntimeError(f"game {ref.game} busy: {exc.message}") from exc
            if reason not in ("moved_on", "already_applied"):
                said = commands.mail_words(exc.message)
                if "Nothing was changed" not in said:
                    said += " Nothing was changed."
                return Verdict(ANSWERED, f"conflict: {reason}", answer=(said, parsed.line, "view"))
            verdict, step = _unchanged_for(ref, parsed)
            if verdict is not None:
                return verdict
            continue
        except services.ServiceError as exc:
            return Verdict(ANSWERED, f"refused: {exc.code}", answer=(
                commands.mail_words(exc.message), parsed.line, "menu"))
        outcome = "applied" if step == ref.step else f"applied at step {step + 1} (still meant)"
        return Verdict(APPLIED, outcome, applied_seq=done.applied[0].seq, follow_up=True)
    raise RuntimeError(f"game {ref.game} kept moving while a reply was applied")


def _unchanged_for(ref: tokens.ReplyRef, parsed: Parsed) -> tuple[Verdict | None, int]:
    """A reply whose step is behind the game: finished (already applied, or refused with
    the answer that says why), or ``(None, step)`` to apply it at the current step.

    The engine decides (``engine.still_means`` through ``late.judge``): same decision,
    same cards named, whoever moved in between — a bot's whole turn, other seats'
    round-start peeks (R5), a Simon claim (R36). "Already applied" only when the
    seat's first own move since the mail is this very command, made while the mail
    still held (a re-sent reply, a worker that died after the move): a reply to an
    old mail that merely matches the current decision is not that.
    """
    assert parsed.action is not None
    judged = late.judge(ref, parsed.action)
    if judged.what == "applied":
        return Verdict(APPLIED, "already applied", applied_seq=judged.step, follow_up=True), 0
    if judged.what == "rebase":
        return None, judged.step
    return Verdict(ANSWERED, f"stale: {judged.reason}", answer=(
        judged.words, parsed.line, "view")), 0


def _token(addresses: list[str]) -> str | None:
    """The token of the first reply address of ours among ``addresses`` (read once by
    ``reading.read``: the envelope's recipients, then the headers relays keep)."""
    from app.access.reply_address import token_in
    return token_in(addresses)


def _shown(address: str) -> str:
    return compose.clean_name(address, limit=80)


# -- answers -------------------------------------------------------------------------

def answers_per_hour() -> int:
    return int(setting("INBOUND_ANSWERS_PER_HOUR", DEFAULT_ANSWERS_PER_HOUR))


def _answers_since(session: Session, game_id: str, seat: int, since: datetime) -> list[datetime]:
    """When the seat's answers of the hour before ``since`` + 1 h were written, oldest
    first: their count is held against the cap, the oldest says when room is free."""
    return [as_utc(at) for at in session.exec(
        select(Outbox.created_at).where(
            Outbox.game_id == game_id, Outbox.seat == seat, Outbox.kind == ANSWER_KIND,
            col(Outbox.created_at) >= since).order_by(col(Outbox.created_at))).all()]


#: Inbox outcomes of the replies a held answer answers together (issue 17 item 4).
HELD_NOTE = "(answered together: hourly limit)"
#: Idempotency key prefix of a seat's held answer.
HELD_KEY = "answers-held"


def _answer(session: Session, row: InboxMessage, ref: tokens.ReplyRef, verdict: Verdict,
            now: datetime) -> None:
    """Enqueue the answer (or the seat's next decision) in the row's transaction.

    The seat row is locked first, so the hourly count of answers is exact even
    with several workers. Issue 17 item 4: a re-sent reply (same command, new
    Message-ID) finds its answer's key taken and adds no second copy; over the
    hourly cap the reply is not dropped but answered by one held answer that
    leaves when room is free and says how many replies it answers. Answers and
    the turn mail after a reply are conversation (issue 17 item 3): the person's
    own replies ask for them, so the per-address flood cap does not hold them.
    """
    seat_row = session.exec(select(store.Seat).where(store.Seat.game_id == ref.game,
                                                     store.Seat.index == ref.seat)
                            .with_for_update()).first()
    game = session.get(store.Game, ref.game)
    if seat_row is None or game is None:
        return
    snapshot = services.snapshot(ref.game)
    view = rules.view(snapshot.state, ref.seat)
    ctx = notify.Context.load(session, game)
    to = ctx.address(ref.seat)
    if to is None:
        return
    if verdict.answer is None:
        _follow_up(session, ref, verdict, ctx, snapshot.state, view, to, now)
        return
    key = _answer_key(ref, verdict, snapshot.seq)
    if session.exec(select(Outbox.id).where(Outbox.idempotency == key)).first() is not None:
        row.outcome = f"{row.outcome} (its answer was sent for the same reply before)"[:300]
        session.add(row)
        return
    limit = max(1, answers_per_hour())   # at least one: a refused move is always told
    recent = _answers_since(session, ref.game, ref.seat, now - timedelta(hours=1))
    if len(recent) >= limit:
        _hold(session, row, ref, verdict, ctx, view, to, now, limit=limit,
              free_at=recent[len(recent) - limit] + timedelta(hours=1))
        return
    mail = answer_mail(ctx.info, ref.seat, view, link=ctx.link(ref.seat),
                       reply_address=ctx.reply_address(ref.seat, view),
                       unsubscribe=ctx.unsubscribe(ref.seat), why=verdict.answer[0],
                       quoted=verdict.answer[1], show=verdict.answer[2])
    enqueue(session, game_id=ref.game, seat=ref.seat, kind=ANSWER_KIND, to=to,
            to_name=ctx.info.names[ref.seat], mail=mail, idempotency=key,
            domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(ref.seat),
            conversation=True)


def _answer_key(ref: tokens.ReplyRef, verdict: Verdict, step_now: int) -> str:
    """One answer per (mail, what was said, why, position now): the same command sent
    again to the same mail while nothing moved gets no second copy."""
    assert verdict.answer is not None
    said = commands.normalise(verdict.answer[1])
    digest = hashlib.sha256(f"{verdict.outcome}\n{said}".encode()).hexdigest()[:24]
    return f"answer:{ref.game}:{ref.seat}:{ref.step}:{step_now}:{digest}"


def _hold(session: Session, row: InboxMessage, ref: tokens.ReplyRef, verdict: Verdict,
          ctx: notify.Context, view: dict[str, Any], to: str, now: datetime, *,
          limit: int, free_at: datetime) -> None:
    """Over ``INBOUND_ANSWERS_PER_HOUR``: answer within the cap, never drop (issue 17 item 4).

    The seat's one unsent held answer is rewritten to answer this reply too
    (how many, the last one's words, the position now); without one, a held
    answer is written, due when the oldest answer of the hour ages out.
    """
    assert verdict.answer is not None
    row.outcome = f"{row.outcome} {HELD_NOTE}"[:300]
    session.add(row)
    prefix = f"{HELD_KEY}:{ref.game}:{ref.seat}:"
    held = session.exec(select(Outbox).where(
        Outbox.game_id == ref.game, Outbox.seat == ref.seat, Outbox.kind == ANSWER_KIND,
        Outbox.status == MAIL_PENDING, col(Outbox.idempotency).startswith(prefix),
        col(Outbox.lease_until).is_(None) | (col(Outbox.lease_until) < as_utc(now)))
        .order_by(col(Outbox.id).desc())).first()
    since = as_utc(held.created_at) if held is not None else as_utc(now)
    session.flush()
    count = int(session.exec(select(sa.func.count()).select_from(InboxMessage).where(
        InboxMessage.game_id == ref.game, InboxMessage.seat == ref.seat,
        col(InboxMessage.outcome).contains(HELD_NOTE),
        col(InboxMessage.done_at) >= since)).one())
    count = max(count, 1)
    why = (f"You sent {count} {'reply' if count == 1 else 'replies'} that did not become a "
           f"move while we had already answered {limit} in an hour (the most we send, so "
           f"that two auto-responders cannot write to each other for ever). This one mail "
           f"answers {'it' if count == 1 else 'them all'}: nothing was changed by "
           f"{'it' if count == 1 else 'any of them'}. "
           + (f"The last one said: “{compose.clean_name(verdict.answer[1], 200)}”. "
              if verdict.answer[1] else "")
           + verdict.answer[0])
    mail = answer_mail(ctx.info, ref.seat, view, link=ctx.link(ref.seat),
                       reply_address=ctx.reply_address(ref.seat, view),
                       unsubscribe=ctx.unsubscribe(ref.seat), why=why, quoted="",
                       show="view")
    if held is None:
        enqueue(session, game_id=ref.game, seat=ref.seat, kind=ANSWER_KIND, to=to,
                to_name=ctx.info.names[ref.seat], mail=mail, idempotency=f"{prefix}{row.id}",
                domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(ref.seat),
                due=max(as_utc(free_at), as_utc(now)), conversation=True)
        return
    held.subject, held.text, held.html = mail.subject, mail.text, mail.html
    headers = dict(held.headers or {})
    if mail.reply_to:
        headers["Reply-To"] = mail.reply_to
    else:
        headers.pop("Reply-To", None)
    held.headers = headers
    session.add(held)


def _follow_up(session: Session, ref: tokens.ReplyRef, verdict: Verdict,
               ctx: notify.Context, state: Any, view: dict[str, Any], to: str,
               now: datetime) -> None:
    """The applied reply's next mail, when the seat decides again and no mail says so.

    Keyed by the applied move's step, so a re-sent reply (already applied) finds
    the same key and adds no second copy (issue 17 item 4).
    """
    applied = int(verdict.applied_seq or ref.step + 1)
    key = f"reply-turn:{ref.game}:{ref.seat}:{applied}"
    if not _needs_follow_up(session, ref, view, applied, key, now):
        return
    mail = compose.turn_mail(ctx.info, ref.seat, view, since_step=ref.step, due=None,
                             now=now, link=ctx.link(ref.seat),
                             unsubscribe=ctx.unsubscribe(ref.seat),
                             reply_address=ctx.reply_address(ref.seat, view))
    enqueue(session, game_id=ref.game, seat=ref.seat, kind="turn", to=to,
            to_name=ctx.info.names[ref.seat], mail=mail, idempotency=key, domain=ctx.domain,
            now=now, unsubscribe=ctx.unsubscribe(ref.seat),
            announces=notify.announced_decision(rules.status(state), ref.seat,
                                                int(view.get("step") or 0)),
            conversation=True)


def _needs_follow_up(session: Session, ref: tokens.ReplyRef, view: dict[str, Any],
                     applied: int, key: str, now: datetime) -> bool:
    """After an applied reply: does the seat decide again, with no mail about it yet?

    The hooks mail a decision that opens; a decision that follows the seat's
    own move in the same turn (draw, then discard or exchange) is not a new
    one for them, and a player who plays by mail would wait for ever. A mail
    about a decision since the applied move (``announces`` step at or after
    it, or this follow-up's own key) is the one: no copy of it (issue 17 item
    4: a reply re-sent, or to an old mail, used to get a copy of the current
    turn mail). One still waiting out a grace period leaves now instead: the
    player is at their mail, waiting for it.
    """
    if ref.seat not in (view.get("to_act") or []):
        return False
    rows = session.exec(select(Outbox).where(
        Outbox.game_id == ref.game, Outbox.seat == ref.seat,
        col(Outbox.kind).in_(TURN_KINDS), Outbox.status != SUPERSEDED)
        .order_by(col(Outbox.id).desc()).limit(20)).all()
    for mail in rows:
        said = mail.announces or {}
        if mail.idempotency != key and not (
                said.get("what") == "decision" and int(said.get("step", -1)) >= applied):
            continue
        if (mail.status == MAIL_PENDING and mail.lease_until is None
                and as_utc(mail.next_attempt_at) > as_utc(now)):
            mail.next_attempt_at = as_utc(now)
            session.add(mail)
        return False
    return True


def answer_mail(game: compose.GameInfo, seat: int, view: dict[str, Any], *, link: str,
                reply_address: str | None, unsubscribe: str, why: str, quoted: str,
                show: str | None) -> compose.Mail:
    """The answer to a reply that did not become a move: what we read, why, what now."""
    names = game.names
    menu = build_menu(view, seat, reply_address, names,
                      f"Re: {compose.subject_for(game, 'your reply')}")
    hand = view.get("hand") if view.get("hand_seat") == seat else None
    discard = view.get("discard") or []
    mail = compose.render(
        "inbound_answer", compose.subject_for(game, "about your reply"),
        game=game, seat=seat, name=names[seat], why=why, quoted=compose.clean_name(quoted, 200),
        show=show, menu=menu, round=view.get("round"),
        decision=compose.decision_words(compose.decision_of(view, seat)),
        has_decision=seat in (view.get("to_act") or []),
        village=compose.village_info(view, seat),
        hand=compose.card_info(hand) if hand else None,
        discard_top=compose.card_info(discard[-1]) if discard else None,
        link=link, unsubscribe=unsubscribe)
    return compose.Mail(mail.subject, mail.text, mail.html, reply_to=menu.address or None)
