"""The table's people and clocks as one seat (or a spectator) sees them (issue 21): each
seat's deadline and time bank, the days given, the open vote and the past ones, what
this seat may do (resign, give a day, start or answer a vote, offer a rematch) and the
series score. Read only, on the caller's session; JSON-safe: the seat page and the
spectator page render it (``partials/seat_people.html``), ``GET /api/play/<token>/table``
returns it. The use cases that change these are ``people``, ``votes`` and ``series``.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Sequence

from sqlmodel import Session, select

from app import engine
from app.access import tokens
from app.clock import deadlines as dl
from app.clock.time import iso_in
from app.engine.names import SeatNames
from app.gamelog import store
from app.mail import notify
from app.mail import people as people_mail
from app.people import store as people_store
from app.people.models import Gift
from app.services import people, votes
from app.services.series import series_score


def read(session: Session, info: Any, seat: int | None, state: Any, zone: str = "UTC",
          now: datetime | None = None, decisions: list[dl.Deadline] | None = None
          ) -> dict[str, Any]:
    """The table's people and clocks as a seat (None: a spectator) sees them, read only
    on the caller's session: each seat's deadline and bank (everyone sees them), the
    days given, the open vote and the past ones, what this seat may do about them
    (resign, give time, start or answer a vote, offer a rematch) and the series score.
    JSON-safe: the page renders it, ``GET /api/play/<token>/table`` returns it.

    ``info`` is the page's ``GameInfo`` (its seats and status, read already) and
    ``decisions`` the open decision rows the page read for its clocks, so this reads
    only what is its own: the seats' clock rows, the days given, the votes (one query:
    the open one is among them, and a rematch's game is its vote's), and their ballots
    while one is open."""
    now = dl.as_utc(now or dl.now())
    game_id = str(info.id)
    seats = list(info.seats)
    names = info.names  # (and who held each seat before: issue 32, ``then``)
    status = engine.status(state)
    resigned = set(status.get("resigned") or ())
    settings = dl.ClockSettings.from_options(info.options)
    clocks = {row.seat: row for row in session.exec(select(dl.SeatClock).where(
        dl.SeatClock.game_id == game_id))}
    away = {index for index, row in clocks.items() if row.absent}
    if decisions is None:
        decisions = dl.open_rows(session, game_id, kind=dl.DECISION)
    deciding = {row.seat: row for row in reversed(decisions)}  # (earliest per seat)
    tz = notify.zone_of(zone)
    running = info.status == "running"
    me_playing = (seat is not None and running and seats[seat].kind == "human"
                  and seat not in resigned and seat not in away)

    def when(moment: datetime | None) -> str | None:
        return _local(moment, tz) if moment is not None else None

    rows = []
    for each in seats:
        due = dl.as_utc(deciding[each.index].due_at) if each.index in deciding else None
        rows.append({"seat": each.index, "name": each.name, "kind": each.kind,
                     "due": iso_in(due, tz) if due else None, "due_words": when(due),
                     "bank": (_bank(session, game_id, each.index, settings, clocks,
                                    deciding, now) if settings.banked else None),
                     "resigned": each.index in resigned, "away": each.index in away})
    given = people.gifts(session, game_id)
    round_no = int(status.get("round") or 0)
    days_left = 0
    if me_playing and seat is not None:
        days_left = max(0, settings.more_time_per_round - sum(
            1 for g in given if g.giver == seat and g.round == round_no))
    every_vote = votes.history(session, game_id)
    vote = next((v for v in every_vote if v.status == "open"), None)
    open_box = None
    if vote is not None and vote.id is not None:
        answers = votes.ballots_of(session, vote.id)
        asked = votes.asked(vote.kind, seats, state, away, vote.subject_seat).seats
        open_box = {"id": vote.id, "kind": vote.kind, "by": vote.seat,
                    "words": people_mail.vote_words(vote, then(names, vote.step)),
                    "expires": iso_in(vote.expires_at, tz),
                    "expires_words": when(dl.as_utc(vote.expires_at)),
                    "asked": list(asked),
                    "answers": {str(k): v for k, v in answers.items()},
                    "waiting_for": [names[s] for s in asked if s not in answers],
                    "mine": answers.get(seat) if seat is not None else None,
                    "may_answer": seat in asked and seat not in answers,
                    "may_withdraw": seat == vote.seat}
    past = [{"id": v.id, "kind": v.kind, "status": v.status,
             "words": people_mail.vote_words(v, then(names, v.step)), "outcome": v.outcome,
             "closed_words": when(dl.as_utc(v.closed_at)) if v.closed_at else None,
             "new_game_id": v.new_game_id}
            for v in every_vote if v.status != "open"]
    later = next((v.new_game_id for v in every_vote if v.kind == "rematch"
                  and v.status == "passed" and v.new_game_id), None)
    rematch = {
        "may_offer": (seat is not None and info.status == "over" and vote is None
                      and later is None and seats[seat].kind == "human"),
        "game_id": later,
        "seat_link": (f"/play/{tokens.seat_token(later, seat, _version(session, later, seat))}"
                      if later is not None and seat is not None else None),
        "rematch_of": info.rematch_of,
    }
    humans = [s.index for s in seats if s.kind == "human"]
    in_series = info.series_id is not None or later is not None
    series = series_score(game_id, session) if in_series else None  # (app.services.series)
    return {
        "clock": {"words": settings.words(), "banked": settings.banked,
                  "more_time_per_round": settings.more_time_per_round},
        "seats": rows,
        "gifts": [{"giver": g.giver, "receiver": g.receiver, "round": g.round,
                   "at": iso_in(g.at, tz),
                   "words": _gift_words(g, then(names, g.step), when)}
                  for g in given],
        "more_time": {"left": days_left,
                      "to": [each for each in deciding
                             if each != seat and seats[each].kind == "human"
                             and each not in resigned] if days_left else []},
        "may_resign": bool(me_playing and status.get("phase") != "over"),
        "resigned": seat in resigned if seat is not None else False,
        "vote": open_box,
        "votes": past,
        "may_abort": bool(me_playing and vote is None),
        "substitutes": ([s for s in humans if (s in resigned or s in away)]
                        if running and vote is None and seat is not None
                        and (me_playing or seat in resigned or seat in away) else []),
        "rematch": rematch,
        "series": series.public() if series is not None else None,
        "ended": info.end_reason,
        # what the /seq probe counts: an open page redraws itself when it grows
        "news": people_store.news(session, game_id),
    }


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


def _bank(session: Session, game_id: str, seat: int, settings: dl.ClockSettings,
          clocks: dict[int, Any], deciding: dict[int, Any], now: datetime) -> dict[str, Any]:
    """What is left of a seat's bank now: while its decision runs past its budget, the
    bank runs down live (everyone sees the same)."""
    left = settings.bank_left(clocks.get(seat))
    row = deciding.get(seat)
    if row is not None and row.budget_seconds is not None:
        calendar = notify.calendar_of(session, game_id, seat, settings)
        taken = calendar.used(dl.as_utc(row.opened_at), now)
        over = taken - timedelta(seconds=int(row.budget_seconds))
        left = max(left - max(over, timedelta(0)), timedelta(0))
    return {"seconds": int(left.total_seconds()), "words": dl.span_words(left)}


def _gift_words(gift: Gift, names: list[str], when: Any) -> str:
    said = f"{names[gift.giver]} gave {names[gift.receiver]} one more day (round {gift.round})"
    return f"{said}: due {when(gift.due_after)}" if gift.due_after else said


def _version(session: Session, game_id: str, seat: int) -> int:
    row = session.get(store.Seat, (game_id, seat))
    return row.token_version if row is not None else 1


def _local(moment: datetime, zone: Any) -> str:
    local = dl.as_utc(moment).astimezone(zone)
    return f"{local:%a} {local.day} {local:%b, %H:%M} {local.tzname() or 'UTC'}"
