"""The table's people and clocks as one seat (or a spectator) sees them (issue 21): each
seat's deadline and time bank, the days given, the open vote and the past ones, what
this seat may do (resign, give a day, start or answer a vote, offer a rematch) and the
series score. Read only, on the caller's session; JSON-safe: the seat page and the
spectator page render it (``partials/seat_table.html``), ``GET /api/play/<token>/table``
returns it. The use cases that change these are ``people``, ``votes`` and ``series``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Sequence

from sqlalchemy import func
from sqlmodel import Session, col, select

from app import engine
from app import i18n
from app.i18n import _, forms
from app.access import tokens
from app.clock import deadlines as dl
from app.clock.time import iso_in
from app.engine.names import SeatNames
from app.gamelog import store
from app.mail import table_news
from app.people import away
from app.people.models import Person
from app.table.models import Ballot, Gift, Vote
from app.services import more_time, votes
from app.services.series import series_score
from app.people.calendar import person_calendar, zone_of


@dataclass
class Rows:
    """What the people box shows beyond the game, each table read once (issue 33): the
    seats' clock rows, the open decisions, the days given, every vote and every ballot
    of the game, and the person holding each seat (their zone and quiet hours count
    the banks). The seat page's presenter reads them with the rest of the page."""

    clocks: dict[int, dl.SeatClock]
    decisions: list[dl.Deadline]
    gifts: list[Gift]
    votes: list[Vote]  # newest first
    ballots: list[Ballot]  # of every vote of the game
    persons: dict[int, Any] = field(default_factory=dict)  # seat -> person row (or None)

    @property
    def news(self) -> int:
        """What the ``/seq`` probe counts (``table.store.news``), from the rows held."""
        return (len(self.votes) + sum(1 for v in self.votes if v.status != "open")
                + len(self.ballots) + len(self.gifts))


def read_rows(session: Session, game_id: str, decisions: list[dl.Deadline] | None = None,
              persons: dict[int, Any] | None = None) -> Rows:
    """The rows of ``Rows``, one statement per table (``decisions`` and ``persons``: the
    caller read them already; without ``persons`` the seats' holders are read too)."""
    game_id = str(game_id)
    clocks = {row.seat: row for row in session.exec(select(dl.SeatClock).where(
        dl.SeatClock.game_id == game_id))}
    if decisions is None:
        decisions = dl.open_rows(session, game_id, kind=dl.DECISION)
    every_vote = list(session.exec(select(Vote).where(Vote.game_id == game_id)
                                   .order_by(col(Vote.id).desc())))
    ballots = list(session.exec(select(Ballot).join(Vote, col(Ballot.vote_id) == col(Vote.id))
                                .where(Vote.game_id == game_id)))
    if persons is None:
        persons = holders(session, game_id)
    return Rows(clocks, decisions, more_time.gifts(session, game_id), every_vote, ballots,
                persons)


def holders(session: Session, game_id: str) -> dict[int, Any]:
    """The person row holding each human seat of the game (one statement)."""
    found = session.exec(select(store.Seat.index, Person).join(
        Person, func.lower(col(Person.address)) == func.lower(col(store.Seat.email)))
        .where(store.Seat.game_id == game_id, store.Seat.kind == "human")).all()
    return {int(index): person for index, person in found}


def read(session: Session, info: Any, seat: int | None, state: Any, zone: str = "UTC",
         now: datetime | None = None, decisions: list[dl.Deadline] | None = None
         ) -> dict[str, Any]:
    """The table's people and clocks as a seat (None: a spectator) sees them, read only
    on the caller's session (``read_rows``, then ``box``). JSON-safe: the page renders
    it, ``GET /api/play/<token>/table`` returns it."""
    return box(read_rows(session, str(info.id), decisions), info, seat, state, zone,
               now, session)


@dataclass
class _Seen:
    """What every part of the box needs: the game, the viewer, the rows, the zone."""

    info: Any
    seat: int | None
    state: Any
    rows: Rows
    status: dict[str, Any]
    settings: dl.ClockSettings
    zone: Any
    now: datetime

    @property
    def resigned(self) -> set[int]:
        return set(self.status.get("resigned") or ())

    @property
    def away(self) -> set[int]:
        return {index for index, row in self.rows.clocks.items() if row.absent}

    @property
    def deciding(self) -> dict[int, dl.Deadline]:
        return {row.seat: row for row in reversed(self.rows.decisions)}  # (earliest per seat)

    @property
    def playing(self) -> bool:
        """The viewer is a person still playing a running game (not resigned, not away)."""
        seat = self.seat
        return (seat is not None and self.info.status == "running"
                and self.info.seats[seat].kind == "human" and seat not in self.resigned
                and seat not in self.away)

    @property
    def open_vote(self) -> Vote | None:
        """The game's open vote, unless it is a substitute vote whose subject came back
        (``ended_by_return``)."""
        return next((v for v in self.rows.votes if v.status == "open"
                     and self.ended_by_return(v) is None), None)

    def ended_by_return(self, vote: Vote) -> str | None:
        """R51, issue 45 item 2: an open substitute vote whose subject is playing again
        ("I'm back", a move of their own) has ended, though the clock closes it (in
        words, with its mails: ``votes.expire``) only at its next tick: from the return
        on, every page shows it ended, with no button to answer. The words it will
        close with; None for any other vote. (A subject that came back and said away
        again before that tick is found by the vote's next answer or the clock.)"""
        subject = vote.subject_seat
        if vote.status != "open" or vote.kind != "substitute" or subject is None \
                or not 0 <= subject < len(self.info.seats) \
                or subject in self.resigned or subject in self.away:
            return None
        return votes.came_back_words(self.info.names[subject])

    def when(self, moment: datetime | None) -> str | None:
        return _local(moment, self.zone) if moment is not None else None


def box(rows: Rows, info: Any, seat: int | None, state: Any, zone: str = "UTC",
        now: datetime | None = None, session: Session | None = None,
        standing: dict[int, Any] | None = None) -> dict[str, Any]:
    """The people box from ``rows``: each seat's deadline and bank (everyone sees them),
    the days given, the open vote and the past ones, what this seat may do about them
    (resign, give time, start or answer a vote, offer a rematch) and the series score
    (``session``: read only in a series or after a rematch); ``standing``: each seated
    person's standing line (``services.standing.line``, issue 47), by seat."""
    seen = _Seen(info, seat, state, rows, engine.status(state),
                 dl.ClockSettings.from_options(info.options), zone_of(zone),
                 dl.as_utc(now or dl.now()))
    rematch = _rematch(seen, session)
    in_series = info.series_id is not None or rematch["game_id"] is not None
    series = (series_score(str(info.id), session)  # (app.services.series)
              if in_series and session is not None else None)
    vote = seen.open_vote
    running = info.status == "running"
    humans = [s.index for s in info.seats if s.kind == "human"]
    return {
        "clock": {"words": seen.settings.words(), "banked": seen.settings.banked,
                  "more_time_per_round": seen.settings.more_time_per_round},
        "seats": [{**_seat_row(seen, each),
                   "standing": (standing or {})[each.index].public()
                   if each.index in (standing or {}) else None} for each in info.seats],
        "gifts": [_gift(seen, g) for g in rows.gifts],
        "more_time": _more_time(seen),
        "may_resign": bool(seen.playing and seen.status.get("phase") != "over"),
        "resigned": seat in seen.resigned if seat is not None else False,
        "vote": _open_box(seen, vote) if vote is not None else None,
        "votes": [_past(seen, v) for v in rows.votes
                  if v.status != "open" or seen.ended_by_return(v) is not None],
        "may_abort": bool(seen.playing and vote is None),
        "substitutes": ([s for s in humans if (s in seen.resigned or s in seen.away)]
                        if running and vote is None and seat is not None
                        and (seen.playing or seat in seen.resigned or seat in seen.away)
                        else []),
        # R51: a seat only away is not handed over sooner than this after its player's mail
        "notice_hours": _notice_hours(),
        "rematch": rematch,
        "series": series.public() if series is not None else None,
        "ended": info.end_reason,
        # what the /seq probe counts: an open page redraws itself when it grows
        "news": rows.news,
    }


def _seat_row(seen: _Seen, each: Any) -> dict[str, Any]:
    """One seat's line: its deadline (in the viewer's zone) and bank."""
    row = seen.deciding.get(each.index)
    due = dl.as_utc(row.due_at) if row is not None else None
    return {"seat": each.index, "name": each.name, "kind": each.kind,
            "due": iso_in(due, seen.zone) if due else None, "due_words": seen.when(due),
            "bank": _bank(seen, each.index) if seen.settings.banked else None,
            "resigned": each.index in seen.resigned, "away": each.index in seen.away,
            **_travelling(seen, each)}


def _travelling(seen: _Seen, each: Any) -> dict[str, Any]:
    """Issue 47 item 5: until when the seat's clock stands still (its own vacation in
    this game, or its person away from all their games), in the viewer's zone; never
    who they are beyond the seat's name."""
    until = away.seat_paused_until(seen.rows.clocks.get(each.index),
                                   seen.rows.persons.get(each.index), seen.settings,
                                   seen.now)
    if until is None:
        return {"travelling_until": None, "travelling_words": None}
    return {"travelling_until": iso_in(until, seen.zone),
            "travelling_words": _("%(name)s is travelling until %(when)s", name=each.name,
                                         when=seen.when(until))}


def _gift(seen: _Seen, gift: Gift) -> dict[str, Any]:
    return {"giver": gift.giver, "receiver": gift.receiver, "round": gift.round,
            "at": iso_in(gift.at, seen.zone),
            "words": _gift_words(gift, then(seen.info.names, gift.step), seen.when)}


def _more_time(seen: _Seen) -> dict[str, Any]:
    """How many days the viewer may still give this round, and to whom."""
    seat, seats = seen.seat, seen.info.seats
    if not seen.playing or seat is None:
        return {"left": 0, "to": []}
    round_no = int(seen.status.get("round") or 0)
    left = max(0, seen.settings.more_time_per_round - sum(
        1 for g in seen.rows.gifts if g.giver == seat and g.round == round_no))
    return {"left": left,
            "to": [each for each in seen.deciding if each != seat
                   and seats[each].kind == "human" and each not in seen.resigned]
            if left else []}


def _open_box(seen: _Seen, vote: Vote) -> dict[str, Any]:
    """The open vote: what it asks, until when, who answered, what the viewer may do."""
    seat = seen.seat
    answers = {b.seat: b.yes for b in seen.rows.ballots if b.vote_id == vote.id}
    who = votes.asked(vote.kind, list(seen.info.seats), seen.state, seen.away,
                      vote.subject_seat)
    asked = who.seats
    return {"id": vote.id, "kind": vote.kind, "by": vote.seat,
            "words": table_news.vote_words(vote, then(seen.info.names, vote.step)),
            "expires": iso_in(vote.expires_at, seen.zone),
            "expires_words": seen.when(dl.as_utc(vote.expires_at)),
            "asked": list(asked),
            "answers": {str(k): v for k, v in answers.items()},
            "waiting_for": [seen.info.names[s] for s in asked if s not in answers],
            "mine": answers.get(seat) if seat is not None else None,
            "may_answer": seat in asked and seat not in answers,
            "may_withdraw": seat == vote.seat,
            # R51: its subject is only away: not handed over sooner than this many
            # running hours after the vote's mail to its player left (None: no wait)
            "notice_hours": _notice_hours() if who.only_away else None}


def _notice_hours() -> float:
    return votes.notice_time() / timedelta(hours=1)


def _past(seen: _Seen, vote: Vote) -> dict[str, Any]:
    ended = seen.ended_by_return(vote)  # (still open in the store until the clock's tick)
    return {"id": vote.id, "kind": vote.kind, "status": "failed" if ended else vote.status,
            "words": table_news.vote_words(vote, then(seen.info.names, vote.step)),
            "outcome": ended or vote.outcome,
            "closed_words": seen.when(dl.as_utc(vote.closed_at)) if vote.closed_at else None,
            "new_game_id": vote.new_game_id}


def _rematch(seen: _Seen, session: Session | None) -> dict[str, Any]:
    """Whether the viewer may offer a rematch, and the rematch's game and seat link."""
    seat, info = seen.seat, seen.info
    later = next((v.new_game_id for v in seen.rows.votes if v.kind == "rematch"
                  and v.status == "passed" and v.new_game_id), None)
    link = None
    if later is not None and seat is not None and session is not None:
        link = f"/play/{tokens.seat_token(later, seat, _version(session, later, seat))}"
    return {"may_offer": (seat is not None and info.status == "over"
                          and seen.open_vote is None and later is None
                          and info.seats[seat].kind == "human"),
            "game_id": later, "seat_link": link, "rematch_of": info.rematch_of}


def about_me(table: dict[str, Any] | None, seat: int) -> dict[str, Any] | None:
    """The table as ``seat`` sees it, its open vote marked ``about_you`` when it is a
    substitute vote for this very seat (R51: its person is asked, may veto, and is
    shown it first): the asked seat that is away or resigned is the subject, since
    everyone else asked is still playing."""
    vote = (table or {}).get("vote")
    if table is not None and vote is not None and vote.get("kind") == "substitute":
        row = next((r for r in table.get("seats") or () if r.get("seat") == seat), None)
        vote["about_you"] = bool(seat in (vote.get("asked") or ()) and row is not None
                                 and (row.get("away") or row.get("resigned")))
    return table


def then(names: Sequence[str], step: int) -> list[str]:
    """The names of whoever held each seat at ``step`` (issue 32, R49): what a gift, a
    vote or a ballot of that step is shown with, on the pages, in the JSON and the mail."""
    return names.at_step(step) if isinstance(names, SeatNames) else list(names)


def _bank(seen: _Seen, seat: int) -> dict[str, Any]:
    """What is left of a seat's bank now: while its decision runs past its budget, the
    bank runs down live (everyone sees the same), counted by its holder's calendar."""
    left = seen.settings.bank_left(seen.rows.clocks.get(seat))
    row = seen.deciding.get(seat)
    if row is not None and row.budget_seconds is not None:
        calendar = person_calendar(seen.rows.persons.get(seat), seen.settings)
        taken = calendar.used(dl.as_utc(row.opened_at), seen.now)
        over = taken - timedelta(seconds=int(row.budget_seconds))
        left = max(left - max(over, timedelta(0)), timedelta(0))
    return {"seconds": int(left.total_seconds()), "words": dl.span_words(left)}


def _gift_words(gift: Gift, names: list[str], when: Any) -> str:
    if gift.due_after:
        return _("%(giver)s gave %(receiver)s one more day (round %(round)s): due %(when)s",
                 giver=names[gift.giver], receiver=names[gift.receiver], round=gift.round,
                 when=when(gift.due_after))
    return _("%(giver)s gave %(receiver)s one more day (round %(round)s)",
             giver=names[gift.giver], receiver=names[gift.receiver], round=gift.round)


def _version(session: Session, game_id: str, seat: int) -> int:
    row = session.get(store.Seat, (game_id, seat))
    return row.token_version if row is not None else 1


def _local(moment: datetime, zone: Any) -> str:
    local = dl.as_utc(moment).astimezone(zone)
    if i18n.current() != i18n.DEFAULT:  # the reader's language: CLDR's form (issue 50)
        return forms.short_when(local, local.tzinfo)
    return f"{local:%a} {local.day} {local:%b, %H:%M} {local.tzname() or 'UTC'}"
