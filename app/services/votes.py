"""What the people of a game decide together (issue 21 items 4-6): end it by agreement,
hand a seat to a substitute, play a rematch.

Long because: the three kinds share one lifecycle (start, answer, withdraw, expire, all
under the vote lock) and a substitute's guards (R51: who is asked, its subject's return,
its time to say no) must sit beside the close they guard, or a path could skip them.

A vote is started by one seat, answered once by each seat it asks (on the page, by
JSON, or by replying to its mail), and closed once: by the answer that decides it,
by its proposer withdrawing it, or by the clock at its expiry (a ``vote`` deadline
row, fired like any other: ``app.runners.timeouts``). Every change of a vote runs
under the game's vote lock (``store.lock_key``), so two last answers cannot both
miss each other; closing is one conditional UPDATE, so it happens once.

Who is asked (``Asked``):

- **abort**: every person still playing (not resigned, not away: a person who left
  cannot hold the others hostage, and R29 already ends a game where everyone is
  away). All must say yes; one no fails it; at its expiry (``ABORT_HOURS``) it
  lapses. Passed: the game stops as abandoned by agreement, its seed is shown.
- **substitute** (R51, ``docs/rules.md``): every person still playing, and the seat
  handed over itself (its person is told when the vote opens and may veto; its yes is
  its consent). One veto fails it; so does its person's return ("I'm back", a move of
  their own, a reply by mail: ``returned``), checked again at every answer and at the
  expiry, never trusted from when the vote opened. The others' yes passes a resigned
  seat's vote at once. A seat only away (not resigned) is given time to say no (issue
  45 item 4, ``Heard``): whatever the count of yes, it is not handed over before
  ``SUBSTITUTE_NOTICE_HOURS`` running hours after the vote's mail to its person left
  (held by quiet hours or a cap, the hours start when it leaves; a person who gets no
  mail, or whose mail could not leave, learns of it on their page, and the hours count
  from the vote's opening); then the next answer, or the expiry, may pass it. Its own
  yes is its consent and needs no wait. ``SUBSTITUTE_HOURS`` of running time without
  a veto passes it (later, if its person's hours are not over then: the expiry row is
  put back to when they are). Passed: the new person takes the seat over
  (``leaving.hand_over``: R49, in the same transaction). A player at the table is not
  trusted with another seat (``docs/security.md``), nor with a second one under another
  spelling of an address it holds (``addresses.same_person``).
- **rematch**: every person of the game (a rematch has the same seats; bots always
  accept). All must accept within ``REMATCH_DAYS``; one decline calls it off.
  Passed: the new game starts in the same transaction (``games.create_in``).

A vote's expiry counts the game's running days (a weekdays-only game's vote does not
lapse on a Saturday): ``LIFETIME`` of running time on the calendar of the seat it is
about (a substitute's subject; else its proposer). A substitute's expiry row is the
subject's own deadline row, so the subject's return, inside its move, moves it to now
(``app.presence.absence.record_action``) and the clock ends the vote with words.

What a vote did is told by ``app.mail.table_news`` (vote opened: each person asked, after
the grace period, while unanswered; vote closed: everyone asked but the one whose
answer closed it, who is looking at the result).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app import engine
from app.i18n import _
from app.clock import deadlines as dl
from app.config import setting
from app.db.unit import Row, Unit, unit_of_work
from app.engine.words import and_list
from app.gamelog import store
from app.mail import addresses, invitations, notify
from app.mail import table_news
from app.mail.models import PENDING
from app.table.models import (ABORT, EXPIRED, FAILED, OPEN, PASSED, REMATCH, SUBSTITUTE,
                              VOTE_KINDS, WITHDRAWN, Vote)
from app.services.errors import BadRequest, Conflict, Forbidden, NotFound, TooMany
from app.services.status_words import status_word
from app.services.repository import _load_game, move_seats
from app.table import store as table_store

log = logging.getLogger("app.services")

#: How long each kind of vote stays open, in running time (the game's running days).
ABORT_HOURS = 48
SUBSTITUTE_HOURS = 24
REMATCH_DAYS = 7
LIFETIME = {ABORT: timedelta(hours=ABORT_HOURS), SUBSTITUTE: timedelta(hours=SUBSTITUTE_HOURS),
            REMATCH: timedelta(days=REMATCH_DAYS)}
#: Votes one seat may start in a game per day (each mails everyone it asks).
STARTS_PER_DAY = 3
#: The longest name a substitute may have (as a seat's: ``games.MAX_NAME_LENGTH``).
NAME_LIMIT = 60


def notice_time() -> timedelta:
    """R51, issue 45 item 4: the running time a seat only away is given to say no, from
    when the vote's mail to its person left (``SUBSTITUTE_NOTICE_HOURS``)."""
    return timedelta(hours=float(setting("SUBSTITUTE_NOTICE_HOURS")))


@dataclass(frozen=True)
class Heard:
    """Whether a substitute's subject has had its time to say no (issue 45 item 4):
    ``enough``, and ``not_before``, the earliest moment it will have (when its mail has
    not left yet: no sooner than its time to leave plus the notice time)."""

    enough: bool
    not_before: datetime | None = None


@dataclass(frozen=True)
class Asked:
    """Who a vote asks, as the game stands: the seats whose answer counts. A
    substitute's ``subject`` (the seat handed over) is among them: its no is a veto, its
    yes its consent, and nobody waits for its answer; ``only_away``: it is away, not
    resigned (R51: it is not handed over before it has had its time to say no,
    ``Heard``)."""

    seats: tuple[int, ...]
    subject: int | None = None
    only_away: bool = False

    @property
    def voters(self) -> tuple[int, ...]:
        """The seats whose yes is needed: everyone asked but the subject."""
        return tuple(seat for seat in self.seats if seat != self.subject)

    def decide(self, vote: Vote | Row, ballots: dict[int, bool], names: list[str],
               expired: bool = False, heard: bool = True) -> tuple[str, str] | None:
        """``(status, outcome in words)`` once the vote is decided, else None.
        ``heard``: a substitute's subject has had its time to say no (``Heard``); until
        it has, neither the others' yes nor the expiry passes the vote."""
        said_no = [seat for seat in self.seats if ballots.get(seat) is False]
        if said_no:
            who = names[said_no[0]]
            verb = {ABORT: "said no", SUBSTITUTE: "vetoed it", REMATCH: "declined"}[vote.kind]
            return FAILED, f"{who} {verb}."
        agreed = all(ballots.get(seat) is True for seat in self.voters)
        if vote.kind == SUBSTITUTE:
            if heard and (agreed or expired):
                return PASSED, self.passed_words(ballots, names, agreed)
            return None
        if agreed:
            return PASSED, ("Everyone accepted." if vote.kind == REMATCH
                            else "Everyone agreed.")
        if expired:
            return EXPIRED, ("Not everyone accepted in time." if vote.kind == REMATCH
                             else "Not everyone agreed in time.")
        return None

    def passed_words(self, ballots: dict[int, bool], names: list[str], agreed: bool) -> str:
        """A passed substitute's outcome, saying who agreed and who did not answer
        (issue 45 item 2: never "Everyone agreed." when the seat's player never
        answered): "Ann and Bob agreed; Cid did not answer."."""
        said_yes = [names[seat] for seat in self.voters if ballots.get(seat) is True]
        silent = [names[seat] for seat in self.seats if seat not in ballots]
        parts = [f"{and_list(said_yes)} agreed"] if said_yes else []
        if self.subject is not None and ballots.get(self.subject) is True:
            parts.append(f"{names[self.subject]} let the seat go")
        if silent:
            parts.append(f"{and_list(silent)} did not answer")
        words = "; ".join(parts) or "nobody answered"
        return f"{words}." if agreed else f"Nobody vetoed it in time: {words}."


def asked(kind: str, seats: list[Any], state: Any, away: set[int],
          subject: int | None = None) -> Asked:
    """The seats a vote of ``kind`` asks (see the module docstring)."""
    humans = [seat.index for seat in seats if seat.kind == "human"]
    if kind == REMATCH:
        return Asked(tuple(humans))
    resigned = set(engine.status(state).get("resigned") or ())
    playing = [h for h in humans if h not in resigned and h not in away]
    if kind == SUBSTITUTE and subject is not None:
        others = tuple(h for h in playing if h != subject)
        return Asked((*others, subject), subject, only_away=subject not in resigned)
    return Asked(tuple(playing))


# -- the use cases -----------------------------------------------------------------------

def start(game_id: str, seat: int, kind: str, *, subject: int | None = None,
          name: str | None = None, email: str | None = None,
          now: datetime | None = None) -> Vote:
    """``seat`` starts a vote of ``kind`` (its own answer is yes); returns it, as it
    stands after (a vote nobody else is asked by is decided at once)."""
    if kind not in VOTE_KINDS:
        raise BadRequest(_("A vote is about ending the game (abort), a substitute for a "
                         "seat, or a rematch."))
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        held = _locked(unit, game_id, since=now - timedelta(days=1))
        game, seats = held.game, held.seats
        _end_if_returned(held, seat, now)
        _may_start(held, seat, kind, subject)
        if kind == SUBSTITUTE:
            name, email = _substitute(unit.session, seats, subject, name, email, now)
        about = subject if kind == SUBSTITUTE and subject is not None else seat
        step = int(engine.status(held.state).get("step") or 0)
        unit.write()  # (a vote ended just now: closed before the new one is open)
        try:
            vote = table_store.begin(unit, {
                "game_id": game.id, "kind": kind, "seat": seat, "subject_seat": subject,
                "name": name, "email": email, "status": OPEN, "step": step,
                "started_at": now,
                "expires_at": held.ctx.calendar(about).due(now, LIFETIME[kind])})
        except IntegrityError:  # (the lock makes this rare: another vote won the race)
            raise Conflict(_("Another vote of this game is open: answer it first."),
                           reason="vote_open") from None
        held.votes.open, held.votes.ballots = vote, {seat: True}
        table_store.answer(unit, vote, seat, True, now, "page")
        # (a substitute's expiry is its subject's row: its return moves it, R51)
        expiry = dl._new_row(game.id, about, dl.VOTE, vote.expires_at, step, now)
        dl.changes(unit).open([{**expiry, "ref_id": vote.id}])
        who = asked(kind, seats, held.state, held.away, subject)
        if not _settle(held, vote, who, now, closer=seat):
            hours = notice_time() / timedelta(hours=1) if who.only_away else None
            told = table_store.as_vote(vote)
            for each in who.seats:
                if each != seat:
                    table_news.vote_opened(unit, held.ctx, each, told, now,
                                           notice_hours=hours)
        unit.write()
        return table_store.as_vote(vote)


def answer(game_id: str, seat: int, vote_id: int | None, yes: bool, *, source: str = "page",
           now: datetime | None = None) -> Vote:
    """``seat`` answers the game's open vote (``vote_id``: the one it answers; None:
    whichever is open, as a reply by mail says). Once: a second answer is refused with
    words. Returns the vote as it stands after."""
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        held = _locked(unit, game_id)
        vote, seats = held.votes.open, held.seats
        if vote is None or (vote_id is not None and vote.id != vote_id):
            closed = table_store.vote_row(unit.session, vote_id) if vote_id is not None else None
            if closed is not None and closed.game_id == held.game.id:
                raise Conflict(f"This vote is over: {closed.outcome or closed.status}",
                               reason="vote_closed")
            raise NotFound(_("There is no open vote in this game."), reason="no_vote")
        who = asked(vote.kind, seats, held.state, held.away, vote.subject_seat)
        gone = returned(unit.session, held.game, vote, held.state, held.away, held.names)
        if gone is not None:  # R51: checked again at every answer
            _close(held, vote, who, FAILED, gone, now, closer=seat)
            unit.write()
            return table_store.as_vote(vote)
        if seat not in who.seats:
            raise Forbidden(_not_asked(vote, seat, seats), reason="not_asked")
        if seat in held.votes.ballots:
            raise Conflict(_("You answered this vote already; each person answers once."),
                           reason="answered")
        table_store.answer(unit, vote, seat, bool(yes), now, source)
        held.votes.ballots[seat] = bool(yes)
        _settle(held, vote, who, now, closer=seat)
        unit.write()
        return table_store.as_vote(vote)


def withdraw(game_id: str, seat: int, vote_id: int, now: datetime | None = None) -> Vote:
    """The proposer withdraws its open vote; everyone asked is told."""
    now = dl.as_utc(now or dl.now())
    with unit_of_work() as unit:
        held = _locked(unit, game_id)
        vote, seats = held.votes.open, held.seats
        if vote is None or vote.id != vote_id:
            raise NotFound(_("There is no such open vote in this game."), reason="no_vote")
        if vote.seat != seat:
            raise Forbidden(_("Only the player who started a vote can withdraw it."),
                            reason="not_proposer")
        who = asked(vote.kind, seats, held.state, held.away, vote.subject_seat)
        _close(held, vote, who, WITHDRAWN, f"{seats[seat].name} withdrew it.", now,
               closer=seat)
        unit.write()
        return table_store.as_vote(vote)


def expire(vote_id: int, now: datetime) -> str:
    """The clock: a vote's expiry row is due. Decided as its kind says (a substitute
    nobody vetoed passes; an abort or a rematch not everyone accepted lapses), after
    checking again that a substitute's subject is still away or resigned (R51: its
    return, which moved the row to now, fails it). A row due before the vote's
    ``expires_at`` decides only what the answers decide, and is put back otherwise.
    Returns what happened, for the clock's report."""
    now = dl.as_utc(now)
    with unit_of_work() as unit:
        found = table_store.vote_row(unit.session, vote_id)
        if found is None:
            return "gone"
        held = _locked(unit, found.game_id)
        vote = held.votes.open
        if vote is None or vote.id != vote_id:
            dl.close_vote_expiry(unit.session, vote_id, now, "closed")
            return "closed already"
        who = asked(vote.kind, held.seats, held.state, held.away, vote.subject_seat)
        gone = returned(unit.session, held.game, vote, held.state, held.away, held.names)
        if gone is not None:
            _close(held, vote, who, FAILED, gone, now, closer=None)
            unit.write()
            return FAILED
        early = now < dl.as_utc(vote.expires_at)
        ballots = held.votes.ballots
        heard = _heard(held, vote, who, ballots, now)
        decided = who.decide(vote, ballots, held.names, expired=not early, heard=heard.enough)
        if decided is None:  # fired early, or its subject's time to say no is not over
            again = dl.as_utc(vote.expires_at) if early else heard.not_before
            if again is None or again <= now:  # (not expected: look again in an hour)
                again = now + timedelta(hours=1)
            if again > dl.as_utc(vote.expires_at):  # the pages say until when it is open
                unit.update(vote, expires_at=again)
            unit.statement(update(dl.Deadline).where(
                col(dl.Deadline.kind) == dl.VOTE, col(dl.Deadline.ref_id) == vote.id,
                col(dl.Deadline.done_at).is_(None)).values(due_at=again))
            unit.write()
            return "not yet"
        _close(held, vote, who, *decided, now, closer=None)
        unit.write()
        return decided[0]


def returned(session: Session, game: Any, vote: Vote | Row, state: Any, away: set[int],
             names: list[str]) -> str | None:
    """R51: why a substitute vote no longer holds, in words, else None: the game stopped,
    or its subject (not resigned) is playing again, or came back since the vote opened
    (a ``back`` or a move of its own in the log after the vote's step, even if it went
    away again since). Asked at every answer and at the expiry, never trusted from
    when the vote opened."""
    if vote.kind != SUBSTITUTE or vote.subject_seat is None:
        return None
    subject = vote.subject_seat
    who = names[subject] if 0 <= subject < len(names) else "The seat's player"
    if game.status != "running":
        return f"The game is {game.status}, so the seat stays {who}'s."
    if subject in set(engine.status(state).get("resigned") or ()):
        return None  # resigned (R48): only a veto keeps the seat
    if subject not in away:
        return came_back_words(who)
    own = session.exec(select(store.Action).where(
        store.Action.game_id == game.id, store.Action.seat == subject,
        col(store.Action.seq) > vote.step,
        col(store.Action.source).in_(("player", "mail")))).all()
    if any(row.action.get("type") not in ("away", "resign") for row in own):
        return came_back_words(who)
    return None


def came_back_words(who: str) -> str:
    """Why a substitute vote failed when its subject came back: its outcome, and what the
    pages show of it from the return on (``table.box``), before the clock closes it."""
    return f"{who} came back, so the seat stays {who}'s."


# -- inside the vote's transaction --------------------------------------------------------

@dataclass
class _Held:
    """A game as a vote's transaction holds it, under the game's vote lock: the game,
    its step, seats and state, the seats away, its votes (``table.store.votes_now``),
    and the context its mails are composed in (on the same unit: no statement more)."""

    unit: Unit
    game: Any
    seq: int
    seats: list[store.SeatRow]
    state: Any
    away: set[int]
    votes: table_store.Votes
    _ctx: notify.Context | None = None

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def ctx(self) -> notify.Context:
        if self._ctx is None:
            self._ctx = notify.Context.load(self.unit, self.game)
        return self._ctx


def _locked(unit: Unit, game_id: str, since: datetime | None = None) -> _Held:
    """The game under its vote lock, read as a move reads it (its seats with their mail,
    clock and person rows, and the game, in one statement when this worker holds its
    state: ``reading.game_with_seats``), and its votes in one more (``since``: with
    those started since then)."""
    if not store.lock_key(unit.session, f"vote:{game_id}"):
        raise Conflict(_("The game is busy with another vote; please try again."), reason="busy")
    seats = move_seats(unit, str(game_id))
    game, seq, state = _load_game(unit, str(game_id))
    away = {s.index for s in seats
            if (clock := dl.clock_row(unit, game.id, s.index)) is not None and clock.absent}
    return _Held(unit, game, seq, seats, state, away,
                 table_store.votes_now(unit.session, game.id, since))


def _may_start(held: _Held, seat: int, kind: str, subject: int | None) -> None:
    """Refuse, in words, a vote this seat may not start now."""
    game, seats, away = held.game, held.seats, held.away
    if not 0 <= seat < len(seats) or seats[seat].kind != "human":
        raise Forbidden(_("Only the game's people can start a vote."), reason="not_a_person")
    resigned = set(engine.status(held.state).get("resigned") or ())
    if kind == REMATCH:
        if game.status != "over":
            raise Conflict(_("A rematch can be offered once the game is over."), reason="running")
        later = held.unit.session.exec(select(store.Game.id).where(
            col(store.Game.rematch_of) == game.id)).first()
        if later is not None:
            raise Conflict(_("The rematch of this game has started already."),
                           reason="rematch_started", game_id=later)
    else:
        if game.status != "running":
            raise Conflict(_("The game is %(status)s: there is nothing to vote on.",
                             status=status_word(game.status)),
                           reason=game.status)
        if kind == ABORT and (seat in resigned or seat in away):
            raise Forbidden(_("Only a player still playing can ask to end the game; press "
                              "“I'm back” first.") if seat in away else
                            _("You resigned, so ending the game is for the others to decide."),
                            reason="not_playing")
        if kind == SUBSTITUTE:
            if not isinstance(subject, int) or not 0 <= subject < len(seats) \
                    or seats[subject].kind != "human":
                raise BadRequest(_("Choose the seat to hand over: one of the people's seats."))
            if subject not in resigned and subject not in away:
                raise Conflict(_("%(name)s is still playing: only a seat that is away or "
                                 "resigned can be handed to someone else.",
                                 name=seats[subject].name),
                               reason="still_playing")
            if seat != subject and (seat in resigned or seat in away):
                raise Forbidden(_("Only a player still playing (or the seat itself) can "
                                "propose a substitute."), reason="not_playing")
    if held.votes.open is not None:
        raise Conflict(_("Another vote of this game is open: answer it first."),
                       reason="vote_open")
    started = [row for row in held.votes.started if row.seat == seat]
    if len(started) >= STARTS_PER_DAY:
        raise TooMany(_("You started %(num)s votes in this game in the last day, and "
                        "each one mails everyone: please wait before starting another.",
                        num=len(started)),
                      reason="votes")


def _substitute(session: Session, seats: list[store.SeatRow], subject: int | None,
                name: str | None, email: str | None, now: datetime) -> tuple[str, str]:
    """The substitute's name and address, checked as the lobby checks a player's."""
    clean = " ".join(str(name or "").split())
    if not clean:
        raise BadRequest(_("Give the substitute's name."))
    if len(clean) > NAME_LIMIT or any(ord(c) < 32 or ord(c) == 127 for c in clean):
        raise BadRequest(_("The substitute's name: at most %(most)s characters, typed "
                           "plainly.", most=NAME_LIMIT))
    if any(s.name.casefold() == clean.casefold() for s in seats if s.index != subject):
        raise BadRequest(_("Another player is called %(name)s; please tell them apart.",
                           name=clean))
    try:
        address = addresses.normalise(str(email or ""))
    except addresses.BadAddress as exc:
        raise BadRequest(_("The substitute's address does not look right: %(why)s",
                           why=exc)) from None
    for held in seats:
        if not held.email or not addresses.same_person(held.email, address):
            continue
        if held.email.casefold() == address.casefold():
            raise BadRequest(_("%(address)s already holds a seat of this game: one address "
                               "holds one seat.", address=address))
        raise BadRequest(_("%(address)s is the address of someone who already holds a seat "
                           "of this game, written another way (a +tag or capitals reach the "
                           "same inbox): one person holds one seat.", address=address))
    why = invitations.why_not_mailed(session, address, now)
    if why == invitations.REFUSED:
        raise BadRequest(_("%(address)s asked for no more invitations, so it cannot be "
                           "handed a seat.", address=address))
    if why == invitations.STRANGER_DAY:
        raise BadRequest(_("%(address)s has not played here yet and had as much mail from "
                           "us today as we send to a new address: try again tomorrow.",
                           address=address))
    return clean, address


def _settle(held: _Held, vote: Row, who: Asked, now: datetime, closer: int | None) -> bool:
    """Close the vote if its answers decide it; returns whether it closed."""
    ballots = held.votes.ballots
    decided = who.decide(vote, ballots, held.names,
                         heard=_heard(held, vote, who, ballots, now).enough)
    if decided is None:
        return False
    _close(held, vote, who, *decided, now, closer=closer)
    return True


def _close(held: _Held, vote: Row, who: Asked, status: str, outcome: str, now: datetime,
           closer: int | None) -> None:
    """Close ``vote`` (read open under the game's vote lock, which every change of a
    vote takes: so it closes once), do what it decided, tell everyone asked but
    ``closer``; queued on the vote's unit."""
    unit = held.unit
    unit.update(vote, status=status, outcome=outcome, closed_at=now)
    held.votes.open = None
    dl.close_open(unit, held.game.id, now, status, kinds=(dl.VOTE,))  # (its expiry row)
    if status == PASSED:
        _carry_out(held, vote, now)
    if status == PASSED and vote.kind in (SUBSTITUTE, REMATCH):
        return  # told by what it did: the take-over notices, the rematch's invitations
    told = (s.index for s in held.seats if s.kind == "human") if vote.kind == ABORT \
        and status == PASSED else (*who.seats, vote.seat)
    closed = table_store.as_vote(vote)
    for each in sorted(set(told)):
        if each != closer:
            table_news.vote_closed(unit, held.ctx, each, closed, now)


def _carry_out(held: _Held, vote: Row, now: datetime) -> None:
    """What a vote that passed decided, in its transaction."""
    from app.services import leaving, series  # (the use cases built on the votes)

    unit, game = held.unit, held.game
    if vote.kind == ABORT:
        store.set_status(unit, game, "abandoned", reason="agreement")
        dl.close_open(unit, game.id, now, "abandoned",
                      kinds=(dl.DECISION, dl.REMINDER, dl.DIGEST))
    elif vote.kind == SUBSTITUTE:
        assert vote.subject_seat is not None and vote.name and vote.email
        leaving.hand_over(unit, game.id, vote.subject_seat, vote.name, vote.email, now,
                          held=(game, held.seq, held.state, held.seats))
    else:
        created = series.rematch(unit, game)
        unit.update(vote, new_game_id=created.game_id)


def _heard(held: _Held, vote: Row, who: Asked, ballots: dict[int, bool],
           now: datetime) -> Heard:
    """R51, issue 45 item 4: whether a substitute's subject has had its time to say no:
    ``notice_time()`` of running time (the game's running days, the subject's calendar)
    since the vote's mail to it left (``Outbox.sent_at``). A mail still waiting (the
    grace period, quiet hours, a cap) has not told it anything yet. A subject that gets
    no mail (it asked for none, or has no address), or whose mail will not leave (a
    stop, a refusal), is told by its page only: its hours count from the vote's opening,
    which is what it would have had with mail sent at once. A resigned subject (R48) and
    one that said yes itself need no wait. Any return meanwhile fails the vote
    (``returned``)."""
    subject = who.subject
    if vote.kind != SUBSTITUTE or subject is None or not who.only_away \
            or ballots.get(subject) is True:
        return Heard(True)
    wait = notice_time()
    if wait <= timedelta(0):  # (an operator who set SUBSTITUTE_NOTICE_HOURS to 0)
        return Heard(True)
    calendar = held.ctx.calendar(subject)
    mail = table_news.vote_mail(held.unit.session, vote.id, subject)
    if mail is not None and mail.sent_at is None and mail.status == PENDING:
        leaves = max(dl.as_utc(mail.next_attempt_at), now)
        return Heard(False, calendar.due(leaves, wait))
    since = dl.as_utc(mail.sent_at if mail is not None and mail.sent_at is not None
                      else vote.started_at)
    return Heard(calendar.used(since, now) >= wait, calendar.due(since, wait))


def _end_if_returned(held: _Held, starter: int, now: datetime) -> None:
    """Before a new vote: an open substitute vote whose subject came back ends now, in
    words (the clock would end it at its next tick: ``returned``), so that the pages,
    which already show it ended (``table.box``), and a new vote agree."""
    vote = held.votes.open
    if vote is None:
        return
    gone = returned(held.unit.session, held.game, vote, held.state, held.away, held.names)
    if gone is not None:
        _close(held, vote, asked(vote.kind, held.seats, held.state, held.away,
                                 vote.subject_seat),
               FAILED, gone, now, closer=starter)


def _not_asked(vote: Row, seat: int, seats: list[store.SeatRow]) -> str:
    return ("This vote asks the players still playing; you resigned or are away "
            "(press “I'm back” to play again)." if vote.kind != REMATCH
            else "This vote asks the game's people only.")
