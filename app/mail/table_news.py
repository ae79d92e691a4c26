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
from app.i18n import N_, _, forms, ngettext
from app.mail import compose
from app.mail.notify import Context, in_reader_language, mode_of, wants, writing_to
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
VOTE_REPLY = N_("Or reply to this mail with VOTE YES or VOTE NO.")
#: How the seat a substitute vote is about answers it by replying (R51).
SUBJECT_REPLY = N_("Or reply to this mail with VETO to keep your seat (or VOTE YES to let "
                   "it go).")
REMATCH_REPLY = N_("Or reply to this mail with ACCEPT or DECLINE.")


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


def _mail(ctx: Context, seat: int, lead: str, lines: list[str], *, button: str | None = None,
          reply_hint: str | None = None, reply_to: str | None = None) -> compose.Mail:
    return compose.people_mail(ctx.info, seat, lead=lead, lines=lines, link=ctx.link(seat),
                               button=button or _("Open your seat"), unsubscribe=ctx.unsubscribe(seat),
                               reply_hint=reply_hint, reply_to=reply_to)


def _title(ctx: Context) -> str:
    return ctx.info.title


# -- R48, R49 --------------------------------------------------------------------------

@in_reader_language
def resigned(unit: Any, ctx: Context, seat: int, about: int, now: datetime, step: int) -> None:
    """Tell ``seat`` that ``about`` resigned (R48), once."""
    if not _mails(unit, ctx, seat):
        return
    who = ctx.info.names[about]
    mail = _mail(ctx, seat, _("%(name)s resigned", name=who), [
        _("%(name)s resigned from “%(game)s”: from now on the rules' defaults play their "
          "seat, and they rank last at the end.", name=who, game=_title(ctx)),
        _("If someone else would like to play that seat, propose a substitute on your seat "
          "page: they take over its cards, what it has seen and its score.")])
    _queue(unit, ctx, seat, RESIGNED, f"resigned:{ctx.id}:{seat}:{about}:{step}", now, mail)


@in_reader_language
def took_over(unit: Any, ctx: Context, seat: int, about: int, was: str, now: datetime,
              step: int) -> None:
    """Tell ``seat`` that a substitute took over the seat of ``about`` (R49), once."""
    if not _mails(unit, ctx, seat):
        return
    who = ctx.info.names[about]
    mail = _mail(ctx, seat, _("%(name)s took over %(was)s's seat", name=who, was=was), [
        _("%(name)s took over %(was)s's seat in “%(game)s”: the seat keeps its cards, what "
          "it has seen and its score, and %(name)s plays it from now on.",
          name=who, was=was, game=_title(ctx))])
    _queue(unit, ctx, seat, TOOK_OVER, f"took_over:{ctx.id}:{seat}:{about}:{step}", now, mail)


@in_reader_language
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
    lines = [_("The players of “%(game)s” (%(names)s) handed you %(was)s's "
               "seat: you take over its cards, what it has seen and its score, and play it "
               "from now on.", game=_title(ctx), names=forms.names(others), was=was),
             _("No plan or standing order of %(was)s's was carried over: the seat plays only "
               "what you decide (your seat page lets you decide ahead if you like).", was=was),
             _("%(clock)s; %(mail)s.", clock=ctx.settings.words(),
               mail=_(compose.INVITATION_MAIL_WORDS[mode_of(unit, ctx, seat)])),
             _("This link is your seat: keep it to yourself.")]
    mail = compose.people_mail(ctx.info, seat, lead=_("You take over %(was)s's seat", was=was),
                               lines=lines, link=ctx.link(seat), button=_("Open your seat"),
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
    with writing_to(unit, old_address):  # (the earlier holder's language, not the seat's)
        _handed_over(unit, ctx, seat, old_address, old_name, now, step, secret)


def _handed_over(unit: Any, ctx: Context, seat: int, old_address: str, old_name: str,
                 now: datetime, step: int, secret: str) -> None:
    who = ctx.info.names[seat]
    unsubscribe = left_url(ctx, seat, old_address, secret)
    mail = compose.people_mail(
        as_held_by(ctx, seat, old_name), seat, lead=_("Your seat was handed to another player"),
        lines=[_("The players of “%(game)s” handed your seat to %(name)s, who plays it "
                 "from now on. Your link and the reply addresses of your mails no longer "
                 "open it; your link now says what happened, and lets you watch the game.",
                 game=_title(ctx), name=who),
               _("What you said and did at the table stays yours, under your name."),
               _("Thank you for playing. The replay shows the whole game once it is over.")],
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

@in_reader_language
def more_time(unit: Any, ctx: Context, seat: int, giver: int, gift_id: int, deadline_id: int,
              due: datetime, now: datetime) -> None:
    """Tell ``seat`` that ``giver`` gave its current decision one more day (issue 21
    item 3), with the new deadline in its zone; only while that decision still waits."""
    if not _mails(unit, ctx, seat):
        return
    zone = ctx.zone(seat)
    who = ctx.info.names[giver]
    mail = _mail(ctx, seat, _("%(name)s gave you one more day", name=who), [
        _("%(name)s gave you one more day for your move in “%(game)s”.", name=who,
          game=_title(ctx)),
        _("It is now due by %(deadline)s.", deadline=compose.deadline_words(due, now, zone))])
    _queue(unit, ctx, seat, MORE_TIME, f"gift:{gift_id}", now, mail,
           announces={"what": MORE_TIME, "seat": seat, "deadline": deadline_id})


# -- votes ------------------------------------------------------------------------------

def vote_words(vote: Any, names: list[str]) -> str:
    """What a vote asks, in one line ("Ann asks to end the game by agreement"): for its
    mails and the pages alike."""
    who = _proposer(vote, names)
    if vote.kind == ABORT:
        return _("%(name)s asks to end the game by agreement", name=who)
    if vote.kind == SUBSTITUTE and vote.subject_seat is not None:
        if vote.subject_seat < len(names):
            return _("%(name)s proposes %(new)s to take over %(was)s's seat", name=who,
                     new=vote.name, was=names[vote.subject_seat])
        return _("%(name)s proposes %(new)s to take over a seat", name=who, new=vote.name)
    return _("%(name)s offers a rematch", name=who)


def _proposer(vote: Any, names: list[str]) -> str:
    return names[vote.seat] if 0 <= vote.seat < len(names) else _("A player")


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


@in_reader_language
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
        lines = [_("%(asks)s: “%(game)s” would stop here, as abandoned by agreement, and its "
                   "seed and replay would be shown to everyone.", asks=asks, game=title),
                 _("It ends the game only if every player still playing says yes by %(until)s; "
                   "one no keeps the game going.", until=until)]
    elif vote.kind == SUBSTITUTE and seat == vote.subject_seat:  # R51: the seat's own person
        if vote.seat == seat:
            asks = _("You proposed %(new)s to take over your seat", new=vote.name)
            first = _("You proposed %(new)s to take over your seat in “%(game)s”, since you are "
                      "away or resigned: %(new)s would get its cards, what it has seen and its "
                      "score, and your links would stop working.", new=vote.name, game=title)
        else:
            who = _proposer(vote, ctx.info.names)
            asks = _("%(name)s proposes %(new)s to take over your seat", name=who,
                     new=vote.name)
            first = _("%(name)s proposes %(new)s to take over your seat in “%(game)s”, since "
                      "you are away or resigned: %(new)s would get its cards, what it has seen "
                      "and its score, and your links would stop working.", name=who,
                      new=vote.name, game=title)
        lines = [first,
                 _("To keep your seat, press “I'm back” or “Veto” on your seat page (or make a "
                   "move): the vote then fails and nothing changes."),
                 (_("Whatever the others answer, your seat is not handed over sooner than "
                    "%(hours)s after this mail was sent to you (counted on the "
                    "game's running days). After that it passes once the others agree, or "
                    "at %(until)s (not before those hours) unless someone vetoes it.",
                    hours=_hours(notice_hours), until=until)
                  if notice_hours else
                  _("Otherwise it passes when the others agree, or at %(until)s unless someone "
                    "vetoes it.", until=until))]
    elif vote.kind == SUBSTITUTE:
        lines = [_("%(asks)s in “%(game)s”: %(new)s would get the seat's cards, what it has "
                   "seen and its score, and a link of their own; the seat's old links stop "
                   "working. Its player is told too: their return or veto keeps it theirs.",
                   asks=asks, game=title, new=vote.name),
                 _("It passes when everyone agrees, or at %(until)s unless someone vetoes it; "
                   "either way not sooner than %(hours)s after its player was mailed about "
                   "it, since they are only away.", until=until, hours=_hours(notice_hours))
                 if notice_hours else
                 _("It passes when everyone agrees, or at %(until)s unless someone vetoes it.",
                   until=until)]
    else:
        lines = [_("%(asks)s of “%(game)s”: the same players and options, a new deal, and the "
                   "next player starts.", asks=asks, game=title),
                 _("It starts when everyone accepts by %(until)s; one decline calls it off.",
                   until=until)]
    hint = _(REMATCH_REPLY if vote.kind == REMATCH else SUBJECT_REPLY
             if seat == vote.subject_seat else VOTE_REPLY)
    answer_to = reply_address(ctx.id, seat, ctx.seats[seat].token_version, vote.step)
    mail = _mail(ctx, seat, asks, lines,
                 button=_("Answer on your seat page"), reply_hint=hint, reply_to=answer_to)
    _queue(unit, ctx, seat, VOTE, vote_key(vote.id, seat), now, mail,
           announces={"what": VOTE, "vote": vote.id, "seat": seat})


def _hours(hours: float | None) -> str:
    count = float(hours or 0)
    if count != int(count):  # (a fraction: "1.5 hours")
        return _("%(hours)s hours", hours=f"{count:g}")
    return ngettext("%(num)d hour", "%(num)d hours", int(count))


#: A closed vote's status as its mail's first line says it.
VOTE_STATUS_WORDS = {"passed": N_("passed"), "failed": N_("failed"), "expired": N_("expired"),
                     "withdrawn": N_("withdrawn")}


@in_reader_language
def vote_closed(unit: Any, ctx: Context, seat: int, vote: Vote, now: datetime) -> None:
    """Tell ``seat`` how ``vote`` ended (its ``outcome`` in words), once."""
    if not _mails(unit, ctx, seat) or vote.id is None:
        return
    if vote.kind == ABORT and vote.status == "passed":
        lead = _("The game was ended by agreement")
        lines = [_("Everyone still playing agreed to end “%(game)s”: it stops here, "
                   "as abandoned by agreement.", game=_title(ctx)),
                 _("Its seed is revealed now: the replay shows every card, move by move, "
                   "and how to check the deal: %(link)s", link=ctx.replay())]
    else:
        asks = vote_words(vote, ctx.info.names)
        status = _(VOTE_STATUS_WORDS[vote.status]) if vote.status in VOTE_STATUS_WORDS \
            else vote.status
        lead = _("%(asks)s: %(status)s", asks=asks, status=status)
        said = _("%(asks)s in “%(game)s”.", asks=asks, game=_title(ctx))
        lines = [f"{said} {vote.outcome or ''}".strip()]
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
