"""Generate the golden corpus once; after that the files are frozen (issue 10).

    .venv/bin/python -m tests.golden.make_corpus [RULES]   # writes tests/golden/games/*.json

Each game is a complete log played by the engine's own bots (random and greedy,
with a seat timing out now and then), chosen so that the corpus covers 2, 3 and
4 seats, the memory option, Simon `off`, timeouts, an abandoned game and every
card ability. The file records what the rules said then: the final totals and a
hash of every seat's (and the spectator's) final view. `test_golden.py` replays
them under the rules version they name; a change that alters any of them must
bump `engine.RULES_VERSION` and keep the old behaviour for old logs.

Each rules version has its corpus (`rules2_*.json` for version 2, with a game
where R47 holds a round end for a Simon claim); a new version adds its own with
`make_corpus N` and leaves the older ones alone.

The version-1 corpus was generated on commit 992e5f3 (the code before
the R32 listing and the Simon round-end fix: the bots' choices depend on the
listing, so running this again now gives other games). Do not regenerate it to
make a test pass.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from app import engine as E
from app.engine import bots
from tests.golden.corpus import event_kinds, fingerprint

HERE = Path(__file__).parent / "games"
#: The rules versions a corpus was made for (the engine keeps replaying each).
FROZEN = (1, 2)

#: Event kinds that show each card ability (and the rule paths around them) at work.
ABILITY_EVENTS = {
    "nelly", "bomb", "simon", "spot", "look", "spotted", "gamble", "gamble_discard", "tanner",
    "twist", "ghost", "see", "dracula", "undermine", "drunk", "refused", "exchange_failed",
    "pick", "kept", "put_back", "illusionist", "simon_claim",
}


def play(seats: int, seed: int, options: dict, timeout_rate: float, stop_after: int | None,
         kinds: list[str], rules: int) -> list[tuple[int, dict]]:
    rng = random.Random(f"golden:{seed}")
    st = E.new_game(seats, seed, options=options, rules=rules)
    log: list[tuple[int, dict]] = []
    while st.phase != "over" and (stop_after is None or len(log) < stop_after):
        seat = E.to_act(st)[0]
        if rng.random() < timeout_rate:
            action = E.default_action(st, seat)
        else:
            action = bots.choose(kinds[seat], st, seat, rng)
        if action["type"] in ("exchange", "ghost", "discard") and rng.random() < 0.7:
            try:   # declare the seat's faceup Spotters (R17) when the rules allow it
                st, _ = E.apply_action(st, seat, {**action, "spotter": True})
                log.append((seat, {**action, "spotter": True}))
                continue
            except E.IllegalAction:
                pass
        st, _ = E.apply_action(st, seat, action)
        log.append((seat, action))
    return log


PLANS = [
    # name, seats, options, timeout rate, stop after, bots
    ("two_seats", 2, {}, 0.0, None, ["random", "greedy"]),
    ("three_seats", 3, {}, 0.03, None, ["random", "random", "greedy"]),
    ("four_seats", 4, {}, 0.0, None, ["random"] * 4),
    ("memory", 3, {"memory": True}, 0.0, None, ["random", "greedy", "random"]),
    ("simon_off", 4, {"simon": ["off", "off", "auto", "off"]}, 0.0, None, ["random"] * 4),
    ("timeouts", 3, {}, 0.3, None, ["random", "random", "random"]),
    ("abandoned", 4, {"memory": True}, 0.05, 90, ["random", "greedy", "random", "greedy"]),
]
#: Plans that show what a rules version changed, with the event kind they must show.
NEW_IN = {
    2: [("simon_round_end", 3, {"simon": ["off", "off", "off"]}, 0.1, None, ["random"] * 3,
         "simon_round_end")],
}


def file_name(name: str, rules: int) -> str:
    return f"{name}.json" if rules == 1 else f"rules{rules}_{name}.json"


def main(argv: list[str]) -> int:
    rules = int(argv[0]) if argv else 1
    HERE.mkdir(exist_ok=True)
    plans = [plan + (None,) for plan in PLANS] + NEW_IN.get(rules, [])
    if any((HERE / file_name(plan[0], rules)).exists() for plan in plans):
        print(f"{HERE} already holds the corpus of rules {rules}: it is frozen")
        return 1
    covered: set[str] = set()
    for name, seats, options, rate, stop, kinds, needs in plans:
        # the seed whose game adds the most unseen event kinds (first 80 tried)
        best = None
        for seed in range(1, 81 if needs is None else 400):
            log = play(seats, seed, options, rate, stop, kinds, rules)
            st = E.replay(seats, seed, log, options=options, rules=rules)
            shown = event_kinds(st, log, seats, seed, options)
            gain = len((shown & ABILITY_EVENTS) - covered)
            if name == "simon_off" and not any(a["type"] == "simon" for _, a in log):
                continue
            if needs is not None and needs not in shown:
                continue
            if best is None or gain > best[0]:
                best = (gain, seed, log, st)
            if needs is not None:
                break
        _, seed, log, st = best
        covered |= event_kinds(st, log, seats, seed, options) & ABILITY_EVENTS
        record = {
            "name": name, "rules": rules, "seats": seats, "seed": seed, "options": options,
            "bots": kinds, "timeout_rate": rate, "abandoned": stop is not None,
            "actions": [[s, a] for s, a in log],
            "phase": st.phase, "step": st.step, "totals": list(st.totals),
            "round_scores": [list(r) for r in st.round_scores],
            "views": fingerprint(st),
        }
        (HERE / file_name(name, rules)).write_text(json.dumps(record, separators=(",", ":"), sort_keys=True) + "\n")
        print(f"{name}: seed {seed}, {len(log)} actions, phase {st.phase}, totals {st.totals}")
    missing = ABILITY_EVENTS - covered
    print("event kinds covered:", sorted(covered))
    if missing:
        print("NOT covered:", sorted(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
