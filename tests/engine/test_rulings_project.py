"""The project's own rulings R32-R47 (docs/rules.md), each on a stacked deck.

Faceup cards in a village are set up the way a table would get them: a Tanner
drawn from the deck turns its drawer's whole village faceup (R19).
"""
from __future__ import annotations

import random
from itertools import combinations

from app import engine as E
from app.engine import bots
from app.engine.cards import VALUE
from app.engine import turns
from app.engine.rules import action_menu
from tests.engine.scenario import Game, discard, draw, exchange, ids, stack, take

TWOS, THREES, FOURS, FIVES = ids(2), ids(3), ids(4), ids(5)
SIXES, SEVENS, EIGHTS, TENS, ELEVENS, TWELVES = ids(6), ids(7), ids(8), ids(10), ids(11), ids(12)


def _nine_cards_knowing_all_four_tens(options: dict | None = None) -> Game:
    """Seat 0 ends up with nine cards, the four 10s among them, all known to it:
    two failed three-card exchanges reveal three 10s (R8) and bring in the drawn
    fourth 10 plus two penalty cards (R44)."""
    v0 = [TENS[0], TENS[1], TENS[2], ELEVENS[0], TWELVES[0]]
    # seat 0 draw, penalty; seat 1 draw; seat 0 draw (the fourth 10), penalty; seat 1 draw;
    # seat 0 draw
    top = [SIXES[0], THREES[0], FIVES[0], TENS[3], THREES[1], FIVES[1], FOURS[0]]
    game = Game.start(2, stack([v0], discard=FIVES[2], top=top), first=0, options=options)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(2, 3, 4))               # fails: T2, 11, 12 shown; 6 and a penalty join
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, draw())                          # the fourth 10, known to its drawer
    game.act(0, exchange(0, 3, 4))               # fails again: 10 and a penalty join
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, draw())
    return game


def test_r32_a_seat_knowing_all_four_tens_in_a_nine_card_village_is_offered_the_four_card_exchange():
    game = _nine_cards_knowing_all_four_tens()
    village = game.village(0)
    assert len(village) == 9
    tens = [p for p, c in enumerate(village) if c in TENS]
    assert tens == [0, 1, 2, 7] and all(game.knows(0, c) for c in TENS)
    assert exchange(*tens) in game.legal(0)
    others, sets = action_menu(game.state, 0)
    assert tuple(tens) in sets                   # the bots are offered it too
    events = game.act(0, exchange(*tens))
    assert events[0]["type"] == "exchange"       # it matches
    assert sorted(game.pile()[-4:]) == sorted(TENS)
    assert len(game.village(0)) == 6


def test_r32_below_the_limit_the_list_holds_every_set_that_could_match_as_far_as_the_seat_knows():
    game = _nine_cards_knowing_all_four_tens()
    village = game.village(0)
    listed = {tuple(a["positions"]) for a in game.legal(0) if a["type"] == "exchange"}
    assert len(game.legal(0)) <= 200
    known = {p: VALUE[c] for p, c in enumerate(village) if game.knows(0, c)}
    unseen = [p for p in range(9) if p not in known]
    assert unseen == [6, 8]                      # the two penalty cards
    for size in range(1, 5):
        for chosen in combinations(range(9), size):
            values = {known[p] for p in chosen if p in known}
            blind = [p for p in chosen if p not in known]
            could = size == 1 or (len(values) <= 1 and (
                not values or len(blind) <= 4 - _located(game, values.pop())))
            assert (chosen in listed) == could, chosen
    # a set known to mismatch, or of five cards, is not listed but still accepted (R8)
    assert (0, 3) not in listed
    events = game.act(0, exchange(0, 1, 2, 3, 4))
    assert events[0]["type"] == "exchange_failed" and events[0]["penalty"] is True
    assert len(game.village(0)) == 11


def test_r32_guesses_with_unseen_cards_stop_at_the_limit_but_any_set_may_be_posted():
    game = _nine_cards_knowing_all_four_tens(options={"memory": True})   # R43: all forgotten
    assert not any(game.knows(0, c) for c in game.village(0))
    listed = [tuple(a["positions"]) for a in game.legal(0) if a["type"] == "exchange"]
    assert len(listed) == turns.EXCHANGE_LIMIT
    assert all((p,) in listed for p in range(9))                    # every card alone
    assert all(len(c) <= 4 for c in listed)
    sizes = [len(c) for c in listed]
    assert sizes.count(2) == 36 and sizes.count(3) == 84              # fewest unseen first
    assert (5, 6, 7, 8) not in listed
    events = game.act(0, exchange(5, 6, 7, 8))                        # posted all the same
    assert events[0]["type"] == "exchange_failed"


def _located(game: Game, value: int) -> int:
    """How many cards of this value seat 0 has seen anywhere (R30)."""
    return sum(1 for c in range(52) if VALUE[c] == value and game.knows(0, c))


def _faceup_village(v0: list[int], first_seat_draws: list[int], v1=None, seats=2, options=None):
    """Seat 0 draws a Tanner and turns its village faceup; then it is seat 1's turn."""
    deck = stack([v0] + ([v1] if v1 else []), discard=EIGHTS[3], top=[FIVES[0]] + first_seat_draws)
    game = Game.start(seats, deck, first=0, options=options)
    game.peek_all()
    game.act(0, draw())
    game.act(0, {"type": "tanner", "end": "right"})
    return game


def test_r33_each_faceup_spotter_gives_one_search_and_skip_ends_them_all():
    v0 = [THREES[0], THREES[1], TENS[0], TENS[1], TWOS[0]]
    v1 = [TENS[2], SIXES[0], TENS[3], SIXES[1], TWELVES[0]]
    game = _faceup_village(v0, [FOURS[0], FOURS[1]], v1)
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, draw())                                    # a 4, for one faceup 10
    game.act(0, exchange(2, spotter=True))
    assert game.pending == "spotter" and game.view(None)["pending_detail"]["uses"] == 2
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 0})           # a 10: found, first search over
    assert game.top() == TENS[2]
    assert game.pending == "spotter" and game.view(None)["pending_detail"] == {
        "value": 10, "uses": 1, "target": None}
    game.act(0, {"type": "spot", "seat": 1})
    game.act(0, {"type": "look", "position": 0})           # a 6: no match, may go on
    game.act(0, {"type": "skip"})
    assert game.current == 1 and game.village(1)[1] == TENS[3]


def test_r34_underminer_pairs_spots_with_pile_cards_and_sends_village_cards_to_the_bottom():
    v1 = [SIXES[0], SEVENS[0], SIXES[1], SEVENS[1], TWELVES[0]]
    deck = stack([[], v1], discard=EIGHTS[0], top=[TWOS[0], THREES[0], ELEVENS[0]])
    game = Game.start(2, deck, first=0)
    game.peek_all((0, 1))
    game.act(0, draw())
    game.act(0, discard())                                  # pile: 8, 2
    game.act(1, draw())
    game.act(1, discard())                                  # pile: 8, 2, 3
    game.act(0, draw())
    game.act(0, discard())                                  # pile: 8, 2, 3, 11
    game.act(0, {"type": "undermine", "seat": 1, "position": 1})
    game.act(0, {"type": "undermine", "seat": 1, "position": 3})
    assert {"type": "undermine", "pile": 3} not in game.legal(0)   # not the Underminer itself
    game.act(0, {"type": "undermine", "pile": 2})           # the 3 into spot 1
    assert game.village(1)[1] == SEVENS[0]                  # nothing moved yet
    game.act(0, {"type": "undermine", "pile": 0})           # the 8 into spot 3
    assert game.village(1) == [SIXES[0], THREES[0], SIXES[1], EIGHTS[0], TWELVES[0]]
    assert game.pile() == [SEVENS[0], SEVENS[1], TWOS[0], ELEVENS[0]]
    assert not game.faceup(SEVENS[0]) and not game.faceup(SEVENS[1])   # orientation kept
    assert game.faceup(THREES[0]) and game.faceup(EIGHTS[0])
    assert game.view(None)["discard"][0]["id"] is None      # a facedown card stays secret


def test_r34_underminer_skip_cancels_before_anything_moves():
    deck = stack([[], []], discard=EIGHTS[0], top=[TWOS[0], THREES[0], ELEVENS[0]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    for seat in (0, 1):
        game.act(seat, draw())
        game.act(seat, discard())
    game.act(0, draw())
    game.act(0, discard())
    before = (game.village(1), game.pile())
    game.act(0, {"type": "undermine", "seat": 1, "position": 0})
    game.act(0, {"type": "undermine", "seat": 1, "position": 1})
    game.act(0, {"type": "undermine", "pile": 0})
    game.act(0, {"type": "skip"})
    assert (game.village(1), game.pile()) == before and game.current == 1


def test_r35_each_gambler_faceup_at_the_start_gives_one_guess():
    v0 = [FOURS[0], FOURS[1], TENS[0], TENS[1], TWELVES[0]]
    game = _faceup_village(v0, [TWOS[0], SIXES[0], SIXES[1]])
    game.act(1, draw())
    game.act(1, discard())                                  # a 2
    game.act(0, {"type": "gamble", "value": 6})             # right: the 6 goes to the pile
    assert game.pending == "gamble_win"
    game.act(0, {"type": "skip"})
    assert game.pending == "gamble_more"                     # a second faceup Gambler
    game.act(0, {"type": "gamble", "value": 6})              # right again
    game.act(0, {"type": "discard", "position": 0})          # the Gambler itself
    assert game.current == 1                                 # both Gamblers used: turn over


def test_r36_a_manual_simon_claim_stays_open_while_the_value_is_on_top():
    v1 = [TWOS[0], SEVENS[0], SEVENS[1], TENS[0], TWELVES[0]]
    deck = stack([[], v1], discard=EIGHTS[3], top=[SIXES[0], FIVES[0], SEVENS[2], THREES[0]])
    game = Game.start(2, deck, first=0, options={"simon": ["auto", "off"]})
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())                                   # a 6 Twister: skipped
    game.act(0, {"type": "skip"})
    game.act(1, draw())
    game.act(1, {"type": "tanner", "end": "left"})           # seat 1 all faceup, Simon at 1
    game.act(0, draw())
    game.act(0, discard())                                   # a 7 lands on top
    claims = [a for a in game.legal(1) if a["type"] == "simon"]
    assert claims == [{"type": "simon", "position": 2}, {"type": "simon", "position": 3}]
    assert game.view(None)["to_act"] == [0]                  # an open claim is not a turn
    game.act(0, {"type": "skip"})                            # the Ghost is declined
    game.act(1, draw())                                      # the pile is untouched: still open
    game.act(1, {"type": "simon", "position": 2})
    assert game.top() == SEVENS[0]
    assert [a for a in game.legal(1) if a["type"] == "simon"] == []   # one Simon, one claim


def test_r36_the_claim_window_closes_when_the_top_changes():
    v1 = [TWOS[0], SEVENS[0], SEVENS[1], TENS[0], TWELVES[0]]
    deck = stack([[], v1], discard=EIGHTS[3], top=[SIXES[0], FIVES[0], SEVENS[2], THREES[0]])
    game = Game.start(2, deck, first=0, options={"simon": ["auto", "off"]})
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "skip"})
    game.act(1, draw())
    game.act(1, {"type": "tanner", "end": "left"})
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "skip"})
    game.act(1, {"type": "take"})                            # takes the 7 itself
    assert [a for a in game.legal(1) if a["type"] == "simon"] == []


def test_r37_timeout_of_a_started_twister_turns_the_leftmost_cards_own_village_first():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0], discard=EIGHTS[0], top=[SIXES[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "twist", "seat": 1, "position": 4})
    assert E.default_action(game.state, 0) == {"type": "pass"}
    game.act(0, {"type": "pass"})
    assert [game.faceup(c) for c in game.village(0)] == [True, True, True, True, False]
    assert game.faceup(game.village(1)[4]) and game.current == 1


def test_r38_one_pass_settles_a_drawn_card_without_its_ability():
    game = Game.start(2, stack([], discard=EIGHTS[0], top=[SEVENS[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, {"type": "pass"})
    assert [e["type"] for e in events] == ["discard"]
    assert game.top() == SEVENS[0] and game.current == 1     # no Ghost offered


def test_r38_timeout_after_a_silver_eye_search_takes_the_top_card_then_discards_it():
    from tests.engine.test_knowledge import _open_eye_for_seat0
    round2 = stack([], discard=EIGHTS[0], top=[SIXES[0], TWOS[0]])
    game = _open_eye_for_seat0(round2)
    game.peek_all()
    game.act(0, {"type": "search"})
    events = game.act(0, {"type": "pass"})
    assert [e["type"] for e in events] == ["pick", "discard"]
    assert game.top() == SIXES[0] and game.current == 1


def test_r39_split_seer_looks_in_any_order_and_skip_stops():
    game = Game.start(2, stack([], discard=TWOS[0], top=[EIGHTS[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "see", "seat": 1, "position": 4})
    assert all(a["seat"] == 0 for a in game.legal(0) if a["type"] == "see")
    game.act(0, {"type": "skip"})
    assert game.current == 1


def test_r40_a_seat_with_one_facedown_card_peeks_at_it_and_with_none_owes_nothing():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0], discard=TWOS[0], top=[SIXES[0]]), first=1)
    game.act(1, {"type": "peek", "positions": [0, 1]})
    game.act(1, draw())
    game.act(1, discard())
    for pos in range(4):
        game.act(1, {"type": "twist", "seat": 0, "position": pos})
    assert game.legal(0) == [{"type": "peek", "positions": [4]}]
    game.act(1, {"type": "twist", "seat": 0, "position": 4})
    assert 0 not in game.view(None)["peeks_pending"]
    assert game.legal(0)[0]["type"] == "draw"


def test_r41_dracula_moves_the_cards_under_its_own_card_even_under_simon_discards():
    v1 = [TWOS[0], TENS[0], TENS[1], THREES[0], TWELVES[0]]
    deck = stack([[], v1], discard=EIGHTS[0], top=[SIXES[0], FIVES[0], TENS[2]])
    game = Game.start(2, deck, first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "skip"})                           # pile: 8, 6
    game.act(1, draw())
    game.act(1, {"type": "tanner", "end": "left"})          # seat 1: Simon and two 10s faceup
    game.act(0, draw())
    game.act(0, discard())                                  # the Dracula; Simon adds one 10
    assert game.pile() == [EIGHTS[0], SIXES[0], TENS[2], TENS[0]]
    game.act(0, {"type": "dracula"})
    assert game.pile() == [TENS[2], TENS[0]]
    assert game.deck()[-2:] == [SIXES[0], EIGHTS[0]]


def test_r42_a_wrong_guess_whose_flip_went_to_the_pile_adds_the_next_deck_card_unseen():
    v0 = [FOURS[0], TENS[0], TENS[1], ELEVENS[0], TWELVES[0]]
    game = _faceup_village(v0, [TWOS[0], SIXES[0], SEVENS[0]])
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, {"type": "gamble", "value": 12, "end": "left"})
    assert game.top() == SIXES[0]
    assert game.village(0)[0] == SEVENS[0] and not game.faceup(SEVENS[0])
    assert not game.knows(0, SEVENS[0]) and not game.knows(None, SEVENS[0])


def test_r43_memory_option_forgets_known_facedown_cards_at_the_seats_next_action():
    v0 = [TENS[0], TENS[1], ELEVENS[0], ELEVENS[1], TWELVES[0]]
    game = Game.start(2, stack([v0], discard=TWOS[0], top=[SIXES[1], THREES[0]]), first=0,
                      options={"memory": True})
    game.act(0, {"type": "peek", "positions": [0, 1]})
    assert game.knows(0, TENS[0])
    game.act(0, draw())
    assert not game.knows(0, TENS[0])                        # forgotten at the next action
    assert game.knows(0, SIXES[1])                           # but not the card in hand
    game.act(0, exchange(1, 2))                              # fails: shown to everyone
    assert game.knows(0, ELEVENS[0]) and game.knows(None, ELEVENS[0])
    game.act(1, {"type": "peek", "positions": [0, 1]})
    game.act(1, draw())
    game.act(1, discard())
    game.act(0, draw())
    assert not game.knows(0, ELEVENS[0]) and game.knows(None, ELEVENS[0])


def test_r44_a_failed_exchange_puts_the_penalty_card_outside_the_new_card():
    v0 = [TENS[0], ELEVENS[0], TWELVES[0], EIGHTS[0], SEVENS[0]]
    game = Game.start(2, stack([v0], discard=TWOS[0], top=[SIXES[0], THREES[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    game.act(0, exchange(0, 1, 2, end="left"))
    assert game.village(0) == [THREES[0], SIXES[0]] + v0
    assert not any(game.faceup(c) for c in game.village(0))


def test_r43_memory_keeps_a_split_seers_looks_until_the_seats_next_turn():
    game = Game.start(2, stack([], discard=TWOS[0], top=[EIGHTS[0], THREES[0], THREES[1]]),
                      first=0, options={"memory": True})
    game.peek_all()
    game.act(0, draw())
    game.act(0, discard())
    game.act(0, {"type": "see", "seat": 1, "position": 4})
    first_look = game.village(1)[4]
    game.act(0, {"type": "see", "seat": 0, "position": 4})
    assert game.knows(0, first_look) and game.knows(0, game.village(0)[4])
    game.act(1, draw())
    game.act(1, discard())
    assert game.knows(0, first_look)              # still seat 1's turn: remembered
    game.act(0, draw())
    assert not game.knows(0, first_look)          # a new turn of seat 0: forgotten


def test_r46_a_non_matching_set_with_an_obsessor_puts_nothing_on_the_pile():
    v0 = [34, TENS[0], TENS[1], ELEVENS[0], TWELVES[0]]      # the Even Obsessor and a 10
    game = Game.start(2, stack([v0], discard=TWOS[0], top=[SIXES[0], THREES[0]]), first=0)
    game.peek_all()
    game.act(0, draw())
    events = game.act(0, exchange(1, 0))
    assert events[0]["type"] == "exchange_failed" and events[0]["reason"] == "mismatch"
    assert game.pile() == [TWOS[0]]


def _simon_off_caller_sees_a_matching_card_on_the_last_step(rules: int | None = None) -> Game:
    """Seat 1 (Simon `off`) holds [Simon, 5, 6, Gambler] with Simon and the Gambler faceup
    and has called; on the round's last turn seat 0 draws a Gambler and discards it."""
    v1 = [EIGHTS[0], EIGHTS[1], FIVES[1], SIXES[1], SEVENS[0]]
    top = [FOURS[0], THREES[0], FOURS[1]]
    game = Game.start(2, stack([[], v1], discard=TWOS[0], top=top), first=1,
                      options={"simon": ["auto", "off"]}, rules=rules)
    game.peek_all()                               # seat 1 knows its two 8s
    game.act(1, take())                           # the Simon, faceup (R9)
    game.act(1, exchange(0, 1))                   # for the two 8s
    game.act(0, draw())
    game.act(0, discard())                        # a Gambler
    game.act(1, take())
    game.act(1, exchange(3))                      # the Gambler, faceup, for the 7
    game.act(0, draw())
    game.act(0, discard())
    game.act(1, {"type": "call"})
    assert [VALUE[c] for c in game.village(1)] == [2, 5, 6, 4]
    game.act(0, draw())
    game.act(0, discard())                        # the last step of the round: a Gambler on top
    return game


def test_r47_a_simon_claim_open_at_the_round_end_is_offered_before_scoring():
    game = _simon_off_caller_sees_a_matching_card_on_the_last_step()
    view = game.view(None)
    assert view["phase"] == "play" and view["round_scores"] == []
    assert view["to_act"] == [1] and view["pending"] == "simon_claims"
    assert game.legal(1) == [{"type": "simon", "position": 3}, {"type": "skip"}]
    assert game.legal(0) == []
    game.illegal(0, draw())
    events = game.act(1, {"type": "simon", "position": 3})
    assert game.types(events)[:3] == ["simon", "round_end", "round_scored"]
    assert events[0]["card"] == {"id": FOURS[0], "value": 4}        # the Gambler goes
    assert [c["value"] for c in events[1]["villages"][1]] == [2, 5, 6]
    assert events[2]["sums"][1] == 2 + 5 + 6 and events[2]["scores"][1] == 0   # lowest: 0


def test_r47_the_round_end_claim_has_its_own_timeout():
    game = _simon_off_caller_sees_a_matching_card_on_the_last_step()
    assert E.default_action(game.state, 1) == {"type": "pass"}
    assert E.default_action(game.state, 0) is None
    events = game.act(1, {"type": "pass"})        # R29/R38: one row declines the claim
    assert events[0] == {**events[0], "type": "skip", "what": "simon_claim", "timeout": True}
    scored = [e for e in events if e["type"] == "round_scored"][0]
    assert scored["sums"][1] == 2 + 5 + 6 + 4


def test_r47_games_of_rules_version_1_keep_scoring_at_once():
    game = _simon_off_caller_sees_a_matching_card_on_the_last_step(rules=1)
    scored = [e for e in game.events if e["type"] == "round_scored"]
    assert scored and scored[0]["sums"][1] == 2 + 5 + 6 + 4     # the claim never opened
    assert game.state.rules == 1


def test_r47_the_greedy_bot_makes_its_round_end_simon_discard():
    game = _simon_off_caller_sees_a_matching_card_on_the_last_step()
    assert bots.greedy_bot(game.state, 1, random.Random(1)) == {"type": "simon", "position": 3}
