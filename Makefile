# Two set-up commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test test-lowest lint bench install docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the demo scores MaxOntSim (hpo extra), draws the comparison plots (plots extra) and writes
# the HTML reports (html extra)
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[hpo,plots,html]'
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# the rbo package, tests' reference for RBO, pins numpy < 2 although its code runs on
	# numpy 2 (it calls np.isclose only): installed without its pins
	$(BIN)/python -m pip install --quiet --no-deps 'rbo==0.1.3'
	touch $@ $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	bash scripts/demo.sh

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q

# the command-level tests (every docs example on the bundled data, the trec_eval suites)
# on the lowest versions pyproject.toml allows, in a venv of their own
LOWEST := .venv-lowest
$(LOWEST)/.installed: pyproject.toml .ci/lowest-versions.txt
	$(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST)/bin/python -m pip install --quiet -r .ci/lowest-versions.txt 'pytest>=7.4' 'hypothesis>=6.100'
	$(LOWEST)/bin/python -m pip install --quiet --no-deps -e .
	touch $@

test-lowest: $(LOWEST)/.installed
	$(LOWEST)/bin/python -m pytest -q -p no:cacheprovider tests/test_trec_eval_fixtures.py \
	    tests/test_score_suite.py tests/test_readme.py -k "not scale.md"

lint: $(TEST_STAMP)
	$(BIN)/ruff check trecbench tests benchmarks scripts

docs: $(TEST_STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

bench: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)
	$(BIN)/python -m benchmarks.plots

clean:
	rm -rf $(VENV) $(LOWEST) out bench-results site
