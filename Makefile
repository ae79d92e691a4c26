# Two commands matter: `make run` and `make test` (see README.md).
PY      ?= python3.11
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: run test test-pg test-e2e bench setup migrate clean

$(BIN)/python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) on PATH"; exit 1; }
	$(PY) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

migrate: setup
	$(BIN)/flask --app app db-upgrade

run: migrate
	$(BIN)/python -m app.run_all

# one run on both cores (pytest-xdist): every test gets a store of its own (a SQLite
# file, or a PostgreSQL schema: tests/conftest.py) and the ports it listens on are free
# ones, so tests of any folder may run side by side (`make test XDIST=` runs them in one process)
XDIST ?= -n 2

# the type checker first (pyproject.toml [tool.mypy], over app/): seconds, and a wrong
# type stops the run before the tests
test: setup
	$(BIN)/mypy
	$(BIN)/python -m pytest -q $(XDIST) -m "not postgres and not e2e"

test-pg: setup
	TEST_DATABASE_URL=$${TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test} \
	  $(BIN)/python -m pytest -q $(XDIST) -m "not e2e" --ignore=tests/engine

# axe-core (the accessibility check) comes from npm into tests/e2e/node_modules (git-ignored)
AXE := tests/e2e/node_modules/axe-core/axe.min.js

$(AXE): tests/e2e/package.json
	npm install --prefix tests/e2e --no-audit --no-fund --no-save --silent
	touch $(AXE)

test-e2e: setup $(AXE)
	$(BIN)/python -m pytest -q -m e2e

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache
