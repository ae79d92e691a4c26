"""Applying stored replies: one inbox row becomes one action, or one answer, or nothing.

The inbox runner (``app.runners.inbound``) leases pending rows, the one lease
query of ``app.runners.base``, and hands each to ``apply_row``, which decides it:

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
answer (or the seat's next mail) are one unit of work afterwards (``app.db.unit``:
the row's changes and its mail queued, then written together). A worker that
dies in between leaves the row leased; the next one submits the same action
at the same step, finds it already applied, and the row is finished without
a second action or a second answer.

Every row finishes (issue 17 item 5): a failure outside reading (the database,
say) is retried after a doubling wait and, after ``INBOUND_MAX_ATTEMPTS``
attempts, dead-lettered (``dead``) with its error in ``last_error``; a finished
row's raw bytes are dropped.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app import i18n, services
from app.i18n import _
from app.gamelog import store
from app.access import tokens
from app.db import read_session
from app.db.unit import Row, Unit, unit_of_work
from app.inbound import reading
from app.inbound import late
from app.mail import commands
from app.mail.commands import Parsed
from app.mail import bounces
from app.inbound.models import (ANSWERED, APPLIED, DEAD, IGNORED, INBOX, PENDING,
                                 InboxMessage, row_of)
from app.mail import compose
from app.config import setting
from app.inbound import answers
from app.inbound import table_replies
from app.inbound import plan_replies
from app.inbound.answers import Verdict
from app.inbound import words

log = logging.getLogger(__name__)

#: Attempts before a transient failure dead-letters a row (``INBOUND_MAX_ATTEMPTS``), and
#: the wait after the first failed one, doubling each time (issue 17 item 5).
DEFAULT_MAX_ATTEMPTS = 5
RETRY_AFTER = timedelta(seconds=30)
MAX_RETRY_WAIT = timedelta(hours=1)


# -- attempts and dead letters -------------------------------------------------------

def max_attempts() -> int:
    """Attempts a row gets before a transient failure dead-letters it (issue 17 item 5)."""
    return max(1, int(setting("INBOUND_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS)))


def retry_wait(attempts: int) -> timedelta:
    """How long a row that failed its ``attempts``-th time waits: 30 s, 1, 2, 4 min..."""
    return min(RETRY_AFTER * (2 ** max(0, attempts - 1)), MAX_RETRY_WAIT)


def dead_letter(unit: Unit, row: Row, error: str, now: datetime) -> None:
    """Finish ``row`` as dead, its error kept (the raw bytes too: an operator may replay it).

    Written at once, before the seat the reply was for is told in the same transaction
    (``_tell_dead``): a move that did not happen is never silent (issue 17 item 4), and
    the row is dead even if telling fails."""
    first = " ".join((error.splitlines() or [""])[0].split())
    unit.update(row, status=DEAD, outcome=f"dead after {row.attempts} attempts: {first}"[:300],
                last_error=error[:4000], done_at=now, lease_owner=None, lease_until=None)
    unit.write()
    _tell_dead(unit, row, now)


#: What dead-lettering a row reads of it (``dead_letter``, ``_tell_dead``).
DEAD_COLUMNS = ("attempts", "rcpt", "outcome", "last_error")


def give_up_on(session: Session, row: InboxMessage, now: datetime) -> None:
    """Dead-letter a pending row that used every attempt and whose lease ran out.

    It got here without its worker writing down a failure (it was killed, or
    the database went away before it could): the last error it did write is
    kept, and the outcome says the attempts ran out. The runner's claim finds
    such rows (``app.runners.inbound``), so a message that kills its worker
    every time cannot be claimed for ever either.
    """
    error = row.last_error or "its worker stopped before finishing it"
    # the runner read the row; it is written through a unit of its own (the ORM object
    # is left as read, and the runner only commits)
    held = Row(INBOX, {name: getattr(row, name) for name in ("id", *DEAD_COLUMNS)})
    dead_letter(Unit(session), held, error, now)
    log.error("inbox row %s dead after %s attempts: %s", row.id, row.attempts,
              error.splitlines()[0] if error else "")



def _tell_dead(unit: Unit, row: Row, now: datetime) -> None:
    """Answer the seat of a dead-lettered reply at its own address, if the reply's
    address names a current seat. In a savepoint, with a unit of its own: if the answer
    cannot be written either (the fault is still there), the row is dead all the same
    (its unit wrote that already), and only the log and ``flask status`` tell of it."""
    seat = _seat_of(_token([reading.normalise_address(r) for r in (row.rcpt or [])]))
    if isinstance(seat, Verdict) or seat[2] != seat[0].version:
        return
    try:
        with unit.session.begin_nested():
            telling = Unit(unit.session)
            with i18n.in_language(words.language_of(unit.session, seat[0].game, seat[0].seat)):
                verdict = Verdict(DEAD, str(row.outcome or "dead"), answer=(
                    _(words.DEAD).format(attempts=row.attempts), "", "menu"))
                answers.answer(telling, Row(INBOX, row.values), seat[0], verdict, now)
            telling.write()
    except Exception:  # noqa: BLE001 - the row must end dead even if nobody can be told
        log.exception("could not tell the seat of dead inbox row %s", row.id)


def failed(engine: Engine, row_id: int, owner: str, now: datetime, error: BaseException) -> str:
    """Write down a failed attempt: retry after a wait, or dead-letter when out of attempts.

    A failure outside reading is the database, the outbox, the SMTP server or a
    bug, none of which the message itself decides: it is retried with backoff,
    ``INBOUND_MAX_ATTEMPTS`` times in all, then kept as ``dead`` with its error.
    If even this write fails, the lease runs out and ``give_up_on`` decides later.
    """
    text = f"{type(error).__name__}: {error}"
    try:
        with unit_of_work(engine) as unit:
            row = row_of(unit.session, row_id, *DEAD_COLUMNS)
            if row is None or row.status != PENDING or row.lease_owner != owner:
                return "error"
            if row.attempts >= max_attempts():
                dead_letter(unit, row, text, now)
            else:
                unit.update(row, last_error=text[:4000], lease_owner=None,
                            lease_until=now + retry_wait(row.attempts))
                unit.write()
            return str(row.status) if row.status == DEAD else "error"
    except Exception:  # noqa: BLE001 - the database is gone too: the lease expires instead
        log.exception("could not record the failure of inbox row %s", row_id)
        return "error"


# -- one row -------------------------------------------------------------------------

def apply_row(engine: Engine, row_id: int, owner: str, now: datetime) -> str:
    """Decide one leased row, then finish it and enqueue its answer in one transaction.

    A message that does not read is finished at once (issue 17 item 5): no
    attempt could read it better. A finished row drops its raw bytes: what
    became of it is in its columns, and a stored reply is a copy of a mail
    nobody needs kept (and 40 x 1 MB of strangers' bytes used to stay for ever).
    """
    with Session(engine) as session:
        stored = row_of(session, row_id, "raw", "rcpt", "mail_from")
        if stored is None or stored.status != PENDING or stored.lease_owner != owner:
            return "skipped"
        raw, rcpt, mail_from = bytes(stored.raw), list(stored.rcpt or []), stored.mail_from
    with i18n.in_language(_reader_language(rcpt)):   # its answer's words (issue 50)
        return _apply(engine, row_id, owner, now, raw, rcpt, mail_from)


def _reader_language(rcpt: list[str]) -> str | None:
    """The language of the person whose seat the envelope's reply address names."""
    seat = _seat_of(_token([reading.normalise_address(r) for r in rcpt]))
    if isinstance(seat, Verdict):
        return None
    with read_session() as session:
        return words.language_of(session, seat[0].game, seat[0].seat)


def _apply(engine: Engine, row_id: int, owner: str, now: datetime, raw: bytes,
           rcpt: list[str], mail_from: str | None) -> str:
    sender: str | None = None
    try:
        read = reading.read(raw, mail_from, rcpt,
                            authserv_id=setting("INBOUND_AUTHSERV_ID", None) or None)
    except reading.Unreadable as exc:
        ref, verdict = _unreadable(rcpt, str(exc))
    else:
        ref, verdict = judge(read, mail_from)
        sender = read.sender
    with unit_of_work(engine) as unit:
        row = row_of(unit.session, row_id)
        assert row is not None
        if row.status != PENDING or row.lease_owner != owner:
            return "skipped"  # our lease ran out and another worker finished it
        finished: dict[str, Any] = {} if ref is None else {
            "game_id": ref.game, "seat": ref.seat, "step": ref.step}
        unit.update(row, **finished, status=verdict.status, outcome=verdict.outcome[:300],
                    applied_seq=verdict.applied_seq, done_at=now, lease_owner=None,
                    lease_until=None, raw=b"")
        if verdict.status == APPLIED and sender:
            # the seat's own address played by mail: it reads its mail, so a bounce
            # mark on it is cleared and mail goes to it again (issue 19 item 3)
            bounces.clear(unit.session, sender)
        if ref is not None and (verdict.answer or verdict.follow_up):
            answers.answer(unit, row, ref, verdict, now)
        unit.write()
    return verdict.status


def _unreadable(rcpt: list[str], why: str) -> tuple[tokens.ReplyRef | None, Verdict]:
    """A message that cannot be read: answered at the seat's own address if its envelope
    names a current seat of ours (a player whose reply went wrong hears of it), else ignored.
    """
    seat = _seat_of(_token([reading.normalise_address(r) for r in rcpt]))
    if isinstance(seat, Verdict) or seat[2] != seat[0].version:
        return None, Verdict(IGNORED, f"unreadable: {why}")
    return seat[0], Verdict(ANSWERED, f"unreadable: {why}", answer=(
        _(words.UNREADABLE), "", "menu"))


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
            _(words.RETIRED), "", "menu"))
    sent_by = read.sender
    if not sent_by or sent_by != reading.normalise_address(seat_address):
        return ref, Verdict(ANSWERED, "sender is not the seat's address", answer=(
            _(words.NOT_YOURS, address=_shown(sent_by) or _("no address")), "", "menu"))
    refused = _not_vouched_for(read, seat_address)
    if refused is not None:
        return ref, refused
    verdict = _decide(ref, read)
    if read.command.also_say is not None:  # "D" then "SAY gl": both, or told which not
        verdict = table_replies.say_too(ref, read.command, read, verdict)
    return ref, verdict


def _decide(ref: tokens.ReplyRef, read: reading.Reading) -> Verdict:
    """What the reply's command does (its talk under it aside), applied when a move."""
    parsed = read.command
    if parsed.limit:  # over a limit: refused whole, never cut (issue 45 item 5)
        return Verdict(ANSWERED, "over a limit", answer=(
            _("Your reply was not read: %(why)s", why=parsed.problem), parsed.line, "menu"))
    if parsed.help:
        return Verdict(ANSWERED, "help", answer=(_("Here are your commands again."),
                                                 parsed.line, "menu"))
    if parsed.say is not None:  # talk is no move: whatever step the address names
        return table_replies.say(ref, parsed, read)
    if parsed.vote is not None:  # an answer to the open vote (issue 21): no move either
        return table_replies.vote(ref, parsed)
    if parsed.back:  # "I'm back" (R29, R51): whatever step the address names
        return table_replies.back(ref, parsed)
    if parsed.plan is not None:  # a plan and/or standing orders (issue 35)
        return plan_replies.judge(ref, parsed, _submit)
    if parsed.action is None:
        return Verdict(ANSWERED, "unreadable", answer=(
            _("We could not read a command in your reply: %(why)s", why=parsed.problem)
            + " " + _(words.SAY), parsed.line, "menu"))
    return _submit(ref, parsed)




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
        _(words.NOT_VOUCHED, why=why), "", "menu"))


#: How often a late reply is re-judged when yet another move lands while it is applied.
REBASE_TRIES = 4


def _submit(ref: tokens.ReplyRef, parsed: Parsed, plan: dict | None = None) -> Verdict:
    """Apply the command at its mail's step; if the game moved on since, wherever the
    engine says it still means what it said (issue 17 item 4), else answer why not.

    A refusal is said in mail words with positions from 1 (``commands.mail_words``);
    a busy database is not the player's problem: the row is retried (it raises).
    """
    assert parsed.action is not None
    step = ref.step
    for _attempt in range(REBASE_TRIES):
        try:
            done = services.submit_action(ref.game, ref.seat, parsed.action, step,
                                          source="mail", plan=plan)
        except services.Conflict as exc:
            reason = exc.details.get("reason")
            if reason == "busy":
                raise RuntimeError(f"game {ref.game} busy: {exc.message}") from exc
            if reason not in ("moved_on", "already_applied"):
                said = commands.mail_words(exc.message)
                if "Nothing was changed" not in said and _("Nothing was changed.") not in said:
                    said += " " + _("Nothing was changed.")
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


