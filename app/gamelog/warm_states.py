"""The engine states this process computed lately, held in memory.

Every request about a game needs its state. Read from the state cache that
is a blob of 8-20 KB sent by the database, then unpickled (about half a
millisecond of CPU on each side), and writing it back after every move cost
as much again and filled the write-ahead log. A worker that served the game a
moment ago already had the state: it keeps it here, and its next request
reads only the log rows after it (usually one or two: what the other workers
appended since) and applies them, about 10 µs each.

The log stays the truth. A held state is used only when the game row and the
log row it was computed after are still there with the timestamps they had
(``states.held_state``): a database restored from a backup, or a test database reused
under the same game id, is read afresh. States enter only from committed
data: what a read computed from the log, or what a move computed, once its
transaction committed (``db.write_session`` runs ``after_commit``).

Held states are never handed out: callers get a clone (the engine's cheap
copy), so nothing a request does to its state can reach another request.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

#: Games held per process. A state is a few tens of kilobytes in memory, so a
#: worker spends a few megabytes; a game pushed out is read from the cache again.
CAPACITY = 256


@dataclass(frozen=True, slots=True)
class Warm:
    """A game's state after action ``seq``, and what identifies the log it came from
    (aware UTC times, compared with the game row and log row read now:
    ``states.held_state``)."""

    seq: int
    state: Any
    game_created: datetime
    #: ``created`` of the log row ``seq`` (None at seq 0: no row).
    anchor: datetime | None


_held: OrderedDict[str, Warm] = OrderedDict()
_lock = threading.Lock()  # gthread workers serve requests on several threads


def get(game_id: str) -> Warm | None:
    """The state held for a game, if any (the caller checks ``fits`` and clones)."""
    with _lock:
        warm = _held.get(game_id)
        if warm is not None:
            _held.move_to_end(game_id)
        return warm


def put(game_id: str, warm: Warm) -> None:
    """Hold ``warm`` unless a later state of the same log is held already."""
    with _lock:
        held = _held.get(game_id)
        if held is not None and held.seq > warm.seq and held.game_created == warm.game_created:
            return
        _held[game_id] = warm
        _held.move_to_end(game_id)
        while len(_held) > CAPACITY:
            _held.popitem(last=False)


def forget(game_id: str | None = None) -> None:
    """Drop a game's held state, or every one (tests that exercise the cache)."""
    with _lock:
        if game_id is None:
            _held.clear()
        else:
            _held.pop(game_id, None)
