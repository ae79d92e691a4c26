"""Public events in words, for logs, mails and the replay viewer (R31).

Long because: every event is one whole sentence per side (the reader's own deed
and another's, the reader's village and another's), so that a translator can order each
sentence as the language wants (issue 50); splitting the sentences of one event across
modules would only scatter them.

Only what an event carries is said, and events carry only public facts, so a
description can be shown to anyone. The small words (a card, a spot "#3",
"an 8") come from ``words``, the one vocabulary; this module only builds
sentences from them, so the page, the mail and the replay say the same thing.

Positions are named as the village looks *after* the step, as the picture
shows it: an exchange of several cards closes the row up, a failed exchange
or a penalty at the left end pushes the row right; where a position would no
longer point at the card meant (a card that left the village), the card is
named instead.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from app.i18n import N_, _, ngettext, pgettext
from app.i18n import forms

from . import cards
from .names import SeatNames, names_for
from .words import (card_words, english_owner, spot, target as target_words, village_card,
                    action_label, place_ordinal, with_article)

Event = Mapping[str, Any]
Say = Callable[[], str]


def _card(card: Mapping[str, Any] | None) -> str:
    """A card an event carries: its label, or 'a facedown card' when it is not public."""
    return card_words(card) if card else _("a facedown card")


def _cards(items: Sequence[Mapping[str, Any] | None]) -> str:
    return forms.names([_card(c) for c in items]) if items else _("nothing")


def _spots(positions: int | Sequence[int]) -> str:
    """'card #2' or 'cards #1 and #3'."""
    if isinstance(positions, int):
        return _("card %(spot)s", spot=spot(positions))
    nums = [spot(p) for p in positions]
    return ngettext("card %(spots)s", "cards %(spots)s", len(nums), spots=forms.names(nums))


def _end(end: Any) -> str:
    """'left' or 'right', as a sentence about an end of a village says it."""
    return pgettext("village end", "left") if end == "left" else pgettext("village end", "right")


def new_card_spot(positions: Sequence[int], into: int) -> int:
    """Where the new card of an exchange sits once the row has closed up (R8)."""
    return into - sum(1 for p in positions if p < into)


#: What a seat declined (a skip event's ``what``), as the sentence names it.
SKIPPED = {
    "twister": N_("the twister"), "ghost": N_("the ghost"), "seer": N_("the seer"),
    "dracula": N_("the dracula"), "underminer": N_("the underminer"), "drunk": N_("the drunk"),
    "spotter": N_("the spotter"), "gamble_more": N_("the gamble more"),
    "gamble_win": N_("the gamble win"), "simon_claim": N_("the simon claim"),
    "nelly": N_("the nelly"), "bomb": N_("the bomb"), "choice": N_("the choice"),
}


def skipped(what: Any) -> str:
    key = str(what or "choice")
    return _(SKIPPED[key]) if key in SKIPPED else "the " + key.replace("_", " ")


class _Sentence:
    """Who an event is about, from one reader's side: the actor (``you`` when it is
    the reader) and the seat it targets (``them``/``owner``), so that every sentence is
    one message per side ("You drew a card.", "%(who)s drew a card.")."""

    def __init__(self, event: Event, names: Sequence[str] | None, me: int | None):
        self.e, self.names, self.me = event, names, me
        seat = event.get("seat")
        self.you = me is not None and seat == me
        self.who = self.name(seat)
        tseat = event.get("target")
        self.has_target = isinstance(tseat, int)
        self.tyou = self.has_target and me is not None and tseat == me
        self.owner = self.name(tseat) if self.has_target else ""

    def name(self, seat: Any) -> str:
        if seat is None:
            return _("The dealer")
        if self.me is not None and seat == self.me:
            return _("you")
        names = self.names
        return names[seat] if names and seat < len(names) else _("Seat %(seat)s", seat=seat + 1)

    def says(self, mine: Say, theirs: Say) -> str:
        """The reader's own deed, or another's."""
        return mine() if self.you else theirs()

    def about(self, yy: Say, yo: Say, oy: Say, oo: Say) -> str:
        """Actor you/other x target you/other (yo: you act on another's village)."""
        if self.you:
            text = yy() if self.tyou else yo()
        else:
            text = oy() if self.tyou else oo()
        return english_owner(text, self.owner) if self.owner else text


def _exchange(s: _Sentence, e: Event) -> str:
    new = _card(e.get("card")) if e.get("card") else _("the new card")
    positions = list(e["positions"])
    if len(positions) == 1:
        values: dict[str, Any] = dict(who=s.who, spots=_spots(positions), new=new,
                      discarded=_cards(e["discarded"]))
        return s.says(lambda: _("You exchanged %(spots)s for %(new)s, discarding %(discarded)s.",
                                **values),
                      lambda: _("%(who)s exchanged %(spots)s for %(new)s, discarding "
                                "%(discarded)s.", **values))
    now = spot(new_card_spot(positions, e.get("into", min(positions))))
    values = dict(who=s.who, count=str(len(positions)), discarded=_cards(e["discarded"]), new=new,
                  now=now)
    return s.says(lambda: _("You exchanged %(count)s cards (%(discarded)s) for %(new)s, now "
                            "card %(now)s.", **values),
                  lambda: _("%(who)s exchanged %(count)s cards (%(discarded)s) for %(new)s, "
                            "now card %(now)s.", **values))


def _exchange_failed(s: _Sentence, e: Event) -> str:
    # R44: the new card (and a penalty card outside it) joined at an end: from the
    # left end they push the tried cards right, and the message counts as the picture does
    pushed = (1 + bool(e.get("penalty"))) if e.get("end") == "left" else 0
    values = dict(who=s.who, spots=_spots([p + pushed for p in e["positions"]]),
                  end=_end(e["end"]))
    if e["reason"] == "mismatch":
        if e.get("penalty"):
            text = s.says(
                lambda: _("You tried to exchange %(spots)s, but the cards did not match: the "
                          "new card joins the %(end)s end plus a penalty card from the deck.",
                          **values),
                lambda: _("%(who)s tried to exchange %(spots)s, but the cards did not match: "
                          "the new card joins the %(end)s end plus a penalty card from the "
                          "deck.", **values))
        else:
            text = s.says(
                lambda: _("You tried to exchange %(spots)s, but the cards did not match: the "
                          "new card joins the %(end)s end.", **values),
                lambda: _("%(who)s tried to exchange %(spots)s, but the cards did not match: "
                          "the new card joins the %(end)s end.", **values))
    else:
        values["obsessor"] = cards.name(e["obsessor"])
        if e.get("penalty"):
            text = s.says(
                lambda: _("You tried to exchange %(spots)s, but the %(obsessor)s refused it: "
                          "the new card joins the %(end)s end plus a penalty card from the "
                          "deck.", **values),
                lambda: _("%(who)s tried to exchange %(spots)s, but the %(obsessor)s refused "
                          "it: the new card joins the %(end)s end plus a penalty card from "
                          "the deck.", **values))
        else:
            text = s.says(
                lambda: _("You tried to exchange %(spots)s, but the %(obsessor)s refused it: "
                          "the new card joins the %(end)s end.", **values),
                lambda: _("%(who)s tried to exchange %(spots)s, but the %(obsessor)s refused "
                          "it: the new card joins the %(end)s end.", **values))
    if e.get("revealed"):
        text += " " + _("Shown: %(cards)s.", cards=_cards(e["revealed"]))
    return text


def _gamble(s: _Sentence, e: Event) -> str:
    values = dict(who=s.who, value=e["value"], card=_card(e["card"]))
    if e["right"]:
        text = s.says(lambda: _("You gambled on %(value)s and turned up %(card)s: right.",
                                **values),
                      lambda: _("%(who)s gambled on %(value)s and turned up %(card)s: right.",
                                **values))
    else:
        text = s.says(lambda: _("You gambled on %(value)s and turned up %(card)s: wrong.",
                                **values),
                      lambda: _("%(who)s gambled on %(value)s and turned up %(card)s: wrong.",
                                **values))
    if not e["to_pile"]:
        text += " " + _("The Obsessor kept it on the deck.")
    if e.get("end"):
        joined = _card(e.get("joined"))
        joined = f"{joined[0].upper()}{joined[1:]}"
        end = _end(e["end"])
        text += " " + s.says(
            lambda: _("%(card)s joins the %(end)s end of your village.", card=joined, end=end),
            lambda: _("%(card)s joins the %(end)s end of their village.", card=joined, end=end))
    return text


def describe(event: Event, names: Sequence[str] | None = None, me: int | None = None) -> str:
    """One public event in words (``me``: the reader, whose own deeds say "you")."""
    names = names_for(names, event)
    e = event
    s = _Sentence(e, names, me)
    who, owner = s.who, s.owner
    t = e["type"]
    if t == "round_start":
        start, first = s.name(e["start"]), _card(e["discard"])
        if me is not None and e["start"] == me:
            return _("Round %(round)s begins: you start; the first discard is %(card)s.",
                     round=e["round"], card=first)
        return _("Round %(round)s begins: %(start)s starts; the first discard is %(card)s.",
                 round=e["round"], start=start, card=first)
    if t == "peek":
        spots = _spots(e["positions"])
        return s.says(lambda: _("You looked at %(spots)s of your village.", spots=spots),
                      lambda: _("%(who)s looked at %(spots)s of their village.", who=who,
                                spots=spots))
    if t == "draw":
        if e.get("card"):
            card = _card(e["card"])
            return s.says(lambda: _("You drew %(card)s from the deck.", card=card),
                          lambda: _("%(who)s drew %(card)s from the deck.", who=who, card=card))
        return s.says(lambda: _("You drew a card."), lambda: _("%(who)s drew a card.", who=who))
    if t == "take":
        card = _card(e["card"])
        return s.says(lambda: _("You took %(card)s from the discard pile.", card=card),
                      lambda: _("%(who)s took %(card)s from the discard pile.", who=who,
                                card=card))
    if t == "call":
        return s.says(lambda: _("You called for a vote: everyone else has one more turn."),
                      lambda: _("%(who)s called for a vote: everyone else has one more turn.",
                                who=who))
    if t == "pass":
        return s.says(lambda: _("You passed (timed out)."),
                      lambda: _("%(who)s passed (timed out).", who=who))
    if t == "discard":
        card = _card(e["card"])
        return s.says(lambda: _("You discarded %(card)s.", card=card),
                      lambda: _("%(who)s discarded %(card)s.", who=who, card=card))
    if t == "exchange":
        return _exchange(s, e)
    if t == "exchange_failed":
        return _exchange_failed(s, e)
    if t == "kept":
        return s.says(
            lambda: _("You could not discard the drawn card, so it joins the right end "
                      "facedown."),
            lambda: _("%(who)s could not discard the drawn card, so it joins the right end "
                      "facedown.", who=who))
    if t == "put_back":
        card = _card(e["card"])
        return s.says(lambda: _("You put %(card)s back on the pile (timed out).", card=card),
                      lambda: _("%(who)s put %(card)s back on the pile (timed out).", who=who,
                                card=card))
    if t == "tanner":
        values: dict[str, Any] = dict(who=who, end=_end(e["end"]), cards=_cards(e["revealed"]))
        return s.says(lambda: _("You put the Tanner at the %(end)s end and turned up: "
                                "%(cards)s.", **values),
                      lambda: _("%(who)s put the Tanner at the %(end)s end and turned up: "
                                "%(cards)s.", **values))
    if t == "gamble":
        return _gamble(s, e)
    if t == "gamble_discard":
        card = _card(e["card"])
        return s.says(lambda: _("You discarded %(card)s with the Gambler's win.", card=card),
                      lambda: _("%(who)s discarded %(card)s with the Gambler's win.", who=who,
                                card=card))
    if t == "search":
        return s.says(lambda: _("You opened the silver eye and are looking through the deck."),
                      lambda: _("%(who)s opened the silver eye and is looking through the "
                                "deck.", who=who))
    if t == "pick":
        return s.says(
            lambda: _("You took a card from the deck with the silver eye; the deck is "
                      "reshuffled."),
            lambda: _("%(who)s took a card from the deck with the silver eye; the deck is "
                      "reshuffled.", who=who))
    values = {"who": who, "owner": owner}
    if t == "twist":
        values.update(spots=_spots(e["position"]), card=_card(e["card"]))
        if e["faceup"]:
            return s.about(
                lambda: _("You turned your %(spots)s faceup (%(card)s).", **values),
                lambda: _("You turned %(owner)s's %(spots)s faceup (%(card)s).", **values),
                lambda: _("%(who)s turned your %(spots)s faceup (%(card)s).", **values),
                lambda: _("%(who)s turned %(owner)s's %(spots)s faceup (%(card)s).", **values))
        return s.about(
            lambda: _("You turned your %(spots)s facedown (%(card)s).", **values),
            lambda: _("You turned %(owner)s's %(spots)s facedown (%(card)s).", **values),
            lambda: _("%(who)s turned your %(spots)s facedown (%(card)s).", **values),
            lambda: _("%(who)s turned %(owner)s's %(spots)s facedown (%(card)s).", **values))
    if t == "ghost":
        values.update(card=_card(e["card"]))
        return s.about(
            lambda: _("Your Ghost discarded %(card)s from your village.", **values),
            lambda: _("Your Ghost discarded %(card)s from %(owner)s's village.", **values),
            lambda: _("%(who)s's Ghost discarded %(card)s from your village.", **values),
            lambda: _("%(who)s's Ghost discarded %(card)s from %(owner)s's village.", **values))
    if t == "refused":
        values.update(obsessor=cards.name(e["obsessor"]), card=_card(e["card"]))
        if s.tyou:
            return _("The %(obsessor)s refused %(card)s: it stays in your village.", **values)
        return english_owner(_("The %(obsessor)s refused %(card)s: it stays in %(owner)s's "
                               "village.", **values), owner)
    if t == "see":
        values.update(spots=_spots(e["position"]))
        return s.about(
            lambda: _("You used the Split Seer on your %(spots)s.", **values),
            lambda: _("You used the Split Seer on %(owner)s's %(spots)s.", **values),
            lambda: _("%(who)s used the Split Seer on your %(spots)s.", **values),
            lambda: _("%(who)s used the Split Seer on %(owner)s's %(spots)s.", **values))
    if t == "dracula":
        count = len(e["cards"])
        return s.says(
            lambda: ngettext("Your Dracula moved %(num)d card from the pile to the bottom of "
                             "the deck.", "Your Dracula moved %(num)d cards from the pile to "
                             "the bottom of the deck.", count),
            lambda: ngettext(
                "%(who)s's Dracula moved %(num)d card from the pile to the bottom of the deck.",
                "%(who)s's Dracula moved %(num)d cards from the pile to the bottom of the deck.",
                count, who=who))
    if t == "undermine":
        values.update(spots=_spots(e["positions"]), cards=_cards(e["taken"]))
        return s.about(
            lambda: _("Your Underminer swapped your %(spots)s with %(cards)s from the pile.",
                      **values),
            lambda: _("Your Underminer swapped %(owner)s's %(spots)s with %(cards)s from the "
                      "pile.", **values),
            lambda: _("%(who)s's Underminer swapped your %(spots)s with %(cards)s from the "
                      "pile.", **values),
            lambda: _("%(who)s's Underminer swapped %(owner)s's %(spots)s with %(cards)s from "
                      "the pile.", **values))
    if t == "underminer_lapsed":
        return s.says(lambda: _("Your Underminer had no effect: its cards moved."),
                      lambda: _("%(who)s's Underminer had no effect: its cards moved.",
                                who=who))
    if t == "drunk":
        values.update(card=_card(e["card"]), end=_end(e["end"]))
        return s.about(
            lambda: _("Your Drunk gave %(card)s to the %(end)s end of your village.", **values),
            lambda: _("Your Drunk gave %(card)s to the %(end)s end of %(owner)s's village.",
                      **values),
            lambda: _("%(who)s's Drunk gave %(card)s to the %(end)s end of your village.",
                      **values),
            lambda: _("%(who)s's Drunk gave %(card)s to the %(end)s end of %(owner)s's "
                      "village.", **values))
    if t == "spot":
        values.update(value=with_article(e["value"]), number=e["value"])
        return s.about(
            lambda: _("You use a Spotter on your village, looking for %(value)s.", **values),
            lambda: _("You use a Spotter on %(owner)s's village, looking for %(value)s.",
                      **values),
            lambda: _("%(who)s uses a Spotter on your village, looking for %(value)s.",
                      **values),
            lambda: _("%(who)s uses a Spotter on %(owner)s's village, looking for %(value)s.",
                      **values))
    if t == "look":
        if e["found"]:   # the match leaves the village in this step: no position to name
            return s.about(
                lambda: _("You looked at a facedown card of your village: a match.", **values),
                lambda: _("You looked at a facedown card of %(owner)s's village: a match.",
                          **values),
                lambda: _("%(who)s looked at a facedown card of your village: a match.",
                          **values),
                lambda: _("%(who)s looked at a facedown card of %(owner)s's village: a match.",
                          **values))
        values.update(spots=_spots(e["position"]))
        return s.about(
            lambda: _("You looked at your %(spots)s: no match.", **values),
            lambda: _("You looked at %(owner)s's %(spots)s: no match.", **values),
            lambda: _("%(who)s looked at your %(spots)s: no match.", **values),
            lambda: _("%(who)s looked at %(owner)s's %(spots)s: no match.", **values))
    if t == "spotted":
        values.update(card=_card(e["card"]))
        return s.about(
            lambda: _("Your Spotter discarded %(card)s from your village.", **values),
            lambda: _("Your Spotter discarded %(card)s from %(owner)s's village.", **values),
            lambda: _("%(who)s's Spotter discarded %(card)s from your village.", **values),
            lambda: _("%(who)s's Spotter discarded %(card)s from %(owner)s's village.",
                      **values))
    if t == "simon":
        card = _card(e["card"])
        return s.says(lambda: _("Your Simon discarded %(card)s.", card=card),
                      lambda: _("%(who)s's Simon discarded %(card)s.", who=who, card=card))
    if t == "skip":
        what = skipped(e.get("what"))
        if e.get("timeout"):
            return s.says(lambda: _("You declined %(what)s (timed out).", what=what),
                          lambda: _("%(who)s declined %(what)s (timed out).", who=who,
                                    what=what))
        return s.says(lambda: _("You declined %(what)s.", what=what),
                      lambda: _("%(who)s declined %(what)s.", who=who, what=what))
    if t == "done":
        return s.says(lambda: _("You ended your turn."),
                      lambda: _("%(who)s ended their turn.", who=who))
    if t == "round_end":
        if e["reason"] == "deck":
            return _("Round %(round)s ends (the deck ran out); all cards are turned up.",
                     round=e["round"])
        return _("Round %(round)s ends (the vote); all cards are turned up.", round=e["round"])
    if t == "nelly":
        values.update(card=_card(e["target_card"]))
        return s.about(
            lambda: _("You tucked a Nelly under your %(card)s.", **values),
            lambda: _("You tucked a Nelly under %(owner)s's %(card)s.", **values),
            lambda: _("%(who)s tucked a Nelly under your %(card)s.", **values),
            lambda: _("%(who)s tucked a Nelly under %(owner)s's %(card)s.", **values))
    if t == "bomb":
        removed = _cards(e["removed"])
        return s.says(lambda: _("Your Mad Bomber removed %(cards)s.", cards=removed),
                      lambda: _("%(who)s's Mad Bomber removed %(cards)s.", who=who,
                                cards=removed))
    if t == "round_scored":
        scores = ", ".join(_("%(name)s %(points)s", name=s.name(seat), points=p)
                           for seat, p in enumerate(e["scores"]))
        holder = e["eye_holder"]
        mine = me is not None and holder == me
        if e["eye_open"]:
            eye = (_("You take the silver eye open.") if mine else
                   _("%(name)s takes the silver eye open.", name=s.name(holder)))
        else:
            eye = (_("You take the silver eye closed.") if mine else
                   _("%(name)s takes the silver eye closed.", name=s.name(holder)))
        return _("Round %(round)s scores: %(scores)s. %(eye)s", round=e["round"],
                 scores=scores, eye=eye)
    if t == "game_over":
        winner = e["winner"]
        mine = me is not None and winner == me
        if e.get("ended") == "resigned":          # R48: the last seat left wins at once
            return (_("Everyone else resigned: you win.") if mine else
                    _("Everyone else resigned: %(name)s wins.", name=s.name(winner)))
        points = e["totals"][winner]
        return (_("The game is over: you win with %(points)s points.", points=points) if mine
                else _("The game is over: %(name)s wins with %(points)s points.",
                       name=s.name(winner), points=points))
    if t == "back":
        return s.says(lambda: _("You are back."), lambda: _("%(who)s is back.", who=who))
    if t == "away":
        return s.says(
            lambda: _("You are away: your decisions are made for you until you return."),
            lambda: _("%(who)s is away: their decisions are made for them until they "
                      "return.", who=who))
    if t == "resign":
        return s.says(
            lambda: _("You resigned: the rules' defaults play your seat from now on, and you "
                      "rank last."),
            lambda: _("%(who)s resigned: the rules' defaults play their seat from now on, "
                      "and they rank last.", who=who))
    if t == "take_over":   # R49: the names the event carries (`names` may be the new ones)
        was = str(e.get("was") or _("Seat %(seat)s", seat=int(e.get("seat") or 0) + 1))
        newcomer = e.get("name") or who
        values = {"who": newcomer, "was": was, "round": e.get("round")}
        if newcomer is _YOU:
            text = (_("You took over %(was)s's seat in round %(round)s.", **values)
                    if isinstance(e.get("round"), int)
                    else _("You took over %(was)s's seat.", **values))
        else:
            text = (_("%(who)s took over %(was)s's seat in round %(round)s.", **values)
                    if isinstance(e.get("round"), int)
                    else _("%(who)s took over %(was)s's seat.", **values))
        return english_owner(text, was)
    return s.says(lambda: _("You: %(what)s.", what=t.replace("_", " ")),
                  lambda: _("%(who)s: %(what)s.", who=who, what=t.replace("_", " ")))


# -- the same sentences from a reader's side ------------------------------------------

_YOU = "\u2063you\u2063"   # the reader as the one who took a seat over (R49)


def event_sentence(event: Event, names: Sequence[str], me: int | None = None) -> str:
    """One public event in words; for a reader's page or mail its own deeds say "you"
    (``names``: a ``SeatNames`` names the holders of that moment, R49)."""
    now = names
    names = names_for(names, event) or []
    if me is not None and isinstance(now, SeatNames) and not now.holds(me, event):
        me = None  # R49: someone else held the reader's seat then
    if me is None or not 0 <= me < len(names):
        return describe(dict(event), list(names))
    if (event.get("type") == "take_over" and event.get("seat") == me
            and event.get("name") == now[me]):
        event = {**event, "name": _YOU}          # R49: the reader is the one who took over
    text = describe(dict(event), list(names), me)
    return text[:1].upper() + text[1:]


def own_result(action: Mapping[str, Any], events: Sequence[Event], view: Mapping[str, Any],
               names: Sequence[str], me: int) -> str:
    """What the player is told right after a move: what they saw, or what happened.

    A peek names the cards seen ("You looked at #1: 4 Gambler and #2: 9 High
    Obsessor"), read off the seat's view after the move; an Underminer choice
    that has no public event yet says which card was chosen and how many are
    left to choose (never a bare "Done.").
    """
    kind = action.get("type")
    if kind == "peek":
        seen = [_("%(spot)s: %(card)s", spot=spot(p), card=card_words(village_card(view, me, p)))
                for p in action.get("positions") or []]
        return _("You looked at %(seen)s.", seen=forms.names(seen))
    if kind in ("see", "look") and isinstance(action.get("position"), int) and not _left(events):
        seat = action.get("seat", (view.get("pending_detail") or {}).get("target"))
        card = village_card(view, seat, action["position"]) if isinstance(seat, int) else None
        if card and card.get("id") is not None:
            where, what = spot(action["position"]), card_words(card)
            if seat == me:
                return _("You looked at your %(spot)s: %(card)s.", spot=where, card=what)
            assert isinstance(seat, int)
            if 0 <= seat < len(names):
                return english_owner(_("You looked at %(name)s's %(spot)s: %(card)s.",
                                       name=names[seat], spot=where, card=what), names[seat])
            return _("You looked at seat %(seat)s's %(spot)s: %(card)s.", seat=seat + 1,
                     spot=where, card=what)
    if events:
        return " ".join(event_sentence(as_seen_by(e, view, me), names, me) for e in events)
    if kind == "undermine":
        if "pile" in action:
            discard = view.get("discard") or []
            index = int(action["pile"])
            card = discard[index] if 0 <= index < len(discard) else None
            return _("Underminer: you chose to take the %(card)s from the pile (%(ordinal)s "
                     "from the bottom).", card=card_words(card),
                     ordinal=place_ordinal(index + 1))
        chosen = target_words(view, action.get("seat"), action.get("position"), me, names)
        return _("Underminer: you chose %(target)s.", target=chosen)
    return _("%(what)s.", what=action_label(action, view, me, names))


def as_seen_by(event: Event, view: Mapping[str, Any], me: int | None) -> Event:
    """An own event with the card the seat knows (issue 51 item 3: "a drawn card is
    named wherever its seat may know it"), read off the seat's own view: a draw while
    the seat still holds what it drew ('You drew 10 Dracula from the deck.'), an own
    exchange with the card it drew where the new card now sits ('for 10 Dracula').
    Any other event, or another reader's, is as the table saw it."""
    if me is None or event.get("seat") != me or event.get("card"):
        return event
    if event.get("type") == "draw":
        held = view.get("hand") if view.get("hand_seat") == me else None
        last_own = [e for e in view.get("log") or [] if e.get("seat") == me][-1:]
        if held and held.get("id") is not None and (
                not last_own or last_own[0].get("step") == event.get("step")):
            return {**event, "card": held}
        return event
    if event.get("type") != "exchange":
        return event
    positions = list(event.get("positions") or [])
    if not positions:
        return event
    known = village_card(view, me, new_card_spot(positions, event.get("into", min(positions))))
    return {**event, "card": known} if known and known.get("id") is not None else event


def _left(events: Sequence[Event]) -> bool:
    """Did a card leave a village in these events (so a position read off the view
    after them would point at another card)?"""
    return any(e.get("type") in ("spotted", "ghost", "simon") for e in events)


def move_result(results: Sequence[tuple[Mapping[str, Any], Sequence[Event]]],
                view: Mapping[str, Any], names: Sequence[str], me: int) -> str:
    """What one post of several steps did, in words: the Underminer's early choices are
    left out when the same post completed the swap (its sentence names them all)."""
    swapped = any(e.get("type") in ("undermine", "underminer_lapsed")
                  for _, events in results for e in events)
    said = [own_result(action, events, view, names, me) for action, events in results
            if not (swapped and action.get("type") == "undermine" and not events)]
    return " ".join(s for s in said if s)


# -- what the server played for a seat (issue 17 item 2) ---------------------------------

#: Why the server played a seat's decision: its deadline passed, or it is away (R29),
#: or it resigned (R48: the rules' defaults play it from then on).
TIMED_OUT, AWAY, RESIGNED = "deadline", "away", "resigned"

def _played_clause(event: Event, mine: bool) -> str | None:
    """One event of a timeout as a passive clause, from the reader's side (``mine``: the
    seat is the reader's, "your turn was passed"; else "their turn was passed"), or None
    when it is not one a timeout makes."""
    kind = event.get("type")
    if kind == "pass":
        return _("your turn was passed") if mine else _("their turn was passed")
    if kind == "kept":
        return (_("the card you drew could not be discarded, so it joined the right end of "
                  "your village facedown") if mine else
                _("the card they drew could not be discarded, so it joined the right end of "
                  "their village facedown"))
    if kind == "pick":
        return _("the top card of the deck was taken")
    card = event.get("card")
    known = bool(card and card.get("id") is not None)
    if kind == "discard":
        if known:
            return (_("your %(card)s was discarded", card=card_words(card)) if mine
                    else _("their %(card)s was discarded", card=card_words(card)))
        return (_("the card you drew was discarded") if mine
                else _("the card they drew was discarded"))
    if kind == "put_back":
        if known:
            return (_("the %(card)s you took went back on the discard pile",
                      card=card_words(card)) if mine else
                    _("the %(card)s they took went back on the discard pile",
                      card=card_words(card)))
        return (_("the card you took went back on the discard pile") if mine
                else _("the card they took went back on the discard pile"))
    if kind == "peek":
        positions = list(event.get("positions") or [])
        spots = forms.names([spot(p) for p in positions])
        if mine:
            return ngettext("card %(spots)s of your village was looked at",
                            "cards %(spots)s of your village were looked at",
                            len(positions), spots=spots)
        return ngettext("card %(spots)s of their village was looked at",
                        "cards %(spots)s of their village were looked at",
                        len(positions), spots=spots)
    if kind == "skip":
        return _("%(what)s was declined", what=skipped(event.get("what")))
    return None


def played_for(events: Sequence[Event], names: Sequence[str], seat: int, me: int | None,
               why: str = TIMED_OUT) -> list[str]:
    """What the server played for ``seat`` in one logged step (a timeout, R29), in words
    for reader ``me``: "Time ran out: your 10 Dracula was discarded for you." for the
    seat itself, "Time ran out for Eve: their 10 Dracula was discarded." for the others
    (``why`` AWAY: "You were away: ..."; RESIGNED: "Eve has resigned: ..."). Built from
    the step's public events only, like every sentence here; events of the step that a
    timeout does not make (the round ending with it) follow as sentences of their own."""
    lead, rest = played_parts(events, names, seat, me, why)
    return [lead, *rest] if lead else rest


def played_parts(events: Sequence[Event], names: Sequence[str], seat: int, me: int | None,
                 why: str = TIMED_OUT) -> tuple[str | None, list[str]]:
    """``played_for`` in two parts: the sentence of what was played (None when the step
    holds nothing a timeout makes) and the sentences of the step's other events."""
    if me is not None and events and isinstance(names, SeatNames) \
            and not names.holds(me, events[0]):
        me = None  # R49: someone else held the reader's seat then
    mine = me == seat
    then = names_for(names, events[0]) if events else names
    name = (then[seat] if then is not None and 0 <= seat < len(then)
            else _("Seat %(seat)s", seat=seat + 1))
    clauses: list[str] = []
    rest: list[str] = []
    for event in events:
        clause = _played_clause(event, mine) if event.get("seat") == seat else None
        if clause is None:
            rest.append(event_sentence(event, names, me))
        else:
            clauses.append(clause)
    rest = [line for line in rest if line]
    if not clauses:
        return None, rest
    what = clauses[0]
    for clause in clauses[1:]:
        what = _("%(first)s, then %(then)s", first=what, then=clause)
    if why == AWAY:
        lead = (_("You were away: %(what)s for you.", what=what) if mine
                else _("%(name)s was away: %(what)s.", name=name, what=what))
    elif why == RESIGNED:
        lead = (_("You have resigned: %(what)s for you.", what=what) if mine
                else _("%(name)s has resigned: %(what)s.", name=name, what=what))
    else:
        lead = (_("Time ran out: %(what)s for you.", what=what) if mine
                else _("Time ran out for %(name)s: %(what)s.", name=name, what=what))
    return lead, rest
