"""The table's news by mail (issue 21): a seat resigned, a substitute took a seat over, a
seat got more time, a vote opened or ended, a rematch began.

Each follows the mail policy of every other notice: written in the transaction of what
it tells, it waits out the game's grace period (``Context.delay``) so that a person
looking at the page meanwhile is not mailed what they just saw, it leaves only while
what it asks still holds (``announces``: a vote still open that this seat has not
answered, a decision still waiting with the time that was given; checked by the
sender's ``still_holds``), and the sender's caps and the seat's quiet hours hold it
like any mail (``app.runners.sending``). A seat that asked for no mail gets none of
these; a seat handed over to someone else gets the one mail that says so, at the
address it had.

The words name people by the seat's current names; the pages show the same events
from the same rows (``app.services.leaving``, ``more_time``, ``votes``).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, select

from app.access.reply_address import reply_address
from app.access.unsubscribe import left_token
from app.clock import deadlines as dl
from app.mail import compose
from app.mail.notify import Context, mode_of, wants
from app.mail.models import Outbox
from app.mail.unsent import queue
from app.table.models import ABORT, OPEN, REMATCH, SUBSTITUTE, Ballot, Vote

#: Outbox kinds of these mails (``Outbox.kind``).
RESIGNED, TOOK_OVER, HANDED_OVER, MORE_TIME, VOTE, VOTED = (
    "resigned", "took_over", "handed_over", "more_time", "vote", "voted")
KINDS = (RESIGNED, TOOK_OVER, HANDED_OVER, MORE_TIME, VOTE, VOTED)

#: What these mails announce (``Outbox.announces["what"]``), checked when they leave.
ANNOUNCED = (VOTE, MORE_TIME)

#: How a seat answers a vote by replying (``app.mail.commands`` reads them).
VOTE_REPLY = "Or reply to this mail with VOTE YES or VOTE NO."
#: How the seat a substitute vote is about answers it by replying (R51).
SUBJECT_REPLY = ("Or reply to this mail with VETO to keep your seat (or VOTE YES to let "
                 "it go).")
REMATCH_REPLY = "Or reply to this mail with ACCEPT or DECLINE."


def _mails(unit: Any, ctx: Context, seat: int) -> bool:
    """Whether this seat gets these mails at all (a person with an address who did not
    ask for no mail)."""
    return wants(unit, ctx, seat)


def _queue(unit: Any, ctx: Context, seat: int, kind: str, key: str, now: datetime,
           mail: compose.Mail, *, announces: dict[str, Any] | None = None,
           wait: bool = True, root: bool = False) -> bool:
    to = ctx.address(seat)
    if to is None:
        return False
    delay = ctx.delay if wait else timedelta(0)
    return queue(unit, game_id=ctx.id, seat=seat, kind=kind, to=to,
                 to_name=ctx.info.names[seat], mail=mail, idempotency=key, domain=ctx.domain,
                 now=now, unsubscribe=ctx.unsubscribe(seat), due=dl.as_utc(now) + delay,
                 announces=announces, root=root)


def _mail(ctx: Context, seat: int, lead: str, lines: list[str], *, button: str = "Open your seat",
          reply_hint: str | None = None, reply_to: str | None = None) -> compose.Mail:
    return compose.people_mail(ctx.info, seat, lead=lead, lines=lines, link=ctx.link(seat),
                               button=button, unsubscribe=ctx.unsubscribe(seat),
                               reply_hint=reply_hint, reply_to=reply_to)


def _title(ctx: Context) -> str:
    return ctx.info.title


# -- R48, R49 --------------------------------------------------------------------------

def resigned(unit: Any, ctx: Context, seat: int, about: int, now: datetime, step: int) -> None:
    """Tell ``seat`` that ``about`` resigned (R48), once."""
    if not _mails(unit, ctx, seat):
        return
    who = ctx.info.names[about]
    mail = _mail(ctx, seat, f"{who} resigned", [
        f"{who} resigned from “{_title(ctx)}”: from now on the rules' defaults play their "
        "seat, and they rank last at the end.",
        "If someone else would like to play that seat, propose a substitute on your seat "
        "page: they take over its cards, what it has seen and its score."])
    _queue(unit, ctx, seat, RESIGNED, f"resigned:{ctx.id}:{seat}:{about}:{step}", now, mail)


def took_over(unit: Any, ctx: Context, seat: int, about: int, was: str, now: datetime,
              step: int) -> None:
    """Tell ``seat`` that a substitute took over the seat of ``about`` (R49), once."""
    if not _mails(unit, ctx, seat):
        return
    who = ctx.info.names[about]
    mail = _mail(ctx, seat, f"{who} took over {was}'s seat", [
        f"{who} took over {was}'s seat in “{_title(ctx)}”: the seat keeps its cards, what "
        f"it has seen and its score, and {who} plays it from now on."])
    _queue(unit, ctx, seat, TOOK_OVER, f"took_over:{ctx.id}:{seat}:{about}:{step}", now, mail)


def welcome(unit: Any, ctx: Context, seat: int, was: str, now: datetime, step: int,
            guard: str) -> None:
    """The substitute's first mail: its link to the seat it takes over (R49), and that
    nothing its earlier player decided ahead came with it (``leaving.forget_plan``). Its
    one-click unsubscribe (``guard``) is "no more invitations to this address", as in
    every invitation."""
    to = ctx.address(seat)
    if to is None:
        return
    others = [name for index, name in enumerate(ctx.info.names) if index != seat]
    lines = [f"The players of “{_title(ctx)}” ({', '.join(others)}) handed you {was}'s "
             "seat: you take over its cards, what it has seen and its score, and play it "
             "from now on.",
             f"No plan or standing order of {was}'s was carried over: the seat plays only "
             "what you decide (your seat page lets you decide ahead if you like).",
             f"{ctx.settings.words()}; {compose.INVITATION_MAIL_WORDS[mode_of(unit, ctx, seat)]}.",
             "This link is your seat: keep it to yourself."]
    mail = compose.people_mail(ctx.info, seat, lead=f"You take over {was}'s seat",
                               lines=lines, link=ctx.link(seat), button="Open your seat",
                               unsubscribe=guard)
    version = ctx.seats[seat].token_version
    # (not the thread's root: that Message-ID is the seat's first invitation's)
    queue(unit, game_id=ctx.id, seat=seat, kind="invitation", to=to,
          to_name=ctx.info.names[seat], mail=mail,
          idempotency=f"invite:{ctx.id}:{seat}:v{version}", domain=ctx.domain, now=now,
          unsubscribe=guard)


def handed_over(unit: Any, ctx: Context, seat: int, old_address: str, old_name: str,
                now: datetime, step: int, secret: str) -> None:
    """Tell the address a seat had that it was handed to someone else (R49): the one
    mail it gets of this game from now on, addressed to its person by their own name,
    without a seat link (its links are dead). Its unsubscribe concerns what its footer
    says, this game's mail to this address (``left_url``), never the seat's (its new
    holder's) nor the address's other games (issue 32 item 3)."""
    who = ctx.info.names[seat]
    unsubscribe = left_url(ctx, seat, old_address, secret)
    mail = compose.people_mail(
        as_held_by(ctx, seat, old_name), seat, lead="Your seat was handed to another player",
        lines=[f"The players of “{_title(ctx)}” handed your seat to {who}, who plays it "
               "from now on. Your link and the reply addresses of your mails no longer "
               "open it; your link now says what happened, and lets you watch the game.",
               "What you said and did at the table stays yours, under your name.",
               "Thank you for playing. The replay shows the whole game once it is over."],
        link=None, button="", unsubscribe=unsubscribe)
    queue(unit, game_id=ctx.id, seat=seat, kind=HANDED_OVER, to=old_address, to_name=old_name,
          mail=mail, idempotency=f"handed_over:{ctx.id}:{seat}:{step}", domain=ctx.domain,
          now=now, unsubscribe=unsubscribe)


def left_url(ctx: Context, seat: int, address: str, secret: str) -> str:
    """The unsubscribe of this game's mail to ``address``, which held ``seat`` and holds
    it no more (``app.access.unsubscribe.left_token``; its page: ``web.play``)."""
    return f"{ctx.info.base_url}/left/{left_token(ctx.id, seat, address, secret)}"


def as_held_by(ctx: Context, seat: int, name: str) -> compose.MailGame:
    """The game as a mail to ``seat``'s earlier holder names it: greeted by their own name."""
    names = list(ctx.info.names)
    names[seat] = compose.clean_name(name) or names[seat]
    return replace(ctx.info, names=names)


# -- more time --------------------------------------------------------------------------

def more_time(unit: Any, ctx: Context, seat: int, giver: int, gift_id: int, deadline_id: int,
              due: datetime, now: datetime) -> None:
    """Tell ``seat`` that ``giver`` gave its current decision one more day (issue 21
    item 3), with the new deadline in its zone; only while that decision still waits."""
    if not _mails(unit, ctx, seat):
        return
    zone = ctx.zone(seat)
    who = ctx.info.names[giver]
    mail = _mail(ctx, seat, f"{who} gave you one more day", [
        f"{who} gave you one more day for your move in “{_title(ctx)}”.",
        f"It is now due by {compose.deadline_words(due, now, zone)}."])
    _queue(unit, ctx, seat, MORE_TIME, f"gift:{gift_id}", now, mail,
           announces={"what": MORE_TIME, "seat": seat, "deadline": deadline_id})


# -- votes ------------------------------------------------------------------------------

def vote_words(vote: Any, names: list[str]) -> str:
    """What a vote asks, in one line ("Ann asks to end the game by agreement"): for its
    mails and the pages alike."""
    who = _proposer(vote, names)
    if vote.kind == ABORT:
        return f"{who} asks to end the game by agreement"
    if vote.kind == SUBSTITUTE and vote.subject_seat is not None:
        was = names[vote.subject_seat] if vote.subject_seat < len(names) else "a seat"
        return f"{who} proposes {vote.name} to take over {was}'s seat"
    return f"{who} offers a rematch"


def _proposer(vote: Any, names: list[str]) -> str:
    return names[vote.seat] if 0 <= vote.seat < len(names) else "A player"


def vote_key(vote_id: int, seat: int) -> str:
    """The idempotency key of the mail asking ``seat`` to answer a vote (``vote_mail``)."""
    return f"vote:{vote_id}:{seat}"


def vote_mail(session: Session, vote_id: int, seat: int) -> Outbox | None:
    """The mail that asked ``seat`` to answer the vote, if one was queued: whether and
    when it left (``status``, ``sent_at``; ``next_attempt_at`` while it waits). R51: a
    seat only away is not handed over before it has had time to say no from then
    (``services.votes``). One probe of the outbox's unique idempotency index."""
    return session.exec(select(Outbox).where(
        Outbox.idempotency == vote_key(vote_id, seat))).first()


def vote_opened(unit: Any, ctx: Context, seat: int, vote: Vote, now: datetime, *,
                notice_hours: float | None = None) -> None:
    """Ask ``seat`` for its answer to ``vote``, once, while it is open and unanswered.
    ``notice_hours``: a substitute vote about a seat only away, which is not handed over
    sooner than this many running hours after this mail to its person left (R51)."""
    if not _mails(unit, ctx, seat) or vote.id is None:
        return
    zone = ctx.zone(seat)
    until = compose.local_time_words(vote.expires_at, zone)
    asks, title = vote_words(vote, ctx.info.names), _title(ctx)
    if vote.kind == ABORT:
        lines = [f"{asks}: “{title}” would stop here, as abandoned by agreement, and its "
                 "seed and replay would be shown to everyone.",
                 f"It ends the game only if every player still playing says yes by {until}; "
                 "one no keeps the game going."]
    elif vote.kind == SUBSTITUTE and seat == vote.subject_seat:  # R51: the seat's own person
        asks = (f"You proposed {vote.name} to take over your seat" if vote.seat == seat else
                f"{_proposer(vote, ctx.info.names)} proposes {vote.name} to take over your seat")
        lines = [f"{asks} in “{title}”, since you are away or resigned: {vote.name} would get "
                 "its cards, what it has seen and its score, and your links would stop "
                 "working.",
                 "To keep your seat, press “I'm back” or “Veto” on your seat page (or make a "
                 "move): the vote then fails and nothing changes.",
                 (f"Whatever the others answer, your seat is not handed over sooner than "
                  f"{_hours(notice_hours)} after this mail was sent to you (counted on the "
                  f"game's running days). After that it passes once the others agree, or "
                  f"at {until} (not before those hours) unless someone vetoes it."
                  if notice_hours else
                  f"Otherwise it passes when the others agree, or at {until} unless someone "
                  "vetoes it.")]
    elif vote.kind == SUBSTITUTE:
        lines = [f"{asks} in “{title}”: {vote.name} would get the seat's cards, what it has "
                 "seen and its score, and a link of their own; the seat's old links stop "
                 "working. Its player is told too: their return or veto keeps it theirs.",
                 f"It passes when everyone agrees, or at {until} unless someone vetoes it"
                 + (f"; either way not sooner than {_hours(notice_hours)} after its player "
                    "was mailed about it, since they are only away." if notice_hours else ".")]
    else:
        lines = [f"{asks} of “{title}”: the same players and options, a new deal, and the "
                 "next player starts.",
                 f"It starts when everyone accepts by {until}; one decline calls it off."]
    hint = (REMATCH_REPLY if vote.kind == REMATCH else SUBJECT_REPLY
            if seat == vote.subject_seat else VOTE_REPLY)
    answer_to = reply_address(ctx.id, seat, ctx.seats[seat].token_version, vote.step)
    mail = _mail(ctx, seat, asks, lines,
                 button="Answer on your seat page", reply_hint=hint, reply_to=answer_to)
    _queue(unit, ctx, seat, VOTE, vote_key(vote.id, seat), now, mail,
           announces={"what": VOTE, "vote": vote.id, "seat": seat})


def _hours(hours: float | None) -> str:
    count = float(hours or 0)
    return f"{count:g} hour{'' if count == 1 else 's'}"


def vote_closed(unit: Any, ctx: Context, seat: int, vote: Vote, now: datetime) -> None:
    """Tell ``seat`` how ``vote`` ended (its ``outcome`` in words), once."""
    if not _mails(unit, ctx, seat) or vote.id is None:
        return
    if vote.kind == ABORT and vote.status == "passed":
        lead = "The game was ended by agreement"
        lines = [f"Everyone still playing agreed to end “{_title(ctx)}”: it stops here, "
                 "as abandoned by agreement.",
                 "Its seed is revealed now: the replay shows every card, move by move, "
                 f"and how to check the deal: {ctx.replay()}"]
    else:
        asks = vote_words(vote, ctx.info.names)
        lead = f"{asks}: {vote.status}"
        lines = [f"{asks} in “{_title(ctx)}”. {vote.outcome or ''}".strip()]
    _queue(unit, ctx, seat, VOTED, f"voted:{vote.id}:{seat}", now, _mail(ctx, seat, lead, lines),
           wait=False)


def still_holds(session: Session, row: Any) -> bool:
    """Whether what a mail of this module announces still holds as it leaves: the vote
    is open and the seat has not answered it; the decision given more time still waits
    (its deadline row is open)."""
    said = row.announces or {}
    if said.get("what") == VOTE:
        vote = session.get(Vote, int(said.get("vote") or 0))
        if vote is None or vote.status != OPEN:
            return False
        answered = session.exec(select(Ballot).where(Ballot.vote_id == vote.id,
                                                     Ballot.seat == int(said.get("seat", -1)))
                                ).first()
        return answered is None
    if said.get("what") == MORE_TIME:
        deadline = session.get(dl.Deadline, int(said.get("deadline") or 0))
        return deadline is not None and deadline.done_at is None
    return True
