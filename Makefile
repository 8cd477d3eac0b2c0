# Two entry points (see README): `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 3000
export DAGSTER_HOME ?= $(CURDIR)/.dagster-home

.PHONY: install run demo test lint typecheck check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"

# Fresh machine -> UI on http://127.0.0.1:3000 with the sample cases as partitions.
run: install demo
	mkdir -p $(DAGSTER_HOME)
	$(BIN)/dagster dev -h $(HOST) -p $(PORT) -w workspace.yaml

demo: install
	$(BIN)/vba worlddb
	$(BIN)/vba demo

# pytest exits 5 when it collected nothing: that is a failure here, never a silent pass.
test: install lint typecheck
	$(BIN)/pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

lint:
	$(BIN)/ruff check vba_assets resources tests bench scripts
	$(BIN)/ruff format --check vba_assets resources tests bench scripts

typecheck:
	$(BIN)/mypy

bench: install
	$(BIN)/python bench/lookup.py

clean:
	rm -rf $(VENV) .dagster-home vba-workspace .pytest_cache .mypy_cache .ruff_cache
