"""What an ended game says about each stretch at a seat (issue 47, R54): pure, no store.

Deal nothing: the outcome reads only the log's rows, the tenures and the final order."""
from __future__ import annotations

from app.standing import outcome as oc
from app.standing.record import NEW, RELIABLE, UNRELIABLE, Record, summed

ANN, BOB, CID, DEE = "ann@example.com", "bob@example.com", "cid@example.com", "dee@example.com"


def moves(seat: int, count: int, *, start: int = 1, source: str = "player") -> list[oc.Logged]:
    return [oc.Logged(start + n, seat, "draw", source) for n in range(count)]


def stretches(*addresses: str) -> list[oc.Stretch]:
    return [oc.Stretch(seat, 0, None, address, address[:3].title())
            for seat, address in enumerate(addresses)]


def test_R54_places_follow_R28_and_ties_below_the_winner_share_a_place():
    # totals 10, 10, 20, 20: seat 0 won the tie for first (R28's eye), 2 and 3 are equal
    final = oc.Final(over=True, order=(0, 1, 2, 3), totals=(10, 10, 20, 20))
    assert oc.places(final) == {0: 1, 1: 2, 2: 3, 3: 3}


def test_R54_resigned_seats_rank_last_in_R48s_order_whatever_their_totals():
    # seat 3 resigned first, then seat 1: ranking puts the last to resign higher
    final = oc.Final(over=True, order=(0, 2, 1, 3), totals=(30, 1, 40, 1), resigned=(3, 1))
    assert oc.places(final) == {0: 1, 2: 2, 1: 3, 3: 4}


def test_each_stretch_gets_its_outcome_and_a_clock_only_seat_counts_for_nobody():
    log = (moves(0, 5) + moves(1, 3, start=10) + moves(1, 2, start=20, source="timeout")
           + [oc.Logged(30, 1, "away", "system")] + moves(2, 4, start=40)
           + [oc.Logged(50, 2, "resign", "player")]
           + moves(3, 6, start=60, source="timeout"))
    final = oc.Final(over=True, order=(0, 1, 3, 2), totals=(5, 9, 12, 3), resigned=(2,))
    found = oc.outcomes(stretches(ANN, BOB, CID, DEE), log, final, humans=[0, 1, 2, 3])
    assert [(o.address, o.outcome, o.own_moves, o.clock_moves, o.place) for o in found] == [
        (ANN, oc.FINISHED, 5, 0, 1),
        (BOB, oc.TIMED_OUT, 3, 2, 2),  # away (R29) to the end
        (CID, oc.RESIGNED, 4, 0, 4),   # R48: last
    ]  # Dee never moved herself: unknown, not unreliable


def test_a_handed_over_stretch_is_the_abandoned_mark_and_the_newcomer_takes_the_place():
    held = [oc.Stretch(0, 0, None, ANN, "Ann"), oc.Stretch(1, 0, 20, BOB, "Bob"),
            oc.Stretch(1, 20, None, CID, "Cid")]
    log = (moves(0, 8) + moves(1, 4, start=10) + [oc.Logged(18, 1, "away", "system"),
                                                  oc.Logged(21, 1, "take_over", "system")]
           + moves(1, 3, start=30))
    final = oc.Final(over=True, order=(1, 0), totals=(20, 10))
    found = oc.outcomes(held, log, final, humans=[0, 1])
    assert [(o.address, o.outcome, o.place) for o in found] == [
        (ANN, oc.FINISHED, 2), (BOB, oc.HANDED_OVER, None), (CID, oc.FINISHED, 1)]


def test_a_bot_seat_counts_for_nobody():
    found = oc.outcomes(stretches(ANN, ""), moves(0, 3) + moves(1, 3, start=10),
                        oc.Final(over=True, order=(0, 1), totals=(1, 2)), humans=[0])
    assert [o.address for o in found] == [ANN]
    assert not oc.counts_for_rating(found)


def test_reliability_in_words_a_new_person_is_new_never_unreliable():
    two_left = summed([("handed_over", 3, 1), ("timed_out", 5, 4)], ended=2)
    assert two_left.tier == NEW
    assert "unreliable" not in two_left.words() and two_left.words().startswith("New here")


def test_reliability_at_most_one_left_of_ten_is_reliable_two_is_not():
    nine = summed([("finished", 20, 0)] * 9 + [("resigned", 4, 2)], ended=14)
    assert nine.tier == RELIABLE
    assert nine.words() == ("Finished 9 of their last 10 games; "
                            "the clock played 2 of their 186 moves.")
    two = summed([("finished", 20, 0)] * 8 + [("handed_over", 4, 3)] * 2, ended=10)
    assert two.tier == UNRELIABLE and two.short() == "left 2 of their last 10 games"
    assert Record().words("you") == "New here: none of your games has ended yet."
