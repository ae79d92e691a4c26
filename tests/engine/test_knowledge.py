"""R30 knowledge: for each way of learning a card, exactly who sees what.

Every test looks through the views of both seats and of the spectator, never at
the engine's knowledge bits, so what is checked is what a person would be shown.
"""
from __future__ import annotations

from tests.engine.scenario import Game, discard, draw, exchange, ids, stack

TENS, TWELVES, ELEVENS, EIGHTS = ids(10), ids(12), ids(11), ids(8)
SIXES, FIVES, SEVENS, THREES, TWOS = ids(6), ids(5), ids(7), ids(3), ids(2)


def who_knows(game: Game, card: int) -> set:
    return {w for w in (None, 0, 1) if game.knows(w, card)}


def test_r30_peek_is_seen_by_the_peeker_only():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0, TWELVES[1:3] + ELEVENS[2:4]], discard=EIGHTS[0]), first=0)
    game.act(0, {"type": "peek", "positions": [1, 3]})
    assert who_knows(game, TENS[1]) == {0}
    assert who_knows(game, ELEVENS[1]) == {0}
    assert who_knows(game, TENS[0]) == set()
    peek = game.events[-1]
    assert peek["positions"] == [1, 3]
    assert set(peek) == {"type", "seat", "step", "round", "positions"}   # no card in public


def test_r30_a_kept_drawn_card_is_known_to_its_drawer_only_and_the_discard_to_all():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0], discard=EIGHTS[0], top=[SIXES[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    assert who_knows(game, SIXES[0]) == {0}        # in hand: the drawer sees it
    game.act(0, exchange(4))
    assert game.village(0)[4] == SIXES[0] and not game.faceup(SIXES[0])
    assert who_knows(game, SIXES[0]) == {0}
    assert who_knows(game, TWELVES[0]) == {None, 0, 1}   # now faceup on the pile


def test_r30_split_seer_shows_one_card_of_each_chosen_village_to_its_user():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    v1 = [SIXES[0], SIXES[1], SEVENS[0], SEVENS[1], TWELVES[1]]
    game = Game.start(2, stack([v0, v1], discard=FIVES[0], top=[EIGHTS[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pending == "seer"
    game.act(0, {"type": "see", "seat": 1, "position": 3})
    game.act(0, {"type": "see", "seat": 0, "position": 4})
    assert who_knows(game, SEVENS[1]) == {0}       # seat 1 never looked at its own 4th card
    assert who_knows(game, TWELVES[0]) == {0}
    assert who_knows(game, TWELVES[1]) == set()
    assert game.current == 1                        # every village seen: the turn is over


def test_r30_spotter_looks_stay_known_to_the_looker_and_the_match_goes_public():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    v1 = [SEVENS[0], SEVENS[1], SIXES[0], TENS[2], TWELVES[1]]
    deck = stack([v0, v1], discard=THREES[0], top=[EIGHTS[0], FIVES[0], TWOS[0]])
    game = Game.start(2, deck, first=0)
    game.peek_all((0, 1))
    game.act(0, {"type": "take"})                   # the Spotter, faceup into spot 4
    game.act(0, exchange(4))
    assert game.faceup(THREES[0])
    game.act(1, draw())
    game.act(1, discard())                          # an 8: seat 1 skips its Split Seer
    game.act(1, {"type": "skip"})
    game.act(0, draw())                             # a 5, exchanged for the known 10 at 0
    game.act(0, exchange(0, spotter=True))
    assert game.pending == "spotter"
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 2})    # a 6: no match, stays, seat 0 knows it
    assert who_knows(game, SIXES[0]) == {0}
    game.act(0, {"type": "look", "position": 3})    # the 10: discarded too
    assert game.top() == TENS[2] and who_knows(game, TENS[2]) == {None, 0, 1}
    assert who_knows(game, TWELVES[1]) == set() and who_knows(game, SEVENS[0]) == {1}


def _open_eye_for_seat0(round2: list[int]) -> Game:
    """Round 1: seat 0 matches its two 10s, calls with the lowest village and wins the
    silver eye open (R26); round 2 is dealt from `round2`."""
    v0 = [TENS[0], TENS[1], 0, 4, TWOS[0]]            # 10, 10, Nelly, Illusionist, 2
    v1 = [TWELVES[0], TWELVES[1], ELEVENS[0], ELEVENS[1], 50]
    round1 = stack([v0, v1], discard=EIGHTS[0], top=[1, THREES[0], THREES[1]])
    game = Game.start(2, round1, round2, first=0)
    game.peek_all()
    game.act(0, draw())                                # a Nelly
    game.act(0, exchange(0, 1))                        # the two 10s match
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, {"type": "call"})
    game.act(1, draw())
    game.act(1, discard())
    assert game.state.round == 2
    assert game.view(None)["silver_eye"] == {"holder": 0, "open": True}
    return game


def test_r30_silver_eye_search_shows_the_deck_to_the_holder_until_the_reshuffle():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    round2 = stack([v0], discard=EIGHTS[0], top=[SIXES[0], 0, SEVENS[0]])
    game = _open_eye_for_seat0(round2)
    game.peek_all()
    game.act(0, {"type": "search"})
    known = game.view(0)["deck_known"]
    assert len(known) == 31 and known[1]["card"]["id"] == 0   # the whole deck, in order
    assert game.view(1)["deck_known"] == [] and game.view(None)["deck_known"] == []
    game.act(0, {"type": "pick", "position": 1})              # the Nelly
    assert game.view(0)["hand"]["id"] == 0 and game.view(1)["hand"]["id"] is None
    assert game.view(0)["deck_known"] == []                    # forgotten after the shuffle
    assert game.view(None)["silver_eye"]["open"] is False


def test_r30_a_failed_exchange_shows_the_chosen_cards_to_everyone():
    v0 = [TENS[0], ELEVENS[0], ELEVENS[1], TWELVES[0], TWELVES[1]]
    game = Game.start(2, stack([v0], discard=EIGHTS[0], top=[SIXES[0]]), first=0)
    game.peek_all((3, 4))
    game.act(0, draw())
    game.act(0, exchange(0, 1))                               # a 10 and an 11: no match
    assert game.village(0)[:2] == [TENS[0], ELEVENS[0]]
    assert not game.faceup(TENS[0]) and not game.faceup(ELEVENS[0])
    assert who_knows(game, TENS[0]) == {None, 0, 1}
    assert who_knows(game, ELEVENS[0]) == {None, 0, 1}
    assert who_knows(game, SIXES[0]) == {0}                   # the new card: drawer only


def test_r30_twister_turns_cards_up_for_everyone_and_down_without_forgetting():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    v1 = [SIXES[0], SIXES[1], SEVENS[0], SEVENS[1], TWELVES[1]]
    game = Game.start(2, stack([v0, v1], discard=TWOS[0], top=[ids(6)[2]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    assert game.pending == "twister"
    for pos in range(4):
        game.act(0, {"type": "twist", "seat": 1, "position": pos})
    assert who_knows(game, SEVENS[1]) == {None, 0, 1}
    game.act(0, {"type": "twist", "seat": 0, "position": 4})   # the fifth and last card
    assert game.faceup(TWELVES[0]) and who_knows(game, TWELVES[0]) == {None, 0, 1}
    assert who_knows(game, TWELVES[1]) == set() and game.current == 1


def test_r30_twister_cannot_turn_the_same_card_twice():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    v1 = [SIXES[0], SIXES[1], SEVENS[0], SEVENS[1], TWELVES[1]]
    game = Game.start(2, stack([v0, v1], discard=TWOS[0], top=[ids(6)[2]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "twist", "seat": 1, "position": 0})
    assert "already" in game.illegal(0, {"type": "twist", "seat": 1, "position": 0})
    assert game.faceup(SIXES[0]) and who_knows(game, SIXES[0]) == {None, 0, 1}
    for pos in range(1, 5):
        game.act(0, {"type": "twist", "seat": 1, "position": pos})
    assert game.current == 1                                   # five cards: done


def test_r30_tanner_turns_the_whole_village_faceup_for_everyone():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0], discard=TWOS[0], top=[FIVES[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, {"type": "tanner", "end": "left"})
    assert game.village(0)[0] == FIVES[0]
    for card in v0 + [FIVES[0]]:
        assert game.faceup(card) and who_knows(game, card) == {None, 0, 1}


def test_r30_dracula_keeps_knowledge_of_cards_moved_into_the_deck():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0], discard=TWOS[0], top=[SIXES[0], SEVENS[0], TENS[2]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())                                     # 6 Twister: skip it
    game.act(0, {"type": "skip"})
    game.act(1, draw())
    game.act(1, discard())                                     # 7 Ghost: skip it
    game.act(1, {"type": "skip"})
    game.act(0, draw())
    game.act(0, discard())                                     # 10 Dracula
    game.act(0, {"type": "dracula"})
    for who in (None, 0, 1):
        known = {k["card"]["id"]: k["position"] for k in game.view(who)["deck_known"]}
        deck_size = game.view(who)["deck_count"]
        # the card just under the Dracula (the 7) is the first of them to be drawn
        assert known == {TWOS[0]: deck_size - 1, SIXES[0]: deck_size - 2, SEVENS[0]: deck_size - 3}


def test_r31_the_public_log_says_who_did_what_where_but_never_a_privately_seen_value():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    v1 = [SIXES[0], SIXES[1], SEVENS[0], SEVENS[1], TWELVES[1]]
    game = Game.start(2, stack([v0, v1], discard=FIVES[0], top=[EIGHTS[0], TWOS[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())                            # a Split Seer, used on seat 1
    game.act(0, {"type": "see", "seat": 1, "position": 3})
    game.act(0, {"type": "skip"})
    game.act(1, draw())
    game.act(1, exchange(4))                          # the 2 replaces seat 1's 12
    log = {who: game.view(who)["log"] for who in (None, 0, 1)}
    assert log[None] == log[0] == log[1]              # one public log for everyone
    by_type = {e["type"]: e for e in log[None]}
    assert by_type["peek"]["positions"] == [0, 1]
    assert by_type["see"] == {"type": "see", "seat": 0, "step": 5, "round": 1, "target": 1,
                              "position": 3}
    assert by_type["draw"]["card"] is None             # nobody else saw the drawn card
    exchanged = by_type["exchange"]
    assert exchanged["positions"] == [4] and exchanged["card"] is None
    assert exchanged["discarded"] == [{"id": TWELVES[1], "value": 12}]   # public: on the pile
    text = repr(log[None])
    for private in (SEVENS[1], TWOS[0], TENS[0], SIXES[0]):
        assert f"'id': {private}," not in text
