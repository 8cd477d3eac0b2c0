# Two entry points (see README): `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 3000
# `make serve`: the port of its gRPC code server (on 127.0.0.1).
GRPC_PORT ?= 4266
# Pool limits `make run` sets on its instance: model calls and world-DB queries in flight.
MODEL_CALLS ?= 4
DB_QUERIES ?= 2
export DAGSTER_HOME ?= $(CURDIR)/.dagster-home

.PHONY: install run serve demo test test-fast lint typecheck bench clean

$(BIN)/python:
	@echo "make: creating $(VENV) and upgrading pip"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs once; again only when pyproject.toml or constraints.txt change. pip's own lines
# (Collecting/Downloading, with progress bars on a terminal) show it working: a fresh install
# takes about two minutes.
$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	@echo "make: installing the project and its pinned dependencies into $(VENV) (about 2 min)"
	$(BIN)/pip install --progress-bar on -c constraints.txt -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# Fresh machine -> UI on http://127.0.0.1:3000 with the sample cases as partitions.
# Fails at once when HOST:PORT is taken (the webserver would die and leave the daemon running).
# $(DAGSTER_HOME)/dagster.yaml comes from deploy/dagster.local.yaml (queued runs, one run per
# revision, pools) unless it exists; the one earlier releases wrote is replaced.
# `dg dev` runs under vba_assets/defs/dev_server.py: SIGTERM (`kill <pid of make>`, which make
# forwards) or SIGINT (Ctrl-C, or to the process group) stops it and every process it started
# within about 6 s, also when a script started `make run &` (which ignores SIGINT in the job).
OLD_INSTANCE_YAML := telemetry:\n  enabled: false\nnux:\n  enabled: false
define check_port
	@$(BIN)/python -c "import socket, sys; s = socket.socket(); \
	  s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((sys.argv[1], int(sys.argv[2])))" \
	  $(1) $(2) 2>/dev/null || { echo "make $@: $(1):$(2) is taken (another Dagster \
	UI?); stop it or choose another port: $(3)=... make $@" >&2; exit 1; }
endef
define prepare_instance
	mkdir -p $(DAGSTER_HOME)
	@if [ ! -f $(DAGSTER_HOME)/dagster.yaml ] || \
	  [ "$$(cat $(DAGSTER_HOME)/dagster.yaml)" = "$$(printf '$(OLD_INSTANCE_YAML)')" ]; then \
	  cp deploy/dagster.local.yaml $(DAGSTER_HOME)/dagster.yaml; \
	  echo "make: $(DAGSTER_HOME)/dagster.yaml <- deploy/dagster.local.yaml"; fi
	$(BIN)/dagster instance concurrency set vba_model_calls $(MODEL_CALLS)
	$(BIN)/dagster instance concurrency set vba_world_db $(DB_QUERIES)
endef
run: demo
	$(call check_port,$(HOST),$(PORT),PORT)
	$(prepare_instance)
	exec $(BIN)/python -m vba_assets.defs.dev_server -- $(BIN)/dg dev --host $(HOST) --port $(PORT)

# The deployment's shape on one machine: one `dagster code-server start` on 127.0.0.1:$(GRPC_PORT)
# shared by `dagster-webserver` (UI on HOST:PORT) and `dagster-daemon` through the workspace file
# $(DAGSTER_HOME)/workspace.grpc.yaml (a grpc_server entry); a code server that exits is started
# again (vba_assets/defs/serve.py). With deploy/dagster.yaml in $(DAGSTER_HOME) (PostgreSQL,
# run_retries: README "Going beyond one machine") it is what tests/dagster/test_postgres_stress.py
# runs. Stops like `make run`: SIGTERM or SIGINT end every service within about 7 s.
serve: demo
	$(call check_port,$(HOST),$(PORT),PORT)
	$(call check_port,127.0.0.1,$(GRPC_PORT),GRPC_PORT)
	$(prepare_instance)
	exec $(BIN)/python -m vba_assets.defs.serve --host $(HOST) --port $(PORT) --grpc-port $(GRPC_PORT)

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

# About 11 minutes on 2 CPUs; each script prints JSON (see bench/README.md).
bench: install
	$(BIN)/python bench/lookup.py
	$(BIN)/python bench/controller.py
	$(BIN)/python bench/eval_speed.py
	$(BIN)/python bench/dagster_overhead.py
	$(BIN)/python bench/batch.py

clean:
	rm -rf $(VENV) .dagster-home vba-workspace .pytest_cache .mypy_cache .ruff_cache .cache
