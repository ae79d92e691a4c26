"""Words for cards, decisions and results: the one vocabulary of pages, mails and replays.

Pure (no Flask, no SQL): everything here reads a *view* (the dict
``engine.view`` returns) or an event, never the engine's state, so nothing can
say more than the viewer may know. A new card or decision gets its words here
and every page, mail and replay that speaks of it follows.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

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
        return "no card"
    if card.get("id") is None:
        return "a facedown card"
    return cards.label(card["id"])


def card_text(card_id: int) -> str:
    """The full text of a card, as its tap/hover box shows it."""
    return f"{cards.label(card_id)}: {cards.ability(card_id)}"


def refusal(obsessor: int, card_id: int | None) -> str:
    """Why a card is left out of a choice: the Obsessor on top refuses it (R13)."""
    what = f"the {cards.label(card_id)}" if card_id is not None else "this card"
    return (f"The {cards.name(obsessor)} on the pile accepts "
            f"{cards.OBSESSOR_RULE[cards.OBSESSOR_KIND[obsessor]]}: not {what}.")


def village_card(view: View, seat: int | None, position: Any) -> Mapping[str, Any] | None:
    try:
        return view["villages"][seat][int(position)]
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def target(view: View, seat: int | None, position: Any, me: int | None,
           names: Sequence[str]) -> str:
    """'Ann's card #2 (7 Ghost)' — the value only when this viewer knows it."""
    card = village_card(view, seat, position)
    known = f" ({card_words(card)})" if card and card.get("id") is not None else ""
    return f"{whose(seat, me, names)} card {spot(position)}{known}".strip()


# -- decisions ---------------------------------------------------------------------

#: Group order, titles and one line of help per action type.
ACTION_GROUPS: dict[str, tuple[str, str]] = {
    "peek": ("Peek at two of your cards",
             "Secretly look at two facedown cards of your village before you first act."),
    "draw": ("Draw", "Take the top card of the deck; then keep it or discard it."),
    "search": ("Silver eye", "Look through the whole deck and take any card as if drawn."),
    "pick": ("Pick from the deck", "Choose the card you want; the deck is shuffled afterwards."),
    "take": ("Take the top discard", "Take it, then exchange it for cards of your village."),
    "gamble": ("Gamble", "Guess the value of the top deck card."),
    "call": ("Call for a vote", "Everyone else gets one more turn, then the round ends."),
    "exchange": ("Exchange", "Swap the card in your hand for one or more cards of your village "
                             "(several only if they all have the same value)."),
    "discard": ("Discard", "Put the card in your hand on the discard pile."),
    "tanner": ("Tanner", "Place the Tanner at an end of your village; all your cards turn faceup."),
    "twist": ("Twister", "Turn cards over (faceup or facedown), in any villages."),
    "ghost": ("Ghost", "Discard one card from any village."),
    "see": ("Split Seer", "Look at one facedown card in each village."),
    "dracula": ("Dracula", "Move the five cards under it to the bottom of the deck."),
    "undermine": ("Underminer", "Swap two cards of one village with two cards of the pile."),
    "drunk": ("Drunk", "Give the top deck card to an end of a village."),
    "spot": ("Spotter", "Choose the village to search for a matching card."),
    "look": ("Spotter", "Look at one facedown card of that village."),
    "simon": ("Simon", "Discard a faceup card of yours that matches the top discard."),
    "nelly": ("Nelly", "Tuck your Nelly under a card: it scores its negative."),
    "bomb": ("Mad Bomber", "Remove your Mad Bomber and one other card from the round."),
    "done": ("Finish", "End this choice here."),
    "skip": ("Decline", "Do not use this; go on."),
    "pass": ("Pass", "Let this turn go by."),
}

#: The stakes of calling, said on the button and in its confirm (R-call).
CALL_STAKES = "if you are lowest you score 0, otherwise your sum + 10"

#: What a seat must decide, by the view's ``pending``.
PENDING_WORDS = {
    "turn": "draw or take the top discard",
    "drawn": "keep the drawn card or discard it",
    "taken": "exchange the card taken from the pile",
    "search": "pick a card from the deck with the silver eye",
    "twister": "turn cards over with the Twister",
    "ghost": "discard a card with the Ghost",
    "seer": "look at cards with the Split Seer",
    "dracula": "decide on the Dracula",
    "underminer": "swap cards with the Underminer",
    "drunk": "give the Drunk's card to a village",
    "spotter": "search a village with the Spotter",
    "gamble_more": "use another Gambler or end the turn",
    "gamble_win": "discard a card after a right guess",
    "nelly": "tuck a Nelly under a card",
    "bomb": "use a Mad Bomber",
    "simon_claims": "discard your matching card with Simon before the round is scored",  # R47
}

#: What a seat must decide, as a mail addressed to it says it (subjects and first lines).
DECISION_WORDS: dict[str, str] = {
    "peek": "look at two of your cards to start the round",
    "turn": "it is your turn",
    "drawn": "decide what to do with the card you drew",
    "taken": "decide where the card you took from the pile goes",
    "search": "pick a card with the silver eye",
    "gamble_more": "the Gambler: go on or stop",
    "gamble_win": "the Gambler guessed right: choose a card to discard",
    "spotter": "the Spotter: choose a village to search",
    "twister": "the Twister: choose the cards to turn over",
    "ghost": "the Ghost: choose a card to discard",
    "seer": "the Split Seer: choose a card to look at",
    "dracula": "Dracula: use it or skip",
    "underminer": "the Underminer: choose the cards to swap",
    "drunk": "the Drunk: choose where the top card goes",
    "nelly": "round end: place your Nelly, or skip",
    "bomb": "round end: use your Mad Bomber, or skip",
    "simon_claims": "round end: discard your matching card with Simon before scoring, or skip",
}

#: What a turn mail's subject says is asked (after "Round N · ").
SUBJECT_WORDS: dict[str, str] = {
    "peek": "look at two of your cards",
    "turn": "your draw",
    "drawn": "keep or discard the card you drew",
    "taken": "place the card you took",
    "search": "pick a silver-eye card",
    "gamble_more": "Gambler: go on or stop",
    "gamble_win": "Gambler: choose a card to discard",
    "spotter": "Spotter: choose a village",
    "twister": "Twister: turn two cards",
    "ghost": "Ghost: discard a card",
    "seer": "Split Seer: look at a card",
    "dracula": "Dracula: use it or skip",
    "underminer": "Underminer: swap cards",
    "drunk": "Drunk: place the top card",
    "nelly": "place your Nelly",
    "bomb": "Mad Bomber: use it or skip",
    "simon_claims": "Simon: discard your match before scoring?",
}

#: What the clock does for a seat whose deadline passes on each decision (R29; the peek
#: R5, a begun Twister R37, a search R38), in public words: a reminder's lead ends with
#: them ("2 hours left, then the clock discards the card for you", issue 49 item 1), the
#: turn mail says them after its deadline and the seat page under its question.
TIMEOUT_WORDS: dict[str, str] = {
    "peek": "the clock looks at your first two facedown cards for you",
    "turn": "the clock passes your turn",
    "drawn": "the clock discards the card for you, without its ability",
    # the pile's Obsessor refuses the drawn card (R13): it joins the village (R29)
    "drawn_refused": "the clock adds the card facedown at the right end of your village",
    "taken": "the clock puts the card back on the pile and passes",
    "search": "the clock takes the top card of the deck and discards it for you",
    "gamble_more": "the clock ends your turn",
    "gamble_win": "the clock skips the discard for you",
    "spotter": "the clock skips the search for you",
    "twister": "the clock skips it, or turns the leftmost cards if you began",
    "ghost": "the clock skips the Ghost for you",
    "seer": "the clock skips the Split Seer for you",
    "dracula": "the clock skips Dracula for you",
    "underminer": "the clock skips the Underminer for you",
    "drunk": "the clock skips the Drunk for you",
    "nelly": "the clock leaves your Nelly untucked",
    "bomb": "the clock leaves your Mad Bomber unused",
    "simon_claims": "the clock keeps your cards as they are",
}


def timeout_words(pending: str | None, legal: Sequence[Mapping[str, Any]] = ()) -> str:
    """What the clock will do for a seat deciding ``pending`` when its deadline passes;
    ``legal``: the seat's legal actions in its view (a drawn card the pile refuses has
    no ``discard`` among them)."""
    if pending == "drawn" and legal and not any(a.get("type") == "discard" for a in legal):
        return TIMEOUT_WORDS["drawn_refused"]
    return TIMEOUT_WORDS.get(pending or "", "the clock plays the default for you")


#: The four choices of an Underminer, in order (R23).
UNDERMINER_STEPS = ("a first card of one village", "a second card of that village",
                    "a first card of the pile", "a second card of the pile")

def action_label(action: Mapping[str, Any], view: View, me: int | None,
                 names: Sequence[str]) -> str:
    """The words on the button for one action, from the viewer's side."""
    kind = action.get("type", "")
    seat, position = action.get("seat"), action.get("position")
    positions = action.get("positions") or []
    hand, discard = view.get("hand"), view.get("discard") or []
    simple = {"draw": "Draw from the deck", "search": "Search the deck (silver eye)",
              "call": f"Call: {CALL_STAKES}", "dracula": "Use Dracula",
              "skip": "No thanks, skip it", "done": "Done", "pass": "Pass"}
    if kind in simple:
        return simple[kind]
    if kind == "peek":
        return "Peek at " + " and ".join(spot(p) for p in positions)
    if kind == "pick":
        assert position is not None  # every pick names its deck position
        found = [e.get("card") for e in view.get("deck_known") or [] if e.get("position") == position]
        what = f" ({card_words(found[0])})" if found else ""
        return f"Take deck card {spot(position)}{what}"
    if kind == "take":
        return f"Take the {card_words(discard[-1])}" if discard else "Take the top discard"
    if kind == "gamble":
        value = action.get("value")
        named = cards.NAME.get(value, "") if isinstance(value, int) else ""
        return f"Guess {value} ({named})" if named else f"Guess {value}"
    if kind == "exchange":
        if len(positions) == 1:
            return f"Swap with {target(view, me, positions[0], me, names)}"
        return "Swap with your cards " + ", ".join(spot(p) for p in positions)
    if kind == "discard":
        if position is not None:
            return f"Discard {target(view, me, position, me, names)}"
        return f"Discard the {card_words(hand)}" if hand else "Discard it"
    if kind == "tanner":
        return f"Place it at the {action.get('end', 'right')} end"
    if kind == "spot":
        return f"Search {whose(seat, me, names)} village"
    if kind == "drunk":
        return f"Give it to the {action.get('end', 'right')} end of {whose(seat, me, names)} village"
    if kind == "undermine" and "pile" in action:
        index = int(action["pile"])
        card = discard[index] if 0 <= index < len(discard) else None
        return f"Take the {card_words(card)} from the pile ({ordinal(index + 1)} from the bottom)"
    verbs = {"twist": "Turn over", "ghost": "Discard", "see": "Look at", "look": "Look at",
             "nelly": "Tuck under", "bomb": "Blow up", "undermine": "Swap out", "simon": "Discard"}
    if kind in verbs:
        return f"{verbs[kind]} {target(view, me if kind == 'simon' else seat, position, me, names)}"
    return str(kind).replace("_", " ").capitalize()


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
        return "The game is over."
    return "You won the game!" if winner == me else f"{names[winner]} won the game."


def asked_words(view: View, me: int, kind: str | None, names: Sequence[str] = ()) -> str:
    """What seat ``me`` is asked now (``kind``: ``meaning.decision_of`` of its view), in the
    one vocabulary of the seat page's status line, the turn mail's first line and every
    notice and push (issue 49 item 1): "peek at two of your cards", "draw, or take the 6
    Twister from the discard", "turn cards over with the Twister (1 more to turn)". Public
    words only: the discard's top is the table's, and no card the seat holds is named."""
    if kind == "peek":
        return "peek at two of your cards"
    if kind == "turn":
        types, discard = legal_types(view), view.get("discard") or []
        take = (f"take the {card_words(discard[-1])} from the discard"
                if discard and "take" in types else "")
        if "call" in types:
            return f"draw, {take + ', ' if take else ''}or call for a vote"
        return f"draw, or {take}" if take else "draw a card"
    return _decision({**view, "pending": kind}, me, names) if kind else "your decision"


def _decision(view: View, me: int | None, names: Sequence[str]) -> str:
    """The pending decision in words, with what is known about its progress."""
    pending = view.get("pending") or ""
    what = PENDING_WORDS.get(pending, pending.replace("_", " "))
    detail = view.get("pending_detail") or {}
    if pending == "turn" and "call" in legal_types(view):
        what = "draw, take the top discard or call for a vote"
    if pending == "twister" and isinstance(detail.get("left"), int):
        what += f" ({detail['left']} more to turn)"
    elif pending == "spotter" and isinstance(detail.get("value"), int):
        what += f" (looking for {with_article(detail['value'])})"
    elif pending == "underminer" and isinstance(detail.get("chosen"), int) \
            and 0 <= detail["chosen"] < len(UNDERMINER_STEPS):
        what += f" (step {detail['chosen'] + 1} of 4: {UNDERMINER_STEPS[detail['chosen']]})"
    elif pending in ("nelly", "bomb") and what:
        what += _which_card(view, detail, me, names)
    return what


def _my_move(view: View, me: int, what: str, names: Sequence[str] = ()) -> str:
    if "peek" in legal_types(view):
        return f"Your move: {asked_words(view, me, 'peek')}."
    if view.get("phase") == "resolve" and what:
        return f"Your move (scoring the round): {what}."
    if what and (me == view.get("current") or view.get("pending") == "simon_claims"):
        return f"Your move: {asked_words(view, me, view.get('pending'), names)}."
    return "Your move."


def _waiting(view: View, to_act: list[int], what: str, names: Sequence[str]) -> str:
    waiting = [names[s] for s in to_act if 0 <= s < len(names)]
    current = view.get("current")
    if view.get("phase") == "resolve":
        if waiting and what:
            return f"Scoring the round: waiting for {and_list(waiting)} to {what}."
        return "Scoring the round."
    if not waiting:
        return "Waiting."
    if current is not None and current in to_act and what:
        others = [n for s, n in enumerate(names) if s in to_act and s != current]
        extra = f" ({and_list(others)} still to peek)" if others else ""
        return f"Waiting for {names[current]} to {what}{extra}."
    return f"Waiting for {and_list(waiting)}."


def _which_card(view: View, detail: Mapping[str, Any], me: int | None,
                names: Sequence[str]) -> str:
    """' (your Nelly #2)': which card a round-end choice is about, when it can be found."""
    seat, card = detail.get("seat"), detail.get("card") or {}
    villages = view.get("villages") or []
    if not isinstance(seat, int) or not 0 <= seat < len(villages) or card.get("id") is None:
        return ""
    for position, here in enumerate(villages[seat]):
        if here and here.get("id") == card["id"]:
            return f" ({whose(seat, me, names)} {cards.name(card['id'])} {spot(position)})"
    return ""


def legal_types(view: View) -> set[str]:
    return {str(a.get("type")) for a in view.get("legal_actions") or []}
