"""A reply that arrives after the game moved on: apply it, or say in mail words why not.

Issue 17 item 4. A reply names the step of the mail it answers (its token).
When the game is past that step, the reply still applies if the seat faces
the same decision and the command names the same cards as in that mail —
whoever moved in between; the engine decides that (``engine.still_means``,
from the seat's own views). This module reads the log for it and turns the
engine's answer into what the worker does:

- the seat's first own move after the mail *is* this command, made while the
  mail's decision held (a re-sent reply, or a worker that died after applying
  it): already applied, nothing more to do;
- the command still means what it said: apply it at the current step;
- otherwise: an answer that says which mail the reply was to ("the mail of
  14:02"), what happened since, in the words of the mail and the seat page
  ("Bob's Ghost discarded ... your card #1 is no longer the card you meant"),
  that nothing was changed — never "reload" or "step 15".
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Sequence

from sqlmodel import col, select

from app import engine, i18n, services
from app.i18n import _, forms
from app.access import tokens
from app.db import read_session
from app.clock.time import as_utc
from app.engine.action_schema import PRESENCE
from app.engine.describe import event_sentence
from app.engine.meaning import Meaning, changed_words
from app.engine.names import SeatNames
from app.mail import compose
from app.mail.models import Outbox
from app.people.calendar import person_zone

#: Sources of log rows the seat did not choose itself (R29: the clock played for it).
TIMEOUT_SOURCES = ("timeout",)
#: At most this many sentences of "what happened since" in an answer.
SINCE_SENTENCES = 3


@dataclass(frozen=True)
class Late:
    """What to do with a reply whose step is behind the game."""

    what: str                       # "applied" (already), "rebase" (apply at ``step``), "stale"
    step: int = 0                   # "applied": the move's step; "rebase": the current step
    words: str = ""                 # "stale": the answer's explanation
    reason: str = ""                # "stale": the engine's reason (for the inbox outcome)


def judge(ref: tokens.ReplyRef, action: dict[str, Any]) -> Late:
    """Decide a reply to the mail of ``ref.step`` now that the game is past it."""
    at_mail, later = services.state_and_log_after(ref.game, ref.step)
    state = at_mail
    for seq, actor, done, source in later:
        if actor == ref.seat and done.get("type") not in PRESENCE:
            # only a reply to this very mail (its address names this step) made it so
            if (source == "mail" and _same(done, action)
                    and engine.still_means(at_mail, state, ref.seat, action).applies):
                return Late("applied", step=seq)
            break
        state, _ = engine.apply_action(state, actor, done)
    now = at_mail
    for _, actor, done, _ in later:
        now, _ = engine.apply_action(now, actor, done)
    meaning = engine.still_means(at_mail, now, ref.seat, action)
    if meaning.applies:
        return Late("rebase", step=later[-1][0] if later else ref.step)
    own = [(source, _same(done, action)) for _, actor, done, source in later
           if actor == ref.seat and done.get("type") not in PRESENCE]
    return Late("stale", words=stale_words(ref, meaning, own[:1]), reason=meaning.reason)


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def stale_words(ref: tokens.ReplyRef, meaning: Meaning,
                own: Sequence[tuple[str, bool]]) -> str:
    """'Your reply was to the mail of 14:02 UTC about your draw; since then ... Nothing
    was changed.' — mail words (no page, no step, no "reload"), positions from 1 as the
    menu counts them."""
    # (the names of each step's holders, where a seat changed hands: R53)
    known = services.game_info(ref.game).names
    names = (known if isinstance(known, SeatNames) else SeatNames(known)).shown(
        lambda i, n: compose.clean_name(n) or f"Player {i + 1}")
    seat = ref.seat
    about = compose.subject_words(meaning.decision_then)
    about = about if about.startswith("your ") else f"“{about}”"
    since = _since_words(meaning, seat, names, own)
    when = mail_time(ref)
    if when is None:
        said = _("Your reply was to an earlier mail about %(about)s; since then %(since)s.",
                 about=about, since=since)
    else:
        said = _("Your reply was to the mail of %(when)s about %(about)s; since then "
                 "%(since)s.", when=when, about=about, since=since)
    tail = _("Nothing was changed.")
    if meaning.decision_now:
        tail += " " + _("A reply counts for the decision of the mail it answers; this mail "
                        "shows what you face now, with its commands.")
    return f"{said} {tail}"


def _since_words(meaning: Meaning, seat: int, names: list[str],
                 own: Sequence[tuple[str, bool]]) -> str:
    """What happened between the mail and now; ``own``: the source of the seat's first
    own move since, and whether it was this very command."""
    reason = meaning.reason
    if reason == "cards":
        return changed_words(meaning, seat, names)
    if reason == "acted":
        did = _sentences(meaning.own_events(seat), names, seat)
        source, same = own[0] if own else ("", False)
        if source in TIMEOUT_SOURCES:
            return _("time ran out and that decision was made for you (%(did)s)", did=did)
        if same and source != "mail":
            return _("you already made that move on your seat page (%(did)s)", did=did)
        return _("you made that decision another way (%(did)s)", did=did)
    if reason == "round":
        return _("round %(then)s ended and round %(now)s began", then=meaning.round_then,
                 now=meaning.round_now)
    others = _sentences([e for e in meaning.since if e.get("seat") != seat], names, seat)
    if reason == "over":
        clause = _("the game is over")
    elif reason == "nothing":
        clause = _("nothing is waiting for you now")
    else:
        clause = _("what you face now is different: %(decision)s",
                   decision=compose.decision_words(meaning.decision_now))
    return _("%(events)s; %(clause)s", events=others, clause=clause) if others else clause


def _sentences(events: Sequence[Any], names: list[str], seat: int) -> str:
    """The last few public events in words, as the seat page says them ("you" for its own)."""
    said = [_mid_sentence(event_sentence(e, names, seat).rstrip("."), names)
            for e in events[-SINCE_SENTENCES:]]
    text = "; ".join(s for s in said if s)
    return f"... {text}" if len(events) > SINCE_SENTENCES else text


def _mid_sentence(text: str, names: list[str]) -> str:
    """A sentence continued after a semicolon: "You drew" -> "you drew" (names keep their case)."""
    return text if not text or text.startswith(tuple(names)) else text[:1].lower() + text[1:]


def mail_time(ref: tokens.ReplyRef) -> str | None:
    """'14:02 UTC' (in the seat's time zone): when the mail whose reply address this
    reply came to was sent; None when no such mail is stored (pruned)."""
    from app.access.reply_address import reply_address

    address = reply_address(ref.game, ref.seat, ref.version, ref.step).lower()
    with read_session() as session:
        rows = session.exec(select(Outbox.headers, Outbox.sent_at, Outbox.created_at)
                            .where(Outbox.game_id == ref.game, Outbox.seat == ref.seat)
                            .order_by(col(Outbox.id).desc()).limit(200)).all()
        zone = person_zone(session, ref.game, ref.seat)
    times = [as_utc(sent or created) for headers, sent, created in rows
             if str((headers or {}).get("Reply-To") or "").lower() == address]
    if not times:
        return None
    return _clock_words(min(times), zone)


def _clock_words(moment: datetime, zone: Any) -> str:
    """'14:02 UTC' today, 'Tuesday 1 December, 14:02 UTC' on another day."""
    local = as_utc(moment).astimezone(zone or timezone.utc)
    today = datetime.now(timezone.utc).astimezone(zone or timezone.utc).date()
    name = local.tzname() or "UTC"
    if i18n.current() != i18n.DEFAULT:   # the reader's CLDR forms (issue 50)
        if local.date() == today:
            return f"{forms.clock_time(local, local.tzinfo)} {forms.zone_label(local)}"
        return forms.short_when(local, local.tzinfo)
    if local.date() == today:
        return f"{local:%H:%M} {name}"
    return f"{local:%A} {local.day} {local:%B}, {local:%H:%M} {name}"
