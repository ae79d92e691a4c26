"""A person's keys (issue 45, "one key, one door"): the links that prove an address,
and the record of what each person-wide change did, so it can be undone.

A seat link opens one seat. What holds in all of a person's games (zone, quiet hours,
mail across games, targets for all games, invitations) opens only with a key that
proves the address: a link mailed *to* it. Two such keys exist: the games page's link
(``app.services.my_games``: seven days, revocable) and the **settings link** kept here:

- it is mailed to the address on request (the seat page's "Send me the link to my
  settings", the lobby's form for an address with no seat yet, the games page) or
  carried by an invitation, never shown on a page;
- it opens the settings page and nothing else (no seat, no list of games);
- it works for ``SETTINGS_LINK_HOURS`` after it was mailed and for
  ``SITTING_MINUTES`` after its first change (one sitting), and a newer link of the
  same address replaces it: a link found in an old mail opens nothing.

Every person-wide change is a **change** row: what it set, what was there before, and
which key made it. The address is mailed at once with a link that undoes it
(``app.services.settings_keys``), so nothing about a person changes behind their back.

Both tables hold random ids; the links carry them signed (``app.access.tokens``,
purposes ``person-key`` and ``settings-undo``), so a link cannot be guessed or made
for another purpose.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Index, func, update
from sqlmodel import Field, Session, SQLModel, col, select

from app.access import tokens
from app.clock.time import as_utc
from app.db.statements import Insert, table_of
from app.db.unit import Unit
from app.i18n import N_, _, forms
from app.people import moves

#: How long a mailed settings link opens the settings page, unused.
SETTINGS_LINK_HOURS = 24
#: How long it keeps opening them after its first change: one sitting.
SITTING_MINUTES = 60
#: How long a change's undo link works.
UNDO_DAYS = 30

#: Why a key was made (shown to nobody but the operator; the mail says it in words).
ASKED_ON_SEAT, ASKED_IN_LOBBY, INVITATION, GAMES_PAGE = ("seat page", "lobby",
                                                         "invitation", "games page")
#: Which key made a change (``PersonChange.via``), in the words the mail uses.
VIA_WORDS = {
    "settings": N_("your settings link"),
    "games": N_("your games page's link"),
    "invitation": N_("the \"no more invitations\" link of an invitation"),
    "digest": N_("the unsubscribe link of your daily digest"),
    "undo": N_("an undo link"),
}


def _random_id() -> str:
    return secrets.token_urlsafe(16)


class PersonKey(SQLModel, table=True):
    """One settings link mailed to an address (see the module docstring)."""

    __tablename__ = "person_key"
    __table_args__ = (Index("ix_person_key_address", func.lower(Column("address"))),)

    id: str = Field(default_factory=_random_id, primary_key=True, max_length=32)
    #: The address it was mailed to, as stored on seats and on the person row.
    address: str = Field(max_length=320)
    #: Why it was made (``ASKED_ON_SEAT`` ...).
    made_for: str = Field(max_length=32)
    made_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: After this it opens nothing (moved to ``made_at`` when a newer key replaces it).
    expires_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: Its first change: it opens the page for ``SITTING_MINUTES`` more.
    used_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class PersonChange(SQLModel, table=True):
    """One person-wide change: the fields it set, their values before, the key that made
    it, and whether it was undone."""

    __tablename__ = "person_change"
    __table_args__ = (Index("ix_person_change_address", func.lower(Column("address"))),)

    id: str = Field(default_factory=_random_id, primary_key=True, max_length=32)
    address: str = Field(max_length=320)
    at: datetime = Field(sa_type=DateTime(timezone=True))
    #: Which key made it (``VIA_WORDS``).
    via: str = Field(max_length=16)
    #: ``{field: value}`` before and after (targets: ``target_added``/``target_removed``
    #: with the target's id and masked form).
    before: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    after: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    #: What it did, in the words of the mail.
    words: str = Field(max_length=2000)
    undone_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class KeyRefused(Exception):
    """A settings or undo link that opens nothing, with words for the person."""

    def __init__(self, words: str, reason: str) -> None:
        super().__init__(words)
        self.words = words
        self.reason = reason


# -- settings links ------------------------------------------------------------------

def same_address(address: str) -> Any:
    """The condition on ``PersonKey.address`` for ``address`` (case-folded: one index)."""
    return func.lower(col(PersonKey.address)) == address.strip().lower()


def issue(unit: Unit, address: str, made_for: str, now: datetime) -> str:
    """A new settings link for ``address`` (its id), replacing the ones mailed before, on
    the caller's unit of work (the mail that carries it goes in the same transaction)."""
    now = as_utc(now)
    unit.statement(update(_KEYS).where(func.lower(_KEYS.c.address) == address.strip().lower(),
                                       _KEYS.c.expires_at > now).values(expires_at=now))
    key_id = _random_id()
    unit.insert(Insert(_KEYS, [{"id": key_id, "address": address, "made_for": made_for,
                                "made_at": now, "used_at": None,
                                "expires_at": now + timedelta(hours=SETTINGS_LINK_HOURS)}]))
    return key_id


def last_mailed(session: Session, address: str) -> datetime | None:
    """When the newest settings link of ``address`` was made (None: never)."""
    at = session.exec(select(func.max(PersonKey.made_at)).where(same_address(address))).one()
    return as_utc(at) if at is not None else None


def token_of(key: PersonKey | str) -> str:
    """The signed token a settings link carries."""
    return tokens.sign(tokens.PERSON_KEY, [key if isinstance(key, str) else key.id])


def _id_of(purpose: str, token: str) -> str:
    try:
        payload = tokens.unsign(purpose, token)
    except tokens.BadToken:
        raise KeyRefused(_("This link is not valid: it may have been cut short. Ask for a "
                           "new one: it is mailed to your address."), "invalid") from None
    if not (isinstance(payload, list) and len(payload) == 1 and isinstance(payload[0], str)):
        raise KeyRefused(_("This link is not valid. Ask for a new one: it is mailed to your "
                           "address."), "invalid")
    return payload[0]


@dataclass(frozen=True)
class Opened:
    """A settings link that opens the page now: its row's id and address."""

    id: str
    address: str
    used_at: datetime | None


def open_key(session: Session, token: str, now: datetime) -> Opened:
    """The settings link ``token`` names, if it opens the page now; ``KeyRefused`` with
    words otherwise (not ours, replaced, expired, its sitting over)."""
    key = session.get(PersonKey, _id_of(tokens.PERSON_KEY, token))
    now = as_utc(now)
    if key is None:
        raise KeyRefused(_("This settings link is not valid. Ask for a new one: it is "
                           "mailed to your address."), "invalid")
    if now >= as_utc(key.expires_at) or key.used_at is not None and now >= as_utc(
            key.used_at) + timedelta(minutes=SITTING_MINUTES):
        moved = moves.moved_away(session, key.address, as_utc(key.made_at))
        if moved is not None:  # (issue 47 item 5: the move revoked it)
            raise KeyRefused(moves.moved_words(moved), "moved")
    if key.used_at is not None and now >= as_utc(key.used_at) + timedelta(
            minutes=SITTING_MINUTES):
        raise KeyRefused(_("This settings link was used more than %(minutes)s minutes ago, "
                           "so it opens nothing any more. Ask for a new one: it is mailed to "
                           "your address.", minutes=SITTING_MINUTES), "used")
    if now >= as_utc(key.expires_at):
        replaced = as_utc(key.expires_at) < as_utc(key.made_at) + timedelta(
            hours=SETTINGS_LINK_HOURS)
        raise KeyRefused(
            _("A newer settings link was mailed to your address since this one, so this one "
              "opens nothing. Use the newest mail.") if replaced else
            _("This settings link is more than %(hours)s hours old, so it opens nothing any "
              "more. Ask for a new one: it is mailed to your address.",
              hours=SETTINGS_LINK_HOURS),
            "replaced" if replaced else "expired")
    return Opened(key.id, key.address, as_utc(key.used_at) if key.used_at else None)


def mark_used(unit: Unit, key_id: str, now: datetime) -> None:
    """The key's first change starts its sitting (a later change keeps the first time)."""
    unit.statement(update(_KEYS).where(_KEYS.c.id == key_id, _KEYS.c.used_at.is_(None))
                   .values(used_at=as_utc(now)))


# -- changes and their undo ------------------------------------------------------------

def record(unit: Unit, address: str, via: str, before: dict[str, Any],
           after: dict[str, Any], words: str, now: datetime) -> str:
    """Keep one person-wide change (its id), on the caller's unit of work, with the
    change itself and the mail that tells of it."""
    change_id = _random_id()
    unit.insert(Insert(_CHANGES, [{"id": change_id, "address": address, "at": as_utc(now),
                                   "via": via, "before": before, "after": after,
                                   "words": words[:2000], "undone_at": None}]))
    return change_id


def undone(unit: Unit, change_id: str, now: datetime) -> None:
    """A change was undone (its undo link opens nothing more)."""
    unit.statement(update(_CHANGES).where(_CHANGES.c.id == change_id)
                   .values(undone_at=as_utc(now)))


def undo_token(change: PersonChange | str) -> str:
    return tokens.sign(tokens.SETTINGS_UNDO,
                       [change if isinstance(change, str) else change.id])


_KEYS = table_of(PersonKey)
_CHANGES = table_of(PersonChange)


def open_change(session: Session, token: str, now: datetime) -> PersonChange:
    """The change an undo link names, if it can still be undone; ``KeyRefused`` else."""
    change = session.get(PersonChange, _id_of(tokens.SETTINGS_UNDO, token))
    if change is None:
        raise KeyRefused(_("This undo link is not valid."), "invalid")
    moved = moves.moved_away(session, change.address, as_utc(change.at))
    if moved is not None:  # its person lives at another address now (issue 47 item 5)
        raise KeyRefused(moves.moved_words(moved), "moved")
    if change.undone_at is not None:
        raise KeyRefused(_("This change was undone already, on %(when)s.",
                           when=forms.long_when(as_utc(change.undone_at))), "undone")
    if as_utc(now) >= as_utc(change.at) + timedelta(days=UNDO_DAYS):
        raise KeyRefused(_("This undo link is more than %(days)s days old. Ask for the link "
                           "to your settings to change them.", days=UNDO_DAYS), "expired")
    return change
