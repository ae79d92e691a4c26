"""What the server did without a seat, in sentences for the top of its page (issue 17;
the seat page's own read model since issue 46: no page lines in ``app.mail``).

- what the server played for this seat since it last played (issue 17 item 2: "Time ran
  out: your 10 Dracula was discarded for you."), until its next move, from its view and
  its mail row (no read of the log);
- for the game's creator (its first person: the lobby's first row), every seat whose mail
  failed for good ("Bob's mail bounces") or was refused when it was to leave (issue 34
  item 3: the address asked for no more invitations and never played here);
- for each seat, when a cap holds its own mail back (issue 17 item 3), unless the seat
  stopped this game's mail (issue 45: that mail never leaves).

One statement at most, whatever the page: the outbox rows of the game that can say any of
it (the creator's page asks for all three kinds, another seat's for its own held mail
alone, a seat that stopped its mail and is not the creator asks nothing). The seats'
names and kinds come from what the page read already (``info.names``, ``holders``).
"""
from __future__ import annotations

from typing import Any, Sequence
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlmodel import Session

from app.db.statements import table_of
from app import i18n
from app.mail import compose, invitations, unsent
from app.mail.models import FAILED, NONE, PENDING, SUPERSEDED, Outbox
from app.mail.view_words import played_lines

_OUTBOX = table_of(Outbox)


def lines(session: Session, game_id: str, seat: int, names: Sequence[str],
          kinds: Sequence[str], view: dict[str, Any] | None, marks: unsent.Marks,
          zone: ZoneInfo) -> list[str]:
    """Sentences for the top of ``seat``'s page (``view``: its view, which the page made
    already; None leaves the played-for-you lines out). ``names``, ``kinds``: the game's
    seats, in order; ``marks``: its seat mail rows; ``zone``: the reader's."""
    shown = [compose.clean_name(name) or i18n._("Player %(num)s", num=index + 1)
             for index, name in enumerate(names)]
    said: list[str] = [] if view is None else played_on_page(marks, game_id, seat, shown, view)
    people = [index for index, kind in enumerate(kinds) if kind == "human"]
    creator = bool(people) and seat == people[0]
    stopped = getattr(marks.get(seat), "mode", None) == NONE
    if not creator and stopped:
        return said
    found = session.connection().execute(_asked(game_id, seat, creator, stopped)).all()
    if creator:
        told: set[int] = set()
        for row_seat, status, last_error, _ in found:
            if status != FAILED or row_seat is None or row_seat in told \
                    or row_seat >= len(names):
                continue
            told.add(row_seat)
            error = last_error or i18n._("the mail server refused it")
            said.append(i18n._("Your mail bounces: %(error)s. Share the seat's link another way.",
                               error=error) if row_seat == seat else
                        i18n._("%(name)s's mail bounces: %(error)s. Share the seat's link "
                               "another way.", name=shown[row_seat], error=error))
        refused = sorted({row_seat for row_seat, status, last_error, _ in found
                          if status == SUPERSEDED and row_seat is not None
                          and row_seat < len(names)})
        for other in refused:
            said.append(i18n._(
                "%(name)s's address asked for no more invitations (or no mail) from games "
                "here and has not played in this one, so we send it nothing more, and the "
                "seat is played by the rules' defaults, as an away seat. If they agreed to "
                "play, give them the seat's link yourself.", name=shown[other]))
    held = [(until, why) for row_seat, status, why, until in found
            if status == PENDING and row_seat == seat and until is not None]
    if held and not stopped:
        until, why = min(held, key=lambda each: each[0])
        when = compose.local_time_words(until, zone)
        said.append(i18n._(
            "Mail to you is held back until %(when)s: your address has not played a move "
            "here yet and got the most mails we send in a day to such an address. Then one "
            "mail shows where the game stands.", when=when) if why == "stranger" else i18n._(
            "Mail to you is held back until %(when)s: your address got the most mails we "
            "send in an hour. Then one mail shows where the game stands.", when=when))
    return said


def _asked(game_id: str, seat: int, creator: bool, stopped: bool) -> Any:
    """The one statement: ``(seat, status, last_error or held_why, held_until)`` of the
    game's rows that can say something on this page."""
    held = sa.and_(_OUTBOX.c.seat == seat, _OUTBOX.c.status == PENDING,
                   _OUTBOX.c.held_until.is_not(None),
                   _OUTBOX.c.held_why.is_distinct_from("quiet"))  # (the seat's own hours)
    kinds = [] if stopped else [held]
    if creator:
        kinds += [_OUTBOX.c.status == FAILED,
                  sa.and_(_OUTBOX.c.status == SUPERSEDED,
                          _OUTBOX.c.last_error.startswith(invitations.REFUSED_AT_SEND))]
    said = sa.case((_OUTBOX.c.status == PENDING, _OUTBOX.c.held_why),
                   else_=_OUTBOX.c.last_error)
    return (sa.select(_OUTBOX.c.seat, _OUTBOX.c.status, said, _OUTBOX.c.held_until)
            .where(_OUTBOX.c.game_id == game_id, sa.or_(*kinds))
            .order_by(_OUTBOX.c.id))


def played_on_page(marks: unsent.Marks, game_id: str, seat: int, names: Sequence[str],
                   view: dict[str, Any]) -> list[str]:
    """What the server played for ``seat`` since it last played, from its own view."""
    row = marks.get(seat)
    since = int(row.last_acted_step or 0) if row is not None else 0
    if not unsent.did_since(view, seat, since):
        return []
    return played_lines(view, since, list(names), seat,
                        unsent.played_steps(marks, game_id, 0, since, only=seat))
