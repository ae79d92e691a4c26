"""Does a late reply still mean what it said? (issue 17 item 4)

Long because: the judgement of a late reply and the words that explain it belong
together, and each explanation is a whole translatable sentence (issue 50).

A player reads a mail written at one step and answers it; by the time the
answer is read, others may have moved. ``still_means(state_at_mail,
state_now, seat, action)`` decides whether the command may be applied now:
it applies when the seat still faces the same decision and every card the
command names is still the card it named in the mail — whoever moved in
between. Otherwise it says why, with the cards as the seat saw them then and
sees them now, and the public event that changed them.

It reads nothing but ``view(state, seat)`` of both states (R30: the seat's
knowledge, never a hidden card) and the public log in them (R31), so what it
decides, and what an answer built from it says, can be told to that seat. A
facedown card the seat never saw is followed through the public events that
moved cards (positions are public, R31): "your card #3" still means the same
card after another village lost a card, and no longer does after a Ghost took
your card #2 (everything right of it moved left). The top of the deck is a
card nobody knows, so "draw" means "the top card, whichever it is" unless the
seat knew which card lay there (R23 Dracula keeps orientation; a faceup top).

The round-start peek (R5) is the common case: every seat peeks at once and
blocks nobody, so a bot may peek and play a whole turn before a person's
"peek 1 2" arrives; the person still owes the same peek, and the command
names the same two cards unless the bot's turn moved them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from app.i18n import _

from .describe import event_sentence
from .state import State
from .views import view
from .words import card_words, english_owner, spot

View = Mapping[str, Any]
Card = Mapping[str, Any]

#: Why a reply does not apply (``Meaning.reason``); "same" when it does.
SAME, OVER, ROUND, ACTED, NOTHING, DECISION, CARDS = (
    "same", "over", "round", "acted", "nothing", "decision", "cards")

#: Events that move no card within or out of a village: positions stay as they were.
_IN_PLACE = frozenset({
    "peek", "draw", "take", "call", "pass", "discard", "put_back", "search", "pick", "see",
    "dracula", "spot", "look", "skip", "done", "back", "away", "twist", "refused",
    "underminer_lapsed", "round_end", "round_scored", "game_over", "resign", "take_over",
})
#: Events that take the card at ``position`` out of a village: ``target``'s, or the actor's.
_REMOVES_TARGET = frozenset({"ghost", "spotted"})
_REMOVES_OWN = frozenset({"simon", "gamble_discard"})
#: Log entries that are no decision of the seat they name (R16 auto Simon, a deal, R29
#: presence, R48/R49 the seat's people: they move no card and answer no decision).
_NOT_A_DECISION = frozenset({"round_start", "back", "away", "resign", "take_over"})

_GONE = -1          # the card left the village
_LOST = -2          # an event we cannot follow: the card may have moved


@dataclass(frozen=True)
class Named:
    """One card a command names: where, and that card as the seat saw it then and sees it now.

    ``place`` is "village" (``seat``'s card ``position``), "pile_top", "pile"
    (``position`` from the bottom), "deck" (``position`` from the top) or
    "hand"; ``then``/``now`` are the card dicts of the two views (``id`` None
    for a card the seat does not know; None when no card is there).
    """

    place: str
    seat: int | None
    position: int | None
    then: Card | None
    now: Card | None
    same: bool
    by: Mapping[str, Any] | None = None   # the public event that changed it, if one did
    #: a village card followed through the public events: where it is now (None: gone,
    #: or an event we cannot follow, ``lost``)
    moved_to: int | None = None
    lost: bool = False


@dataclass(frozen=True)
class Meaning:
    """What a reply means now. ``applies``: apply it at the current step."""

    applies: bool
    reason: str
    round_then: int
    round_now: int
    decision_then: str | None
    decision_now: str | None
    named: tuple[Named, ...] = ()
    #: the public events between the mail and now, as the seat's view shows them
    since: tuple[Mapping[str, Any], ...] = field(default=())

    @property
    def changed(self) -> tuple[Named, ...]:
        return tuple(n for n in self.named if not n.same)

    def own_events(self, seat: int) -> list[Mapping[str, Any]]:
        """The seat's own decisions among ``since`` (what it did itself meanwhile)."""
        return [e for e in self.since if _decided_by(e, seat)]


def decision_of(v: View, seat: int) -> str | None:
    """The short name of the decision ``seat`` faces in its view (None: none).

    The same names as the mail's subjects (``words.SUBJECT_WORDS``): the
    view's ``pending`` is the current player's, while the round-start peek
    (R5), a Simon claim at round end (R47) and round-end choices (R24) can
    belong to other seats.
    """
    if seat not in (v.get("to_act") or []):
        return None
    if seat in (v.get("peeks_pending") or []):
        return "peek"
    detail = v.get("pending_detail") or {}
    if v.get("pending") == "simon_claims":
        return "simon_claims"
    if v.get("phase") == "resolve" and detail.get("seat") == seat:
        return v.get("pending")
    if v.get("current") == seat:
        return v.get("pending")
    return ""


def _decision_key(v: View, seat: int) -> tuple:
    """A decision with what makes it this one: a Twister with two cards left to turn is
    not the Twister with one left; the Nelly being placed; the card being kept."""
    name = decision_of(v, seat)
    if name in (None, "peek", ""):
        return (name,)
    detail = dict(v.get("pending_detail") or {})
    hand = v.get("hand") if v.get("hand_seat") == seat else None
    return (name, repr(sorted(detail.items())), (hand or {}).get("id"))


def still_means(state_at_mail: State, state_now: State, seat: int,
                action: Mapping[str, Any]) -> Meaning:
    """Whether ``action``, chosen by ``seat`` from a mail of ``state_at_mail``, may be
    applied to ``state_now`` (issue 17 item 4). Pure; reads only the seat's views.

    It does not judge legality (the move itself does, with the engine's
    words): it judges whether the command names now what it named then.
    """
    then, now = view(state_at_mail, seat), view(state_now, seat)
    since = tuple(_events_between(then, now))
    base: dict[str, Any] = dict(
        round_then=int(then.get("round") or 0), round_now=int(now.get("round") or 0),
        decision_then=decision_of(then, seat), decision_now=decision_of(now, seat),
        since=since)
    if now.get("phase") == "over":
        return Meaning(False, OVER, **base)
    if base["round_then"] != base["round_now"]:
        return Meaning(False, ROUND, **base)
    if any(_decided_by(e, seat) for e in since):
        return Meaning(False, ACTED, **base)
    if base["decision_now"] is None:
        return Meaning(False, NOTHING, **base)
    if _decision_key(then, seat) != _decision_key(now, seat):
        return Meaning(False, DECISION, **base)
    named = tuple(_named(then, now, seat, action, since))
    if any(not n.same for n in named):
        return Meaning(False, CARDS, named=named, **base)
    return Meaning(True, SAME, named=named, **base)


def _events_between(then: View, now: View) -> list[Mapping[str, Any]]:
    """The public events after the mail's step, up to now (R31: what everyone saw)."""
    after = int(then.get("step") or 0)
    return [e for e in [*(now.get("previous_log") or []), *(now.get("log") or [])]
            if int(e.get("step") or 0) > after]


def _decided_by(event: Mapping[str, Any], seat: int) -> bool:
    """Whether the event is a decision the seat made (or the clock made for it, R29).
    An auto Simon discard (R16) names its owner but is the step of whoever acted."""
    if event.get("seat") != seat or event.get("type") in _NOT_A_DECISION:
        return False
    return not (event.get("type") == "simon" and event.get("auto"))


# -- the cards a command names ------------------------------------------------------

def _places(action: Mapping[str, Any], then: View, seat: int) -> list[tuple[str, int | None, int | None]]:
    """(place, seat, position) of every card the action names (docs/actions.md)."""
    kind = action.get("type")
    positions = [p for p in action.get("positions") or [] if isinstance(p, int)]
    position = action.get("position")
    target = action.get("seat")
    if kind in ("peek",):
        return [("village", seat, p) for p in positions]
    if kind == "exchange":
        return [("hand", seat, None), *(("village", seat, p) for p in positions)]
    if kind == "take":
        return [("pile_top", None, None)]
    if kind in ("draw", "search", "gamble"):
        return [("deck", None, 0)]
    if kind == "pick" and isinstance(position, int):
        return [("deck", None, position)]
    if kind == "discard":
        return [("village", seat, position)] if isinstance(position, int) else [("hand", seat, None)]
    if kind == "tanner":
        return [("hand", seat, None)]
    if kind == "undermine" and isinstance(action.get("pile"), int):
        return [("pile", None, int(action["pile"]))]
    if kind == "look" and isinstance(position, int):
        spotted = (then.get("pending_detail") or {}).get("target")
        return [("village", spotted, position)] if isinstance(spotted, int) else []
    if kind == "simon" and isinstance(position, int):
        return [("village", seat, position)]
    if kind in ("twist", "ghost", "see", "undermine", "nelly", "bomb") \
            and isinstance(target, int) and isinstance(position, int):
        return [("village", target, position)]
    return []   # call, skip, done, dracula, spot, drunk: no card of their own


def _card_at(v: View, place: str, owner: int | None, position: int | None) -> Card | None:
    try:
        if place == "village":
            return v["villages"][owner][position]
        if place == "pile_top":
            return (v.get("discard") or [None])[-1]
        if place == "pile":
            return (v["discard"][position]
                    if position is not None and 0 <= position < len(v["discard"]) else None)
        if place == "hand":
            return v.get("hand") if v.get("hand_seat") == owner else None
        if place == "deck":
            if position is None or position >= int(v.get("deck_count") or 0):
                return None
            for known in v.get("deck_known") or []:
                if known.get("position") == position:
                    return known.get("card")
            return {"id": None, "value": None, "faceup": False}
    except (IndexError, KeyError, TypeError):
        return None
    return None


def _named(then: View, now: View, seat: int, action: Mapping[str, Any],
           since: Sequence[Mapping[str, Any]]) -> list[Named]:
    named = []
    for place, owner, position in _places(action, then, seat):
        was, is_ = _card_at(then, place, owner, position), _card_at(now, place, owner, position)
        same, by = _same(place, owner, position, was, is_, since)
        moved_to, lost = position, False
        if place == "village" and isinstance(owner, int) and isinstance(position, int):
            followed, followed_by = _follow(owner, position, since)
            moved_to = followed if followed >= 0 else None
            lost = followed == _LOST
            by = by or followed_by
        named.append(Named(place, owner, position, was, is_, same, by, moved_to, lost))
    return named


def _same(place: str, owner: int | None, position: int | None, was: Card | None,
          is_: Card | None, since: Sequence[Mapping[str, Any]]) -> tuple[bool, Any]:
    """Is the card there now the card that was there, as far as the seat can tell?"""
    if was is None:   # the command named nothing at the mail's step: the move will say so
        return True, None
    if is_ is None:
        return False, _last_touch(place, owner, since)
    known_then, known_now = was.get("id"), is_.get("id")
    if known_then is not None and known_now is not None:
        return known_then == known_now, (None if known_then == known_now
                                         else _last_touch(place, owner, since))
    if place == "village" and isinstance(owner, int) and isinstance(position, int):
        followed, by = _follow(owner, position, since)
        return followed == position, by
    if place == "deck":   # nobody knows the top card: "the top card, whichever it is"
        return known_then is None, None if known_then is None else _last_touch(place, owner, since)
    return False, _last_touch(place, owner, since)


def _follow(owner: int, position: int, since: Sequence[Mapping[str, Any]]) -> tuple[int, Any]:
    """Where the card at ``owner``'s ``position`` went through the public events (R31):
    its new position, ``_GONE`` or ``_LOST``, and the event that moved it (if any)."""
    p, by = position, None
    for e in since:
        kind, actor, target = e.get("type"), e.get("seat"), e.get("target")
        if kind in _IN_PLACE:
            continue
        before = p
        if (kind in _REMOVES_TARGET and target == owner) or (kind in _REMOVES_OWN and actor == owner):
            at = e.get("position")
            if not isinstance(at, int):
                return _LOST, e
            if at == p:
                return _GONE, e
            p -= at < p
        elif kind == "exchange" and actor == owner:
            positions = [q for q in e.get("positions") or [] if isinstance(q, int)]
            if p in positions:   # exchanged away (R8; ``into`` now holds the new card)
                return _GONE, e
            into = e.get("into", min(positions) if positions else p)
            p -= sum(1 for q in positions if q < p and q != into)
        elif kind == "undermine" and target == owner:
            if p in (e.get("positions") or []):
                return _GONE, e
        elif kind in ("exchange_failed", "kept", "tanner", "gamble") and actor == owner:
            if e.get("end") == "left":   # R44: new card (and penalty) join outside
                p += 1 + bool(kind == "exchange_failed" and e.get("penalty"))
        elif kind == "drunk" and target == owner:
            if e.get("end") == "left":
                p += 1
        elif kind in ("simon", "gamble_discard", "ghost", "spotted", "undermine", "drunk",
                      "exchange", "exchange_failed", "kept", "tanner", "gamble"):
            continue   # another village's
        elif actor == owner or target == owner:
            return _LOST, e   # nelly, bomb, anything new: we cannot say where it went
        if p != before:
            by = by or e
    return p, by


def _last_touch(place: str, owner: int | None, since: Sequence[Mapping[str, Any]]) -> Any:
    """The latest event that could have changed a pile, deck or hand card."""
    moves = {"pile_top": ("take", "discard", "exchange", "ghost", "simon", "spotted",
                          "gamble", "gamble_discard", "dracula", "undermine", "put_back"),
             "pile": ("undermine", "dracula", "take"),
             "deck": ("draw", "pick", "gamble", "drunk", "dracula", "exchange_failed"),
             "hand": ("discard", "exchange", "exchange_failed", "kept", "tanner", "put_back")}
    for e in reversed(since):
        if e.get("type") in moves.get(place, ()):
            return e
    return None


# -- the same in words ----------------------------------------------------------------

def place_words(named: Named, seat: int, names: Sequence[str]) -> str:
    """'your card #2', "Bob's card #3", 'the top of the discard pile' (from 1, as the menu)."""
    if named.place == "village":
        owner, where = named.seat, spot(named.position or 0)
        if owner == seat:
            return _("your card %(spot)s", spot=where)
        if isinstance(owner, int) and 0 <= owner < len(names):
            return english_owner(_("%(name)s's card %(spot)s", name=names[owner], spot=where),
                                 names[owner])
        return _("that player's card %(spot)s", spot=where)
    if named.place == "pile_top":
        return _("the top of the discard pile")
    if named.place == "pile":
        return _("pile card %(spot)s (from the bottom)", spot=spot(named.position or 0))
    if named.place == "deck":
        return (_("the top of the deck") if not named.position
                else _("deck card %(spot)s", spot=spot(named.position)))
    return _("the card in your hand")


def changed_words(meaning: Meaning, seat: int, names: Sequence[str]) -> str:
    """What moved under the command, for a person, each cause said once: "Bob's Ghost
    discarded 5 Tanner from your village: your card #1 is gone; the card that was your
    card #2 is now card #1" (positions from 1, as the menu counts)."""
    groups: dict[str, list[str]] = {}
    for named in meaning.changed:
        cause = ""
        if named.by is not None:
            cause = event_sentence(named.by, names, seat).rstrip(".").rstrip("。")
            if not cause.startswith(tuple(names)):
                cause = cause[:1].lower() + cause[1:]
        groups.setdefault(cause, []).append(_change(named, seat, names))
    return _("; ").join(_("%(cause)s: %(what)s", cause=cause, what=_("; ").join(what))
                        if cause else _("; ").join(what)
                        for cause, what in groups.items())


def _change(named: Named, seat: int, names: Sequence[str]) -> str:
    where = place_words(named, seat, names)
    then_known = bool(named.then and named.then.get("id") is not None)
    if then_known:
        meant = card_words(named.then)
    if named.place == "village":
        if named.lost:
            return (_("%(where)s may no longer be the %(card)s you meant", where=where,
                      card=meant) if then_known
                    else _("%(where)s may no longer be the card you meant", where=where))
        if named.moved_to is None:
            return (_("%(where)s (%(card)s) is gone", where=where, card=meant) if then_known
                    else _("%(where)s is gone", where=where))
        if named.moved_to != named.position:
            return _("the card that was %(where)s is now card %(spot)s", where=where,
                     spot=spot(named.moved_to))
    if named.now is None:
        return (_("%(where)s is gone, and with it the %(card)s you meant", where=where,
                  card=meant) if then_known
                else _("%(where)s is gone, and with it the card you meant", where=where))
    if named.now.get("id") is not None and then_known and \
            card_words(named.now) == card_words(named.then):   # two alike cards (R1 ids)
        return _("%(where)s is now another %(card)s, not the one you meant", where=where,
                 card=card_words(named.now))
    if named.now.get("id") is not None:
        return (_("%(where)s is now the %(card)s, not the %(meant)s you meant", where=where,
                  card=card_words(named.now), meant=meant) if then_known
                else _("%(where)s is now the %(card)s, not the card you meant", where=where,
                       card=card_words(named.now)))
    return (_("%(where)s is no longer the %(card)s you meant", where=where, card=meant)
            if then_known else _("%(where)s is no longer the card you meant", where=where))
