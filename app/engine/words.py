"""Words for cards, decisions and results: the one vocabulary of pages, mails and replays.

Long because: it is the one vocabulary of pages, mails and replays, and every
button and status line is a whole translatable sentence per side (issue 50).

Pure (no Flask, no SQL): everything here reads a *view* (the dict
``engine.view`` returns) or an event, never the engine's state, so nothing can
say more than the viewer may know. A new card or decision gets its words here
and every page, mail and replay that speaks of it follows.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from app.i18n import N_, _, current, ngettext
from app.i18n import forms

from . import cards

View = Mapping[str, Any]

# -- small words -------------------------------------------------------------------


def article(word: str | int) -> str:
    """'a' or 'an' before a word or a number as said aloud: 'an 8', 'an 11', 'a 7', 'an Ogre'."""
    text = str(word).strip()
    if re.match(r"^(8|11|18)(\D|$)|^8\d", text) or re.match(r"^[AEIOUaeiou]", text):
        return "an"
    return "a"


def with_article(word: str | int) -> str:
    return f"{article(word)} {word}"


def spot(position: int) -> str:
    """Village positions are 0-based in the engine, counted from 1 for people: '#3'."""
    return f"#{int(position) + 1}"


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def whose(seat: int | None, me: int | None, names: Sequence[str]) -> str:
    """'your', "Ann's" or "seat 3's"."""
    if seat is None:
        return ""
    if seat == me:
        return "your"
    return possessive(names[seat]) if 0 <= seat < len(names) else f"seat {seat + 1}'s"


def and_list(words: Sequence[str]) -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# -- cards -------------------------------------------------------------------------


def card_words(card: Mapping[str, Any] | None) -> str:
    """A card in words for a sentence: '7 Ghost', or 'a facedown card'."""
    if not card:
        return _("no card")
    if card.get("id") is None:
        return _("a facedown card")
    return cards.label(card["id"])


def card_text(card_id: int) -> str:
    """The full text of a card, as its tap/hover box shows it."""
    return _("%(card)s: %(ability)s", card=cards.label(card_id), ability=cards.ability(card_id))


def refusal(obsessor: int, card_id: int | None) -> str:
    """Why a card is left out of a choice: the Obsessor on top refuses it (R13)."""
    if card_id is None:
        return _("The %(obsessor)s on the pile accepts %(rule)s: not this card.",
                 obsessor=cards.name(obsessor), rule=cards.obsessor_rule(obsessor))
    return _("The %(obsessor)s on the pile accepts %(rule)s: not the %(card)s.",
             obsessor=cards.name(obsessor), rule=cards.obsessor_rule(obsessor),
             card=cards.label(card_id))


def english_owner(text: str, name: str) -> str:
    """English says "James' card", not "James's card": a message written "%(name)s's"
    is mended here (other languages say the owner their own way)."""
    if current() == "en" and name.endswith("s") and f"{name}'s" in text:
        head, _sep, tail = text.rpartition(f"{name}'s")   # the owner is named last
        return f"{head}{name}'{tail}"
    return text


def village_card(view: View, seat: int | None, position: Any) -> Mapping[str, Any] | None:
    try:
        return view["villages"][seat][int(position)]
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def target(view: View, seat: int | None, position: Any, me: int | None,
           names: Sequence[str]) -> str:
    """'Ann's card #2 (7 Ghost)' — the value only when this viewer knows it."""
    card = village_card(view, seat, position)
    known = bool(card and card.get("id") is not None)
    where = spot(position)
    if seat is None:
        return (_("card %(spot)s (%(card)s)", spot=where, card=card_words(card)) if known
                else _("card %(spot)s", spot=where))
    if seat == me:
        return (_("your card %(spot)s (%(card)s)", spot=where, card=card_words(card)) if known
                else _("your card %(spot)s", spot=where))
    if 0 <= seat < len(names):
        name = names[seat]
        text = (_("%(name)s's card %(spot)s (%(card)s)", name=name, spot=where,
                  card=card_words(card)) if known
                else _("%(name)s's card %(spot)s", name=name, spot=where))
        return english_owner(text, name)
    return (_("seat %(seat)s's card %(spot)s (%(card)s)", seat=seat + 1, spot=where,
              card=card_words(card)) if known
            else _("seat %(seat)s's card %(spot)s", seat=seat + 1, spot=where))


# -- decisions ---------------------------------------------------------------------

#: Group order, titles and one line of help per action type.
ACTION_GROUPS: dict[str, tuple[str, str]] = {
    "peek": (N_("Peek at two of your cards"),
             N_("Secretly look at two facedown cards of your village before you first act.")),
    "draw": (N_("Draw"),
             N_("Take the top card of the deck; then keep it or discard it.")),
    "search": (N_("Silver eye"),
             N_("Look through the whole deck and take any card as if drawn.")),
    "pick": (N_("Pick from the deck"),
             N_("Choose the card you want; the deck is shuffled afterwards.")),
    "take": (N_("Take the top discard"),
             N_("Take it, then exchange it for cards of your village.")),
    "gamble": (N_("Gamble"),
             N_("Guess the value of the top deck card.")),
    "call": (N_("Call for a vote"),
             N_("Everyone else gets one more turn, then the round ends.")),
    "exchange": (N_("Exchange"),
             N_("Swap the card in your hand for one or more cards of your village "
                             "(several only if they all have the same value).")),
    "discard": (N_("Discard"),
             N_("Put the card in your hand on the discard pile.")),
    "tanner": (N_("Tanner"),
             N_("Place the Tanner at an end of your village; all your cards turn faceup.")),
    "twist": (N_("Twister"),
             N_("Turn cards over (faceup or facedown), in any villages.")),
    "ghost": (N_("Ghost"),
             N_("Discard one card from any village.")),
    "see": (N_("Split Seer"),
             N_("Look at one facedown card in each village.")),
    "dracula": (N_("Dracula"),
             N_("Move the five cards under it to the bottom of the deck.")),
    "undermine": (N_("Underminer"),
             N_("Swap two cards of one village with two cards of the pile.")),
    "drunk": (N_("Drunk"),
             N_("Give the top deck card to an end of a village.")),
    "spot": (N_("Spotter"),
             N_("Choose the village to search for a matching card.")),
    "look": (N_("Spotter"),
             N_("Look at one facedown card of that village.")),
    "simon": (N_("Simon"),
             N_("Discard a faceup card of yours that matches the top discard.")),
    "nelly": (N_("Nelly"),
             N_("Tuck your Nelly under a card: it scores its negative.")),
    "bomb": (N_("Mad Bomber"),
             N_("Remove your Mad Bomber and one other card from the round.")),
    "done": (N_("Finish"),
             N_("End this choice here.")),
    "skip": (N_("Decline"),
             N_("Do not use this; go on.")),
    "pass": (N_("Pass"),
             N_("Let this turn go by.")),
}

#: The stakes of calling, said on the button and in its confirm (R-call).
CALL_STAKES = N_("if you are lowest you score 0, otherwise your sum + 10")

#: What a seat must decide, by the view's ``pending``.
PENDING_WORDS = {
    "turn": N_("draw or take the top discard"),
    "drawn": N_("keep the drawn card or discard it"),
    "taken": N_("exchange the card taken from the pile"),
    "search": N_("pick a card from the deck with the silver eye"),
    "twister": N_("turn cards over with the Twister"),
    "ghost": N_("discard a card with the Ghost"),
    "seer": N_("look at cards with the Split Seer"),
    "dracula": N_("decide on the Dracula"),
    "underminer": N_("swap cards with the Underminer"),
    "drunk": N_("give the Drunk's card to a village"),
    "spotter": N_("search a village with the Spotter"),
    "gamble_more": N_("use another Gambler or end the turn"),
    "gamble_win": N_("discard a card after a right guess"),
    "nelly": N_("tuck a Nelly under a card"),
    "bomb": N_("use a Mad Bomber"),
    "simon_claims": N_("discard your matching card with Simon before the round is scored"),  # R47
}

#: What a seat must decide, as a mail addressed to it says it (subjects and first lines).
DECISION_WORDS: dict[str, str] = {
    "peek": N_("look at two of your cards to start the round"),
    "turn": N_("it is your turn"),
    "drawn": N_("decide what to do with the card you drew"),
    "taken": N_("decide where the card you took from the pile goes"),
    "search": N_("pick a card with the silver eye"),
    "gamble_more": N_("the Gambler: go on or stop"),
    "gamble_win": N_("the Gambler guessed right: choose a card to discard"),
    "spotter": N_("the Spotter: choose a village to search"),
    "twister": N_("the Twister: choose the cards to turn over"),
    "ghost": N_("the Ghost: choose a card to discard"),
    "seer": N_("the Split Seer: choose a card to look at"),
    "dracula": N_("Dracula: use it or skip"),
    "underminer": N_("the Underminer: choose the cards to swap"),
    "drunk": N_("the Drunk: choose where the top card goes"),
    "nelly": N_("round end: place your Nelly, or skip"),
    "bomb": N_("round end: use your Mad Bomber, or skip"),
    "simon_claims": N_("round end: discard your matching card with Simon before scoring, or skip"),
}

#: What a turn mail's subject says is asked (after "Round N · ").
SUBJECT_WORDS: dict[str, str] = {
    "peek": N_("look at two of your cards"),
    "turn": N_("your draw"),
    "drawn": N_("keep or discard the card you drew"),
    "taken": N_("place the card you took"),
    "search": N_("pick a silver-eye card"),
    "gamble_more": N_("Gambler: go on or stop"),
    "gamble_win": N_("Gambler: choose a card to discard"),
    "spotter": N_("Spotter: choose a village"),
    "twister": N_("Twister: turn two cards"),
    "ghost": N_("Ghost: discard a card"),
    "seer": N_("Split Seer: look at a card"),
    "dracula": N_("Dracula: use it or skip"),
    "underminer": N_("Underminer: swap cards"),
    "drunk": N_("Drunk: place the top card"),
    "nelly": N_("place your Nelly"),
    "bomb": N_("Mad Bomber: use it or skip"),
    "simon_claims": N_("Simon: discard your match before scoring?"),
}

#: What the clock does for a seat whose deadline passes on each decision (R29; the peek
#: R5, a begun Twister R37, a search R38), in public words: a reminder's lead ends with
#: them ("2 hours left, then the clock discards the card for you", issue 49 item 1), the
#: turn mail says them after its deadline and the seat page under its question.
TIMEOUT_WORDS: dict[str, str] = {
    "peek": N_("the clock looks at your first two facedown cards for you"),
    "turn": N_("the clock passes your turn"),
    "drawn": N_("the clock discards the card for you, without its ability"),
    # the pile's Obsessor refuses the drawn card (R13): it joins the village (R29)
    "drawn_refused": N_("the clock adds the card facedown at the right end of your village"),
    "taken": N_("the clock puts the card back on the pile and passes"),
    "search": N_("the clock takes the top card of the deck and discards it for you"),
    "gamble_more": N_("the clock ends your turn"),
    "gamble_win": N_("the clock skips the discard for you"),
    "spotter": N_("the clock skips the search for you"),
    "twister": N_("the clock skips it, or turns the leftmost cards if you began"),
    "ghost": N_("the clock skips the Ghost for you"),
    "seer": N_("the clock skips the Split Seer for you"),
    "dracula": N_("the clock skips Dracula for you"),
    "underminer": N_("the clock skips the Underminer for you"),
    "drunk": N_("the clock skips the Drunk for you"),
    "nelly": N_("the clock leaves your Nelly untucked"),
    "bomb": N_("the clock leaves your Mad Bomber unused"),
    "simon_claims": N_("the clock keeps your cards as they are"),
}


def pending_words(pending: str) -> str:
    """``PENDING_WORDS`` in the reader's language."""
    return _(PENDING_WORDS[pending]) if pending in PENDING_WORDS else pending.replace("_", " ")


def decision_words(pending: str, default: str = "") -> str:
    """``DECISION_WORDS`` in the reader's language."""
    return _(DECISION_WORDS[pending]) if pending in DECISION_WORDS else default


def subject_words(pending: str, default: str = "") -> str:
    """``SUBJECT_WORDS`` in the reader's language."""
    return _(SUBJECT_WORDS[pending]) if pending in SUBJECT_WORDS else default


def group_words(kind: str) -> tuple[str, str]:
    """``ACTION_GROUPS``' title and help line in the reader's language."""
    title, help_line = ACTION_GROUPS[kind]
    return _(title), _(help_line)


def call_stakes() -> str:
    """``CALL_STAKES`` in the reader's language."""
    return _(CALL_STAKES)


#: The help page's names of two decisions the subjects do not name (issue 48 item 6).
HELP_ASKED: dict[str, str] = {
    "turn": N_("your turn, not begun"),
    "drawn_refused": N_("a drawn card the pile refuses"),
}


def timeout_rows() -> list[tuple[str, str]]:
    """The help page's list of what the clock does, decision by decision, in the reader's
    language: (the decision, capitalized; what the clock does)."""
    asked = {**SUBJECT_WORDS, **HELP_ASKED}
    rows = []
    for kind, then in TIMEOUT_WORDS.items():
        if kind in asked:
            what = _(asked[kind])
            rows.append((what[:1].upper() + what[1:], _(then)))
    return rows


def timeout_words(pending: str | None, legal: Sequence[Mapping[str, Any]] = ()) -> str:
    """What the clock will do for a seat deciding ``pending`` when its deadline passes;
    ``legal``: the seat's legal actions in its view (a drawn card the pile refuses has
    no ``discard`` among them)."""
    if pending == "drawn" and legal and not any(a.get("type") == "discard" for a in legal):
        return _(TIMEOUT_WORDS["drawn_refused"])
    if (pending or "") in TIMEOUT_WORDS:
        return _(TIMEOUT_WORDS[pending or ""])
    return _("the clock plays the default for you")


#: The four choices of an Underminer, in order (R23).
UNDERMINER_STEPS = (N_("a first card of one village"), N_("a second card of that village"),
                    N_("a first card of the pile"), N_("a second card of the pile"))


def _whose_village(seat: int | None, me: int | None, names: Sequence[str], *,
                   search: bool) -> str:
    """'Search your village', "Search Ann's village" (``search``) or the Drunk's
    'Give it to ...' end (not here: see action_label)."""
    if seat == me:
        return _("Search your village")
    if seat is not None and 0 <= seat < len(names):
        return english_owner(_("Search %(name)s's village", name=names[seat]), names[seat])
    return _("Search seat %(seat)s's village", seat=(seat or 0) + 1)


def _drunk_label(end: str, seat: int | None, me: int | None, names: Sequence[str]) -> str:
    left = end == "left"
    if seat == me:
        return (_("Give it to the left end of your village") if left
                else _("Give it to the right end of your village"))
    if seat is not None and 0 <= seat < len(names):
        name = names[seat]
        text = (_("Give it to the left end of %(name)s's village", name=name) if left
                else _("Give it to the right end of %(name)s's village", name=name))
        return english_owner(text, name)
    return (_("Give it to the left end of seat %(seat)s's village", seat=(seat or 0) + 1)
            if left else
            _("Give it to the right end of seat %(seat)s's village", seat=(seat or 0) + 1))


def action_label(action: Mapping[str, Any], view: View, me: int | None,
                 names: Sequence[str]) -> str:
    """The words on the button for one action, from the viewer's side."""
    kind = action.get("type", "")
    seat, position = action.get("seat"), action.get("position")
    positions = action.get("positions") or []
    hand, discard = view.get("hand"), view.get("discard") or []
    simple = {"draw": lambda: _("Draw from the deck"),
              "search": lambda: _("Search the deck (silver eye)"),
              "call": lambda: _("Call: %(stakes)s", stakes=call_stakes()),
              "dracula": lambda: _("Use Dracula"),
              "skip": lambda: _("No thanks, skip it"), "done": lambda: _("Done"),
              "pass": lambda: _("Pass")}
    if kind in simple:
        return simple[kind]()
    if kind == "peek":
        if len(positions) == 2:
            return _("Peek at %(first)s and %(second)s", first=spot(positions[0]),
                     second=spot(positions[1]))
        return _("Peek at %(spots)s", spots=" and ".join(spot(p) for p in positions))
    if kind == "pick":
        assert position is not None  # every pick names its deck position
        found = [e.get("card") for e in view.get("deck_known") or [] if e.get("position") == position]
        if found:
            return _("Take deck card %(spot)s (%(card)s)", spot=spot(position),
                     card=card_words(found[0]))
        return _("Take deck card %(spot)s", spot=spot(position))
    if kind == "take":
        return (_("Take the %(card)s", card=card_words(discard[-1])) if discard
                else _("Take the top discard"))
    if kind == "gamble":
        value = action.get("value")
        named = cards.value_name(value) if isinstance(value, int) else ""
        return (_("Guess %(value)s (%(name)s)", value=value, name=named) if named
                else _("Guess %(value)s", value=value))
    if kind == "exchange":
        if len(positions) == 1:
            return _("Swap with %(target)s", target=target(view, me, positions[0], me, names))
        return _("Swap with your cards %(spots)s", spots=", ".join(spot(p) for p in positions))
    if kind == "discard":
        if position is not None:
            return _("Discard %(target)s", target=target(view, me, position, me, names))
        return _("Discard the %(card)s", card=card_words(hand)) if hand else _("Discard it")
    if kind == "tanner":
        return (_("Place it at the left end") if action.get("end") == "left"
                else _("Place it at the right end"))
    if kind == "spot":
        return _whose_village(seat, me, names, search=True)
    if kind == "drunk":
        return _drunk_label(str(action.get("end", "right")), seat, me, names)
    if kind == "undermine" and "pile" in action:
        index = int(action["pile"])
        card = discard[index] if 0 <= index < len(discard) else None
        return _("Take the %(card)s from the pile (%(ordinal)s from the bottom)",
                 card=card_words(card), ordinal=place_ordinal(index + 1))
    verbs = {"twist": lambda t: _("Turn over %(target)s", target=t),
             "ghost": lambda t: _("Discard %(target)s", target=t),
             "see": lambda t: _("Look at %(target)s", target=t),
             "look": lambda t: _("Look at %(target)s", target=t),
             "nelly": lambda t: _("Tuck under %(target)s", target=t),
             "bomb": lambda t: _("Blow up %(target)s", target=t),
             "undermine": lambda t: _("Swap out %(target)s", target=t),
             "simon": lambda t: _("Discard %(target)s", target=t)}
    if kind in verbs:
        return verbs[kind](target(view, me if kind == 'simon' else seat, position, me, names))
    return str(kind).replace("_", " ").capitalize()


def place_ordinal(n: int) -> str:
    """'1st', '2nd' in English; '1.' in German; '1番目' in Japanese."""
    if current() == "en":
        return ordinal(n)
    return _("%(num)s.", num=n) if current() == "de" else _("No. %(num)s", num=n)


# -- where the game stands -----------------------------------------------------------


def pending_sentence(view: View, me: int | None, names: Sequence[str]) -> str:
    """One sentence about whose turn it is and what they must decide."""
    if view.get("phase") == "over":
        return _game_over(view, me, names)
    to_act = list(view.get("to_act") or [])
    what = _decision(view, me, names)
    if me is not None and me in to_act:
        return _my_move(view, me, what, names)
    return _waiting(view, to_act, what, names)


def _game_over(view: View, me: int | None, names: Sequence[str]) -> str:
    winner = view.get("winner")
    if winner is None:
        return _("The game is over.")
    return (_("You won the game!") if winner == me
            else _("%(name)s won the game.", name=names[winner]))


def asked_words(view: View, me: int, kind: str | None, names: Sequence[str] = ()) -> str:
    """What seat ``me`` is asked now (``kind``: ``meaning.decision_of`` of its view), in the
    one vocabulary of the seat page's status line, the turn mail's first line and every
    notice and push (issue 49 item 1): "peek at two of your cards", "draw, or take the 6
    Twister from the discard", "turn cards over with the Twister (1 more to turn)". Public
    words only: the discard's top is the table's, and no card the seat holds is named.
    Said in the reader's language."""
    if kind == "peek":
        return _("peek at two of your cards")
    if kind == "turn":
        types, discard = legal_types(view), view.get("discard") or []
        take = bool(discard and "take" in types)
        top = card_words(discard[-1]) if take else ""
        if "call" in types:
            return (_("draw, take the %(card)s from the discard, or call for a vote", card=top)
                    if take else _("draw, or call for a vote"))
        return (_("draw, or take the %(card)s from the discard", card=top) if take
                else _("draw a card"))
    return _decision({**view, "pending": kind}, me, names) if kind else _("your decision")


def _decision(view: View, me: int | None, names: Sequence[str]) -> str:
    """The pending decision in words, with what is known about its progress."""
    pending = view.get("pending") or ""
    what = pending_words(pending)
    detail = view.get("pending_detail") or {}
    if pending == "turn" and "call" in legal_types(view):
        what = _("draw, take the top discard or call for a vote")
    if pending == "twister" and isinstance(detail.get("left"), int):
        what = ngettext("%(what)s (%(num)d more to turn)", "%(what)s (%(num)d more to turn)",
                        detail["left"], what=what)
    elif pending == "spotter" and isinstance(detail.get("value"), int):
        what = _("%(what)s (looking for %(value)s)", what=what,
                 value=with_article(detail["value"]) if current() == "en" else detail["value"])
    elif pending == "underminer" and isinstance(detail.get("chosen"), int) \
            and 0 <= detail["chosen"] < len(UNDERMINER_STEPS):
        what = _("%(what)s (step %(step)s of 4: %(choice)s)", what=what,
                 step=detail["chosen"] + 1, choice=_(UNDERMINER_STEPS[detail["chosen"]]))
    elif pending in ("nelly", "bomb") and what:
        what += _which_card(view, detail, me, names)
    return what


def _my_move(view: View, me: int, what: str, names: Sequence[str] = ()) -> str:
    if "peek" in legal_types(view):
        return _("Your move: %(what)s.", what=asked_words(view, me, 'peek'))
    if view.get("phase") == "resolve" and what:
        return _("Your move (scoring the round): %(what)s.", what=what)
    if what and (me == view.get("current") or view.get("pending") == "simon_claims"):
        return _("Your move: %(what)s.", what=asked_words(view, me, view.get('pending'), names))
    return _("Your move.")


def _waiting(view: View, to_act: list[int], what: str, names: Sequence[str]) -> str:
    waiting = [names[s] for s in to_act if 0 <= s < len(names)]
    current_seat = view.get("current")
    if view.get("phase") == "resolve":
        if waiting and what:
            return _("Scoring the round: waiting for %(names)s to %(what)s.",
                     names=forms.names(waiting), what=what)
        return _("Scoring the round.")
    if not waiting:
        return _("Waiting.")
    if current_seat is not None and current_seat in to_act and what:
        others = [n for s, n in enumerate(names) if s in to_act and s != current_seat]
        if others:
            return _("Waiting for %(name)s to %(what)s (%(others)s still to peek).",
                     name=names[current_seat], what=what, others=forms.names(others))
        return _("Waiting for %(name)s to %(what)s.", name=names[current_seat], what=what)
    return _("Waiting for %(names)s.", names=forms.names(waiting))


def _which_card(view: View, detail: Mapping[str, Any], me: int | None,
                names: Sequence[str]) -> str:
    """' (your Nelly #2)': which card a round-end choice is about, when it can be found."""
    seat, card = detail.get("seat"), detail.get("card") or {}
    villages = view.get("villages") or []
    if not isinstance(seat, int) or not 0 <= seat < len(villages) or card.get("id") is None:
        return ""
    for position, here in enumerate(villages[seat]):
        if here and here.get("id") == card["id"]:
            name, where = cards.name(card["id"]), spot(position)
            if seat == me:
                return _(" (your %(card)s %(spot)s)", card=name, spot=where)
            if 0 <= seat < len(names):
                return english_owner(_(" (%(name)s's %(card)s %(spot)s)", name=names[seat],
                                       card=name, spot=where), names[seat])
            return _(" (seat %(seat)s's %(card)s %(spot)s)", seat=seat + 1, card=name,
                     spot=where)
    return ""


def legal_types(view: View) -> set[str]:
    return {str(a.get("type")) for a in view.get("legal_actions") or []}
