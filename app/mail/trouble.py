"""What the server did without a seat, in sentences for the top of its page (issue 17):
what the clock played for it since it last played, mail of the game that bounces, and
mail to it that a cap holds back. Read only, on the page's own read session."""
from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from app.gamelog import store
from app.mail import compose, invitations
from app.mail import unsent
from app.mail.models import FAILED, NONE, PENDING, SUPERSEDED, Outbox
from app.mail.view_words import played_lines
from app.people.calendar import person_zone


def mail_trouble(session: Session, game_id: str, seat: int,
                 view: dict[str, Any] | None = None,
                 marks: unsent.Marks | None = None) -> list[str]:
    """Sentences for the top of a seat page: what the server did without the seat.

    First what the server played for this seat since it last played (issue 17
    item 2: "Time ran out: your 10 Dracula was discarded for you."), until its next
    move. Then mail that did not go out: the game's creator (its first person:
    the lobby's first row) hears of every seat whose mail failed for good ("Bob's
    mail bounces"); each seat hears when a cap holds its own mail back, and that
    one mail of the position then will follow (issue 17 item 3). Read only.
    ``view``: the seat's view, which the seat page has already made (without it,
    the played-for-you lines are left out: no second load of the game); ``marks``: the
    game's seat mail rows, when the page has read them (``unsent.marks_of_game``).
    """
    marks = unsent.marks_of_game(session if marks is None else marks, game_id)
    seats = store.load_seats(session, game_id)
    people = [s.index for s in seats if s.kind == "human"]
    lines: list[str] = ([] if view is None else
                        played_on_page(marks, game_id, seat, seats, view))
    if people and seat == people[0]:
        failed = session.exec(select(Outbox).where(
            col(Outbox.game_id) == game_id, col(Outbox.status) == FAILED)
            .order_by(col(Outbox.id))).all()
        told: set[int] = set()
        for row in failed:
            if row.seat is None or row.seat in told or row.seat >= len(seats):
                continue
            told.add(row.seat)
            who = "Your" if row.seat == seat else f"{compose.clean_name(seats[row.seat].name)}'s"
            lines.append(f"{who} mail bounces: {row.last_error or 'the mail server refused it'}. "
                         f"Share the seat's link another way.")
        # issue 34 item 3: mail not sent because the address refused when it was to leave
        refused = session.exec(select(Outbox.seat).distinct().where(
            col(Outbox.game_id) == game_id, col(Outbox.status) == SUPERSEDED,
            col(Outbox.last_error).startswith(invitations.REFUSED_AT_SEND))).all()
        for other in sorted(s for s in refused if s is not None and s < len(seats)):
            lines.append(f"{compose.clean_name(seats[other].name)}'s address asked for no more "
                         "invitations (or no mail) from games here and has not played in this "
                         "one, so we send it nothing more, and the seat is played by the rules' "
                         "defaults, as an away seat. If they agreed to play, give them the "
                         "seat's link yourself.")
    # a seat that stopped this game's mail is sent none of it, held or not (issue 45):
    # the sender supersedes the held mail when its hold ends; the page says nothing of it
    stopped = getattr(marks.get(seat), "mode", None) == NONE
    held = None if stopped else session.exec(select(Outbox).where(
        col(Outbox.game_id) == game_id, col(Outbox.seat) == seat,
        col(Outbox.status) == PENDING, col(Outbox.held_until).is_not(None),
        col(Outbox.held_why).is_distinct_from("quiet"))  # (the seat's own quiet hours)
        .order_by(col(Outbox.held_until))).first()
    if held is not None and held.held_until is not None:
        why = ("your address has not played a move here yet and got the most mails we send "
               "in a day to such an address" if held.held_why == "stranger"
               else "your address got the most mails we send in an hour")
        lines.append("Mail to you is held back until "
                     f"{compose.local_time_words(held.held_until, person_zone(session, game_id, seat))}: "
                     f"{why}. Then one mail shows where the game stands.")
    return lines


def played_on_page(marks: unsent.Marks, game_id: str, seat: int, seats: list[Any],
                   view: dict[str, Any]) -> list[str]:
    """What the server played for ``seat`` since it last played, from its own view."""
    row = marks.get(seat)
    since = int(row.last_acted_step or 0) if row is not None else 0
    if not unsent.did_since(view, seat, since):
        return []
    names = [compose.clean_name(s.name) or f"Player {s.index + 1}" for s in seats]
    return played_lines(view, since, names, seat,
                        unsent.played_steps(marks, game_id, 0, since, only=seat))

