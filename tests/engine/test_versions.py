"""Rules versions (issue 10): a game is played and replayed under the rules it was
created with; the engine's modules form no import cycle (issue 8)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app import engine as E
from app.engine import versions

ENGINE = Path(E.__file__).parent
RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_new_games_get_the_newest_rules_and_old_versions_stay_playable():
    assert E.RULES_VERSION == max(E.SUPPORTED_RULES)
    assert E.new_game(2, 1).rules == E.RULES_VERSION
    for rules in E.SUPPORTED_RULES:
        st = E.new_game(3, 7, rules=rules)
        assert st.rules == rules
        assert E.replay(3, 7, [], rules=rules) == st


@pytest.mark.parametrize("rules", [0, 99, "2", True, 1.0])
def test_a_rules_version_the_engine_cannot_replay_is_refused(rules):
    with pytest.raises(ValueError, match="not supported"):
        E.new_game(2, 1, rules=rules)


def test_docs_list_every_rules_version_and_what_it_changed():
    table = re.findall(r"^\| (\d+) \|", RULES_MD.read_text(), flags=re.M)
    assert [int(v) for v in table] == list(E.SUPPORTED_RULES)
    assert set(versions.RULES_CHANGES) == set(E.SUPPORTED_RULES)


def test_the_engine_version_names_the_rules_and_the_code():
    assert E.ENGINE_VERSION.startswith(f"{E.RULES_VERSION}-")
    assert E.ENGINE_VERSION == versions._engine_version()


def test_engine_modules_import_each_other_without_a_cycle():
    graph = {}
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text())
        graph[path.stem] = {node.module for node in ast.walk(tree)
                            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}
    done, path_ = set(), []

    def visit(mod):
        assert mod not in path_, "import cycle: " + " -> ".join(path_ + [mod])
        if mod in done:
            return
        path_.append(mod)
        for dep in graph.get(mod, ()):
            visit(dep)
        path_.pop()
        done.add(mod)
    for mod in graph:
        visit(mod)
