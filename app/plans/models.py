"""The ``plan`` table: one row per seat that ever sent a plan or a standing order.

A seat without a row costs a move nothing but the outer join of the move's one read
(``services.move_read``), which brings the row along when there is one. ``turn`` is
the plan for the rest of a turn and where it stands (``app.services.plans``), None when
none waits; ``orders`` the standing orders (a list of ``app.engine.plans.Order`` JSON);
``told`` what the last plan or order did, for the seat's next mail and page
(``told_lines``): ``{"step": s, "lines": [...]}``, shown while the seat has not played
by itself since step ``s``.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import JSON, Column, DateTime, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.db.statements import table_of


class Plan(SQLModel, table=True):
    __tablename__ = "plan"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_plan_game_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    turn: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    orders: list[Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    told: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    updated_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


PLANS: sa.Table = table_of(Plan)


def told_lines(row: Any, last_acted_step: int) -> list[str]:
    """What the seat's plan or standing orders did that its next mail says ("Your plan:
    you drew a 2 Simon and kept it at #2."), while the seat has not played by itself
    since (its mail row's ``last_acted_step`` is not past the plan's last step)."""
    told = (row.told if row is not None else None) or {}
    if not told.get("lines") or int(told.get("step") or 0) < int(last_acted_step or 0):
        return []
    return [str(line) for line in told["lines"]]


def standing_lines(row: Any, view: Any, seat: int) -> tuple[list[str], str | None]:
    """Issue 51 item 1, for a turn mail: the seat's standing orders in force, in words
    ("Always skip the Twister."), and the one-line order that would have answered the
    decision it faces now ("ALWAYS SKIP TWISTER"), when a standing order could have and
    none of the seat's answers that decision (None otherwise)."""
    from app.engine import plans as ep
    from app.engine.meaning import decision_of

    try:
        orders = ep.orders_from_json((row.orders if row is not None else None) or [])
    except ep.PlanError:
        orders = ()
    kind = decision_of(view, seat)
    offer = None
    if kind and kind not in {order.on for order in orders}:
        if kind in ep.ABILITY_NAMES:
            offer = f"ALWAYS SKIP {ep.ABILITY_NAMES[kind].upper()}"
        elif kind == "peek":
            offer = "ALWAYS PEEK 1 2"
    return [ep.order_words(order) for order in orders], offer
