# The two commands of README.md. Both set up .venv from scratch when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORES ?= all

.PHONY: test reproduce lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check privest scripts tests benchmarks

test: $(STAMP) lint
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q

reproduce: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) --profile workflow/profiles/default

clean:
	rm -rf results logs benchmarks/*/ .snakemake
