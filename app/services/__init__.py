"""Use cases of the server, and its one transaction boundary.

Every change to a game goes through here: load the log (through the state
cache), check ``expected_seq``, let the engine apply the action, append it,
call the hooks (mail, deadlines) in the same transaction, let bots and absent
seats act, commit. The web layer, the CLI and the clock all call these
functions; none of them opens a write transaction of its own.

Errors are ``ServiceError`` subclasses carrying an HTTP-like status and a
sentence a player understands; nothing here ever turns a race into a 500.

The package's modules, each importing only those before it:
``errors`` (what goes wrong), ``results`` (what callers get back),
``gamelog`` (the log's repository: game, seats, cache, newer actions; the
link check), ``reading`` (read-only use cases), ``games`` (creating games,
automatic moves, links) and ``moves`` (a seat's move). Callers use this
package's names: ``services.submit_action(...)``.
"""
from __future__ import annotations

import secrets  # noqa: F401 - tests fix the seed of a new game through services.secrets

from app.services.errors import (  # noqa: F401
    ServiceError,
    BadRequest,
    Forbidden,
    NotFound,
    Conflict,
    TooMany,
    Illegal,
    MOVED_ON,
    ALREADY_APPLIED,
    FORM_USED,
)
from app.services.results import (  # noqa: F401
    SeatInfo,
    GameInfo,
    Snapshot,
    SeatAccess,
    AppliedAction,
    Submitted,
    Created,
    StepLine,
)
from app.services.repository import (  # noqa: F401
    ENGINE_OPTION_KEYS,
    commitment_of,
    engine_seed,
    engine_options,
    _load_state,
)
from app.services.reading import (  # noqa: F401
    snapshot,
    game_and_state,
    game_with_seats,
    load_state,
    open_seat,
    seat_snapshot,
    seat_page,
    game_page,
    current_seq,
    game_info,
    seat_tokens,
    replay_frames,
    state_and_log_after,
    replay_index,
    replay_page,
    ReplayPage,
    ended_words,
    step_names,
)
from app.services.left import (  # noqa: F401
    HandedOver,
    LeftMail,
    handed_over_link,
    handed_over_at,
    left_mail,
    when_taken,
)
from app.services.games import (  # noqa: F401
    MIN_SEATS,
    MAX_SEATS,
    MAX_NAME_LENGTH,
    create_game,
    rotate_link,
    request_fresh_link,
    abandon_game,
)
from app.services.moves import (  # noqa: F401
    MAX_STEPS_PER_POST,
    PRESENCE_PER_HOUR,
    submit_action,
    submit_actions,
    submit_by_link,
    submit_now,
)

__all__ = [
    "ServiceError",
    "BadRequest",
    "Forbidden",
    "NotFound",
    "Conflict",
    "TooMany",
    "Illegal",
    "MOVED_ON",
    "ALREADY_APPLIED",
    "FORM_USED",
    "SeatInfo",
    "GameInfo",
    "Snapshot",
    "SeatAccess",
    "AppliedAction",
    "Submitted",
    "Created",
    "StepLine",
    "ENGINE_OPTION_KEYS",
    "commitment_of",
    "engine_seed",
    "engine_options",
    "_load_state",
    "snapshot",
    "game_and_state",
    "game_with_seats",
    "load_state",
    "open_seat",
    "seat_snapshot",
    "seat_page",
    "game_page",
    "current_seq",
    "game_info",
    "seat_tokens",
    "replay_frames",
    "state_and_log_after",
    "replay_index",
    "replay_page",
    "ReplayPage",
    "ended_words",
    "step_names",
    "HandedOver",
    "LeftMail",
    "handed_over_link",
    "handed_over_at",
    "left_mail",
    "when_taken",
    "MIN_SEATS",
    "MAX_SEATS",
    "MAX_NAME_LENGTH",
    "create_game",
    "rotate_link",
    "request_fresh_link",
    "abandon_game",
    "MAX_STEPS_PER_POST",
    "PRESENCE_PER_HOUR",
    "submit_action",
    "submit_actions",
    "submit_by_link",
    "submit_now",
]
