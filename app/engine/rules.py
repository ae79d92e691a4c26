"""The game's course: setup, whose decision it is, applying one action, turn and
round ends. Card abilities are in `abilities.py`, turns in `turns.py`, round-end
scoring in `scoring.py`; this module ties them together and is the engine's API.

A game is played under the rules version it was created with (`versions.py`);
where versions differ, the code says `st.rules >= N`.
"""
from __future__ import annotations

from app.i18n import _

import random

from . import abilities, turns  # noqa: F401  (register their decisions)
from .abilities import simon_claim, simon_claim_options, simon_decline, simon_reactions
from .action_schema import MAX_NAME, is_name
from .cards import DECK_SIZE
from .decisions import REGISTRY, SKIP
from .scoring import (end_by_resignation, end_round, next_resolution, resolution_options,
                      resolve, score_round)
from .state import IllegalAction, State, seat_bit
from .table import Step, facedown_positions, learn, public, turn_up
from .versions import check_rules

MIN_SEATS, MAX_SEATS, ROUNDS = 2, 4, 4
META_ACTIONS = ("back", "away")   # log-only: a seat's presence (R29), no rule effect
# `resign` (R48) and `take_over` (R49) are never offered and always accepted too: like
# META_ACTIONS they move no card and trigger nothing (no Simon reaction, no R43 fading),
# except that the last seat left after a resignation wins at once.


# --- setup ---------------------------------------------------------------------

def new_game(seats: int, seed: int, decks: list[list[int]] | None = None,
             options: dict | None = None, rules: int | None = None) -> State:
    """A dealt game; `rules` is the rules version to play (default: the newest)."""
    rules = check_rules(rules)
    if isinstance(seats, bool) or not isinstance(seats, int) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError("Silver Eye is played by 2 to 4 seats")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError("the seed must be an integer")
    stacked: tuple[tuple[int, ...] | None, ...] | None = None
    if decks:
        checked: list[tuple[int, ...] | None] = []
        for deck in decks:
            if deck is not None and sorted(deck) != list(range(DECK_SIZE)):
                raise ValueError("a stacked deck must hold each card id 0-51 once (R3)")
            checked.append(None if deck is None else tuple(deck))
        stacked = tuple(checked)
    st = State(seats=seats, seed=seed, options=dict(options or {}), decks=stacked, rules=rules)
    st.totals = [0] * seats
    first = st.option("first")
    if first is None:
        st.eye_holder = random.Random(f"{seed}:first").randrange(seats)   # R6
    elif isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats:
        raise ValueError(f"the first player (option 'first') must be a seat from 0 to {seats - 1}")
    else:
        st.eye_holder = first                                            # R50
    st.eye_open = False
    deal(Step(st, None, kind="deal"), 1)
    return st


def deal(step: Step, round_no: int) -> None:
    """R3/R4: a fresh deck, five cards a seat, one faceup discard, peeks owed."""
    st = step.state
    if st.decks and round_no <= len(st.decks) and st.decks[round_no - 1] is not None:
        order = list(st.decks[round_no - 1])
    else:
        order = list(range(DECK_SIZE))
        random.Random(f"{st.seed}:deal:{round_no}").shuffle(order)
    st.round = round_no
    st.phase = "play"
    st.faceup = [False] * DECK_SIZE
    st.know = [0] * DECK_SIZE
    st.villages = [order[5 * s:5 * s + 5] for s in range(st.seats)]
    st.removed = order[5 * st.seats:20]            # R2: unused seats' villages
    st.pile = [order[20]]
    turn_up(st, order[20])
    st.deck = order[:20:-1]                         # deck[21] on top (last)
    st.hand = st.hand_seat = None
    st.caller = None
    st.scoring = None
    st.simon_window = None
    st.peeks = list(range(st.seats))
    st.start_player = st.current = st.eye_holder   # R6
    st.stack = [{"kind": "turn"}]
    st.prev_log = st.log
    st.log = []
    step.emit("round_start", seat=st.start_player, start=st.start_player,
              discard=public(st, order[20]))


# --- who decides what --------------------------------------------------------

def to_act(st: State) -> list[int]:
    if st.phase == "play":
        if st.round_end is not None:
            return claims_waiting(st)
        return [st.current] + [s for s in st.peeks if s != st.current]
    if st.phase == "resolve":
        pending = next_resolution(st)
        return [pending[0]] if pending else []
    return []


def peek_options(st: State, seat: int) -> list[dict]:
    down = facedown_positions(st, seat)
    if len(down) <= 2:
        return [{"type": "peek", "positions": down}]
    return [{"type": "peek", "positions": [a, b]}
            for i, a in enumerate(down) for b in down[i + 1:]]


def legal_actions(st: State, seat: int) -> list[dict]:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < st.seats:
        return []
    if st.phase == "play":
        if seat in st.peeks:
            return peek_options(st, seat)
        if st.round_end is not None:
            claims = simon_claim_options(st, seat)
            return claims + [SKIP] if claims else []
        acts = []
        if seat == st.current:
            entry = st.stack[-1]
            acts = REGISTRY[entry["kind"]].options(st, seat, entry)
        return acts + simon_claim_options(st, seat)
    if st.phase == "resolve":
        return resolution_options(st, seat)
    return []


def action_menu(st: State, seat: int) -> tuple[list[dict], tuple[tuple[int, ...], ...]]:
    """`legal_actions` in two parts: every action but the exchanges, and the position
    sets of the exchanges (as `legal_actions` would list them). For bots and
    simulations that sample an action without building every exchange dict (any
    other set of one's choosable cards may be posted too, R32)."""
    if st.phase == "play" and seat == st.current and seat not in st.peeks and st.stack:
        kind = st.stack[-1]["kind"]
        if kind in ("drawn", "taken"):
            others = turns.Drawn.other_options(st) if kind == "drawn" else []
            return others + simon_claim_options(st, seat), turns.exchange_sets(st, seat)
    return legal_actions(st, seat), ()


def default_action(st: State, seat: int) -> dict | None:
    """R29: what a timeout does for this seat now; None if it has nothing pending."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < st.seats:
        return None
    if st.phase == "play":
        if seat in st.peeks:
            return {"type": "peek", "positions": facedown_positions(st, seat)[:2]}
        if st.round_end is not None:
            return {"type": "pass"} if seat in claims_waiting(st) else None
        if seat == st.current:
            return {"type": "pass"}
    elif st.phase == "resolve":
        pending = next_resolution(st)
        if pending and pending[0] == seat:
            return {"type": "skip"}
    return None


# --- applying an action --------------------------------------------------------

def apply_action(st: State, seat: int, action: dict) -> tuple[State, list[dict]]:
    """Pure: the given state is left as it was."""
    new = st.clone()
    events = apply_in_place(new, seat, action)
    return new, events


def replay(seats: int, seed: int, actions, decks=None, options=None,
           rules: int | None = None) -> State:
    """The state after a log, played under `rules` (the version the game was created with)."""
    st = new_game(seats, seed, decks, options, rules)
    for seat, action in actions:
        apply_in_place(st, seat, action)
    return st


def apply_in_place(st: State, seat: int, action: dict) -> list[dict]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction(_('An action is a JSON object with a "type", like {"type": "draw"}.'))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < st.seats:
        raise IllegalAction(_("There is no seat %(seat)s in this game.", seat=repr(seat)))
    if st.phase == "over":
        raise IllegalAction(_("The game is over."))
    kind = action["type"]
    st.step += 1
    step = Step(st, seat, kind=kind)
    if kind in META_ACTIONS:
        step.emit(kind)
        return step.events
    if kind == "resign":
        _resign(step)
        return step.events
    if kind == "take_over":
        _take_over(step, action)
        return step.events
    if (st.option("memory") and st.phase == "play" and seat == st.current
            and seat not in st.peeks and st.stack and st.stack[-1]["kind"] == "turn"):
        _forget(st, seat)             # R43: known facedown cards fade as a new turn begins
    if kind == "pass":
        _timeout(step)
    elif kind == "peek":
        _peek(step, action)
    elif st.phase == "resolve":
        resolve(step, action)
    elif kind == "simon":
        if seat in st.peeks:
            raise IllegalAction(_("First look at two of your facedown cards (peek)."))
        simon_claim(step, action)
    elif st.round_end is not None:
        if kind != "skip" or seat not in claims_waiting(st):
            raise IllegalAction(_("The round is ending: only Simon discards by hand (simon) "
                                  "or declining them (skip) can be made now."))
        simon_decline(step)
    else:
        if seat in st.peeks:
            raise IllegalAction(_("First look at two of your facedown cards (peek)."))
        if seat != st.current:
            raise IllegalAction(_("It's not your turn: seat %(seat)s is playing.", seat=st.current))
        entry = st.stack[-1]
        decision = REGISTRY[entry["kind"]]
        if kind == "skip":
            decision.skip(step, entry)
        else:
            decision.apply(step, entry, action)
    _end_of_step(step)
    return step.events


def _forget(st: State, seat: int) -> None:
    """Option `memory` (R30, R43): a seat forgets the facedown cards it knew."""
    mask = ~seat_bit(seat)
    for card in range(DECK_SIZE):
        if not st.faceup[card] and card != st.hand:
            st.know[card] &= mask


def _peek(step: Step, action: dict) -> None:
    """R5: two facedown cards of one's own village, before one's first action."""
    st, seat = step.state, step.seat
    if st.phase != "play" or seat not in st.peeks:
        raise IllegalAction(_("You have already looked at your cards this round."))
    down = facedown_positions(st, seat)
    need = min(2, len(down))
    positions = action.get("positions")
    if (not isinstance(positions, list) or len(positions) != need
            or any(isinstance(p, bool) or not isinstance(p, int) for p in positions)):
        raise IllegalAction(_('Choose %(need)s of your facedown cards to look at, like '
                              '{"type": "peek", "positions": [0, 1]}.', need=need))
    if len(set(positions)) != len(positions):
        raise IllegalAction(_("Choose two different cards."))
    for p in positions:
        if p not in down:
            raise IllegalAction(_("Position %(position)s is not one of your facedown cards.", position=p))
    for p in positions:
        learn(st, seat, st.villages[seat][p])
    st.peeks.remove(seat)
    step.emit("peek", positions=positions)


def _resign(step: Step) -> None:
    """R48: the seat resigns. No card moves and its pending decisions stay (the server
    plays them by `default_action` from now on); it ranks last. When one seat is left
    that has not resigned, that seat wins at once."""
    st, seat = step.state, step.seat
    assert seat is not None  # apply_in_place checked the seat
    if seat in st.resigned:
        raise IllegalAction(_("You have already resigned."))
    st.resigned.append(seat)
    step.emit("resign")
    if st.seats - len(st.resigned) == 1:
        end_by_resignation(step)


def _take_over(step: Step, action: dict) -> None:
    """R49: a new player takes the seat over: it is no longer resigned, and keeps its
    cards, its knowledge (R30), its score and its pending decisions."""
    st, seat = step.state, step.seat
    name, was = action.get("name"), action.get("was")
    for key, value in (("name", name), ("was", was)):
        if not is_name(value):
            raise IllegalAction(_("'%(key)s' must be a name of 1 to %(most)s characters.", key=key,
                                   most=MAX_NAME))
    if seat in st.resigned:
        st.resigned.remove(seat)
    step.emit("take_over", name=name, was=was)


def _timeout(step: Step) -> None:
    """R29: everything this seat has pending is settled by its default; R38: in one
    logged action, so a deadline appends exactly one row."""
    st, seat = step.state, step.seat
    acted = False
    if st.phase == "play" and seat in st.peeks:
        down = facedown_positions(st, seat)
        _peek(step, {"type": "peek", "positions": down[:2]})
        acted = True
    if st.phase == "play" and st.round_end is not None:
        if seat in claims_waiting(st):      # R47: the claim at round end is declined
            simon_decline(step, timeout=True)
            acted = True
    elif st.phase == "play" and seat == st.current:
        while st.stack:
            entry = st.stack[-1]
            REGISTRY[entry["kind"]].timeout(step, entry)
        acted = True
    elif st.phase == "resolve":
        pending = next_resolution(st)
        if pending and pending[0] == seat:
            resolve(step, {"type": "pass"})
            acted = True
    if not acted:
        raise IllegalAction(_("You have nothing to decide right now."))


def _end_of_step(step: Step) -> None:
    st = step.state
    if st.phase == "play" and step.kind != "simon":
        if step.placed_on_top:
            simon_reactions(step)             # R16
        elif step.pile_touched:
            st.simon_window = None            # R36: the top changed, the window closes
    _settle(step)


def _settle(step: Step) -> None:
    """Carry the game on until someone has a real choice to make."""
    st = step.state
    while True:
        if st.phase == "play" and st.round_end is not None:
            if claims_waiting(st):
                return
            reason, st.round_end = st.round_end, None
            end_round(step, reason)
            continue
        if st.phase == "play":
            if st.peeks:   # R40: a seat with no facedown card owes no peek
                faceup = st.faceup
                st.peeks = [s for s in st.peeks if not all(faceup[c] for c in st.villages[s])]
            if not st.stack:
                _end_turn(step)
                continue
            entry = st.stack[-1]
            decision = REGISTRY[entry["kind"]]
            if not decision.has_options(st, st.current, entry):
                decision.forced(step, entry)
                continue
            return
        if st.phase == "resolve" and next_resolution(st) is None:
            score_round(step)
            if st.phase != "over":
                deal(step, st.round + 1)      # R4: the next round, dealt in this same step
            continue
        return


def _end_turn(step: Step) -> None:
    """R11/R12: the round ends on an empty deck, or when the turn comes back to the caller."""
    st = step.state
    following = (st.current + 1) % st.seats
    reason = "deck" if not st.deck else "call" if st.caller is not None and following == st.caller \
        else None
    if reason is not None:
        if st.rules >= 2 and claims_waiting(st):
            # R12/R16/R47: the round ends only after the Simon reactions to its last step
            st.round_end, st.stack = reason, []
            return
        end_round(step, reason)
        return
    st.current = following
    st.stack = [{"kind": "turn"}]


def claims_waiting(st: State) -> list[int]:
    """Seats with a Simon claim by hand open now (R36), clockwise from the current seat."""
    window = st.simon_window
    if window is None:
        return []
    order = [(st.current + i) % st.seats for i in range(st.seats)]
    return [s for s in order if s in window["allow"] and s not in st.peeks
            and simon_claim_options(st, s)]
