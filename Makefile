# Two entry points (see README): `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 3000
export DAGSTER_HOME ?= $(CURDIR)/.dagster-home

.PHONY: install run demo test test-fast lint typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs once; again only when pyproject.toml or constraints.txt change.
$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# Fresh machine -> UI on http://127.0.0.1:3000 with the sample cases as partitions.
run: demo
	mkdir -p $(DAGSTER_HOME)
	test -f $(DAGSTER_HOME)/dagster.yaml || \
	  printf 'telemetry:\n  enabled: false\nnux:\n  enabled: false\n' > $(DAGSTER_HOME)/dagster.yaml
	$(BIN)/dagster dev -h $(HOST) -p $(PORT) -w workspace.yaml

demo: install
	$(BIN)/vba worlddb
	$(BIN)/vba demo

# pytest exits 5 when it collected nothing: that is a failure here, never a silent pass.
test: install lint typecheck
	$(BIN)/pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# Everything but the browser and the slow suites, for a quick local loop.
test-fast: install
	$(BIN)/pytest -q -m "not e2e and not slow"

lint: install
	$(BIN)/ruff check vba_assets resources tests bench scripts
	$(BIN)/ruff format --check vba_assets resources tests bench scripts
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

# About 7 minutes on 2 CPUs; each script prints JSON (see bench/README.md).
bench: install
	$(BIN)/python bench/lookup.py
	$(BIN)/python bench/controller.py
	$(BIN)/python bench/dagster_overhead.py
	$(BIN)/python bench/batch.py

clean:
	rm -rf $(VENV) .dagster-home vba-workspace .pytest_cache .mypy_cache .ruff_cache .cache
