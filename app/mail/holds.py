"""What holds a mail back, and what the mail that leaves after a hold says (issue 17 item 3).

The sender (``app.runners.sending``) asks ``Caps.holds`` of each claimed row
before it composes or sends it. Two caps hold a row back (it stays pending,
``held_until`` says until when, and the seat page shows it): the per-address
hourly cap (``per_address_hour``: that many mails in the last hour, across all
games; conversation mail, asked for by replying, is neither held nor counted by
it) and the stranger's day (``stranger_day``: an address that never acted gets
``trust.STRANGER_MAILS_PER_DAY`` mails in any 24 hours). What a cap holds never
fails silently and never becomes a queue of stale mails: a held decision mail
is composed when it leaves (the position then) and collapses the older held
ones of its seat (``hold``); the first mail of that seat to leave says "We held
N mails to you because ...; this is where the game stands now" (``held_untold``
marks what has not been told yet: ``held_of_seat``, ``told``, ``with_notice``).
A seat's quiet hours (issue 21 item 1, ``quiet_until``; its person's since issue 32)
hold its mail the same way, collapsed, until they end; nobody is told, since the person
chose them.
"""
from __future__ import annotations

import re
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from html import escape
from typing import Any, Mapping

from sqlalchemy import and_, func, or_, union_all, update
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.clock.time import as_utc
from app.gamelog import store
from app.mail import trust
from app.mail.models import PENDING, SENT, SUPERSEDED, Outbox
from app.mail.outbox import composed_at_send

HOUR = timedelta(hours=1)
#: Which cap held a row (``Outbox.held_why``); ``quiet``: the seat's quiet hours
#: (issue 21 item 1), the person's own choice, so nobody is told it was held.
HELD_HOUR, HELD_STRANGER, HELD_QUIET = "hour", "stranger", "quiet"
#: Mail that leaves in a seat's quiet hours all the same: what the person asked for
#: just now (an answer to their reply, a fresh link), or what tells of the seat
#: itself changing hands (it goes to the old person; the hours are the new one's).
#: An invitation waits like any mail (issue 32: a person's hours hold in every game,
#: from the invitation on; a newcomer has none yet).
QUIET_EXEMPT_KINDS = frozenset({"link", "answer", "handed_over"})


def quiet_until(row: Outbox, calendars: Mapping[tuple[str, int], Any],
                now: datetime) -> datetime | None:
    """When ``row`` may leave if its seat is in its quiet hours now (None: it may leave
    now). ``calendars``: the seats' calendars (``Calendar.mail_at``) of the batch."""
    if row.conversation or row.kind in QUIET_EXEMPT_KINDS or row.game_id is None \
            or row.seat is None:
        return None
    calendar = calendars.get((row.game_id, int(row.seat)))
    if calendar is None:
        return None
    until = as_utc(calendar.mail_at(now))
    return until if until > as_utc(now) else None


def sent_among(engine: Engine | Session, addresses: list[str], now: datetime, *,
               hour_cap: int | None, day_cap: int | None, owner: str | None = None
               ) -> tuple[dict[str, list[datetime]], dict[str, list[datetime]]]:
    """For each of ``addresses``, in one statement: the newest ``hour_cap`` mails sent to
    it in the hour before ``now`` that the hourly cap counts (not conversation), and the
    newest ``day_cap`` sent in the day before (oldest first; what the same question of
    one address would say: ``tests/mail/test_caps_of_a_batch.py``). Numbered newest
    first per address with a window function over ``ix_outbox_to_sent``: an address's
    rows of one day at most.
    ``engine``: a session instead, to ask in its transaction (a sending batch's).

    Counted as sent too (at ``counted_at``): rows another sender's caps let go and that
    it still holds under its claim (issue 34 item 1), about to leave; ``owner``: the
    asking sender, whose own claims are not among them (it is deciding them now)."""
    now = as_utc(now)
    hour_since, day_since = now - HOUR, now - trust.DAY
    wanted = col(Outbox.to).in_(addresses)
    done: Any = sa_select(col(Outbox.to).label("to"), col(Outbox.sent_at).label("at"),
                     col(Outbox.conversation).label("conversation")).where(
        wanted, col(Outbox.status) == SENT, col(Outbox.sent_at) > day_since)
    going: Any = sa_select(col(Outbox.to).label("to"), col(Outbox.counted_at).label("at"),
                      col(Outbox.conversation).label("conversation")).where(
        wanted, col(Outbox.status) == PENDING, col(Outbox.counted_at) > day_since,
        col(Outbox.lease_until) > now,
        *([col(Outbox.lease_owner) != owner] if owner is not None else []))
    both = union_all(done, going).subquery("both")
    newest = func.row_number().over(partition_by=both.c.to, order_by=both.c.at.desc())
    newest_of_kind = func.row_number().over(partition_by=(both.c.to, both.c.conversation),
                                            order_by=both.c.at.desc())
    sent = sa_select(both.c.to, both.c.at, both.c.conversation, newest.label("day_n"),
                     newest_of_kind.label("hour_n")).subquery("sent")
    in_hour = and_(sent.c.hour_n <= (hour_cap or 0), sent.c.conversation.is_(False),
                   sent.c.at > hour_since)
    in_day = sent.c.day_n <= (day_cap or 0)
    query = sa_select(sent.c.to, sent.c.at, in_hour, in_day).where(or_(in_hour, in_day)) \
        .order_by(sent.c.to, sent.c.at)
    hour: dict[str, list[datetime]] = {}
    day: dict[str, list[datetime]] = {}
    with _session(engine) as session:
        for to, at, counted_hour, counted_day in session.execute(query):
            if counted_hour:
                hour.setdefault(to, []).append(as_utc(at))
            if counted_day:
                day.setdefault(to, []).append(as_utc(at))
    return hour, day


def _session(engine: Engine | Session) -> AbstractContextManager[Session]:
    """A session of its own for ``engine``; a session given is used as it is (its
    caller ends it)."""
    return nullcontext(engine) if isinstance(engine, Session) else Session(engine)


@dataclass
class Caps:
    """The caps of one sending batch, decided for its rows at once, under a lock.

    ``per_address_hour``: at most that many mails an hour to one address, but
    conversation (issue 11's reply play is bounded by the player's own replies).
    ``stranger_day``: at most that many mails in 24 hours to an address that never
    acted (``app.mail.trust``; issue 17 item 3), conversation included.

    Why a lock (issue 34 item 1): the caps used to be counted from sent rows once per
    batch, so the clock's tick and the sender thread, each with a batch for one
    address, each allowed the whole hour (89 mails in 61 s under a cap of 60).
    ``settle`` now decides a batch's rows under a lock per address (the transaction's
    advisory lock on PostgreSQL, the write lock on SQLite: ``store.lock_key``),
    counting what was sent and what other senders' caps let go and still hold under
    their claims, and marks the rows it lets go (``counted_at``) before the lock ends:
    the next sender's count includes them, however many senders there are.
    """

    engine: Engine
    now: datetime
    per_address_hour: int | None
    stranger_day: int | None
    hour: dict[str, list[datetime]] = field(default_factory=dict)
    day: dict[str, list[datetime]] = field(default_factory=dict)
    acted: dict[str, bool] = field(default_factory=dict)
    #: ``row id -> (until, why, words)`` of the rows ``settle`` holds; a row settled
    #: and not in it may leave.
    held: dict[int, tuple[datetime, str, str]] = field(default_factory=dict)
    settled: set[int] = field(default_factory=set)

    @property
    def on(self) -> bool:
        return self.per_address_hour is not None or self.stranger_day is not None

    def settle(self, rows: list[Outbox], session: Session, owner: str) -> None:
        """Decide which of ``rows`` (claimed by ``owner``) the caps let go, and count
        them, in ``session``'s transaction, which it commits (the locks end there).

        Two statements beside the locks and the mark, not two or three per mail (issue
        30): when each address was sent to (or will be, by another sender) in the last
        hour and day (``sent_among``), and which addresses ever played
        (``trust.acted_among``)."""
        rows = sorted((row for row in rows if row.id not in self.settled),
                      key=lambda row: row.id or 0)
        if not rows or not self.on:
            self.settled.update(row.id for row in rows if row.id is not None)
            return
        addresses = sorted({row.to for row in rows})
        if not store.lock_keys(session, [f"mail-caps:{address.lower()}"
                                         for address in addresses]):
            raise TimeoutError("the database stayed busy; the caps could not be counted")
        hour, day = sent_among(session, addresses, self.now, hour_cap=self.per_address_hour,
                               day_cap=self.stranger_day, owner=owner)
        acted = trust.acted_among(session, addresses) if self.stranger_day is not None \
            else set(addresses)
        for address in addresses:
            self.hour[address] = hour.get(address, [])
            self.day[address] = day.get(address, [])
            self.acted[address] = address in acted
        going: list[int] = []
        for row in rows:
            assert row.id is not None  # (claimed rows are stored rows)
            self.settled.add(row.id)
            hold = self._over(row)
            if hold is not None:
                self.held[row.id] = hold
                continue
            going.append(row.id)
            if not row.conversation:
                self.hour[row.to].append(self.now)
            self.day[row.to].append(self.now)
        if going:
            session.execute(update(Outbox).where(col(Outbox.id).in_(going),
                                                 col(Outbox.lease_owner) == owner)
                            .values(counted_at=self.now)
                            .execution_options(synchronize_session=False))
        session.commit()

    def _over(self, row: Outbox) -> tuple[datetime, str, str] | None:
        """``(until, why, words)`` when the counts so far leave no room for ``row``."""
        held: list[tuple[datetime, str, str]] = []
        if self.per_address_hour is not None and not row.conversation:
            times = self.hour[row.to]
            if len(times) >= self.per_address_hour:
                held.append((times[len(times) - self.per_address_hour] + HOUR, HELD_HOUR,
                             f"held back: {len(times)} mails to this address in the last "
                             f"hour (at most {self.per_address_hour})"))
        if self.stranger_day is not None and not self.acted[row.to]:
            times = self.day[row.to]
            if len(times) >= self.stranger_day:
                held.append((times[len(times) - self.stranger_day] + trust.DAY, HELD_STRANGER,
                             f"held back: this address never played and got {len(times)} "
                             f"mails in 24 hours (at most {self.stranger_day})"))
        return max(held, key=lambda each: each[0]) if held else None

    def holds(self, row: Outbox) -> tuple[datetime, str, str] | None:
        """``(until, why, words)`` when a cap holds ``row`` now; None: it may leave. A row
        its batch did not settle is settled alone (its own lock and count)."""
        if row.id not in self.settled and self.on:
            assert row.lease_owner is not None, "the caps decide claimed rows"
            with Session(self.engine) as session:
                self.settle([row], session, row.lease_owner)
        return self.held.get(row.id) if row.id is not None else None

    def words(self, why: str | None, count: int, game: bool) -> str:
        """What the first mail after a hold says (issue 17 item 3)."""
        mails = "1 mail" if count == 1 else f"{count} mails"
        where = "the game stands" if game else "your games stand"
        if why == HELD_STRANGER:
            limit = self.stranger_day or trust.STRANGER_MAILS_PER_DAY
            because = (f"this address has not played a move here yet and had {limit} mails "
                       "from us in the last 24 hours, the most we send to an address that "
                       "has not played")
        else:
            cap = self.per_address_hour
            had = f"{cap} mail{'' if cap == 1 else 's'}" if cap else "the most mails"
            because = (f"your address had {had} from us in the last hour, the most we send "
                       "to one address in an hour")
        return f"We held {mails} to you because {because}; this is where {where} now."


def is_decision(announces: Mapping[str, Any] | None) -> bool:
    return (announces or {}).get("what") == "decision"


def same_seat(row: Outbox) -> list[Any]:
    """The conditions naming the rows to the same address about the same seat."""
    return [col(Outbox.to) == row.to,
            col(Outbox.game_id).is_(None) if row.game_id is None
            else col(Outbox.game_id) == row.game_id,
            col(Outbox.seat).is_(None) if row.seat is None else col(Outbox.seat) == row.seat]


def hold(session: Session, row: Outbox, until: datetime, why: str,
         words: str, *, tell: bool = True) -> tuple[dict[str, Any], int]:
    """Hold ``row`` until ``until``: what to write with the end of its lease (the
    caller's, in ``session``'s transaction), and how many older held rows it collapsed.

    A held decision mail (turn, reminder) is composed when it leaves, so it shows
    the position then; the older held decision mails of the same seat are
    superseded by it (one mail of the current position, not a queue of stale ones).
    Mails about something that happened (a round's end, the game's end, a notice)
    are kept: each is a fact, not a position.
    """
    assert row.id is not None
    values: dict[str, Any] = {"next_attempt_at": until, "held_until": until,
                              "held_untold": tell, "held_why": why, "last_error": words}
    collapsed = 0
    if is_decision(row.announces):
        if not composed_at_send(row):
            values["announces"] = {**(row.announces or {}), "compose": {
                "due": None, "reminder": row.kind == "reminder"}}
        older = [held_id for held_id, announces in session.exec(
            select(Outbox.id, Outbox.announces).where(
                *same_seat(row), col(Outbox.status) == PENDING,
                col(Outbox.held_until).is_not(None), col(Outbox.id) < row.id,
                col(Outbox.lease_until).is_(None))).all() if is_decision(announces)]
        if older:
            collapsed = session.exec(update(Outbox)
                                     .where(col(Outbox.id).in_(older),
                                            col(Outbox.status) == PENDING,
                                            col(Outbox.lease_until).is_(None))
                                     .values(status=SUPERSEDED, held_until=None,
                                             last_error=f"collapsed into the newer mail "
                                                        f"{row.id} while held")).rowcount
    return values, int(collapsed or 0)


def untold_addresses(engine: Engine | Session, addresses: set[str]) -> set[str]:
    """Which of ``addresses`` have held mail nobody was told of (the partial index
    ``ix_outbox_held_untold``: one probe per batch, nearly always empty); ``engine``: a
    session instead, to ask in its transaction."""
    with _session(engine) as session:
        return set(session.exec(select(Outbox.to).where(
            col(Outbox.held_untold), col(Outbox.to).in_(sorted(addresses)))).all())


def held_of_seat(engine: Engine, row: Outbox, now: datetime) -> list[tuple[int, bool]]:
    """The other held rows of ``row``'s seat that ``row`` tells of when it leaves:
    ``(id, collapse)``. Those that never left (superseded while held: the seat's
    decision changed, a newer mail replaced them) and, when ``row`` is a decision
    mail, the still-pending held decision mails it makes stale (``collapse``). A
    held mail about something that happened stays, and tells of itself."""
    with Session(engine) as session:
        found = session.exec(select(Outbox.id, Outbox.status, Outbox.announces,
                                    Outbox.lease_until).where(
            *same_seat(row), col(Outbox.held_untold), col(Outbox.id) != row.id)).all()
    told: list[tuple[int, bool]] = []
    for held_id, status, announces, lease in found:
        collapse = (status == PENDING and is_decision(announces) and is_decision(row.announces)
                    and (lease is None or as_utc(lease) < now))
        if held_id is not None and (status != PENDING or collapse):  # (stored rows have ids)
            told.append((held_id, collapse))
    return told


def why_of(engine: Engine, told: list[tuple[int, bool]]) -> str | None:
    if not told:
        return None
    with Session(engine) as session:
        return session.exec(select(Outbox.held_why).where(
            col(Outbox.id) == max(held_id for held_id, _ in told))).first()


def mark_told(engine: Engine, row: Outbox, told: list[tuple[int, bool]], now: datetime) -> int:
    """``row`` left saying that ``told`` were held: they are told, and the stale decision
    mails among them superseded; returns how many were superseded."""
    with Session(engine) as session:
        session.exec(update(Outbox)
                     .where(col(Outbox.id).in_([held_id for held_id, _ in told]))
                     .values(held_untold=False))
        stale = [held_id for held_id, collapse in told if collapse]
        superseded = 0
        if stale:
            superseded = session.exec(update(Outbox)
                                      .where(col(Outbox.id).in_(stale),
                                             col(Outbox.status) == PENDING,
                                             or_(col(Outbox.lease_until).is_(None),
                                                 col(Outbox.lease_until) < now))
                                      .values(status=SUPERSEDED, held_until=None,
                                              last_error=f"collapsed into mail {row.id}, "
                                                         "which left first")).rowcount
        session.commit()
    return int(superseded or 0)


#: Where the held-mail notice goes in an HTML mail: after the brand line of the layout.
_BRAND_LINE = re.compile(r'(<p\b[^>]*class="brand"[^>]*>.*?</p>)', re.S)


def with_notice(text: str, html: str | None, notice: str) -> tuple[str, str | None]:
    """The mail's bodies with ``notice`` under the lead (text: its first line says what
    is asked, and stays first, as in every mail: the inbox preview shows it) or under
    the brand line (HTML, whose hidden preheader is the lead)."""
    lead, gap, rest = text.partition("\n\n")
    text = (f"{lead}\n\n{notice}\n\n{rest}" if gap and "\n" not in lead
            else f"{notice}\n\n{text}")
    if html:
        paragraph = f'<p class="note"><strong>{escape(notice)}</strong></p>'
        html, found = _BRAND_LINE.subn(lambda m: m.group(1) + paragraph, html, count=1)
        if not found:
            html = paragraph + html
    return text, html
