# The two commands of README.md. Both set up .venv from scratch when it is missing or the lock changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CLUSTER_STAMP := $(VENV)/.installed-cluster
PEERS_STAMP := $(VENV)/.installed-peers
DOCS_STAMP := $(VENV)/.installed-docs
CORES ?= all
# The lock (docs/site/guide/environment.md): requirements/<set>.txt, exact versions with every file's hash, one
# universal resolution (requirements/all.txt: every extra) that each install set is constrained to.
LOCK := requirements
UV_VERSION := 0.13.9
UV := $(VENV)/lock-tools/bin/uv
UV_COMPILE := UV_PYTHON_DOWNLOADS=never $(UV) pip compile --quiet --universal --fork-strategy fewest \
	--python-version 3.11 --generate-hashes --custom-compile-command 'make lock' pyproject.toml $(LOCK)/venv.in

.PHONY: test test-peers bench-peers bench-bits test-cluster test-report test-package test-docs docs reproduce lint lock clean

# A new .venv whenever the lock or pyproject.toml changes, so that it holds the locked versions and nothing else: the
# test set of the lock (pip and setuptools included) with its hashes required, then privest itself, editable, built by
# the locked setuptools (whose notice that an editable install is one is all it would print). The peers and cluster
# and docs sets go on top of it on demand, so a change of their lock starts from a new .venv too.
$(STAMP): pyproject.toml setup.py privest/_kernel.c $(LOCK)/test.txt $(LOCK)/peers.txt $(LOCK)/cluster.txt \
		$(LOCK)/docs.txt
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)/test.txt
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Refresh the lock after a change of pyproject.toml: every pin that still fits stays; `make lock UPGRADE=1` moves
# every package to its newest allowed version. uv (pinned) resolves for every platform and Python >= 3.11 at once.
$(UV):
	$(PYTHON) -m venv $(VENV)/lock-tools
	$(VENV)/lock-tools/bin/python -m pip install --quiet uv==$(UV_VERSION)

lock: $(UV)
	$(UV_COMPILE) --all-extras $(if $(UPGRADE),--upgrade) -o $(LOCK)/all.txt
	$(UV_COMPILE) --extra test -c $(LOCK)/all.txt -o $(LOCK)/test.txt
	$(UV_COMPILE) --extra test --extra peers -c $(LOCK)/all.txt -o $(LOCK)/peers.txt
	$(UV_COMPILE) --extra test --extra cluster -c $(LOCK)/all.txt -o $(LOCK)/cluster.txt
	$(UV_COMPILE) --extra test --extra docs -c $(LOCK)/all.txt -o $(LOCK)/docs.txt

lint: $(STAMP)
	$(BIN)/ruff check privest privest_studies scripts tests benchmarks examples workflow/profiles
	$(BIN)/snakefmt --check Snakefile workflow/Snakefile workflow/rules

test: $(STAMP) lint
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q --ignore=tests/cluster --ignore=tests/report --ignore=tests/peers \
		--ignore=tests/package --ignore=tests/docs

# Conformance with the peer libraries multi-freq-ldpy and pure-LDP (tests/peers, docs/site/guide/protocols.md,
# "Conformance with the peer libraries"): the lock's `peers` set, then the same reports' distributions, estimates and IBU against
# privest.protocols. .ci/run calls it after `make test`.
$(PEERS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)/peers.txt
	touch $(PEERS_STAMP)

test-peers: $(PEERS_STAMP)
	$(BIN)/python -m pytest -q tests/peers

# The side-by-side record against the peers (issue 31, benchmarks/bench_peers.py, about 20 minutes on 2 cores): its
# tables go to docs/performance-peers.md, which the guide's performance page includes.
bench-peers: $(PEERS_STAMP)
	$(BIN)/python benchmarks/bench_peers.py --output docs/performance-peers.md

# Bit-packed reports (SUE, OUE, SS, RAPPOR) against the paths they replace (issue 26, benchmarks/bench_bits.py, about
# 5 minutes and 7 GB): prints its table (benchmarks/README.md holds a record).
bench-bits: $(STAMP)
	$(BIN)/python benchmarks/bench_bits.py

# The pipeline on a real one-node SLURM cluster (tests/cluster, docs/site/guide/cluster.md): the SLURM executor
# plugin (the lock's `cluster` set), then slurm-wlm and munge from apt (root; skipped, with the reason, where apt cannot
# install them), then the quick spine through sbatch against a local run. .ci/run calls it after `make test`.
$(CLUSTER_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)/cluster.txt
	touch $(CLUSTER_STAMP)

test-cluster: $(CLUSTER_STAMP)
	tests/cluster/setup.sh $(VENV)/cluster-setup.txt
	PATH="$(abspath $(BIN)):$$PATH:/usr/sbin:/sbin" PRIVEST_CLUSTER_SETUP="$(abspath $(VENV))/cluster-setup.txt" \
		$(BIN)/python -m pytest -q -s -rs tests/cluster

# privest as users install it (tests/package): the sdist and the wheel (the lock's build and setuptools), each in a
# fresh venv with only its declared dependencies from PyPI (the wheel with the compiled kernel, the sdist built with the
# C compiler hidden: numpy's fallback), no pipeline package among them, then the README's library quickstart and the
# library's examples/. Needs PyPI; .ci/run calls it after `make test`.
test-package: $(STAMP)
	$(BIN)/python -m pytest -q -s -rs tests/package

# The documentation site (docs/site: the user guide, the API reference of every public name, the gallery of examples/
# run at build time): the lock's `docs` set (Sphinx, numpydoc, sphinx-gallery, myst-parser, the pydata theme) on top
# of .venv, then a build from scratch in which any warning fails (-W; --keep-going reports them all first). The site
# is docs/site/_build/html/index.html. .ci/run calls it after `make test-package`.
DOCS_GENERATED := docs/site/_build docs/site/generated docs/site/auto_examples docs/site/sg_execution_times.rst

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)/docs.txt
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	rm -rf $(DOCS_GENERATED)
	$(BIN)/sphinx-build -W --keep-going -q -b html docs/site docs/site/_build/html

# After `make docs`: the home page, the API page of gibu and a gallery example in headless Chromium (tests/docs: no
# JavaScript error, no missing file, no broken internal link; screenshots in docs/site/_build/screenshots/), two guide
# pages at 1280 px (maths typeset from the site's own MathJax, a left navigation, no table or code cut), and the
# internal links of every page. Chromium as for test-report. .ci/run calls it after `make docs`.
test-docs: $(STAMP)
	tests/report/setup.sh $(VENV)/report-setup.txt
	PRIVEST_REPORT_SETUP="$(abspath $(VENV))/report-setup.txt" $(BIN)/python -m pytest -q -rs tests/docs

# The memory (MB) the jobs running side by side may declare together (rules perturb and estimate declare
# privest_studies.cost's model of theirs): what Linux says is available now; `make reproduce MEM_MB=8000` sets another,
# and where /proc/meminfo does not exist no limit is given.
MEM_MB ?= $(shell awk '/^MemAvailable:/ {print int($$2 / 1024)}' /proc/meminfo 2>/dev/null)

# Snakemake's scheduler looks at every waiting job again once per job-rate window (default 100 jobs a second: a pass
# a second, each a stat of every waiting job's inputs, 15% of a core through a paper-scale run on 2 cores); a job that
# ends starts the next pass anyway, so locally a window of a minute only drops the idle passes (measured: 4x less
# scheduler CPU: 40 jobs of 20 s, 2 at a time).
SCHEDULER := --max-jobs-per-timespan 1000/60s

# The whole pipeline (what a bare `snakemake --cores all` at the root runs, with the memory limit above: no profile is
# needed locally), then the HTML report, then the one-screen summary of results/REPRODUCTION.md. The chains' inputs
# (datasets, alphabets, LPs: rule chain_inputs) first, so that the cost model knows every dataset's size when the
# rest starts and the longest jobs go first (workflow/rules/common.smk, chain_priority).
# `make reproduce CONFIG=scale=paper`: the published settings (CONFIG goes to Snakemake's --config in all three calls).
CONFIG ?=
SNAKEMAKE_CONFIG = $(if $(CONFIG),--config $(CONFIG))
reproduce: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake chain_inputs --cores $(CORES) $(SCHEDULER) $(SNAKEMAKE_CONFIG)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores $(CORES) $(SCHEDULER) \
		$(if $(MEM_MB),--resources mem_mb=$(MEM_MB)) $(SNAKEMAKE_CONFIG)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/snakemake --cores 1 --report results/report.html $(SNAKEMAKE_CONFIG)
	@cat results/reproduction_summary.txt

# After `make reproduce`: results/report.html in headless Chromium (tests/report: apt installs chromium when it is
# missing and it can; otherwise the test skips with the reason). .ci/run calls it.
test-report: $(STAMP)
	tests/report/setup.sh $(VENV)/report-setup.txt
	PATH="$(abspath $(BIN)):$$PATH" PRIVEST_REPORT_SETUP="$(abspath $(VENV))/report-setup.txt" \
		$(BIN)/python -m pytest -q -rs tests/report

clean:
	rm -rf results logs benchmarks/*/ .snakemake
