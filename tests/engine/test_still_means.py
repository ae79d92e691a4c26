"""A late reply still means what it said, or it does not (issue 17 item 4).

``engine.still_means(state_at_mail, state_now, seat, action)`` on stacked decks
(R3): Ann (seat 0) answers a mail written at one step; Bob (seat 1) moved in
between. The reply applies when Ann still faces the same decision and the
command names the same cards, from what Ann's own view shows (R30).
"""
from __future__ import annotations

from app import engine as E
from app.engine.meaning import changed_words
from tests.engine.scenario import Game, draw, discard, exchange, ids, stack, take

ANN, BOB = 0, 1
NAMES = ["Ann", "Bob"]
GHOSTS, SIMONS = ids(7), ids(2)


def peek(*positions: int) -> dict:
    return {"type": "peek", "positions": list(positions)}


def bob_ghosts_ann(position: int, deck: list[int] | None = None) -> tuple[Game, E.State]:
    """Bob starts, peeks, draws a 7 Ghost and uses it on Ann's card ``position``;
    returns the game and the state Ann's peek mail was written at."""
    deck = deck or stack(villages=[[], []], discard=ids(8)[0], top=[GHOSTS[0]])
    game = Game.start(2, deck, first=BOB)
    at_mail = game.state
    game.act(BOB, peek(0, 1))
    game.act(BOB, draw())
    game.act(BOB, discard())
    game.act(BOB, {"type": "ghost", "seat": ANN, "position": position})
    return game, at_mail


def test_r5_a_peek_still_means_its_two_cards_after_the_other_seat_played_a_whole_turn():
    game = Game.start(2, stack(villages=[[], []], discard=ids(8)[0], top=[ids(6)[0]]),
                      first=BOB)
    at_mail = game.state
    game.act(BOB, peek(0, 1))
    game.act(BOB, draw())
    game.act(BOB, exchange(2))   # Bob's turn is over: Ann is to move, and still owes her peek
    assert game.current == ANN
    meaning = E.still_means(at_mail, game.state, ANN, peek(0, 1))
    assert meaning.applies and meaning.reason == "same"
    assert meaning.decision_then == meaning.decision_now == "peek"
    assert [(n.place, n.seat, n.position) for n in meaning.named] == [
        ("village", ANN, 0), ("village", ANN, 1)]


def test_r21_a_ghost_on_another_card_of_the_village_leaves_the_cards_left_of_it_as_meant():
    game, at_mail = bob_ghosts_ann(4)
    assert E.still_means(at_mail, game.state, ANN, peek(0, 1)).applies
    assert E.still_means(at_mail, game.state, ANN, peek(1, 3)).applies


def test_r21_a_peek_no_longer_means_the_card_a_ghost_took_nor_those_that_moved_left():
    game, at_mail = bob_ghosts_ann(0)
    gone = E.still_means(at_mail, game.state, ANN, peek(0, 1))
    assert not gone.applies and gone.reason == "cards"
    assert gone.decision_now == "peek"   # the same decision: only the cards differ
    assert changed_words(gone, ANN, NAMES) == (
        "Bob's Ghost discarded 5 Tanner from your village: your card #1 is gone; "
        "the card that was your card #2 is now card #1")
    moved = E.still_means(at_mail, game.state, ANN, peek(3, 4))
    assert not moved.applies
    assert [n.moved_to for n in moved.changed] == [2, 3]


def simon_window() -> tuple[Game, E.State]:
    """Bob (Simon "off", R16) takes the 2 Simon from the pile for his other 2 Simon:
    the pile shows a 2, Bob may claim his faceup Simon by hand (R36). Ann's turn."""
    deck = stack(villages=[[], [SIMONS[1]]], discard=SIMONS[0], top=ids(3)[:2])  # no abilities
    game = Game.start(2, deck, first=BOB, options={"simon": ["auto", "off"]})
    game.peek_all()
    game.act(BOB, take())
    game.act(BOB, exchange(0))
    assert game.current == ANN and game.top() == SIMONS[1]
    assert {"type": "simon", "position": 0} in game.legal(BOB)
    return game, game.state


def test_r36_take_no_longer_means_the_top_discard_once_a_simon_claim_covered_it():
    game, at_mail = simon_window()
    game.act(BOB, {"type": "simon", "position": 0})   # Bob claims while Ann reads her mail
    meaning = E.still_means(at_mail, game.state, ANN, take())
    assert not meaning.applies and meaning.reason == "cards"
    assert meaning.decision_then == meaning.decision_now == "turn"
    [top] = meaning.changed
    assert (top.then["id"], top.now["id"]) == (SIMONS[1], SIMONS[0])
    assert changed_words(meaning, ANN, NAMES) == (
        "Bob's Simon discarded 2 Simon: the top of the discard pile is now another "
        "2 Simon, not the one you meant")


def test_r36_a_draw_still_means_the_top_card_of_the_deck_whichever_it_is():
    game, at_mail = simon_window()
    game.act(BOB, {"type": "simon", "position": 0})
    assert E.still_means(at_mail, game.state, ANN, draw()).applies


def test_a_decision_the_seat_made_itself_since_the_mail_is_not_the_same_one():
    game, at_mail = simon_window()
    game.act(ANN, draw())
    game.act(ANN, discard())
    game.act(BOB, draw())
    game.act(BOB, discard())
    assert game.current == ANN   # Ann's turn again, and "D" is on its menu again
    meaning = E.still_means(at_mail, game.state, ANN, draw())
    assert not meaning.applies and meaning.reason == "acted"
    assert [e["type"] for e in meaning.own_events(ANN)] == ["draw", "discard"]


def test_the_meaning_is_read_from_the_seats_own_view_never_a_hidden_card():
    # two deals that differ only in cards Ann never sees (Bob's village, the deck below
    # the Ghost): Ann's views are the same, so is what her reply means (R30)
    plain = stack(villages=[[], [ids(10)[0], ids(11)[0]]], discard=ids(8)[0], top=[GHOSTS[0]])
    other = stack(villages=[[], [ids(12)[0], ids(13)[0]]], discard=ids(8)[0], top=[GHOSTS[0]])
    first, first_mail = bob_ghosts_ann(0, plain)
    second, second_mail = bob_ghosts_ann(0, other)
    assert first.view(ANN) == second.view(ANN)
    assert first.village(BOB) != second.village(BOB)
    for action in (peek(0, 1), peek(2, 3), peek(3, 4)):
        assert E.still_means(first_mail, first.state, ANN, action) == \
            E.still_means(second_mail, second.state, ANN, action)
