"""Replies that are no move (issues 20 and 21): words said at the table (``SAY ...``), an
answer to the game's open vote (``VOTE YES``, ``ACCEPT``...) and "I'm back" (``BACK``). Whatever step the reply
address names, they are applied as they are, once, and answered in words: what was said
or counted, or why not. ``app.inbound.worker.judge`` sends them here after the same
checks as a move (the reply address, the sender, the operator's MTA).
"""
from __future__ import annotations

import hashlib

from app import services
from app.access import tokens
from app.clock.time import now as clock_now
from app.db import write_session
from app.inbound import answers, reading
from app.inbound.answers import Verdict
from app.inbound.models import ANSWERED
from app.mail import compose
from app.mail.commands import Parsed
from app.services import absence, talk, votes


def say(ref: tokens.ReplyRef, parsed: Parsed, read: reading.Reading) -> Verdict:
    """Say a ``SAY`` reply's words at the table as the replying seat (issue 20 item 2),
    once per message: its Message-ID is the talk's key, so a reply delivered or applied
    twice says it once. The answer says what was said, or why not, in words."""
    assert parsed.say is not None
    message_id = str(read.message.get("Message-ID") or "").strip() or \
        f"{read.sender}\n{parsed.say}"
    key = "mail-" + hashlib.sha256(message_id.encode()).hexdigest()[:40]
    try:
        with write_session() as session:
            talk_id = talk.post(session, ref.game, ref.seat, parsed.say, key=key,
                                source=talk.MAIL, now=clock_now())
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"talk refused: {exc.code}", answer=(
            f"Nothing was said at the table: {exc.message}", parsed.line, None))
    shown = compose.clean_name(parsed.say, limit=300)
    return Verdict(ANSWERED, f"{answers.SAID} (talk {talk_id})", answer=(
        f"Said at the table: “{shown}”. Everyone at the table reads it on their page and "
        "in their next mail.", "", None))


def vote(ref: tokens.ReplyRef, parsed: Parsed) -> Verdict:
    """Answer the game's open vote as the replying seat (issue 21: abort, substitute,
    rematch), once: a second answer is refused in words. The answer mail says what was
    counted and where the vote stands, or why not."""
    assert parsed.vote is not None
    try:
        vote = votes.answer(ref.game, ref.seat, None, parsed.vote, source="mail")
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"vote refused: {exc.code}", answer=(
            f"Your answer was not counted: {exc.message}", parsed.line, None))
    said = "yes" if parsed.vote else "no"
    where = ("The vote is still open." if vote.status == "open"
             else f"The vote is decided ({vote.status}): {vote.outcome}")
    return Verdict(ANSWERED, f"voted {said} (vote {vote.id})", answer=(
        f"Your answer is counted: {said}. {where}", "", None))


def back(ref: tokens.ReplyRef, parsed: Parsed) -> Verdict:
    """"I'm back" by reply (R29), as the page's button: the seat's decisions wait for it
    again with normal deadlines, and a substitute vote about it fails (R51)."""
    assert parsed.back
    try:
        absence.come_back(ref.game, ref.seat, source="mail")
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"back refused: {exc.code}", answer=(
            f"Nothing changed: {exc.message}", parsed.line, None))
    return Verdict(ANSWERED, "came back", answer=(
        "Welcome back: your decisions wait for you again, with normal deadlines. If "
        "someone proposed a substitute for your seat, that vote fails: the seat stays "
        "yours.", "", None))
