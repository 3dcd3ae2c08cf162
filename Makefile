# Two set-up commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test lint bench install docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the demo scores MaxOntSim (hpo extra) and draws the comparison plots (plots extra)
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[hpo,plots]'
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

lint: $(TEST_STAMP)
	$(BIN)/ruff check trecbench tests benchmarks scripts

docs: $(TEST_STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

bench: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)
	$(BIN)/python -m benchmarks.plots

clean:
	rm -rf $(VENV) out bench-results site
