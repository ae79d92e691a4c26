"""Who gets which mail: the bridge from game events to outbox rows.

Called from ``app.hooks`` and ``app.timeouts`` inside their transactions.
Each function decides whether a seat wants this mail (its preference, an
address, a person rather than a bot), builds it from that seat's private view
and enqueues it under an idempotency key that names the cause (game, seat,
step or deadline), so repeating a call never adds a second mail.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col

from app import deadlines as dl
from app import engine, store, tokens
from app.mail import compose
from app.mail.models import DIGEST, EVERY, MAIL_MODES, NONE, SeatMail
from app.mail.outbox import enqueue

DEFAULT_MAIL_FROM = "Silver Eye Post <silver-eye-post@localhost>"
DEFAULT_DIGEST_HOURS = 24.0
#: At most one fresh-link mail per seat in this many minutes (config ``FRESH_LINK_MINUTES``).
DEFAULT_FRESH_LINK_MINUTES = 10.0


def setting(key: str, default: Any) -> Any:
    """A setting from the Flask app's config, else the environment, else ``default``."""
    try:
        from flask import current_app
        value = current_app.config.get(key)
    except RuntimeError:
        value = None
    if value in (None, ""):
        value = os.environ.get(key)
    return default if value in (None, "") else value


def public_view(state: Any) -> dict[str, Any]:
    """Where the game stands (who has a decision, phase, scores): no cards needed."""
    return engine.status(state)


@dataclass
class Context:
    """A game as the mail code needs it, read once per hook call."""

    game: Any
    seats: list[Any]
    info: compose.GameInfo
    settings: dl.ClockSettings
    sender: str
    secret: str

    @property
    def id(self) -> str:
        return str(self.game.id)

    @classmethod
    def load(cls, session: Session, game: Any) -> "Context":
        seats = _seats(session, game)
        base = str(setting("BASE_URL", "http://127.0.0.1:5000")).rstrip("/")
        info = compose.GameInfo(id=str(game.id), name=game.name or "",
                                names=[compose.clean_name(s.name) or f"Player {s.index + 1}"
                                       for s in seats],
                                base_url=base, commitment=game.commitment or "")
        return cls(game=game, seats=seats, info=info,
                   settings=dl.ClockSettings.from_options(game.options),
                   sender=str(setting("MAIL_FROM", DEFAULT_MAIL_FROM)),
                   secret=str(setting("SECRET_KEY", "")))

    def is_human(self, seat: int) -> bool:
        return 0 <= seat < len(self.seats) and self.seats[seat].kind == "human"

    def human_seats(self) -> list[int]:
        return [s.index for s in self.seats if s.kind == "human"]

    def address(self, seat: int) -> str | None:
        return compose.clean_address(self.seats[seat].email) if self.is_human(seat) else None

    def link(self, seat: int) -> str:
        row = self.seats[seat]
        token = tokens.seat_token(self.id, row.index, row.token_version, self.secret or None)
        return tokens.seat_url(token, self.info.base_url)

    def unsubscribe(self, seat: int) -> str:
        version = self.seats[seat].token_version
        return (f"{self.info.base_url}/unsubscribe/"
                f"{unsubscribe_token(self.id, seat, self.secret, version=version)}")

    def replay(self) -> str:
        return f"{self.info.base_url}/games/{self.id}/replay"

    @property
    def domain(self) -> str:
        return compose.mail_domain(self.sender)


def _seats(session: Session, game: Any) -> list[Any]:
    """The game's seats, from the session when it holds them all (the services
    loaded them in this transaction), else with one query: every action builds
    a context, and a query would return the very same objects."""
    held = [session.identity_map.get(identity_key(store.Seat, (str(game.id), index)))
            for index in range(int(getattr(game, "seats", 0) or 0))]
    if held and all(seat is not None for seat in held):
        return held
    return store.load_seats(session, str(game.id))


def unsubscribe_token(game_id: str, seat: int, secret: str | None = None,
                      version: int = 1) -> str:
    """The token of a seat's unsubscribe link, bound to the seat's ``token_version``.

    Pass the seat row's current ``token_version``: a rotation (rotate-link)
    revokes the unsubscribe links of older mails with the seat links.
    """
    return tokens.sign(tokens.UNSUBSCRIBE, [str(game_id), int(seat), int(version)],
                       secret or None)


def unsubscribe_ref(token: str) -> tuple[str, int, int]:
    """``(game_id, seat, version)`` of an unsubscribe token; ``tokens.BadToken`` if not ours.

    Tokens made before versions were added (two fields) count as version 1,
    so they stop working at the seat's first rotation.
    """
    payload = tokens.unsign(tokens.UNSUBSCRIBE, token)
    if isinstance(payload, list) and len(payload) == 2:
        payload = [*payload, 1]
    if (not isinstance(payload, list) or len(payload) != 3 or not isinstance(payload[0], str)
            or not all(isinstance(part, int) and not isinstance(part, bool)
                       for part in payload[1:])):
        raise tokens.BadToken("this link is not valid")
    return payload[0], payload[1], payload[2]


def read_unsubscribe_token(token: str) -> tuple[str, int]:
    """``(game_id, seat)`` of an unsubscribe token; ``tokens.BadToken`` if not ours."""
    game_id, seat, _ = unsubscribe_ref(token)
    return game_id, seat


def seat_mail(session: Session, game_id: str, seat: int) -> SeatMail:
    """The seat's mail row, created on first use from the lobby's preference."""
    row = dl.remembered(session, SeatMail, game_id, seat)
    if row is None:
        mode = EVERY
        seat_row = session.get(store.Seat, (game_id, seat))
        wanted = (seat_row.preferences or {}).get("mail") if seat_row is not None else None
        if wanted in MAIL_MODES:
            mode = wanted
        row = SeatMail(game_id=game_id, seat=seat, mode=mode)
        session.add(row)
        session.flush()
        session.info["silver_eye_seat_rows"][("SeatMail", game_id, seat)] = row
    return row


def _send(session: Session, ctx: Context, seat: int, kind: str, mail: compose.Mail,
          key: str, now: datetime, *, root: bool = False) -> bool:
    to = ctx.address(seat)
    if to is None:
        return False
    row = enqueue(session, game_id=ctx.id, seat=seat, kind=kind, to=to,
                  to_name=ctx.info.names[seat], mail=mail, idempotency=key,
                  domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(seat), root=root)
    return row is not None


def _wants(session: Session, ctx: Context, seat: int) -> str:
    return seat_mail(session, ctx.id, seat).mode


# -- the mails -----------------------------------------------------------------

def invitation(session: Session, ctx: Context, seat: int, now: datetime) -> None:
    """Sent to every person with an address, whatever their preference."""
    mail = compose.invitation_mail(ctx.info, seat, link=ctx.link(seat),
                                   unsubscribe=ctx.unsubscribe(seat),
                                   deadline_hours=ctx.settings.deadline.total_seconds() / 3600)
    _send(session, ctx, seat, "invitation", mail, f"invite:{ctx.id}:{seat}", now, root=True)


def decision_opened(session: Session, ctx: Context, seat: int, state: Any,
                    deadline: dl.Deadline, now: datetime) -> None:
    """A seat has a new decision: a turn mail, a digest later, or nothing."""
    mode = _wants(session, ctx, seat)
    if mode == NONE or ctx.address(seat) is None:
        return
    if mode == DIGEST:
        _schedule_digest(session, ctx, seat, now)
        return
    turn(session, ctx, seat, state, deadline.due_at, now, key=f"turn:{ctx.id}:{seat}:{deadline.opened_step}")


def turn(session: Session, ctx: Context, seat: int, state: Any, due: datetime | None,
         now: datetime, *, key: str, reminder: bool = False, digest: bool = False) -> bool:
    view = engine.view(state, seat)
    since = seat_mail(session, ctx.id, seat).last_acted_step
    mail = compose.turn_mail(ctx.info, seat, view, since_step=since, due=due, now=now,
                             link=ctx.link(seat), unsubscribe=ctx.unsubscribe(seat),
                             reminder=reminder, digest=digest)
    kind = "reminder" if reminder else "digest" if digest else "turn"
    return _send(session, ctx, seat, kind, mail, key, now)


def reminder(session: Session, ctx: Context, seat: int, state: Any, row: dl.Deadline,
             now: datetime) -> None:
    """A reminder deadline came: remind the seat if it wants turn mail at all."""
    if _wants(session, ctx, seat) == NONE:
        return
    decision = dl.open_rows(session, ctx.id, seat, dl.DECISION)
    due = decision[0].due_at if decision else None
    turn(session, ctx, seat, state, due, now, key=f"reminder:{row.id}", reminder=True)


def digest(session: Session, ctx: Context, seat: int, state: Any, row: dl.Deadline,
           now: datetime) -> None:
    """A digest deadline came: one mail with everything since the seat last played."""
    settings = seat_mail(session, ctx.id, seat)
    if settings.mode != DIGEST:
        return
    decision = dl.open_rows(session, ctx.id, seat, dl.DECISION)
    due = decision[0].due_at if decision else None
    if turn(session, ctx, seat, state, due, now, key=f"digest:{row.id}", digest=True):
        settings.last_digest_at = now
        session.add(settings)


def _schedule_digest(session: Session, ctx: Context, seat: int, now: datetime) -> None:
    """At most one digest a period: reuse an open digest row, else schedule one."""
    if dl.open_rows(session, ctx.id, seat, dl.DIGEST):
        return
    period = timedelta(hours=float(setting("DIGEST_HOURS", DEFAULT_DIGEST_HOURS)))
    last = seat_mail(session, ctx.id, seat).last_digest_at
    due = max(now, dl.as_utc(last) + period) if last else now
    session.add(dl.Deadline(game_id=ctx.id, seat=seat, kind=dl.DIGEST, due_at=due,
                            opened_step=0, opened_at=now))


def round_end(session: Session, ctx: Context, seat: int, state: Any, round_no: int,
              now: datetime) -> None:
    if _wants(session, ctx, seat) == NONE:
        return
    mail = compose.round_mail(ctx.info, seat, engine.view(state, seat), round_no,
                              link=ctx.link(seat), unsubscribe=ctx.unsubscribe(seat))
    _send(session, ctx, seat, "round", mail, f"round:{ctx.id}:{seat}:{round_no}", now)


def game_over(session: Session, ctx: Context, seat: int, state: Any, now: datetime) -> None:
    if _wants(session, ctx, seat) == NONE:
        return
    mail = compose.game_over_mail(ctx.info, seat, engine.view(state, seat), link=ctx.link(seat),
                                  replay=ctx.replay(), unsubscribe=ctx.unsubscribe(seat))
    _send(session, ctx, seat, "over", mail, f"over:{ctx.id}:{seat}", now)


def notice(session: Session, ctx: Context, seat: int, what: str, about: int | None,
           now: datetime) -> None:
    """absent / you_absent / abandoned notices (not for seats that asked for no mail)."""
    if _wants(session, ctx, seat) == NONE:
        return
    step = store.last_seq(session, ctx.id)
    mail = compose.notice_mail(ctx.info, seat, what, about=about, link=ctx.link(seat),
                               unsubscribe=ctx.unsubscribe(seat),
                               absent_after=ctx.settings.absent_after)
    _send(session, ctx, seat, what, mail, f"{what}:{ctx.id}:{seat}:{about}:{step}", now)


def fresh_link(session: Session, ctx: Context, seat: int, now: datetime) -> bool:
    """The link a player asked for: at most one mail per seat every ``FRESH_LINK_MINUTES``.

    Anyone can ask (the 403 page offers it), so without a limit a stranger
    could flood a player's inbox. The seat's ``link_mailed_at`` marker is
    moved forward by one conditional UPDATE that only a request outside the
    window can win (a second request at the same moment waits for the row
    and then finds it fresh), and only the winner enqueues. The caller's
    answer does not change: it never says whether a mail went out.
    Returns whether a mail was enqueued.
    """
    if ctx.address(seat) is None:
        return False
    now = dl.as_utc(now)
    window = timedelta(minutes=max(0.0, float(setting("FRESH_LINK_MINUTES",
                                                      DEFAULT_FRESH_LINK_MINUTES))))
    marker = seat_mail(session, ctx.id, seat)
    won = session.exec(  # type: ignore[call-overload]
        update(SeatMail)
        .where(col(SeatMail.id) == marker.id,
               or_(col(SeatMail.link_mailed_at).is_(None),
                   col(SeatMail.link_mailed_at) <= now - window))
        .values(link_mailed_at=now)
        .execution_options(synchronize_session=False)).rowcount
    if won != 1:
        return False
    session.expire(marker, ["link_mailed_at"])
    mail = compose.notice_mail(ctx.info, seat, "fresh_link", about=None, link=ctx.link(seat),
                               unsubscribe=ctx.unsubscribe(seat))
    return _send(session, ctx, seat, "link", mail,
                 f"link:{ctx.id}:{seat}:{now.isoformat()}", now)
