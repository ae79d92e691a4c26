"""A round's end explained: the facts of one summary for mail, seat page and replay.

Built only from the public events of the round (R31): ``round_end`` (the
villages turned faceup, what was faceup at scoring), the Nelly / Mad Bomber
choices, and ``round_scored`` (each card's points as the scoring code counted
them, sums, scores, the silver eye), plus ``game_over``. Nothing is scored
here again: points, sums and scores are the engine's own. At round end every
card is faceup (R24), so a summary may be shown to anyone, during the game too.

``round_summary(events)`` gives the facts; ``RoundSummary.words(names)`` the
sentences, so that the mail, the page and the replay say the same thing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from app.i18n import _, ngettext
from app.i18n import forms

from . import cards
from .describe import describe
from .names import SeatNames


@dataclass(frozen=True)
class ScoredCard:
    """One card of a final village and what it counted."""

    id: int
    value: int
    points: int
    faceup_at_scoring: bool
    nelly: int | None          # the Nelly tucked under it (R24), if any

    @property
    def label(self) -> str:
        return cards.label(self.id)

    @property
    def note(self) -> str:
        """Why the card scores what it does, when that is not simply its value."""
        if self.nelly is not None:
            return _("a Nelly is tucked under it: %(points)s", points=self.points)
        if self.value == cards.ILLUSIONIST:
            if self.faceup_at_scoring:
                left = -self.points
                if left == 0:  # (issue 51 item 4: "minus the 0 cards" read like a slip)
                    return _("faceup at scoring, but the deck was empty: 0")
                return ngettext("faceup at scoring: minus the %(num)d card left in the deck",
                                "faceup at scoring: minus the %(num)d cards left in the deck",
                                left)
            return _("facedown at scoring: 0")
        if self.value == cards.NELLY:
            return _("facedown at scoring: -1") if not self.faceup_at_scoring else _("not tucked: -1")
        if self.value == cards.MAD_BOMBER:
            return (_("facedown at scoring: 13") if not self.faceup_at_scoring
                    else _("not used: 13"))
        return ""


@dataclass(frozen=True)
class SeatResult:
    """One seat's village at scoring, its sum, its score and its running total."""

    seat: int
    cards: tuple[ScoredCard, ...]
    removed: tuple[int, ...]        # its cards a Mad Bomber took out of the round
    sum: int
    score: int
    total: int
    called: bool
    fewest: bool                    # among the fewest points of the round (R26)


@dataclass(frozen=True)
class RoundSummary:
    """Facts of one scored round (R24-R28), all public."""

    round: int
    step: int                       # the step that scored it
    reason: str                     # "call" | "deck"
    caller: int | None
    successful: bool                # the caller had the lowest sum (ties included, R25)
    deck_count: int
    seats: tuple[SeatResult, ...]
    choices: tuple[dict, ...]       # the round-end Nelly / Mad Bomber events, in order
    fewest: tuple[int, ...]
    start_player: int | None        # who started the round: the eye's holder during it (R6)
    eye_holder: int
    eye_open: bool
    eye_reason: str                 # "caller" | "fewest" | "kept" | "clockwise" (R26)
    cards_shown: bool = True        # False for an event logged before cards were added to it
    winner: int | None = None       # set when this round ended the game (R28)
    winner_reason: str | None = None   # "fewest" | "eye" | "clockwise"
    resigned: tuple[int, ...] = ()     # R48: seats resigned when the game ended, rank last

    def words(self, names: list[str]) -> dict[str, Any]:
        """Everything a reader is told, in sentences (one place for these words)."""
        return _words(self, names)


def round_summary(events: Iterable[dict]) -> RoundSummary | None:
    """The summary of the scored round in ``events`` (a round's public log); None if unscored.

    ``events`` may hold more than one round (the view's previous and current
    logs): the last round scored in them is summarised.
    """
    events = list(events)
    scored_at = [i for i, e in enumerate(events) if e.get("type") == "round_scored"]
    if not scored_at:
        return None
    end = scored_at[-1]
    scored = events[end]
    round_no = int(scored["round"])  # every event names its round (Step.emit)
    this_round = [e for e in events[:end + 1] if e.get("round") == round_no]
    start = next((e for e in this_round if e.get("type") == "round_start"), None)
    ended = next((e for e in this_round if e.get("type") == "round_end"), None)
    # the game over of this very round: a game won by resignation (R48) ends unscored
    over = next((e for e in events[end:] if e.get("type") == "game_over"
                 and e.get("round") == round_no and not e.get("ended")), None)
    up = set(ended.get("faceup_at_scoring") or []) if ended else set()
    owner = {c["id"]: s for s, v in enumerate(ended["villages"] if ended else []) for c in v if c}
    choices = tuple(e for e in this_round if e.get("type") in ("nelly", "bomb")
                    or (e.get("type") == "skip" and e.get("what") in ("nelly", "bomb")))
    removed: dict[int, list[int]] = {}
    for e in choices:
        if e["type"] == "bomb":
            for c in e.get("removed") or []:
                removed.setdefault(owner.get(c["id"], e["seat"]), []).append(c["id"])
    scores, sums, totals = scored["scores"], scored["sums"], scored["totals"]
    best = min(scores)
    fewest = tuple(s for s, p in enumerate(scores) if p == best)
    caller = scored.get("caller")
    seats = tuple(
        SeatResult(
            seat=s,
            cards=tuple(ScoredCard(c["id"], c["value"], c["points"], c["id"] in up, c.get("nelly"))
                        for c in village),
            removed=tuple(removed.get(s, ())), sum=sums[s], score=scores[s], total=totals[s],
            called=caller == s, fewest=s in fewest)
        for s, village in enumerate(scored.get("villages") or [[] for _ in scores]))
    started = start.get("start") if start else None
    holder, is_open = scored["eye_holder"], bool(scored["eye_open"])
    if is_open:
        reason = "caller"
    elif len(fewest) == 1:
        reason = "fewest"
    elif holder == started:
        reason = "kept"
    else:
        reason = "clockwise"
    winner = winner_reason = None
    resigned: tuple[int, ...] = ()
    if over is not None:
        winner = over["winner"]
        resigned = tuple(over.get("resigned") or ())
        # R28 among the seats that did not resign (R48)
        playing = [(s, t) for s, t in enumerate(over["totals"]) if s not in resigned]
        low = min(t for _, t in playing)
        tied = [s for s, t in playing if t == low]
        winner_reason = "fewest" if len(tied) == 1 else "eye" if winner == holder else "clockwise"
    return RoundSummary(
        round=round_no, step=int(scored.get("step") or 0),
        reason=ended.get("reason", "call") if ended else "call", caller=caller,
        successful=bool(scored.get("successful")), deck_count=int(scored.get("deck_count") or 0),
        seats=seats, choices=choices, fewest=fewest,
        start_player=started, eye_holder=holder, eye_open=is_open, eye_reason=reason,
        cards_shown="villages" in scored, winner=winner, winner_reason=winner_reason,
        resigned=resigned)


def last_summary(view: dict[str, Any]) -> RoundSummary | None:
    """The last scored round a view's logs show (this round's if the game is over)."""
    return round_summary([*(view.get("previous_log") or []), *(view.get("log") or [])])


# -- words ---------------------------------------------------------------------

def _join(items: list[str]) -> str:
    return forms.names(items)


def _words(s: RoundSummary, names: list[str]) -> dict[str, Any]:
    if isinstance(names, SeatNames):  # R49: the round's players, not who holds it now
        names = names.at_step(max(s.step - 1, 0))

    def who(seat: int | None) -> str:
        if seat is None:
            return _("nobody")
        return names[seat] if 0 <= seat < len(names) else _("Seat %(seat)s", seat=seat + 1)

    # The sentences say the rulings R24 (all faceup), R25 (the call), R26-R27 (the silver
    # eye), R28 (the winner) and R48 (resigned, last) in words; the ids stay here, never in
    # what a player reads (issue 51 item 4).
    ending = (_("%(name)s called for a vote; everyone else had one more turn.",
                name=who(s.caller))
              if s.reason == "call" else _("The deck ran out."))
    lines = [_("Round %(round)s is over. %(ending)s All cards were turned faceup.",
               round=s.round, ending=ending)]
    lines += [describe(e, names) for e in s.choices]
    call = ""
    if s.caller is not None:
        me = s.seats[s.caller]
        others = [r for r in s.seats if r.seat != s.caller]
        low = min(r.sum for r in others) if others else me.sum
        if s.successful:
            if low == me.sum:
                call = _("%(name)s called and had the lowest sum (a tie counts): %(sum)s "
                         "against %(low)s, so %(name)s scores 0.", name=who(s.caller),
                         sum=me.sum, low=low)
            else:
                call = _("%(name)s called and had the lowest sum: %(sum)s against %(low)s, so "
                         "%(name)s scores 0.", name=who(s.caller), sum=me.sum, low=low)
        else:
            lower = [who(r.seat) for r in others if r.sum < me.sum]
            call = _("%(name)s called but %(lower)s had a lower sum (%(low)s against %(sum)s), "
                     "so %(name)s scores %(sum)s + 10 = %(score)s.", name=who(s.caller),
                     lower=_join(lower), low=low, sum=me.sum, score=me.score)
        lines.append(call)
    best = s.seats[s.fewest[0]].score if s.seats else 0
    if len(s.fewest) == 1:
        fewest = _("Fewest points this round: %(name)s with %(points)s.", name=who(s.fewest[0]),
                   points=best)
    else:
        fewest = _("%(names)s tie for the fewest points this round, with %(points)s.",
                   names=_join([who(x) for x in s.fewest]), points=best)
    lines.append(fewest)
    holder = who(s.eye_holder)
    if s.eye_reason == "caller":
        eye = (_("%(name)s takes the silver eye open: a successful call with the fewest "
                 "points.", name=holder) if s.winner is not None else
               _("%(name)s takes the silver eye open: a successful call with the fewest "
                 "points. Next round %(name)s may search the deck once instead of drawing.",
                 name=holder))
    elif s.eye_reason == "fewest":
        eye = _("%(name)s takes the silver eye, closed: the fewest points this round.",
                name=holder)
    elif s.eye_reason == "kept":
        eye = _("%(name)s keeps the silver eye, closed: tied for the fewest and already "
                "holding it.", name=holder)
    else:
        eye = _("%(name)s takes the silver eye, closed: of the tied players, the first "
                "clockwise from the left of the start player, %(start)s.", name=holder,
                start=who(s.start_player))
    lines.append(eye)
    winner = ""
    if s.winner is not None:
        total = s.seats[s.winner].total
        tied = _join([who(r.seat) for r in s.seats
                      if r.total == total and r.seat not in s.resigned])
        reason = s.winner_reason or "fewest"
        if reason == "fewest":
            winner = (_("%(name)s wins the game with %(total)s points, the fewest of the "
                        "players who did not resign.", name=who(s.winner), total=total)
                      if s.resigned else
                      _("%(name)s wins the game with %(total)s points, the fewest.",
                        name=who(s.winner), total=total))
        elif reason == "eye":
            winner = _("%(tied)s tie on %(total)s points; %(name)s holds the silver eye and "
                       "wins the game.", tied=tied, total=total, name=who(s.winner))
        else:
            winner = _("%(tied)s tie on %(total)s points; %(name)s, the first of them "
                       "clockwise from the silver eye holder %(holder)s, wins the game.",
                       tied=tied, total=total, name=who(s.winner), holder=holder)
        if s.resigned:
            gone = _join([who(x) for x in s.resigned])
            winner += " " + ngettext("%(names)s resigned and ranks last.",
                                     "%(names)s resigned and rank last.", len(s.resigned),
                                     names=gone)
        lines.append(winner)
    seats = []
    for r in s.seats:
        score = (_("0 (a successful call)") if r.called and s.successful
                 else _("%(sum)s + 10 = %(score)s (a failed call)", sum=r.sum, score=r.score)
                 if r.called else str(r.score))
        seats.append({
            "seat": r.seat, "name": who(r.seat), "sum": r.sum, "score": r.score,
            "score_words": score, "total": r.total, "called": r.called, "fewest": r.fewest,
            "eye": r.seat == s.eye_holder,
            "cards": [{"id": c.id, "label": c.label, "value": c.value, "points": c.points,
                       "note": c.note, "faceup_at_scoring": c.faceup_at_scoring,
                       "nelly": cards.label(c.nelly) if c.nelly is not None else ""}
                      for c in r.cards],
            "removed": [cards.label(c) for c in r.removed],
        })
    return {"round": s.round, "title": _("Round %(round)s: how it was scored", round=s.round),
            "lines": lines, "ending": ending, "call": call, "fewest": fewest, "eye": eye,
            "winner": winner, "seats": seats, "deck_count": s.deck_count,
            "cards_shown": s.cards_shown,
            "any_faceup": any(c.faceup_at_scoring for r in s.seats for c in r.cards),
            "caller": s.caller, "eye_holder": s.eye_holder, "eye_open": s.eye_open}
