"""People, not seats (issue 32): a person per address, and a seat's holders over time.

- ``person`` takes the place of ``address_mail`` (its rows and columns come along: mail
  mode, digest, invitations refused, bounces, "instead of mail") and gains what used to
  die with each game: the name the person likes to be shown by, the time zone and the
  quiet hours. Every address that holds a human seat gets a row.
- Settings merge: where an address's seats chose a zone or quiet hours, the person
  takes them from the seat whose mail settings were changed last (``seat_mail.
  updated_at``, then the newest row); two seats of one address that disagree end with
  the most recently set (docs/operations.md, "People").
- ``tenure``: who held each seat from which step to which. A seat never handed over
  gets one tenure from step 0, open. A seat handed over (R49: ``take_over`` entries in
  its log, which carry the new name and the old, ``was``) gets one tenure per holder,
  split at each ``take_over``'s seq; the old holder's address comes from the goodbye
  mail the hand-over wrote (``handed_over:<game>:<seat>:<seq>``), "" where none is
  kept. Every name before a hand-over stays the name it was shown by then.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04

"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: Union[str, Sequence[str], None] = "0019"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

DAILY = "mode = 'daily'"
#: The columns ``address_mail`` had, carried over as they are.
KEPT = ("address", "mode", "last_digest_at", "updated_at", "no_invitations_at",
        "bouncing_since", "bounce_reason", "soft_bounces", "by_mail")


def _address_columns() -> list[sa.Column]:
    """What ``address_mail`` held besides its id and address (kept by ``person``)."""
    return [
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("last_digest_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("no_invitations_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("bouncing_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("bounce_reason", sa.String(length=300), nullable=True),
        sa.Column("soft_bounces", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("by_mail", sa.Boolean(), nullable=False, server_default=sa.true()),
    ]


def upgrade() -> None:
    op.create_table(
        "person",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=True),
        sa.Column("time_zone", sa.String(length=64), nullable=True),
        sa.Column("quiet_start", sa.Integer(), nullable=True),
        sa.Column("quiet_end", sa.Integer(), nullable=True),
        sa.Column("settings_at", sa.DateTime(timezone=True), nullable=True),
        *_address_columns(),
        sa.UniqueConstraint("address", name="uq_person_address"),
    )
    columns = ", ".join(KEPT)
    op.execute(f"INSERT INTO person ({columns}) SELECT {columns} FROM address_mail ORDER BY id")
    op.drop_index("ix_address_mail_daily", table_name="address_mail")
    op.drop_index("ix_address_mail_lower", table_name="address_mail")
    op.drop_table("address_mail")
    op.create_index("ix_person_lower", "person", [sa.text("lower(address)")])
    op.create_index("ix_person_daily", "person", ["last_digest_at"],
                    postgresql_where=sa.text(DAILY), sqlite_where=sa.text(DAILY))
    # every address that holds a human seat is a person (one row per address, whatever
    # its case: the first spelling seen)
    op.execute("""
        INSERT INTO person (address, mode, soft_bounces, by_mail)
        SELECT MIN(seat.email), 'per_game', 0, TRUE FROM seat
        WHERE seat.kind = 'human' AND seat.email <> ''
          AND NOT EXISTS (SELECT 1 FROM person WHERE lower(person.address) = lower(seat.email))
        GROUP BY lower(seat.email)""")
    _merge_settings(op.get_bind())

    op.create_table(
        "tenure",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("from_step", sa.Integer(), nullable=False),
        sa.Column("to_step", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("game_id", "seat", "from_step", name="uq_tenure"),
    )
    _fill_tenures(op.get_bind())
    op.create_index("ix_tenure_address", "tenure", [sa.text("lower(address)")])


def _merge_settings(bind: sa.engine.Connection) -> None:
    """Each person's zone and quiet hours from the seat of theirs set last."""
    rows = bind.execute(sa.text("""
        SELECT lower(seat.email), seat_mail.time_zone, seat_mail.quiet_start,
               seat_mail.quiet_end, seat_mail.updated_at
        FROM seat_mail JOIN seat ON seat.game_id = seat_mail.game_id
                                AND seat."index" = seat_mail.seat
        WHERE seat.kind = 'human' AND seat.email <> ''
          AND (seat_mail.time_zone <> 'UTC' OR seat_mail.quiet_start IS NOT NULL)
        ORDER BY seat_mail.id""")).all()
    newest: dict[str, tuple[Any, ...]] = {}
    for address, zone, start, end, updated in rows:
        kept = newest.get(address)
        # the most recently set wins; without a time, the newer row (later in the order)
        if kept is None or updated is None or kept[3] is None or _at(updated) >= _at(kept[3]):
            newest[address] = (zone, start, end, updated)
    for address, (zone, start, end, updated) in newest.items():
        bind.execute(sa.text(
            "UPDATE person SET time_zone = :zone, quiet_start = :start, quiet_end = :end, "
            "settings_at = :at WHERE lower(address) = :address"),
            {"zone": zone, "start": start, "end": end, "at": updated, "address": address})


def _at(value: Any) -> str:
    """A stored time, comparable whatever the store returns (SQLite: text)."""
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _fill_tenures(bind: sa.engine.Connection) -> None:
    """One tenure per seat, split at each ``take_over`` of its log (R49)."""
    bind.execute(sa.text("""
        INSERT INTO tenure (game_id, seat, from_step, to_step, name, address, started_at)
        SELECT seat.game_id, seat."index", 0, NULL, seat.name,
               CASE WHEN seat.kind = 'human' THEN seat.email ELSE '' END, game.created
        FROM seat JOIN game ON game.id = seat.game_id"""))
    takes = bind.execute(sa.text("""
        SELECT action.game_id, action.seat, action.seq, action.action, action.created
        FROM action WHERE action.source = 'system'
          AND CAST(action.action AS TEXT) LIKE '%take_over%'
        ORDER BY action.game_id, action.seat, action.seq""")).all()
    by_seat: dict[tuple[str, int], list[tuple[int, dict[str, Any], Any]]] = {}
    for game_id, seat, seq, action, created in takes:
        action = json.loads(action) if isinstance(action, str) else action
        if action.get("type") == "take_over":
            by_seat.setdefault((game_id, seat), []).append((seq, action, created))
    for (game_id, seat), changes in by_seat.items():
        _split(bind, game_id, seat, changes)


def _split(bind: sa.engine.Connection, game_id: str, seat: int,
           changes: list[tuple[int, dict[str, Any], Any]]) -> None:
    """Replace a handed-over seat's one tenure by one per holder."""
    now = bind.execute(sa.text(
        "SELECT name, address, started_at FROM tenure WHERE game_id = :g AND seat = :s"),
        {"g": game_id, "s": seat}).one()
    bind.execute(sa.text("DELETE FROM tenure WHERE game_id = :g AND seat = :s"),
                 {"g": game_id, "s": seat})
    start, started_at = 0, now.started_at
    for seq, action, created in changes:
        gone = bind.execute(sa.text(
            "SELECT \"to\" FROM outbox WHERE idempotency = :key"),
            {"key": f"handed_over:{game_id}:{seat}:{seq}"}).scalar()
        _insert(bind, game_id, seat, start, seq, str(action.get("was") or now.name),
                gone or "", started_at, created)
        start, started_at = seq, created
    _insert(bind, game_id, seat, start, None, now.name, now.address, started_at, None)


def _insert(bind: sa.engine.Connection, game_id: str, seat: int, start: int,
            end: int | None, name: str, address: str, started_at: Any,
            ended_at: Any) -> None:
    bind.execute(sa.text(
        "INSERT INTO tenure (game_id, seat, from_step, to_step, name, address, started_at, "
        "ended_at) VALUES (:g, :s, :start, :end, :name, :address, :started, :ended)"),
        {"g": game_id, "s": seat, "start": start, "end": end, "name": name[:100],
         "address": address, "started": started_at, "ended": ended_at})


def downgrade() -> None:
    op.drop_index("ix_tenure_address", table_name="tenure")
    op.drop_table("tenure")
    op.create_table(
        "address_mail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        *_address_columns(),
        sa.UniqueConstraint("address", name="uq_address_mail"),
    )
    columns = ", ".join(KEPT)
    op.execute(f"INSERT INTO address_mail ({columns}) SELECT {columns} FROM person ORDER BY id")
    op.create_index("ix_address_mail_lower", "address_mail", [sa.text("lower(address)")])
    op.create_index("ix_address_mail_daily", "address_mail", ["last_digest_at"],
                    postgresql_where=sa.text(DAILY), sqlite_where=sa.text(DAILY))
    op.drop_index("ix_person_daily", table_name="person")
    op.drop_index("ix_person_lower", table_name="person")
    op.drop_table("person")
