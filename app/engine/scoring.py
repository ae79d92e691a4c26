"""Round end and scoring (R24-R28): Nellys, then Illusionists, then Mad Bombers,
then the round score, the silver eye, and the end of the game."""
from __future__ import annotations

from app import i18n

from . import cards
from .cards import VALUE
from .decisions import SKIP
from .state import IllegalAction, State
from .table import Step, position_field, public, seat_field, turn_up


def end_round(step: Step, reason: str) -> None:
    """R24: note what is faceup at scoring, then turn every village card faceup."""
    st = step.state
    st.stack = []
    faceup_at_scoring = frozenset(c for v in st.villages for c in v if st.faceup[c])
    for village in st.villages:
        for card in village:
            turn_up(st, card)
    st.eye_open = False          # R27: an unused open eye closes at round end
    st.simon_window = None
    st.phase = "resolve"
    st.scoring = {"faceup": faceup_at_scoring, "tucks": {}, "done": set()}
    step.emit("round_end", reason=reason, caller=st.caller,
              villages=[[public(st, c) for c in v] for v in st.villages],
              faceup_at_scoring=sorted(faceup_at_scoring))


def resolution_order(st: State) -> list[int]:
    """Within a phase, seats clockwise from the silver eye holder (R24)."""
    return [(st.eye_holder + i) % st.seats for i in range(st.seats)]


def next_resolution(st: State) -> tuple[int, int, str] | None:
    """The next round-end choice to make: (seat, card, "nelly" | "bomb"), or None."""
    sc = st.scoring
    assert sc is not None  # set by end_round for the whole resolution (R24)
    for kind, value in (("nelly", cards.NELLY), ("bomb", cards.MAD_BOMBER)):
        for seat in resolution_order(st):
            for card in st.villages[seat]:
                if VALUE[card] == value and card in sc["faceup"] and card not in sc["done"]:
                    if _targets(st, kind, card):
                        return seat, card, kind
    return None


def _nelly_can_tuck_under(st: State, nelly: int, card: int) -> bool:
    """Any card except a 0 or a card already negative (a Nelly, or a card with one)."""
    assert st.scoring is not None  # asked only during the resolution (R24)
    return card != nelly and VALUE[card] > 0 and card not in st.scoring["tucks"]


def _targets(st: State, kind: str, card: int) -> list[dict]:
    acts = []
    for seat, village in enumerate(st.villages):
        for pos, target in enumerate(village):
            if kind == "nelly" and not _nelly_can_tuck_under(st, card, target):
                continue
            if kind == "bomb" and target == card:
                continue
            acts.append({"type": kind, "seat": seat, "position": pos})
    return acts


def resolution_options(st: State, seat: int) -> list[dict]:
    pending = next_resolution(st)
    if pending is None or pending[0] != seat:
        return []
    return _targets(st, pending[2], pending[1]) + [SKIP]


def resolve(step: Step, action: dict) -> None:
    """Apply one Nelly or Mad Bomber choice (or decline it)."""
    st, seat = step.state, step.seat
    pending = next_resolution(st)
    if pending is None or pending[0] != seat:
        raise IllegalAction(i18n._("You have no round-end choice to make now."))
    _, card, kind = pending
    sc = st.scoring
    assert sc is not None  # a pending resolution implies one
    if action["type"] in ("skip", "pass"):
        sc["done"].add(card)
        step.emit("skip", what=kind, card=public(st, card), timeout=action["type"] == "pass")
        return
    if action["type"] != kind:
        raise IllegalAction(i18n._("Round end: tuck your Nelly (nelly) on a card, or skip.")
                            if kind == "nelly" else
                            i18n._("Round end: place your Mad Bomber (bomb) on a card, or skip."))
    target_seat = seat_field(st, action)
    pos = position_field(st, target_seat, action)
    target = st.villages[target_seat][pos]
    if kind == "nelly":
        if not _nelly_can_tuck_under(st, card, target):
            raise IllegalAction(i18n._("A Nelly can't go under a 0 or under a card that is already negative."))
        st.villages[seat].remove(card)
        sc["tucks"][target] = card
        sc["done"].add(card)
        step.emit("nelly", card=public(st, card), target=target_seat, position=pos,
                  target_card=public(st, target))
        return
    if target == card:
        raise IllegalAction(i18n._("The Mad Bomber must land on another card."))
    gone = [card, target]
    for c in (card, target):
        if c in sc["tucks"]:
            gone.append(sc["tucks"].pop(c))
    st.villages[seat].remove(card)
    st.villages[target_seat].remove(target)
    st.removed.extend(gone)
    sc["done"].add(card)
    step.emit("bomb", card=public(st, card), target=target_seat, position=pos,
              removed=[public(st, c) for c in gone])


def card_points(st: State, card: int) -> int:
    """R24: a tucked-under card scores its negative, a faceup Illusionist minus the deck."""
    sc = st.scoring
    assert sc is not None  # scored only once the resolution has begun (R24)
    value = VALUE[card]
    if card in sc["tucks"]:
        return -value
    if value == cards.ILLUSIONIST:
        return -len(st.deck) if card in sc["faceup"] else 0
    return value


def score_round(step: Step) -> None:
    """R25, R26, then R28 at the end of round 4 (the rules module deals the next
    round otherwise, so scoring never imports it)."""
    st = step.state
    assert st.scoring is not None  # the resolution (R24) comes first
    sums = [sum(card_points(st, c) for c in village) for village in st.villages]
    low = min(sums)
    scores = sums[:]
    successful = st.caller is not None and sums[st.caller] == low
    if st.caller is not None:
        scores[st.caller] = 0 if successful else sums[st.caller] + 10
    best = min(scores)
    tied = [s for s in range(st.seats) if scores[s] == best]
    if successful and st.caller in tied:
        st.eye_holder, st.eye_open = st.caller, True
    else:
        st.eye_open = False
        if len(tied) == 1:
            st.eye_holder = tied[0]
        elif st.eye_holder not in tied:
            st.eye_holder = _first_clockwise(st, (st.start_player + 1) % st.seats, tied)
    st.round_scores.append(scores)
    st.totals = [t + s for t, s in zip(st.totals, scores)]
    # Every card is faceup since end_round (R24), so the final villages are public:
    # each card with the points it scored, for round summaries (no second scoring code).
    villages = [[{"id": c, "value": VALUE[c], "points": card_points(st, c),
                  "nelly": st.scoring["tucks"].get(c)} for c in village]
                for village in st.villages]
    step.emit("round_scored", sums=sums, scores=scores, totals=st.totals[:], caller=st.caller,
              successful=successful, eye_holder=st.eye_holder, eye_open=st.eye_open,
              deck_count=len(st.deck), villages=villages)
    if st.round == 4:
        st.phase = "over"
        st.winner = ranking(st)[0]            # R28, among the seats that did not resign (R48)
        if st.resigned:
            step.emit("game_over", totals=st.totals[:], winner=st.winner,
                      resigned=st.resigned[:])
        else:
            step.emit("game_over", totals=st.totals[:], winner=st.winner)


def ranking(st: State) -> list[int]:
    """Every seat, best first (R28, R48): the seats that did not resign by total, lowest
    first, a tie going to the silver eye holder if it is tied, else to the tied seat first
    clockwise from it; then the resigned seats, the last to resign ranking highest."""
    playing = [s for s in range(st.seats) if s not in st.resigned]
    playing.sort(key=lambda s: (st.totals[s], (s - st.eye_holder) % st.seats))
    return playing + st.resigned[::-1]


def end_by_resignation(step: Step) -> None:
    """R48: one seat is left that has not resigned: it wins at once. The round being
    played is not scored (the totals stay as they are) and nobody has anything left
    to decide; no card moves."""
    st = step.state
    st.phase = "over"
    st.stack, st.peeks = [], []
    st.simon_window = st.round_end = None
    st.winner = ranking(st)[0]
    step.emit("game_over", totals=st.totals[:], winner=st.winner, ended="resigned",
              resigned=st.resigned[:])


def _first_clockwise(st: State, start: int, among: list[int]) -> int:
    for i in range(st.seats):
        seat = (start + i) % st.seats
        if seat in among:
            return seat
    raise AssertionError("no seat among the tied")
