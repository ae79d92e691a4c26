"""Which rules a game is played under, and which engine code pickled a state (issue 10).

A game's action log means something only under the rules it was played with, so
every game records `RULES_VERSION` when it is created and is replayed under that
version for ever: a behaviour change goes in behind `state.rules >= N`, old games
finish under the rules they started with, new games get the change.
docs/rules.md ("Rules versions") lists what each version changed.

`ENGINE_VERSION` changes with any change to the engine's code: a cached pickle of a
state is only trusted by the same engine code that wrote it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

#: Bump when a change would replay an existing log differently; keep the old path.
RULES_VERSION = 2

#: What each version changed (the summary docs/rules.md expands).
RULES_CHANGES: dict[int, str] = {
    1: "The rules as first released (R1-R46).",
    2: "R12/R16/R29: a Simon claim by hand that is open when the round ends is offered "
       "before the round is scored, with its own timeout (R47).",
}

SUPPORTED_RULES: tuple[int, ...] = tuple(sorted(RULES_CHANGES))


def check_rules(rules: object) -> int:
    """The rules version to play under; ValueError for one this engine cannot replay."""
    if rules is None:
        return RULES_VERSION
    if isinstance(rules, bool) or not isinstance(rules, int) or rules not in SUPPORTED_RULES:
        raise ValueError(f"rules version {rules!r} is not supported "
                         f"(this engine replays {', '.join(map(str, SUPPORTED_RULES))})")
    return rules


def _engine_version() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return f"{RULES_VERSION}-{digest.hexdigest()[:16]}"


#: The rules version and a hash of the engine's source: different code, different pickles.
ENGINE_VERSION = _engine_version()
