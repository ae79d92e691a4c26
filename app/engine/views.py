"""What one seat (or a spectator) may see: the only way out of the state (R30, R31).

Every page, JSON answer, mail and replay frame is built from `view`. A card the
viewer does not know is shown with `id` and `value` null, because the id alone
identifies the card.
"""
from __future__ import annotations

from .cards import VALUE
from .rules import legal_actions, to_act
from .scoring import next_resolution, ranking
from .state import SPECTATOR_BIT, State, seat_bit


def _pending(st: State) -> tuple[str | None, dict]:
    """The current decision's name and its public details (never a hidden card)."""
    if st.phase == "resolve":
        pending = next_resolution(st)
        if pending is None:
            return None, {}
        seat, card, kind = pending
        return kind, {"seat": seat, "card": {"id": card, "value": VALUE[card], "faceup": True}}
    if st.phase == "play" and st.round_end is not None and st.simon_window is not None:
        # R47: the round ends once the Simon claims it waits for are made or declined
        return "simon_claims", {"value": st.simon_window["value"], "round_end": st.round_end}
    if st.phase != "play" or not st.stack:
        return None, {}
    entry = st.stack[-1]
    kind = entry["kind"]
    detail: dict = {}
    if "card" in entry:
        card = entry["card"]
        detail["card"] = {"id": card, "value": VALUE[card], "faceup": True}
    if kind == "drawn":
        detail["source"] = entry["source"]
    elif kind == "twister":
        detail["left"] = entry.get("left")
    elif kind == "seer":
        detail["seen"] = list(entry.get("seen", ()))
    elif kind == "spotter":
        detail.update(value=entry["value"], uses=entry["uses"], target=entry.get("target"))
    elif kind == "gamble_more":
        detail["used"] = entry["used"]
    elif kind == "underminer":
        targets = entry.get("targets", ())
        detail.update(chosen=len(targets) + len(entry.get("takes", ())),
                      target=targets[0][0] if targets else None)
    return kind, detail


def status(st: State) -> dict:
    """The public facts that need no card: whose decision, which phase, the scores.

    Cheap (no card, no log), for code that only needs to know where the game stands;
    `view` is this plus the cards and the log as one viewer sees them.
    """
    pending, detail = _pending(st)
    return {
        "seats": st.seats,
        "round": st.round,
        "phase": st.phase,
        "step": st.step,
        "to_act": to_act(st),
        "current": st.current,
        "start_player": st.start_player,
        "pending": pending,
        "pending_detail": detail,
        "peeks_pending": list(st.peeks) if st.phase == "play" else [],
        "deck_count": len(st.deck),
        "hand_seat": st.hand_seat,
        "round_scores": [list(r) for r in st.round_scores],
        "totals": list(st.totals),
        "silver_eye": {"holder": st.eye_holder, "open": st.eye_open},
        "caller": st.caller,
        "winner": st.winner,
        "resigned": list(st.resigned),                 # R48, in the order they resigned
        "ranking": ranking(st) if st.phase == "over" else None,   # R28, R48: best first
        "options": {"memory": bool(st.option("memory"))},
    }


def view(st: State, seat: int | None, reveal: bool = False) -> dict:
    """`reveal` shows every card (open-hand replay): only for games that are over."""
    bit = SPECTATOR_BIT if seat is None else seat_bit(seat)
    faceup, know = st.faceup, st.know

    def card(c: int) -> dict:
        if reveal or faceup[c] or know[c] & bit:
            return {"id": c, "value": VALUE[c], "faceup": faceup[c]}
        return {"id": None, "value": None, "faceup": False}   # a fresh dict: callers may annotate it
    deck_top_to_bottom = st.deck[::-1]
    scoring = None
    if st.scoring is not None:
        scoring = {"faceup_at_scoring": sorted(st.scoring["faceup"]),
                   "tucks": [{"target": t, "nelly": n} for t, n in st.scoring["tucks"].items()]}
    return {
        "seat": seat,
        **status(st),
        "deck_top": card(st.deck[-1]) if st.deck and (st.faceup[st.deck[-1]] or reveal) else None,
        "deck_known": [{"position": i, "card": card(c)} for i, c in enumerate(deck_top_to_bottom)
                       if reveal or st.faceup[c] and i == 0 or st.know[c] & bit],
        "discard": [card(c) for c in st.pile],
        "villages": [[card(c) for c in village] for village in st.villages],
        "hand": None if st.hand is None else card(st.hand),
        "scoring": scoring,
        "legal_actions": [] if seat is None or reveal else legal_actions(st, seat),
        "log": list(st.log),
        "previous_log": list(st.prev_log),
    }
