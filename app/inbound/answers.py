"""The answer to a reply that did not become a move, or the seat's next mail after one.

Long because: each answer to a reply is a whole sentence in the reader's language
(issue 50), said beside the decision it answers, so the one module that decides what a
reply gets also says it; the sentences themselves live in ``app.inbound.words``.

``answer`` is called with the inbox row's unit of work (``app.inbound.worker``): it
queues its mail (``unsent.queue``) and the row's changed outcome on that unit, so the
row's final state and its mail are written, and commit, together. Issue 17 item 4: a re-sent
reply (same command, new Message-ID) finds its answer's key taken and adds no
second copy; over ``INBOUND_ANSWERS_PER_HOUR`` the replies are not dropped but
answered together by one held answer that leaves when room is free (``_hold``);
an applied reply whose seat decides again, with no mail saying so, gets the
turn mail (``_follow_up``). Answers are conversation (issue 17 item 3): the
person's own replies ask for them, so the per-address flood cap does not hold them.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app import engine as rules
from app import i18n, services
from app.i18n import _
from app.gamelog import store
from app.access import tokens
from app.clock.time import as_utc
from app.db.statements import table_of
from app.db.unit import Row, Unit
from app.mail import commands
from app.mail.holds import with_notice
from app.mail.menu import build as build_menu
from app.inbound import words
from app.inbound.models import InboxMessage
from app.mail import compose, notify
from app.mail import table_news
from app.services.left import LEFT_ANSWER
from app.config import setting
from app.mail import unsent
from app.mail.models import PENDING as MAIL_PENDING, SUPERSEDED, Outbox
from app.mail.view_words import card_info, village_info
from app.plans.models import Plan, standing_lines, told_lines

#: Answers one seat may get in an hour (config ``INBOUND_ANSWERS_PER_HOUR``):
#: enough for a confused player, too few for two auto-responders to loop.
DEFAULT_ANSWERS_PER_HOUR = 5
ANSWER_KIND = "answer"
#: Mails of the seat's next decision (sent by the hooks, or by us after a reply).
TURN_KINDS = ("turn", "reminder", "digest")
#: How the outcome of a ``SAY`` reply that was said at the table starts (issue 20 item 2).
SAID = "said at the table"


@dataclass(frozen=True)
class Verdict:
    """How a row ends: its state, why, and the answer to enqueue with it (if any)."""

    status: str
    outcome: str
    answer: tuple[str, str, str | None] | None = None  # (why, quoted line, what to show)
    applied_seq: int | None = None
    follow_up: bool = False


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
#: How answers and turn mails say standing orders changed by reply (issue 51: ``words``).
ORDERS_KEPT, ORDERS_WORDS = words.ORDERS_KEPT, words.ORDERS_WORDS


def answer(unit: Unit, row: Row, ref: tokens.ReplyRef, verdict: Verdict,
           now: datetime) -> None:
    """``_answer`` in the language of the seat's person (issue 50)."""
    with i18n.in_language(words.language_of(unit.session, ref.game, ref.seat)
                          or i18n.current()):
        _answer(unit, row, ref, verdict, now)


def _answer(unit: Unit, row: Row, ref: tokens.ReplyRef, verdict: Verdict,
            now: datetime) -> None:
    """Queue the answer (or the seat's next decision) on the row's unit of work.

    ``row``: the inbox row as its unit read it; a change of its outcome (answered
    together, not answered...) is queued on the unit with the row's other changes.

    The seat row is locked first, so the hourly count of answers is exact even
    with several workers. Issue 17 item 4: a re-sent reply (same command, new
    Message-ID) finds its answer's key taken and adds no second copy; over the
    hourly cap the reply is not dropped but answered by one held answer that
    leaves when room is free and says how many replies it answers. Answers and
    the turn mail after a reply are conversation (issue 17 item 3): the person's
    own replies ask for them, so the per-address flood cap does not hold them.
    """
    session = unit.session
    seat_row = session.exec(select(store.Seat).where(store.Seat.game_id == ref.game,
                                                     store.Seat.index == ref.seat)
                            .with_for_update()).first()
    game = session.get(store.Game, ref.game)
    if seat_row is None or game is None:
        return
    if verdict.outcome == RETIRED and _to_earlier_holder(unit, row, ref, verdict, game, now):
        return  # issue 32: the reply was its earlier holder's, and only they are answered
    snapshot = services.snapshot(ref.game)
    view = rules.view(snapshot.state, ref.seat)
    ctx = notify.Context.load(session, game)
    to = ctx.address(ref.seat)
    if to is None:
        return
    if verdict.answer is None:
        _follow_up(unit, ref, verdict, ctx, snapshot.state, view, to, now)
        return
    if verdict.follow_up:
        # a move made with words about what was not done (issue 45 item 5: its talk was
        # refused): the answer says so, and the seat's next decision is mailed as usual
        _follow_up(unit, ref, verdict, ctx, snapshot.state, view, to, now)
    key = _answer_key(ref, verdict, snapshot.seq)
    if session.exec(select(Outbox.id).where(Outbox.idempotency == key)).first() is not None:
        _outcome(unit, row, " (its answer was sent for the same reply before)")
        return
    if not verdict.follow_up and _carried(unit, row, ref, verdict, view, now):
        return  # issue 51 item 1: the seat's turn mail, about to leave, says it
    limit = max(1, answers_per_hour())   # at least one: a refused move is always told
    recent = _answers_since(session, ref.game, ref.seat, now - timedelta(hours=1))
    if len(recent) >= limit and (verdict.outcome.startswith(SAID) or verdict.follow_up):
        # words said at the table by reply (issue 20 item 2) need no held answer saying
        # "nothing was changed": they were said, and the next mails show them; nor does
        # a move that was made (its talk refused): a held answer says nothing changed
        _outcome(unit, row, " (not answered: hourly limit)")
        return
    if len(recent) >= limit:
        _hold(unit, row, ref, verdict, ctx, view, to, now, limit=limit,
              free_at=recent[len(recent) - limit] + timedelta(hours=1))
        return
    mail = answer_mail(ctx.info, ref.seat, view, link=ctx.link(ref.seat),
                       reply_address=ctx.reply_address(ref.seat, view),
                       unsubscribe=ctx.unsubscribe(ref.seat), why=verdict.answer[0],
                       quoted=verdict.answer[1], show=verdict.answer[2])
    unsent.queue(unit, game_id=ref.game, seat=ref.seat, kind=ANSWER_KIND, to=to,
                 to_name=ctx.info.names[ref.seat], mail=mail, idempotency=key,
                 domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(ref.seat),
                 conversation=True)


def answer_line(verdict: Verdict, body: str | None) -> str:
    """The answer to a reply in one line, for the turn mail that carries it; ``body``: the
    mail's text if composed already (None: composed as it leaves, with the orders then)."""
    assert verdict.answer is not None
    why, quoted = verdict.answer[0], compose.clean_name(verdict.answer[1], 200)
    heading = _(ORDERS_WORDS)
    orders = why[why.find(heading):] if heading in why else None
    listed = orders is not None and (body is None or orders in body)
    said = _(ORDERS_KEPT) if verdict.outcome == "orders kept" and listed else why
    return (_("About your reply “%(quoted)s”: %(said)s", quoted=quoted, said=said) if quoted
            else _("About your reply: %(said)s", said=said))


def _carried(unit: Unit, row: Row, ref: tokens.ReplyRef, verdict: Verdict,
             view: dict[str, Any], now: datetime) -> bool:
    """Issue 51 item 1: never an answer and a turn mail for one reply. The seat's turn mail
    still to leave for its decision now carries the answer's line and leaves now (False:
    none; the answer is mailed)."""
    c = _OUTBOX.c
    found = _outbox_rows(unit, sa.select(
        c.id, c.text, c.html, c.announces, c.status, c.lease_until, c.created_at).where(
        c.game_id == ref.game, c.seat == ref.seat, c.kind == "turn", c.status != SUPERSEDED)
        .order_by(c.id.desc()).limit(1))
    said = (found[0].announces or {}) if found else {}
    if (said.get("what"), said.get("decision"), said.get("round")) != (
            "decision", compose.decision_of(view, ref.seat) or "-", view.get("round")):
        return False
    mail = found[0]
    if mail.status != MAIL_PENDING or as_utc(mail.lease_until or now) > as_utc(now):
        # sent (or being sent) already: a turn mail the reply's orders brought lists them
        if verdict.outcome == "orders kept" and as_utc(mail.created_at) >= as_utc(now):
            _outcome(unit, row, " (its turn mail lists them)")
            return True
        return False
    late = "compose" in said  # composed as it leaves, when it says the line
    line = answer_line(verdict, None if late else str(mail.text or ""))
    text, html = (mail.text, mail.html) if late else with_notice(str(mail.text), mail.html, line)
    unit.update_id(_OUTBOX, mail.id, next_attempt_at=as_utc(now), text=text, html=html,
                   announces={**said, "answered": [*said.get("answered", []), line]})
    _outcome(unit, row, " (answered in its turn mail)")
    return True


def _outcome(unit: Unit, row: Row, more: str) -> None:
    """The inbox row's outcome says ``more`` (queued with the row's other changes)."""
    unit.update(row, outcome=f"{row.outcome}{more}"[:300])


#: The outcome of a reply to a retired reply address (``app.inbound.worker.judge``).
RETIRED = "retired reply address"


def _to_earlier_holder(unit: Unit, row: Row, ref: tokens.ReplyRef,
                       verdict: Verdict, game: Any, now: datetime) -> bool:
    """Answer a reply to a mail of before a hand-over (issue 32 item 3, R49) to whoever
    held the seat then, at their address, never to the seat's holder now: what happened
    ("your seat is now played by Dana; nothing was changed") and the game to watch, with
    no card and no seat link, since the seat is not theirs any more. False when the
    seat's holder then is its holder now (a link rotated: the usual answer)."""
    left = services.handed_over_at(ref.game, ref.seat, ref.step)
    if left is None:
        return False
    session = unit.session
    key = f"left-{_answer_key(ref, verdict, left.game.seq)}"
    if not left.address or session.exec(
            select(Outbox.id).where(Outbox.idempotency == key)).first() is not None:
        _outcome(unit, row, ": the seat's earlier holder (answered before, or no address "
                            "kept)")
        return True
    recent = session.exec(select(sa.func.count()).select_from(Outbox).where(
        Outbox.game_id == ref.game, Outbox.kind == LEFT_ANSWER,
        sa.func.lower(col(Outbox.to)) == left.address.lower(),
        col(Outbox.created_at) >= now - timedelta(hours=1))).one()
    if int(recent or 0) >= max(1, answers_per_hour()):
        _outcome(unit, row, ": the seat's earlier holder (not answered: hourly limit)")
        return True
    ctx = notify.Context.load(session, game)
    with notify.writing_to(unit, left.address):  # the earlier holder reads their language
        _tell_earlier_holder(unit, row, ref, ctx, left, key, now)
    return True


def _tell_earlier_holder(unit: Unit, row: Row, ref: tokens.ReplyRef, ctx: Any, left: Any,
                         key: str, now: datetime) -> None:
    title = ctx.info.title
    lines = words.earlier_holder(title, left.now, left.when,
                                 f"{ctx.info.base_url}/games/{ref.game}")
    unsubscribe = table_news.left_url(ctx, ref.seat, left.address, ctx.secret)
    mail = compose.people_mail(table_news.as_held_by(ctx, ref.seat, left.was), ref.seat,
                               lead=_("Your seat is now played by %(name)s", name=left.now),
                               lines=lines,
                               link=None, button="", unsubscribe=unsubscribe)
    unsent.queue(unit, game_id=ref.game, seat=ref.seat, kind=LEFT_ANSWER, to=left.address,
                 to_name=left.was, mail=mail, idempotency=key, domain=ctx.domain, now=now,
                 unsubscribe=unsubscribe, conversation=True)
    _outcome(unit, row, ": answered to the seat's earlier holder")


def _answer_key(ref: tokens.ReplyRef, verdict: Verdict, step_now: int) -> str:
    """One answer per (mail, what was said, why, position now): the same command sent
    again to the same mail while nothing moved gets no second copy."""
    assert verdict.answer is not None
    said = commands.normalise(verdict.answer[1])
    digest = hashlib.sha256(f"{verdict.outcome}\n{said}".encode()).hexdigest()[:24]
    return f"answer:{ref.game}:{ref.seat}:{ref.step}:{step_now}:{digest}"


def _hold(unit: Unit, row: Row, ref: tokens.ReplyRef, verdict: Verdict,
          ctx: notify.Context, view: dict[str, Any], to: str, now: datetime, *,
          limit: int, free_at: datetime) -> None:
    """Over ``INBOUND_ANSWERS_PER_HOUR``: answer within the cap, never drop (issue 17 item 4).

    The seat's one unsent held answer is rewritten to answer this reply too
    (how many, the last one's words, the position now); without one, a held
    answer is written, due when the oldest answer of the hour ages out. The replies
    it answers are the seat's rows noted so since it was written: the others as
    stored, and this one, whose note is queued with its other changes.
    """
    assert verdict.answer is not None
    session = unit.session
    _outcome(unit, row, f" {HELD_NOTE}")
    prefix = f"{HELD_KEY}:{ref.game}:{ref.seat}:"
    c = _OUTBOX.c
    held = next(iter(_outbox_rows(unit, sa.select(c.id, c.created_at, c.headers).where(
        c.game_id == ref.game, c.seat == ref.seat, c.kind == ANSWER_KIND,
        c.status == MAIL_PENDING, c.idempotency.startswith(prefix),
        c.lease_until.is_(None) | (c.lease_until < as_utc(now)))
        .order_by(c.id.desc()).limit(1))), None)
    since = as_utc(held.created_at) if held is not None else as_utc(now)
    others = int(session.exec(select(sa.func.count()).select_from(InboxMessage).where(
        InboxMessage.game_id == ref.game, InboxMessage.seat == ref.seat,
        col(InboxMessage.id) != row.id, col(InboxMessage.outcome).contains(HELD_NOTE),
        col(InboxMessage.done_at) >= since)).one())
    count = max(others + (1 if as_utc(now) >= since else 0), 1)  # (this row: done now)
    why = (words.held(count, limit, compose.clean_name(verdict.answer[1], 200))
           + " " + verdict.answer[0])
    mail = answer_mail(ctx.info, ref.seat, view, link=ctx.link(ref.seat),
                       reply_address=ctx.reply_address(ref.seat, view),
                       unsubscribe=ctx.unsubscribe(ref.seat), why=why, quoted="",
                       show="view")
    if held is None:
        unsent.queue(unit, game_id=ref.game, seat=ref.seat, kind=ANSWER_KIND, to=to,
                     to_name=ctx.info.names[ref.seat], mail=mail,
                     idempotency=f"{prefix}{row.id}", domain=ctx.domain, now=now,
                     unsubscribe=ctx.unsubscribe(ref.seat),
                     due=max(as_utc(free_at), as_utc(now)), conversation=True)
        return
    headers = dict(held.headers or {})
    if mail.reply_to:
        headers["Reply-To"] = mail.reply_to
    else:
        headers.pop("Reply-To", None)
    unit.update_id(_OUTBOX, held.id, subject=mail.subject, text=mail.text, html=mail.html,
                   headers=headers)


def _follow_up(unit: Unit, ref: tokens.ReplyRef, verdict: Verdict,
               ctx: notify.Context, state: Any, view: dict[str, Any], to: str,
               now: datetime) -> None:
    """The applied reply's next mail, when the seat decides again and no mail says so.

    Keyed by the applied move's step, so a re-sent reply (already applied) finds
    the same key and adds no second copy (issue 17 item 4).
    """
    applied = int(verdict.applied_seq or ref.step + 1)
    key = f"reply-turn:{ref.game}:{ref.seat}:{applied}"
    if not _needs_follow_up(unit, ref, view, applied, key, now):
        return
    plan = unit.session.exec(select(Plan).where(Plan.game_id == ref.game, Plan.seat == ref.seat)).first()
    orders, offer = standing_lines(plan, view, ref.seat)  # issue 51 item 1
    mail = compose.turn_mail(ctx.info, ref.seat, view, since_step=ref.step, due=None,
                             now=now, link=ctx.link(ref.seat),
                             unsubscribe=ctx.unsubscribe(ref.seat),
                             reply_address=ctx.reply_address(ref.seat, view),
                             plan=told_lines(plan, ref.step),  # issue 35: what it did
                             orders=orders, offer=offer)
    unsent.queue(unit, game_id=ref.game, seat=ref.seat, kind="turn", to=to,
                 to_name=ctx.info.names[ref.seat], mail=mail, idempotency=key,
                 domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(ref.seat),
                 announces=notify.announced_decision(rules.status(state), ref.seat,
                                                     int(view.get("step") or 0)),
                 conversation=True)


def _needs_follow_up(unit: Unit, ref: tokens.ReplyRef, view: dict[str, Any],
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
    c = _OUTBOX.c
    rows = _outbox_rows(unit, sa.select(
        c.id, c.idempotency, c.announces, c.status, c.lease_until, c.next_attempt_at).where(
        c.game_id == ref.game, c.seat == ref.seat, c.kind.in_(TURN_KINDS),
        c.status != SUPERSEDED).order_by(c.id.desc()).limit(20))
    for mail in rows:
        said = mail.announces or {}
        if mail.idempotency != key and not (
                said.get("what") == "decision" and int(said.get("step", -1)) >= applied):
            continue
        if (mail.status == MAIL_PENDING and mail.lease_until is None
                and as_utc(mail.next_attempt_at) > as_utc(now)):
            unit.update_id(_OUTBOX, mail.id, next_attempt_at=as_utc(now))
        return False
    return True


def answer_mail(game: compose.MailGame, seat: int, view: dict[str, Any], *, link: str,
                reply_address: str | None, unsubscribe: str, why: str, quoted: str,
                show: str | None) -> compose.Mail:
    """The answer to a reply that did not become a move: what we read, why, what now."""
    names = game.names
    menu = build_menu(view, seat, reply_address, names,
                      f"Re: {compose.thread_subject(game)}")  # ("Re:" is what clients write)
    hand = view.get("hand") if view.get("hand_seat") == seat else None
    discard = view.get("discard") or []
    mail = compose.render(
        "inbound_answer", compose.thread_subject(game),
        game=game, seat=seat, name=names[seat], why=why, quoted=compose.clean_name(quoted, 200),
        show=show, menu=menu, round=view.get("round"),
        decision=compose.decision_words(compose.decision_of(view, seat)),
        asked=compose.lead_words(compose.decision_of(view, seat), view, seat, names),
        has_decision=seat in (view.get("to_act") or []),
        village=village_info(view, seat),
        hand=card_info(hand) if hand else None,
        discard_top=card_info(discard[-1]) if discard else None,
        link=link, unsubscribe=unsubscribe)
    return compose.Mail(mail.subject, mail.text, mail.html, reply_to=menu.address or None)


def _outbox_rows(unit: Unit, query: Any) -> list[Row]:
    """The outbox rows ``query`` selects (the columns it names), as a unit holds rows:
    what a change of them is queued against (``Unit.update_id``)."""
    return [Row(_OUTBOX, values)
            for values in unit.session.connection().execute(query).mappings()]


_OUTBOX = table_of(Outbox)
