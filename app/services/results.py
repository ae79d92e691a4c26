"""What callers get back from the use cases: public facts, never an email or a
token of someone else; a game's state leaves only through ``engine.view``."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from app import engine
from app.access import tokens
from app.clock.time import iso_in
from app.engine.names import SeatNames


@dataclass(frozen=True)
class SeatInfo:
    """The public side of a seat: never the email, never the token."""

    index: int
    name: str
    kind: str


@dataclass(frozen=True)
class GameInfo:
    """A game as anyone may see it. ``seed`` is None while the game runs (it is shown
    once it is over or was ended: nothing more can be played then)."""

    id: str
    name: str
    status: str
    created: datetime
    options: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    commitment: str
    seed: str | None
    seq: int
    #: The rules version the game is played under (docs/rules.md, "Rules versions").
    rules: int = 1
    #: Why it ended early (``away``, ``agreement``, ``resigned``, ``operator``; None).
    end_reason: str | None = None
    #: Its series of rematches (issue 21 item 6): the first game's id (None: no series
    #: yet), the game it is a rematch of, its number in the series.
    series_id: str | None = None
    rematch_of: str | None = None
    series_no: int = 1
    #: Who held the seats before (issue 32, R49: a seat handed over), when the reader
    #: read it (``services.reading``): ``names`` then names the past by its holders.
    earlier: SeatNames | None = field(default=None, compare=False, repr=False)

    @property
    def names(self) -> list[str]:
        """The names now; a ``SeatNames`` that also knows earlier holders when read."""
        now = [seat.name for seat in self.seats]
        if self.earlier is not None and list(self.earlier) == now:
            return self.earlier
        return now

    def public(self, zone: tzinfo | None = None) -> dict[str, Any]:
        """JSON-safe summary for pages and the API; ``zone``: the reader's, when a seat's
        JSON carries it (issue 33: no UTC time there once its person chose a zone)."""
        return {
            "id": self.id, "name": self.name, "status": self.status,
            "created": iso_in(self.created, zone), "options": self.options,
            "seats": [{"index": s.index, "name": s.name, "kind": s.kind} for s in self.seats],
            "names": self.names, "commitment": self.commitment, "seed": self.seed,
            "seq": self.seq, "rules": self.rules, "end_reason": self.end_reason,
            "series_id": self.series_id, "rematch_of": self.rematch_of,
            "series_no": self.series_no,
            # where a seat changed hands (issue 32, R53): who held the seats from which
            # step on (a log event of seq ``s`` was made at step ``s - 1``)
            **({"holders": [{"from_step": step, "names": list(named)}
                            for step, named in self.earlier.eras]}
               if self.earlier is not None and self.earlier.eras else {}),
        }


@dataclass
class Snapshot:
    """A game and its current (server-side, opaque) state."""

    game: GameInfo
    state: Any

    @property
    def seq(self) -> int:
        return self.game.seq

    def view(self, seat: int | None) -> dict[str, Any]:
        """The only way out of the state: the engine's view for ``seat``."""
        return engine.view(self.state, seat)


@dataclass(frozen=True)
class SeatAccess:
    """A checked seat link: this token opens this seat of this game."""

    game_id: str
    seat: int
    version: int
    token: str

    @property
    def csrf(self) -> str:
        return tokens.csrf_token(self.game_id, self.seat, self.version)


@dataclass(frozen=True)
class AppliedAction:
    """One action appended by a call, with the events it caused."""

    seq: int
    seat: int
    action: dict[str, Any]
    source: str
    events: list[dict[str, Any]]
    #: When the log row was written (its ``created``).
    logged_at: datetime | None = None


@dataclass
class Submitted:
    """The outcome of ``submit_action``: what was appended and the position after it."""

    snapshot: Snapshot
    applied: list[AppliedAction] = field(default_factory=list)
    #: The zone of the person whose link made it (its answer's times are in it: issue 33).
    zone: tzinfo | None = None

    @property
    def seq(self) -> int:
        return self.snapshot.seq

    @property
    def events(self) -> list[dict[str, Any]]:
        return [event for item in self.applied for event in item.events]


@dataclass
class Created:
    """A new game and the token of each seat (bots get one too, unused)."""

    snapshot: Snapshot
    tokens: list[str]

    @property
    def game_id(self) -> str:
        return self.snapshot.game.id


@dataclass(frozen=True)
class StepLine:
    """One step of a game for a replay's navigation: its round and its events in words."""

    step: int
    round: int
    seat: int | None
    text: str
    over: bool
