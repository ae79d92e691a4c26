"""The golden corpus (issue 10): frozen logs replay exactly as they were recorded.

Every file in tests/golden/games/ is a complete game log made once by
make_corpus.py under the rules version it names. Replaying it must give the same
phase, step count, round scores, totals and a hash of every seat's final view. A
change that alters any of them must bump `engine.RULES_VERSION` and keep the old
behaviour for old logs; regenerating the corpus is not the fix.
"""
from __future__ import annotations

import pytest

from app import engine as E
from app.engine import scoring, turns
from app.engine.cards import VALUE
from tests.golden.corpus import check, corpus, event_kinds, load, replay
from tests.golden.make_corpus import ABILITY_EVENTS

RECORDS = [load(path) for path in corpus()]


@pytest.mark.parametrize("record", RECORDS, ids=[r["name"] for r in RECORDS])
def test_a_golden_game_replays_exactly_as_recorded(record):
    assert record["rules"] in E.SUPPORTED_RULES
    assert check(record) == []


def test_every_supported_rules_version_has_its_corpus():
    assert {r["rules"] for r in RECORDS} == set(E.SUPPORTED_RULES)


@pytest.mark.parametrize("rules", E.SUPPORTED_RULES)
def test_each_corpus_covers_seats_options_timeouts_an_abandoned_game_and_every_ability(rules):
    records = [r for r in RECORDS if r["rules"] == rules]
    assert {r["seats"] for r in records} == {2, 3, 4}
    assert any(r["options"].get("memory") for r in records)
    assert any("off" in (r["options"].get("simon") or ()) for r in records)
    assert any(a["type"] == "pass" for r in records for _, a in r["actions"])
    assert any(r["abandoned"] and r["phase"] != "over" for r in records)
    assert all(r["phase"] == "over" for r in records if not r["abandoned"])
    kinds = set()
    for r in records:
        kinds |= event_kinds(replay(r), r["actions"], r["seats"], r["seed"], r["options"])
    assert ABILITY_EVENTS <= kinds
    # every card value was in a village when a round was turned up
    assert set(VALUE) <= {c["value"] for r in records for e in _events(r)
                          for v in e.get("villages", ()) for c in v}
    if rules >= 2:
        assert "simon_round_end" in kinds        # R47 at work


def test_a_rules_2_log_replayed_under_rules_1_is_caught():
    """The version switch matters: the R47 game does not replay under the old rules."""
    record = next(r for r in RECORDS if r["name"] == "simon_round_end")
    assert check(record) == []
    assert check({**record, "rules": 1}) != []


def _events(record):
    st = E.new_game(record["seats"], record["seed"], options=record["options"],
                    rules=record["rules"])
    for seat, action in record["actions"]:
        st, events = E.apply_action(st, seat, action)
        yield from events


def test_a_deliberately_changed_score_is_caught(monkeypatch):
    real = scoring.card_points

    def bombers_score_one_more(st, card):      # a "fix" nobody versioned
        return real(st, card) + (VALUE[card] == 13)
    monkeypatch.setattr(scoring, "card_points", bombers_score_one_more)
    problems = [p for r in RECORDS for p in check(r)]
    assert any(": totals was " in p for p in problems)
    assert any(": views was " in p for p in problems)


def test_a_deliberately_changed_legality_is_caught(monkeypatch):
    monkeypatch.setattr(turns, "MAX_CALL_SIZE", 3)   # calls only with three cards or fewer
    problems = [p for r in RECORDS for p in check(r)]
    assert any("a logged action is refused under rules 1" in p for p in problems)
