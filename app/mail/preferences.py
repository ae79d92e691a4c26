"""A seat's mail preference: every decision, a digest, or none (but invitations).

Changing it touches no game state and writes no action: it is the seat's
business alone. One-click unsubscribe (RFC 8058) sets ``none``.
"""
from __future__ import annotations

from typing import Any

from app import deadlines as dl
from app import services, store
from app.db import read_session, write_session
from app.mail import notify
from app.mail.models import DIGEST, EVERY, MAIL_MODES, NONE, SeatMail
from sqlmodel import select

MODE_WORDS = {
    EVERY: "a mail for every decision",
    DIGEST: "at most one mail a day with everything since the last one",
    NONE: "no mail, except invitations and links you ask for",
}


def set_mode(game_id: str, seat: int, mode: str) -> str:
    """Store a seat's mail preference; returns it. Unknown modes are refused."""
    if mode not in MAIL_MODES:
        raise services.BadRequest("Choose one of: every decision, digest, or no mail.")
    with write_session() as session:
        if session.get(store.Seat, (str(game_id), int(seat))) is None:
            raise services.NotFound("There is no such seat in this game.")
        row = notify.seat_mail(session, str(game_id), int(seat))
        row.mode = mode
        row.updated_at = dl.now()
        session.add(row)
        if mode != DIGEST:  # a pending digest would now mail someone who said no
            dl.close_open(session, str(game_id), dl.now(), "cancelled", seat=int(seat),
                          kinds=(dl.DIGEST,))
    return mode


def mode_of(game_id: str, seat: int) -> str:
    """The seat's preference as stored (``every`` until chosen otherwise)."""
    with read_session() as session:
        row = session.exec(select(SeatMail).where(SeatMail.game_id == str(game_id),
                                                  SeatMail.seat == int(seat))).first()
        if row is not None:
            return row.mode
        seat_row = session.get(store.Seat, (str(game_id), int(seat)))
        wanted = (seat_row.preferences or {}).get("mail") if seat_row is not None else None
        return wanted if wanted in MAIL_MODES else EVERY


def unsubscribe(token: str) -> tuple[str, int]:
    """One-click unsubscribe: the seat gets no more mail but invitations."""
    game_id, seat = read_token(token)
    set_mode(game_id, seat, NONE)
    return game_id, seat


def read_token(token: str) -> tuple[str, int]:
    """The seat an unsubscribe link names, if the link is still current.

    A rotation of the seat's link (rotate-link) revokes the unsubscribe links
    of the mails sent before it, like the seat links in them.
    """
    from app import tokens

    try:
        game_id, seat, version = notify.unsubscribe_ref(token)
    except tokens.BadToken:
        raise services.Forbidden("This unsubscribe link is not valid: it may have been cut "
                                 "short. Use the link from your most recent email.",
                                 reason="unsubscribe") from None
    with read_session() as session:
        row = session.get(store.Seat, (game_id, seat))
        current = row.token_version if row is not None else None
    if current != version:
        raise services.Forbidden("This unsubscribe link was replaced: the seat's links were "
                                 "renewed since this mail was sent. Use the link from your "
                                 "most recent email.", reason="unsubscribe")
    return game_id, seat


def describe(mode: str) -> str:
    return MODE_WORDS.get(mode, MODE_WORDS[EVERY])


def status(game_id: str, seat: int) -> dict[str, Any]:
    """What the seat page's mail and clock box shows (read only)."""
    from app import timeouts

    mode = mode_of(game_id, seat)
    running = services.game_info(game_id).status == "running"
    return {"mode": mode, "mode_words": describe(mode), "modes": MODE_WORDS,
            "running": running, **timeouts.seat_clock_state(game_id, seat)}
