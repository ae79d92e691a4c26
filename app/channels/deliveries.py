"""Notices to targets: one delivery row per target for each mail that leaves (issue 20
item 3).

A target gets exactly what the mail policy sends, nothing of its own: when an outbox
row of a game's seat leaves the sender (after its still-true check, its caps and its
composing), ``fan_out`` writes one ``NoticeDelivery`` per active target of the seat and
of its address, once per (outbox row, target). The delivery runner
(``app.runners.notices``) sends them, each once, with the lease of
``app.runners.base`` (``DELIVERIES``), and asks again before each attempt whether what
the row announces still holds.

The short form (``short_form``) is built from public words only — the kind of the
mail, the game's name, the round, names the lead of a public notice already says —
never from the seat's private view: a Discord or Slack channel may be read by others.
It ends with the seat link, as every mail does (whoever reads the channel can open the
seat: the page says so beside the add form).
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func
from sqlmodel import Session, col, select

from app import i18n
from app.access import tokens
from app.channels.models import PENDING, SENT, NoticeDelivery, NoticeTarget
from app.channels import push
from app.channels import targets as target_rows
from app.config import setting
from app.gamelog import store
from app.people.models import Person

#: The outbox kinds a target gets (what the mail policy sends about a game's seat):
#: turn mails, reminders, digests, round and game summaries, absence notices, talk.
#: Never invitations, links asked for, answers to replies, daily digests, my-games.
NOTICE_KINDS = frozenset({"turn", "reminder", "digest", "round", "over", "absent",
                          "you_absent", "abandoned", "talk",
                          # the table's people (issue 21): who resigned, took a seat over,
                          # gave time; a vote asked or decided
                          "resigned", "took_over", "more_time", "vote", "voted"})
#: The kinds whose lead (the mail's first line) is public words: it may be copied.
PUBLIC_LEADS = frozenset({"round", "over", "absent", "you_absent", "abandoned", "resigned",
                          "took_over", "more_time", "vote", "voted"})
#: A test notice's kind (``outbox_id`` None).
TEST = "test"

#: An outbox row that went to the seat's targets instead of by mail (issue 20 item 3):
#: its own status word, so the per-address mail caps, which count ``sent`` rows, do not
#: count it.
OUTBOX_NOTIFIED = "notified"

BRAND = "Silver Eye"
BACKOFF_BASE = timedelta(seconds=15)
LEASE = timedelta(minutes=2)

#: A notice's title by the mail's kind (English; said in the reader's language where
#: the notice is written, ``short_form``).
TITLES = {"turn": i18n.N_("Your turn"), "reminder": i18n.N_("Reminder, your turn"),
          "digest": i18n.N_("Your digest"), "round": i18n.N_("Round over"),
          "over": i18n.N_("Game over"), "absent": i18n.N_("A player is away"),
          "you_absent": i18n.N_("You are marked away"),
          "abandoned": i18n.N_("Game abandoned"), "talk": i18n.N_("Table talk"),
          "resigned": i18n.N_("A player resigned"),
          "took_over": i18n.N_("A seat changed hands"),
          "more_time": i18n.N_("More time for you"), "vote": i18n.N_("A vote asks you"),
          "voted": i18n.N_("A vote is decided"), TEST: i18n.N_("Test notice")}

_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def plain(text: Any, limit: int = 200) -> str:
    """One line of plain text: control characters gone, spaces folded, cut at ``limit``."""
    line = " ".join(_CONTROL.sub(" ", str(text or "")).split())
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


def seat_link(game_id: str, seat: int, version: int) -> str:
    """The seat's link, signed as every mail's (``notify.Context.link``)."""
    token = tokens.seat_token(game_id, seat, version, str(setting("SECRET_KEY") or "") or None)
    return tokens.seat_url(token, str(setting("BASE_URL")).rstrip("/"))


def _round_of(row: Any) -> Any:
    said = row.announces or {}
    if said.get("round") is not None:
        return said.get("round")
    return None


def short_form(row: Any, game_name: str) -> tuple[str, str]:
    """``(title, line)`` of the notice for outbox ``row``: public words only, in the
    language being written in (``fan_out``: the reader's)."""
    _ = i18n.gettext
    kind = str(row.kind)
    game = plain(game_name, 80) or _("your game")
    title = plain(_("%(brand)s · %(game)s: %(what)s", brand=BRAND, game=game,
                    what=_(TITLES[kind]) if kind in TITLES else _("News of your game")),
                  300)
    round_no = _round_of(row)
    lead = next((ln for ln in str(row.text or "").splitlines() if ln.strip()), "")
    if kind in ("turn", "reminder") and lead:
        # the turn mail's own first line (``compose.turn_lead``: the decision and its
        # deadline in the reader's zone, public words only): one vocabulary for the mail,
        # the channels and the push (issue 49 item 1)
        line = f"{game} · {plain(lead)}"
    elif kind == "turn":
        line = (_("It is your turn in %(game)s (round %(round)s).", game=game, round=round_no)
                if round_no is not None else _("It is your turn in %(game)s.", game=game))
    elif kind == "reminder":
        line = (_("Reminder: %(game)s still waits for your move (round %(round)s).",
                  game=game, round=round_no) if round_no is not None else
                _("Reminder: %(game)s still waits for your move.", game=game))
    elif kind == "digest":
        line = _("Where %(game)s stands: open your page to see it.", game=game)
    elif kind == "talk":
        line = _("New words at the table of %(game)s.", game=game)
    elif kind in PUBLIC_LEADS:
        first = next((ln for ln in str(row.text or "").splitlines() if ln.strip()), "")
        line = plain(first) or _("News of %(game)s.", game=game)
        if not line.endswith((".", "!", "?", "。", "！", "？")):
            line += i18n.pgettext("the end of a sentence", ".")
    else:
        line = _("News of %(game)s.", game=game)
    return title, line


def reader_language(session: Session, row: Any) -> str | None:
    """The language of the notices of outbox ``row`` (issue 50): its address's person's,
    one statement; None: English."""
    if not getattr(row, "to", None):
        return None
    return session.exec(select(Person.language).where(
        col(Person.address) == str(row.to))).first()


def channel_of(target: NoticeTarget) -> str:
    """How a delivery to ``target`` leaves (``NoticeDelivery.channel``): by Web Push
    (issue 49) or by apprise."""
    return "push" if target.service == target_rows.PUSH_SERVICE else "notice"


def fan_out(session: Session, row: Any, now: datetime, *, link: str | None = None) -> int:
    """One pending delivery per active target of the seat of outbox ``row`` (its own and
    its address's), once per (row, target); returns how many active targets it has
    (0: none, or not a kind targets get; a browser's push subscription gets only
    ``push.KINDS``). Idempotent: a row sent twice (a lease that ran
    out) adds nothing the second time. The caller commits."""
    if row.id is None or row.game_id is None or row.seat is None or \
            row.kind not in NOTICE_KINDS:
        return 0
    found = [t for t in target_rows.active(target_rows.of_seat(session, row.game_id,
                                                               int(row.seat), row.to))
             if t.service != target_rows.PUSH_SERVICE or row.kind in push.KINDS]
    if not found:
        return 0
    game = session.get(store.Game, row.game_id)
    seat = session.get(store.Seat, (row.game_id, int(row.seat)))
    if game is None or seat is None:
        return 0
    with i18n.in_language(reader_language(session, row)):  # (issue 50) the reader's
        title, line = short_form(row, game.name or "")
    body = f"{line}\n{link or seat_link(row.game_id, int(row.seat), seat.token_version)}"
    have = set(session.exec(select(NoticeDelivery.target_id)
                            .where(col(NoticeDelivery.outbox_id) == row.id)).all())
    for target in found:
        if target.id in have:
            continue
        # not a unit write: the notice runner fans one outbox row out to its targets in
        # the runner's own transaction (no game changes)
        session.add(NoticeDelivery(outbox_id=row.id, target_id=int(target.id or 0),
                                   game_id=row.game_id, seat=int(row.seat), kind=row.kind,
                                   channel=channel_of(target), title=title, body=body,
                                   next_attempt_at=now, created_at=now))
    session.flush()
    return len(found)


def test_notice(session: Session, target: NoticeTarget, game_id: str, seat: int,
                now: datetime) -> NoticeDelivery:
    """"Send a test notice": a delivery with no outbox row, sent by the runner within
    seconds. The caller commits."""
    game = session.get(store.Game, game_id)
    seat_row = session.get(store.Seat, (game_id, seat))
    name = plain(game.name if game is not None else "", 80) or i18n.gettext("your game")
    link = seat_link(game_id, seat, seat_row.token_version if seat_row is not None else 1)
    # (asked for on the settings page: in the page's language, the person's own)
    title = i18n.gettext("%(brand)s · %(game)s: %(what)s", brand=BRAND, game=name,
                         what=i18n.gettext(TITLES[TEST]))
    said = i18n.gettext("This is a test notice: your notices of %(game)s come here.",
                        game=name)
    delivery = NoticeDelivery(outbox_id=None, target_id=int(target.id or 0), game_id=game_id,
                              seat=seat, kind=TEST, channel=channel_of(target),
                              title=plain(title, 300), body=f"{said}\n{link}",
                              next_attempt_at=now, created_at=now)
    # not a unit write: a test notice asked for on the settings page, no game changes
    session.add(delivery)
    session.flush()
    return delivery


# -- the runner's rules ----------------------------------------------------------------

def backoff(attempts: int) -> timedelta:
    """15 s, 30 s, 1 min, 2 min...: what a busy webhook needs, not hours."""
    return BACKOFF_BASE * (1 << max(attempts - 1, 0))  # 2 ** n, typed int (n >= 0)


def max_attempts() -> int:
    return max(1, int(float(setting("NOTICE_MAX_ATTEMPTS"))))


def failures_to_pause() -> int:
    return max(1, int(float(setting("NOTICE_FAILURES_TO_PAUSE"))))


def timeout_seconds() -> float:
    return max(1.0, float(setting("NOTICE_TIMEOUT_SECONDS")))


def was_sent(session: Session, outbox_id: int) -> bool:
    """Whether any target got the notice of outbox row ``outbox_id``."""
    return session.exec(select(NoticeDelivery.id).where(
        col(NoticeDelivery.outbox_id) == outbox_id, col(NoticeDelivery.status) == SENT)
    ).first() is not None


def still_waiting(session: Session, outbox_id: int) -> bool:
    """Whether a delivery of outbox row ``outbox_id`` is still to be tried."""
    return session.exec(select(NoticeDelivery.id).where(
        col(NoticeDelivery.outbox_id) == outbox_id,
        col(NoticeDelivery.status) == PENDING)).first() is not None


def earliest_due() -> Any:
    """When the earliest pending delivery may be tried (its lease's end if leased), as a
    scalar subquery: the sender thread asks it with the mail's in one statement
    (``runners.sender.next_due``, issue 30 item 4)."""
    later = case((col(NoticeDelivery.lease_until) > col(NoticeDelivery.next_attempt_at),
                  NoticeDelivery.lease_until), else_=NoticeDelivery.next_attempt_at)
    return (select(func.min(later)).where(col(NoticeDelivery.status) == PENDING)
            .scalar_subquery())
