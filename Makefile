# Two entry points for a fresh machine: `make demo` and `make test`.
# Both create .venv with Python 3.11 (override with PYTHON=...) and install the project into it.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/alc-dask demo

test: $(BIN)/.installed
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
