# Two entry points for a fresh machine: `make demo` and `make test` (lint, format check, the default
# suite, then the cases marked long or timing in a step of their own).
# Both create .venv with Python 3.11 (override with PYTHON=...) and install the project into it.
# `make bench` runs the benchmark that needs nothing beyond the project (best_prc against a
# quadratic scan; BENCH_ARGS="--sizes 1000 10000" for a quick run). The other benchmarks read
# ../shared or build peer environments: see the README. `make columns` rewrites the README's lists of
# result columns from the schemas (a test fails when they differ).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
BENCH_ARGS ?=

.PHONY: demo test bench columns schema clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/alc-dask demo

test: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest
	$(BIN)/python -m pytest -m "long or timing"

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/bench_best_prc.py $(BENCH_ARGS)

columns: $(BIN)/.installed
	$(BIN)/python -m alc_dask.results.columns README.md

schema: $(BIN)/.installed
	$(BIN)/python -c 'import json; from alc_dask.report.verdict import schema; print(json.dumps(schema(), indent=1))' > alc_dask/report/verdict.schema.json

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
