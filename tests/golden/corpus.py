"""Reading and checking the golden corpus (issue 10): replay a frozen log under the
rules version it names and compare what the rules say now with what they said then."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from app import engine as E

GAMES = Path(__file__).parent / "games"


#: Event fields added after the corpus was frozen that only explain what the rules
#: already decided, for every rules version alike (each is derived from state the
#: other fields pin down). Declared here one by one, so a new field is a reviewed
#: decision; any change to a field that existed when the corpus froze still fails.
EXPLANATORY_FIELDS = {
    # issue 7: each final card with the points scoring gave it, for round summaries
    "round_scored": ("villages",),
}


def _without_explanations(value):
    if isinstance(value, list):
        return [_without_explanations(item) for item in value]
    if isinstance(value, dict):
        skip = EXPLANATORY_FIELDS.get(value.get("type"), ()) if isinstance(value.get("type"), str) else ()
        return {k: _without_explanations(v) for k, v in value.items() if k not in skip}
    return value


def _r28_order(view: dict) -> list[int]:
    """R28's order of the seats when nobody resigned: total, then clockwise from the eye."""
    seats, eye = len(view["totals"]), view["silver_eye"]["holder"]
    return sorted(range(seats), key=lambda s: (view["totals"][s], (s - eye) % seats))


def _without_later_fields(view: dict) -> dict:
    """View fields added after the corpus was frozen (issue 21), left out only while they
    hold what every frozen log gives them: nobody resigned (R48), and so the ranking is
    R28's order of the totals and the silver eye, both pinned. A replay that starts to
    differ in them still fails."""
    view = dict(view)
    if view.get("resigned") == []:
        del view["resigned"]
        if view.get("ranking") == (_r28_order(view) if view["phase"] == "over" else None):
            del view["ranking"]
    return view


def fingerprint(st) -> dict[str, str]:
    """sha256 of each seat's and the spectator's final view.

    The list of legal actions is left out: it is how choices are offered (R32 changed
    it without changing any replay), not what the rules did; so are the explanatory
    event fields declared in ``EXPLANATORY_FIELDS`` and the view fields added later
    while they say nothing a frozen log could (``_without_later_fields``).
    """
    out = {}
    for who in [None, *range(st.seats)]:
        view = {k: v for k, v in E.view(st, who).items() if k != "legal_actions"}
        view = _without_later_fields(_without_explanations(view))
        blob = json.dumps(view, sort_keys=True, separators=(",", ":")).encode()
        out["spectator" if who is None else str(who)] = hashlib.sha256(blob).hexdigest()
    return out


def event_kinds(st, log, seats, seed, options) -> set[str]:
    """Every event kind the game produced (plus "illusionist" if one scored faceup)."""
    kinds: set[str] = set()
    game = E.new_game(seats, seed, options=options, rules=st.rules)
    for seat, action in log:
        game, events = E.apply_action(game, seat, action)
        for event in events:
            kinds.add(event["type"])
            if event["type"] == "round_end":
                faceup = set(event.get("faceup_at_scoring") or ())
                if any(c in faceup for c in (4, 5)) and any(
                        c["id"] in (4, 5) for v in event["villages"] for c in v):
                    kinds.add("illusionist")
            if event["type"] == "simon" and not event.get("auto"):
                kinds.add("simon_claim")
        types = [e["type"] for e in events]
        if "round_end" in types and (
                (types[0] == "simon" and not events[0].get("auto"))
                or (types[0] == "skip" and events[0].get("what") == "simon_claim")):
            kinds.add("simon_round_end")       # R47 (rules 2): a claim held the round end
    return kinds


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def corpus() -> list[Path]:
    return sorted(GAMES.glob("*.json"))


def check(record: dict) -> list[str]:
    """What differs between the frozen record and a replay now ([] when nothing)."""
    rules = record.get("rules", 1)
    try:
        st = replay(record)
    except E.IllegalAction as exc:
        return [f"{record['name']}: a logged action is refused under rules {rules}: {exc}"]
    problems = []
    for key, now in (("phase", st.phase), ("step", st.step), ("totals", list(st.totals)),
                     ("round_scores", [list(r) for r in st.round_scores]),
                     ("views", fingerprint(st))):
        if record[key] != now:
            problems.append(f"{record['name']}: {key} was {record[key]!r}, now {now!r}")
    return problems


def replay(record: dict):
    pairs = [(seat, action) for seat, action in record["actions"]]
    return E.replay(record["seats"], record["seed"], pairs, options=record["options"],
                    rules=record["rules"])
