# Two commands matter: `make run` and `make test` (see README.md).
PY      ?= python3.11
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: run test test-slow test-sqlite test-pg test-e2e test-all coverage bench setup migrate clean translations

$(BIN)/python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) on PATH"; exit 1; }
	$(PY) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

# the compiled catalogues (issue 50): built from the PO files under translations/ at
# setup, never committed
LANGS := de ja
MO    := $(foreach l,$(LANGS),translations/$(l)/LC_MESSAGES/messages.mo)
translations/%/LC_MESSAGES/messages.mo: translations/%/LC_MESSAGES/messages.po $(STAMP)
	$(BIN)/pybabel -q compile -d translations -l $*

setup: $(STAMP) $(MO)

# extract every marked message (app/, templates/), merge it into each language's PO
# file, compile: run after marking or changing an English message, then translate what
# tests/i18n/test_catalogues.py says is missing
translations: $(STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg -k lazy_gettext -k _ -k N_ --no-wrap --sort-by-file \
	  --project "Silver Eye Post" --copyright-holder "Silver Eye Post" -o translations/messages.pot .
	for l in $(LANGS); do \
	  if [ -f translations/$$l/LC_MESSAGES/messages.po ]; then \
	    $(BIN)/pybabel -q update --no-wrap --no-fuzzy-matching -i translations/messages.pot -d translations -l $$l; \
	  else $(BIN)/pybabel -q init --no-wrap -i translations/messages.pot -d translations -l $$l; fi; \
	done
	$(BIN)/pybabel -q compile -d translations

migrate: setup
	$(BIN)/flask --app app db-upgrade

run: migrate
	$(BIN)/python -m app.run_all

# one run on both cores (pytest-xdist): every test gets a store of its own (a SQLite
# file, or a PostgreSQL schema: tests/conftest.py) and the ports it listens on are free
# ones, so tests of any folder may run side by side (`make test XDIST=` runs them in one process)
XDIST ?= -n 2
PYTEST := $(BIN)/python -m pytest -q $(XDIST)
PG_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test

# The suites (issue 31; README "Tests" says what each runs and how long it takes):
#   quick   every kind of test (engine, web, mail, clock, inbound, people) but what is
#           slow by nature: `make test`
#   slow    whole games over real SMTP or HTTP, self-play of thousands of games, real
#           processes started and killed (@pytest.mark.slow): the rest of the SQLite suite
#   pg      the store-touching tests on PostgreSQL (tests/conftest.py leaves the others out)
#   e2e     the browser
QUICK := -m "not slow and not postgres and not e2e"
SLOW  := -m "slow and not postgres and not e2e"

# the type checker first (pyproject.toml [tool.mypy], over app/): seconds, and a wrong
# type stops the run before the tests; the same run holds the packages of its strict
# override (talk, access, clock, channels) to `mypy --strict`. The quick set runs a
# move's PostgreSQL write path too when a server answers at QUICK_PG_URL
# (tests/web/test_move_writes_postgres.py)
test: setup
	$(BIN)/mypy
	$(PYTEST) $(QUICK)

test-slow: setup
	$(PYTEST) $(SLOW)

# the whole SQLite suite, slow tests included, in one run
test-sqlite: setup
	$(PYTEST) -m "not postgres and not e2e"

test-pg: setup
	TEST_DATABASE_URL=$${TEST_DATABASE_URL:-$(PG_URL)} $(PYTEST) -m "not e2e"

# everything: mypy and the quick set, the slow SQLite tests, PostgreSQL, the browser
# (make -k test-all goes on past a failing suite)
test-all: test test-slow test-pg test-e2e

# line coverage of app/ by the quick set and by the whole SQLite suite (quick + slow
# combined: each test runs once). Fails when the quick set is more than 3 points below.
COVERAGE := $(BIN)/coverage
coverage: setup
	rm -f .coverage .coverage.*
	COVERAGE_FILE=.coverage.quick $(PYTEST) --cov=app --cov-report= $(QUICK)
	COVERAGE_FILE=.coverage.slow $(PYTEST) --cov=app --cov-report= $(SLOW)
	$(COVERAGE) combine --keep --data-file=.coverage.full .coverage.quick .coverage.slow >/dev/null
	@quick=$$($(COVERAGE) report --data-file=.coverage.quick --format=total --precision=1); \
	 full=$$($(COVERAGE) report --data-file=.coverage.full --format=total --precision=1); \
	 echo "line coverage of app/: quick set (make test) $$quick%, full SQLite suite $$full%"; \
	 awk -v q=$$quick -v f=$$full 'BEGIN { if (f - q > 3) { print "the quick set is more than 3 points below the full suite"; exit 1 } }'

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
	rm -rf $(VENV) .pytest_cache .coverage .coverage.* htmlcov
