# The two commands of README.md. Both set up .venv from scratch when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CLUSTER_STAMP := $(VENV)/.installed-cluster
PEERS_STAMP := $(VENV)/.installed-peers
CORES ?= all

.PHONY: test test-peers test-cluster test-report reproduce lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check privest privest_studies scripts tests benchmarks examples workflow/profiles
	$(BIN)/snakefmt --check Snakefile workflow/rules

test: $(STAMP) lint
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q --ignore=tests/cluster --ignore=tests/report --ignore=tests/peers

# Conformance with the peer libraries multi-freq-ldpy and pure-LDP (tests/peers, README "Conformance with the peer
# libraries"): the `peers` extra, then the same reports' distributions, estimates and IBU against privest.protocols.
# .ci/run calls it after `make test`.
$(PEERS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,peers]'
	touch $(PEERS_STAMP)

test-peers: $(PEERS_STAMP)
	$(BIN)/python -m pytest -q tests/peers

# The pipeline on a real one-node SLURM cluster (tests/cluster, README "Running on a cluster"): the SLURM executor
# plugin (the `cluster` extra), then slurm-wlm and munge from apt (root; skipped, with the reason, where apt cannot
# install them), then the quick spine through sbatch against a local run. .ci/run calls it after `make test`.
$(CLUSTER_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(CLUSTER_STAMP)

test-cluster: $(CLUSTER_STAMP)
	tests/cluster/setup.sh $(VENV)/cluster-setup.txt
	PATH="$(abspath $(BIN)):$$PATH:/usr/sbin:/sbin" PRIVEST_CLUSTER_SETUP="$(abspath $(VENV))/cluster-setup.txt" \
		$(BIN)/python -m pytest -q -s -rs tests/cluster

# The whole pipeline (exactly what a bare `snakemake --cores all` at the root runs: no profile is needed locally), then
# the HTML report, then the one-screen summary of results/REPRODUCTION.md.
reproduce: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores 1 --report results/report.html
	@cat results/reproduction_summary.txt

# After `make reproduce`: results/report.html in headless Chromium (tests/report: apt installs chromium when it is
# missing and it can; otherwise the test skips with the reason). .ci/run calls it.
test-report: $(STAMP)
	tests/report/setup.sh $(VENV)/report-setup.txt
	PATH="$(abspath $(BIN)):$$PATH" PRIVEST_REPORT_SETUP="$(abspath $(VENV))/report-setup.txt" \
		$(BIN)/python -m pytest -q -rs tests/report

clean:
	rm -rf results logs benchmarks/*/ .snakemake
