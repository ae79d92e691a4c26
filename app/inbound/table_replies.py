"""Replies that are no move (issues 20 and 21): words said at the table (``SAY ...``), an
answer to the game's open vote (``VOTE YES``, ``ACCEPT``...) and "I'm back" (``BACK``). Whatever step the reply
address names, they are applied as they are, once, and answered in words: what was said
or counted, or why not. ``app.inbound.worker.judge`` sends them here after the same
checks as a move (the reply address, the sender, the operator's MTA).
"""
from __future__ import annotations

import hashlib
from dataclasses import replace

from app import services
from app.i18n import _
from app.access import tokens
from app.clock.time import now as clock_now
from app.db import write_session
from app.inbound import answers, reading
from app.inbound.answers import Verdict
from app.inbound.models import ANSWERED, APPLIED
from app.mail import compose
from app.mail.commands import Parsed
from app.services import absence, talk, votes


def say(ref: tokens.ReplyRef, parsed: Parsed, read: reading.Reading) -> Verdict:
    """Say a ``SAY`` reply's words at the table as the replying seat (issue 20 item 2),
    once per message: its Message-ID is the talk's key, so a reply delivered or applied
    twice says it once. The answer says what was said, or why not, in words."""
    assert parsed.say is not None
    posted = _post(ref, parsed.say, read)
    if isinstance(posted, services.ServiceError):
        return Verdict(ANSWERED, f"talk refused: {posted.code}", answer=(
            _("Nothing was said at the table: %(why)s", why=posted.message), parsed.line,
            None))
    return Verdict(ANSWERED, f"{answers.SAID} (talk {posted})", answer=(
        _("%(said)s Everyone at the table reads it on their page and in their next mail.",
          said=_said(parsed.say)), "", None))


def say_too(ref: tokens.ReplyRef, parsed: Parsed, read: reading.Reading,
            verdict: Verdict) -> Verdict:
    """A command with a ``SAY`` line under it (issue 45 item 5): after the command's own
    ``verdict``, its words are said at the table too, once per message, and the answer
    says what was not done. A move made and talk said need no answer (the next mails
    show both); talk refused is told, in words, even when the move was made."""
    assert parsed.also_say is not None
    posted = _post(ref, parsed.also_say, read)
    if isinstance(posted, services.ServiceError):
        outcome, told = (f"{verdict.outcome}; talk refused: {posted.code}",
                         _("Nothing was said at the table: %(why)s", why=posted.message))
    else:
        outcome, told = f"{verdict.outcome}; {answers.SAID} (talk {posted})", ""
    if verdict.answer is not None:
        why, quoted, show = verdict.answer
        return replace(verdict, outcome=outcome, answer=(
            f"{why} {told or _said(parsed.also_say)}", quoted, show))
    if not told:
        return replace(verdict, outcome=outcome)
    if verdict.status == APPLIED:
        told = _("Your move was made. %(told)s", told=told)
    return replace(verdict, outcome=outcome, answer=(told, "", "view"))


def _post(ref: tokens.ReplyRef, words: str, read: reading.Reading) -> int | services.ServiceError:
    """Post ``words`` at the table as the reply's seat, keyed by the reply's Message-ID:
    the talk's id, or the refusal (its words are the answer's)."""
    message_id = str(read.message.get("Message-ID") or "").strip() or f"{read.sender}\n{words}"
    key = "mail-" + hashlib.sha256(message_id.encode()).hexdigest()[:40]
    try:
        with write_session() as session:
            return talk.post(session, ref.game, ref.seat, words, key=key, source=talk.MAIL,
                             now=clock_now())
    except services.ServiceError as exc:
        return exc


def _said(words: str) -> str:
    return _("Said at the table: “%(words)s”.", words=compose.clean_name(words, limit=300))


def vote(ref: tokens.ReplyRef, parsed: Parsed) -> Verdict:
    """Answer the game's open vote as the replying seat (issue 21: abort, substitute,
    rematch), once: a second answer is refused in words. The answer mail says what was
    counted and where the vote stands, or why not."""
    assert parsed.vote is not None
    try:
        vote = votes.answer(ref.game, ref.seat, None, parsed.vote, source="mail")
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"vote refused: {exc.code}", answer=(
            _("Your answer was not counted: %(why)s", why=exc.message), parsed.line, None))
    said = "yes" if parsed.vote else "no"
    counted = (_("Your answer is counted: yes.") if parsed.vote
               else _("Your answer is counted: no."))
    where = (_("The vote is still open.") if vote.status == "open"
             else _("The vote is decided (%(status)s): %(outcome)s", status=vote.status,
                    outcome=vote.outcome))
    return Verdict(ANSWERED, f"voted {said} (vote {vote.id})", answer=(
        f"{counted} {where}", "", None))


def back(ref: tokens.ReplyRef, parsed: Parsed) -> Verdict:
    """"I'm back" by reply (R29), as the page's button: the seat's decisions wait for it
    again with normal deadlines, and a substitute vote about it fails (R51)."""
    assert parsed.back
    try:
        absence.come_back(ref.game, ref.seat, source="mail")
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"back refused: {exc.code}", answer=(
            _("Nothing changed: %(why)s", why=exc.message), parsed.line, None))
    return Verdict(ANSWERED, "came back", answer=(
        _("Welcome back: your decisions wait for you again, with normal deadlines. If "
          "someone proposed a substitute for your seat, that vote fails: the seat stays "
          "yours."), "", None))
