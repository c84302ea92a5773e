"""What an estimate job will cost, in seconds, before it runs: a model of each estimator family's work, calibrated on
this project's machine, and the budget warning the workflow prints at start-up (config key budget.job_minutes).

The model. An estimate job (rule estimate: one family on every point and run of one experiment) costs ``STARTUP``
plus, for every (point, run), the work of its family on that point's reports:

- each mechanism's *cells*, the entries one IBU/GIBU iteration touches: k x k for a matrix (the mechanisms of
  ``privest.mechanisms`` report on the secrets' alphabet, or Shokri's square matrix); (distinct bit vectors) x k for
  RAPPOR, with at most min(users, 2^k) distinct vectors; the members of the distinct reports' sets for a protocol
  of ``privest.protocols`` (``SetGroup``), distinct reports times the expected set size of ``set_size``;
- the iterative families (ibu, ibu_r, ibu_m, gibu) touch every mechanism's cells once an iteration (ibu_m the one
  average k x k matrix), for ``iterations`` iterations: the cap max_iter for plain IBU, an upper bound (at the quick
  scale the IBU paper's runs used 0.6-1.0 of the cap of 10,000, the free-will paper's GIBU 0.05-0.8; measured in
  results/*/*/scores.csv), and ``SQUAREM_UPDATES`` for SQUAREM (the most updates any run of the standard-protocols
  study used at the quick scale was 960);
- the closed forms (inv, rap, inv_r, inv_m, rap_r, rap_m) touch them once, a protocol's ``CLOSED_SET_PASSES`` times
  (its unbiased estimator reads every user's report, not the distinct ones).

Seconds per cell-iteration, measured with the library on this machine (2 cores shared with other jobs) by
benchmarks/bench_cost.py, which times each kind of iteration at a fixed number of iterations (delta 1e-300, so no
run stops early) and prints these constants; run it with OPENBLAS_NUM_THREADS=1, as jobs run (``jobs.run_or_exit``).
Measured on the library of commit 11a8050 (IBU's block kernel), twice:

- ``MATRIX_CELL``: ``estimators.ibu_runs`` on k-RR, 20 runs batched: 2.2e-10 s at k = 100, 1.5e-10 s at k = 384;
  on the older kernel, with the second core busy with another job, up to 1.4e-9 s at k = 384. The jobs cost more per
  cell than the kernel alone: at 2.2e-10 the model would put the quick scale's planar IBU jobs at 33 s, below the
  41-67 s they took (benchmarks of a full quick run), so 1.4e-9 is kept.
- ``RAPPOR_CELL``: ``estimators.gibu`` on one ``rappor_group``: 7.6e-10 and 7.7e-10 s at k = 100 with 48,842 users
  (Adult's size, 48,842 distinct vectors), 2.3e-10 s at k = 64, 10^4 users; Adult's is kept (the kernel before
  11a8050 took 2.2e-9 s).
- ``SET_CELL``: ``estimators.gibu(..., accelerate="squarem")`` on one ``Protocol.group``: 1.8e-9 s per member and
  update for SUE at k = 1024 (387 members a user), 1.3e-9 to 1.4e-9 s for OLH; GRR's few members cost more each
  (2.4e-8 to 2.8e-8 s at 1,024 members) but little in all: SUE's is kept, with ``GROUP_FLOOR`` cells a group.

Against the wall times of the 62 estimate jobs of a full quick run on this machine before the block kernel
(benchmarks/*/*/estimate_*.tsv, 0.4 s to 153 s), the model with the constants of that kernel was above every
iterative job's time (1.5 to 5 times for the IBU paper's, whose runs reach the cap; up to 100 times where GIBU stops
after a hundred iterations, free-will rappor_low) but one, [IBU]_R of free-will geometric_linear (13.6 s against
16.3 s), and within a few seconds of the closed forms'. With the current constants the longest quick job it predicts
is 6 minutes (standard-protocols zipf GIBU and [IBU]_R). A job the model
puts above the budget prints one warning line before the workflow starts (``over_budget``); the job itself logs its
progress (``jobs.Progress``).
"""

import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from privest_studies.experiment import HASHED_KINDS, ITERATIVE, PROTOCOL_KINDS, Experiment, Member, Part
from privest_studies.jobs import Progress

STARTUP = 1.0
"""Seconds to start a job, import the libraries and read its inputs (startup_seconds in the logs: 0.5-1 s)."""
MATRIX_CELL = 1.4e-9
"""Seconds per cell and iteration of IBU on a matrix mechanism (k x k cells), one run."""
RAPPOR_CELL = 7.7e-10
"""Seconds per cell (distinct bit vector x secret) and iteration of GIBU on RAPPOR reports."""
SET_CELL = 1.8e-9
"""Seconds per set member and update of GIBU on a protocol's distinct reports."""
GROUP_FLOOR = 10_000
"""The fewest cells a protocol's group is counted as: below, the per-call overheads dominate (GRR's 1,024 members)."""
CLOSED_SET_PASSES = 60
"""A protocol's closed form costs this many GIBU updates of its group (fitted to the quick scale's standard-protocols
zipf inv_r job: 26 s measured, 0.4 s for one pass)."""
SQUAREM_UPDATES = 1_000
"""The updates of a SQUAREM run (capped by max_iter): above the 960 the quick scale's runs used at most."""
BUDGET_KEY = "budget.job_minutes"


def set_size(member: Member, k: int) -> float:
    """The expected number of secrets in one report's set of a protocol member on k secrets (at least 1): GRR 1, SUE
    and OUE the report's expected ones, BLH and OLH the hash's preimage k/g, SS its subset omega, HR half of K."""
    e = math.exp(member.parameter)
    sizes = {
        "grr": 1.0,
        "sue": 1 / (1 + math.exp(-member.parameter / 2)) + (k - 1) / (1 + math.exp(member.parameter / 2)),
        "oue": 0.5 + (k - 1) / (e + 1),
        "blh": k / 2,
        "olh": k / (round(e) + 1),
        "ss": k / (e + 1),
        "hr": (1 << k.bit_length()) / 2,
    }
    return max(1.0, sizes[member.kind])


def distinct_reports(member: Member, k: int, users: float) -> float:
    """At most how many distinct reports ``users`` users of a protocol or RAPPOR member send."""
    if member.kind == "grr":
        return min(users, k)
    if member.kind == "hr":
        return min(users, 1 << k.bit_length())
    if member.kind in HASHED_KINDS and member.hashes is not None:
        return min(users, member.hashes * (2 if member.kind == "blh" else round(math.exp(member.parameter)) + 1))
    if member.kind == "rappor":
        return min(users, 2.0 ** min(k, 1000))
    return users


def cell_seconds(member: Member, k: int, users: float) -> float:
    """Seconds of one iteration over one mechanism's cells, for ``users`` users of it."""
    if member.kind in PROTOCOL_KINDS:
        return SET_CELL * max(GROUP_FLOOR, distinct_reports(member, k, users) * set_size(member, k))
    if member.kind == "rappor":
        return RAPPOR_CELL * distinct_reports(member, k, users) * k
    return MATRIX_CELL * k * k


def iterations(stopping: Mapping) -> int:
    """The iterations the model counts for one IBU run: the cap, or ``SQUAREM_UPDATES`` under SQUAREM."""
    cap = int(stopping["max_iter"])
    return min(cap, SQUAREM_UPDATES) if stopping.get("accelerate") == "squarem" else cap


def run_seconds(family: str, members: Sequence[Member], k: int, users: float, stopping: Mapping) -> float:
    """Seconds of one run of ``family`` on a point whose ``users`` users are split equally over ``members``."""
    per_mechanism = users / len(members)
    if family == "ibu_m":
        if any(m.kind in PROTOCOL_KINDS or m.kind == "rappor" for m in members):
            return 0.0  # the [e]_M families need one common matrix: NA at once
        return iterations(stopping) * MATRIX_CELL * k * k
    if family in ITERATIVE:
        return iterations(stopping) * sum(cell_seconds(m, k, per_mechanism) for m in members)
    return sum(cell_seconds(m, k, per_mechanism) * (CLOSED_SET_PASSES if m.kind in PROTOCOL_KINDS else 1)
               for m in members)


def unit_seconds(experiment: Experiment, family: str, k: int, own_users: float) -> list[float]:
    """Seconds of one run at each point of an experiment (``own_users``: the dataset's users, for points that take
    every record once)."""
    stopping = experiment.stopping_rule
    return [run_seconds(family, [experiment.members[j] for j in point.mechanisms], k,
                        own_users if point.users is None else point.users, stopping)
            for point in experiment.points]


def job_seconds(experiment: Experiment, family: str, k: int, own_users: float) -> float:
    """Seconds of the estimate job of one family on every point and run of an experiment."""
    return STARTUP + experiment.runs * sum(unit_seconds(experiment, family, k, own_users))


BIT_KINDS = ("sue", "oue", "ss")
"""The protocols whose report is k bits (stored packed, 8 to a byte; unpacked one byte a bit)."""
BASE_MEGABYTES = 150
"""A job's memory before its reports: Python, numpy, scipy and the mechanisms (80-150 MB measured)."""
MEMBER_BYTES = 16
"""Bytes per set member of a protocol's ``SetGroup`` inside GIBU: the group's int32 index and the sparse matrix's
index and float64 value (11 bytes per member measured on the Zipf mixture at n = 10^6: 2.7 GB for 2.4e8 members)."""
MEMORY_MARGIN = 1.5
"""The model's megabytes times this are what a job declares (``mem_mb``)."""
MIN_MEGABYTES = 1000
"""The least a perturb or estimate job declares."""


def report_bytes(member: Member, k: int, users: float) -> tuple[float, float, float]:
    """Bytes of ``users`` users' reports of one mechanism: as stored in the reports archive (bits packed), as an
    estimate job reads one run of them (bits one byte each), and the likelihood structure GIBU and IBU build from
    them (a protocol's sets, RAPPOR's k x distinct columns, a matrix)."""
    if member.kind in PROTOCOL_KINDS:
        if member.kind in BIT_KINDS:
            stored, unpacked = users * math.ceil(k / 8), users * k
        else:  # a value (GRR, HR) or a seed and a hashed value (BLH, OLH) per user
            stored = unpacked = users * (12 if member.kind in HASHED_KINDS else 8)
        return stored, unpacked, MEMBER_BYTES * distinct_reports(member, k, users) * set_size(member, k)
    if member.kind == "rappor":
        distinct = distinct_reports(member, k, users)
        return distinct * (math.ceil(k / 8) + 8), distinct * k, 3 * 8 * distinct * k
    return 8 * k, 8 * k, 3 * 8 * k * k


def job_megabytes(experiment: Experiment, family: str | None, k: int, own_users: float) -> int:
    """The memory (MB) a perturb job (``family`` None) or an estimate job declares: ``BASE_MEGABYTES`` plus every
    run's reports as stored, the largest run's reports unpacked and, for the iterative families, the largest run's
    likelihood structure (every mechanism's for GIBU, the largest one's otherwise), times ``MEMORY_MARGIN``.

    Measured against this model: the standard-protocols Zipf experiment (k = 1024, 21 protocol groups) at n = 10^6
    with 2 runs took 0.64 GB to perturb, 0.68 GB for [INV]_R and 3.4 GB for GIBU; the model says 0.73, 0.73 and 3.5 GB
    before the margin. At the paper scale (n up to 10^6, 20 runs; benchmark files of the run of 2026-11-23) perturb
    took 2.0 GB (12.7 GB before reports were packed run by run), [INV]_R 2.2 GB and [IBU]_R 2.6 GB; the model says
    2.4, 2.4 and 2.8 GB before the margin (3.6, 3.6 and 4.2 GB declared).
    """
    stored, unpacked, structure = 0.0, 0.0, 0.0
    for point in experiment.points:
        members = [experiment.members[j] for j in point.mechanisms]
        users = (own_users if point.users is None else point.users) / len(members)
        sizes = [report_bytes(member, k, users) for member in members]
        stored += experiment.runs * sum(size[0] for size in sizes)
        unpacked = max(unpacked, sum(size[1] for size in sizes))
        if family in ITERATIVE:
            structures = [size[2] for size in sizes]
            structure = max(structure, sum(structures) if family == "gibu" else max(structures))
    megabytes = BASE_MEGABYTES + (stored + unpacked + structure) / 1e6
    return max(MIN_MEGABYTES, math.ceil(MEMORY_MARGIN * megabytes / 100) * 100)


def job_megabytes_of(experiment: Experiment, family: str | None) -> int:
    """``job_megabytes`` with k and the users read from the experiment's dataset; ``MIN_MEGABYTES`` while the dataset
    does not exist yet (Snakemake asks for a job's resources when the job is ready to run, after its inputs exist)."""
    size = dataset_size(experiment)
    return MIN_MEGABYTES if size is None else job_megabytes(experiment, family, *size)


def dataset_size(experiment: Experiment) -> tuple[int, int] | None:
    """k and the number of the dataset's own users (0 without them), read from the dataset's files (relative to the
    working directory); None while they do not exist yet (the data rules write them at the start of a first run)."""
    alphabet, data = Path(experiment.alphabet_file), Path(experiment.data_file)
    if not (alphabet.exists() and data.exists()):
        return None
    k = int(json.loads(alphabet.read_text())["k"])
    with np.load(data) as arrays:
        users = int(arrays["secrets"].size) if "secrets" in arrays.files else 0
    return k, users


@dataclass(frozen=True)
class JobCost:
    """The model's seconds for one estimate job."""

    study: str
    experiment: str
    family: str
    seconds: float

    def warning(self, budget_minutes: float) -> str:
        """The line the workflow prints when the job is over budget."""
        return (f"privest: warning: job estimate (study={self.study}, experiment={self.experiment}, "
                f"family={self.family}) is estimated at ~{describe(self.seconds)} "
                f"(budget {describe(60 * budget_minutes)}, config key {BUDGET_KEY})")


def describe(seconds: float) -> str:
    """'~40 s', '12 min', '1.1 h': a cost as the warning prints it."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.2g} h"


def estimate_jobs(experiments: Mapping[str, Mapping[str, Experiment]]) -> list[JobCost]:
    """The model's cost of every estimate job of the experiments {study: {name: Experiment}} whose dataset exists."""
    costs = []
    for study, by_name in experiments.items():
        for name, experiment in by_name.items():
            size = dataset_size(experiment)
            if size is None:
                continue
            costs.extend(JobCost(study, name, family, job_seconds(experiment, family, *size))
                         for family in experiment.families)
    return costs


def over_budget(costs: Sequence[JobCost], budget_minutes: float) -> list[str]:
    """One warning line per job the model puts above ``budget_minutes``."""
    return [cost.warning(budget_minutes) for cost in costs if cost.seconds > 60 * budget_minutes]


_WARNED: set[str] = set()


def warn_once(lines: Sequence[str]) -> None:
    """Print each warning line to stderr once per process (the workflow may read its Snakefile more than once)."""
    for line in lines:
        if line not in _WARNED:
            _WARNED.add(line)
            print(line, file=sys.stderr, flush=True)


def estimate_progress(experiment: Experiment, family: str, k: int, reports: Mapping[str, np.ndarray],
                      heartbeat: float = 30.0, part: Part | None = None) -> Progress:
    """The progress of an estimate job on the reports of ``perturb`` (``secret_counts`` (P, R, M, k) gives the
    dataset's users): one unit per (point, run), weighted by the model's seconds; a part's units only."""
    own_users = float(np.asarray(reports["secret_counts"])[0, 0].sum())
    seconds = unit_seconds(experiment, family, k, own_users)
    if part is not None:
        return Progress(f"estimate {family}", [seconds[part.point]] * (part.stop - part.first), heartbeat)
    return Progress(f"estimate {family}", [s for s in seconds for _ in range(experiment.runs)], heartbeat)
