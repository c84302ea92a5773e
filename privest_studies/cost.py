"""What an estimate job will cost, in seconds, before it runs: a model of each estimator family's work, calibrated on
the benchmark files of this project's runs, and the budget warning the workflow prints at start-up (config key
budget.job_minutes).

The model. An estimate job (rule estimate: one family on every point and run of one experiment; or one part of it,
rule estimate_part) costs ``startup`` plus, for every (point, run), the work of its family on that point's reports:

- each mechanism's *cells* of each kind, the work one IBU/GIBU iteration does on it: ``matrix``, k x (the columns
  its users can have reported, at most min(k, users)) for a matrix (the mechanisms of ``privest.mechanisms`` report
  on the secrets' alphabet, or Shokri's square matrix; IBU drops the columns nobody reported; ``large_matrix`` above
  k = ``LARGE_MATRIX``), ``mixture`` the same for GIBU over several matrices (another loop: the columns of every
  matrix side by side); ``bit_rows`` and ``bits``, the distinct reports and their ceil(k / 8) bytes each for the
  bit-packed reports of RAPPOR, SUE, OUE and SS (``BitGroup``; a row's weight, division and log, and a byte's lookup
  and histogram add), and of the protocols whose sets hold more than ``PACKED_SETS`` of the secrets (BLH, HR, OLH at
  a small eps), with the distinct reports of ``expected_distinct_reports``; ``sets``, the members of the distinct
  reports' sets of the others (GRR, OLH at a larger eps; ``SetGroup``): distinct reports times the expected set size
  (``set_size``), at least ``GROUP_FLOOR``;
- the iterative families (ibu, ibu_r, ibu_m, gibu; gibu_joint as ``run_work`` says) do every mechanism's cells once
  an iteration (ibu_m the one average matrix), plus a fixed cost per iteration and loop (``iterations``: one loop per
  mechanism for ibu_r, one for the others) and per iteration and group of reports (``group_iterations``: a RAPPOR or
  protocol group's own pass, its tables and calls); under SQUAREM (``accelerate: squarem`` or ``squarem-direct``) the
  fixed cost per update and loop is ``squarem_updates`` instead (numpy's calls on vectors of k: about 18 us an update
  at k = 1024, where the compiled plain loop's fixed cost is a few us), for the *iterations* IBU is expected to run
  there: the mean over runs measured by an earlier run of the same study, experiment and family at the nearest point
  (``Calibration.iterations``, from ``cost_calibration.json``), else the cap max_iter (an upper bound: most runs stop
  well before it) or ``SQUAREM_UPDATES`` under SQUAREM;
- the closed forms (inv, rap, inv_r, inv_m, rap_r, rap_m) do them once: ``closed`` a matrix's cells,
  ``closed_bits`` k cells per distinct bit report (unpacked), ``closed_sets`` a set group's members, and
  ``closed_groups`` a fixed cost per RAPPOR or protocol group and run (its reports gathered and its estimator's numpy
  calls: about 1.5 ms, what the IBU paper's 1,000 runs of RAPPOR's estimator on k = 10 mostly cost);
- every run's reports are read from the reports archive (``reading``: their bytes as stored, ``report_bytes``; a
  part reads its own point's runs only), and every run costs ``runs`` whatever its work (its calls, checks and row of
  the estimates archive: what a closed form's 1,000 runs on a small alphabet mostly cost).

The seconds per cell of each kind and the startup are fitted (non-negative least squares on wall seconds) to the
benchmark files of a finished run by ``benchmarks/calibrate_cost.py``, which also records the iterations each
(study, experiment, family, point) ran and prints the model against every job it measured; both go to
``cost_calibration.json`` beside this module, read once. A job the model puts above the budget prints one warning
line before the workflow starts (``over_budget``); the job itself logs its progress (``jobs.Progress``).
"""

import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from privest.protocols.base import PACKED_SETS, Protocol
from privest.rappor import flip_probability
from privest_studies.experiment import ITERATIVE, KIND_OPTIONS, PROTOCOL_KINDS, Experiment, Member, Part, parts
from privest_studies.experiment import protocol as member_protocol
from privest_studies.jobs import Progress

CALIBRATION = Path(__file__).with_name("cost_calibration.json")
"""The fitted seconds per cell and the measured iterations (``benchmarks/calibrate_cost.py`` writes it)."""
WORK_KINDS = ("startup", "runs", "iterations", "squarem_updates", "group_iterations", "matrix", "large_matrix",
              "mixture", "bit_rows", "bits", "sets", "closed", "closed_bits", "closed_sets", "closed_groups", "reading")
"""The kinds of work a job's seconds are the sum of, each at its own price: per job (startup), per run (its calls,
checks and row of the estimates archive, whatever the family), per IBU iteration of a run and loop (its fixed cost:
numpy calls, the stopping test; a SQUAREM update's apart), per cell, per byte read."""
UNARY_KINDS = ("sue", "oue", "the", "l_sue", "l_oue", "l_osue", "l_soue")
"""The unary encodings: the secret's bit set with one probability, every other bit with another, independently."""
BIT_KINDS = ("rappor", *UNARY_KINDS, "ss")
"""The mechanisms whose reports GIBU iterates on bit-packed (``privest.groups.BitGroup``)."""
LARGE_MATRIX = 256
"""Above this k a matrix's IBU iterations go another way (numpy's products on every run at once, not the compiled
loop run by run: ``privest.estimators._iteration``), at another price per cell."""
GROUP_FLOOR = 10_000
"""The fewest cells a protocol's set group is counted as: below, the per-call overheads dominate (GRR's 1,024
members)."""
SHOKRI_OUTPUTS = 0.4
"""The share of its k outputs an LP-optimal Shokri mechanism reports with a positive probability (the others are
all-zero columns, which IBU drops): 15-61% for the free-will paper's 10 linear and 10 planar ones (mean 40%). The
average of m of them ([IBU]_M) reports the union, 1 - (1 - 0.4)^m of them as if they were independent (measured:
98% for either set of 10, where the formula says 99%)."""
SQUAREM_UPDATES = 1_000
"""The updates of a SQUAREM run (capped by max_iter): above the 960 the quick scale's runs used at most."""
BUDGET_KEY = "budget.job_minutes"


@dataclass(frozen=True)
class Calibration:
    """The model's prices (seconds per cell of each of ``WORK_KINDS``) and the iterations measured per
    'study/experiment/family' and point value (mean over runs), with where they were measured."""

    seconds: Mapping[str, float]
    iterations: Mapping[str, Mapping[float, float]] = field(default_factory=dict)
    source: str = ""

    @classmethod
    def from_dict(cls, data: Mapping) -> "Calibration":
        # a kind the calibration has no price for (fitted before the kind was modelled) costs nothing
        return cls({kind: float(data["seconds"].get(kind, 0.0)) for kind in WORK_KINDS},
                   {key: {float(value): float(mean) for value, mean in by_point.items()}
                    for key, by_point in data.get("iterations", {}).items()}, str(data.get("source", "")))

    def to_dict(self) -> dict:
        return {"source": self.source, "seconds": dict(self.seconds),
                "iterations": {key: {repr(value): round(mean, 1) for value, mean in sorted(by_point.items())}
                               for key, by_point in sorted(self.iterations.items())}}

    def expected_iterations(self, key: str, value: float) -> float | None:
        """The mean iterations measured for ``key`` at the point nearest ``value`` (on a log scale), or None."""
        by_point = self.iterations.get(key)
        if not by_point:
            return None
        nearest = min(by_point, key=lambda v: abs(math.log(v / value)) if v > 0 and value > 0 else abs(v - value))
        return by_point[nearest]


@cache
def calibration() -> Calibration:
    """The calibration of ``CALIBRATION``, read once."""
    return Calibration.from_dict(json.loads(CALIBRATION.read_text()))


@cache
def built(member: Member, k: int) -> Protocol:
    """A protocol member on k secrets with its options (eps1, ...), built once: its probabilities price the work."""
    return member_protocol(member, k)


def effective(member: Member, k: int) -> Member:
    """The member as priced: ADP and L-ADP as the protocol they choose at (k, eps), with the options it takes."""
    chosen = built(member, k).name.lower().replace("-", "_") if member.kind in ("adp", "l_adp") else member.kind
    return member if chosen == member.kind else Member(chosen, member.parameter, **{
        name: value for name, value in member.options.items() if name in KIND_OPTIONS.get(chosen, ())})


def set_size(member: Member, k: int) -> float:
    """The expected number of secrets in one report's set of a protocol member on k secrets (at least 1): GRR 1, SUE
    and OUE the report's expected ones, BLH and OLH the hash's preimage k/g, SS its subset omega, HR half of K; the
    others (histogram encoding's THE, the longitudinal protocols) p* + (k - 1) q* of the built protocol."""
    member = effective(member, k)
    e = math.exp(member.parameter)
    sizes = {
        "grr": lambda: 1.0,
        "sue": lambda: 1 / (1 + math.exp(-member.parameter / 2)) + (k - 1) / (1 + math.exp(member.parameter / 2)),
        "oue": lambda: 0.5 + (k - 1) / (e + 1),
        "blh": lambda: k / 2,
        "olh": lambda: k / (round(e) + 1),
        "ss": lambda: k / (e + 1),
        "hr": lambda: (1 << k.bit_length()) / 2,
        "she": lambda: float(k),  # not a set: a real value for every secret (a matrix column a user)
    }
    m = None if member.kind in sizes else built(member, k)
    return max(1.0, sizes[member.kind]() if m is None else m.p_star + (k - 1) * m.q_star)


def packed_sets(member: Member, k: int) -> bool:
    """Whether a protocol member's group comes bit-packed (``privest.protocols.Protocol.group``: sets holding more
    than ``PACKED_SETS`` of the secrets on average)."""
    member = effective(member, k)
    return member.kind in PROTOCOL_KINDS and member.kind != "she" and set_size(member, k) > max(1.0, PACKED_SETS * k)


def distinct_reports(member: Member, k: int, users: float) -> float:
    """At most how many distinct reports ``users`` users of a protocol or RAPPOR member send."""
    member = effective(member, k)
    if member.kind in ("grr", "l_grr"):
        return min(users, k)
    if member.kind == "hr":
        return min(users, 1 << k.bit_length())
    if member.hashes is not None:  # local hashing with a finite hash family
        return min(users, member.hashes * built(member, k).g)
    if member.kind in BIT_KINDS:
        return min(users, 2.0 ** min(k, 1000))
    return users


@cache
def expected_distinct_reports(member: Member, k: int, users: float) -> float:
    """How many distinct reports ``users`` users of a member are expected to send, secrets uniform on k (what the
    time of a ``BitGroup`` scales with). For the unary encodings (RAPPOR, SUE, OUE: the secret's bit set with
    probability a, every other bit with b) the sum over report weights w of C(k, w) (1 - (1 - P_w)^users), P_w the
    probability of one report of weight w; ``distinct_reports`` (the bound) otherwise."""
    member = effective(member, k)
    bound = distinct_reports(member, k, users)
    if member.kind not in ("rappor", *UNARY_KINDS) or users <= 0:
        return bound
    if member.kind == "rappor":  # basic one-time RAPPOR: every bit flipped
        b = float(flip_probability(member.parameter))
        a = 1 - b
    else:  # the protocol's probabilities of the secret's bit and of every other bit
        protocol = built(member, k)
        a, b = protocol.one, protocol.flip
    w = np.arange(k + 1, dtype=float)
    log_choose = math.lgamma(k + 1) - np.array([math.lgamma(j + 1) + math.lgamma(k - j + 1) for j in range(k + 1)])
    with np.errstate(divide="ignore"):  # w = 0 or k: one of the two ways to weight w is impossible
        log_p = np.logaddexp(np.log(w / k) + math.log(a) + (w - 1) * math.log(b) + (k - w) * math.log1p(-b),
                             np.log((k - w) / k) + math.log1p(-a) + w * math.log(b) + (k - 1 - w) * math.log1p(-b))
        # log(1 - (1 - P)^users), as log(users P) where users P is too small for the other form's rounding
        log_seen = np.where(log_p + math.log(users) < -30, log_p + math.log(users),
                            np.log(-np.expm1(users * np.log1p(-np.exp(log_p)))))
    return float(min(bound, np.exp(log_choose + log_seen).sum()))


def cells(member: Member, k: int, users: float, averaged: int = 1) -> dict[str, float]:
    """The cells of each kind one iteration does on one mechanism with ``users`` users (or on the average of
    ``averaged`` Shokri mechanisms: the union of their outputs)."""
    member = effective(member, k)
    if member.kind in BIT_KINDS or packed_sets(member, k):
        rows = expected_distinct_reports(member, k, users)
        return {"bit_rows": rows, "bits": rows * math.ceil(k / 8)}
    if member.kind == "she":  # a matrix group, one column per user
        return {"matrix" if k <= LARGE_MATRIX else "large_matrix": float(k * max(users, 1.0))}
    if member.kind in PROTOCOL_KINDS:
        return {"sets": max(GROUP_FLOOR, distinct_reports(member, k, users) * set_size(member, k))}
    # IBU drops the columns no secret can report
    outputs = (1 - (1 - SHOKRI_OUTPUTS) ** averaged) * k if member.kind == "shokri" else k
    return {"matrix" if k <= LARGE_MATRIX else "large_matrix": float(k * min(outputs, max(users, 1.0)))}


def run_work(family: str, members: Sequence[Member], k: int, users: float, iterations: float,
             squarem: bool = False, rounds: int = 1) -> dict[str, float]:
    """The cells of each kind one run of ``family`` does on a point whose ``users`` users are split equally over
    ``members``, IBU running ``iterations`` iterations (SQUAREM updates where ``squarem``), and the bytes it reads.
    gibu_joint's round t of ``rounds`` reads t rounds' reports, (rounds + 1) / 2 on average, counts each user's k
    memberships in each (``closed`` cells) and iterates on a dense group of at most one column a user."""
    per_mechanism, joint = users / len(members), family == "gibu_joint"
    carried = (rounds + 1) / 2 if joint else 1.0
    work = dict.fromkeys(WORK_KINDS[1:], 0.0) | {"runs": 1.0, "closed": carried * users * k if joint else 0.0}
    work["reading"] = carried * sum(report_bytes(member, k, per_mechanism)[0] for member in members)
    groups = sum(member.kind in PROTOCOL_KINDS or member.kind == "rappor" for member in members)
    if family == "ibu_m":
        if groups == 0:  # else NA at once: the [e]_M families need one common matrix
            work["iterations"] = iterations
            # the average matrix: every output of a matrix other than Shokri's, the union of the Shokri ones'
            member = next((member for member in members if member.kind != "shokri"), members[0])
            work.update({kind: iterations * count for kind, count in cells(member, k, users, len(members)).items()})
        return work
    if family in ITERATIVE:  # [IBU]_R iterates on each mechanism apart, the others once on all of them
        loops = len(members) if family == "ibu_r" else 1
        work["squarem_updates" if squarem else "iterations"] = iterations * loops
        work["group_iterations"] = iterations * groups  # each group's own pass an iteration
    else:
        work["closed_groups"] = float(groups)
    mixture = family == "gibu" and len(members) - groups > 1
    dense = {"matrix" if k <= LARGE_MATRIX else "large_matrix": float(k * max(per_mechanism, 1.0))}
    for member in members:
        for kind, count in (dense if joint else cells(member, k, per_mechanism)).items():
            if family in ITERATIVE:
                work["mixture" if mixture and kind in ("matrix", "large_matrix") else kind] += iterations * count
            elif kind == "bit_rows":  # a closed form unpacks each distinct bit report: k cells a row
                work["closed_bits"] += count * k
            elif kind != "bits":
                work["closed_sets" if kind == "sets" else "closed"] += count
    return work


def iterations(experiment: Experiment, family: str, value: float, model: Calibration) -> float:
    """The iterations the model counts for one run at a point: measured before (``Calibration``), else the cap (or
    ``SQUAREM_UPDATES`` under SQUAREM)."""
    stopping = experiment.stopping_rule
    cap = int(stopping["max_iter"])
    measured = model.expected_iterations(f"{experiment.study}/{experiment.name}/{family}", value)
    if measured is not None:
        return min(cap, measured)
    return min(cap, SQUAREM_UPDATES) if stopping.get("accelerate") else cap


def point_work(experiment: Experiment, family: str, k: int, own_users: float,
               model: Calibration | None = None) -> list[dict[str, float]]:
    """The cells of each kind of one run at each point of an experiment (``own_users``: the dataset's users, for
    points that take every record once)."""
    model = model or calibration()
    return [run_work(family, [experiment.members[j] for j in point.mechanisms], k,
                     own_users if point.users is None else point.users,
                     iterations(experiment, family, point.value, model),
                     experiment.stopping_rule.get("accelerate") is not None, experiment.rounds or 1)
            for point in experiment.points]


def seconds_of(work: Mapping[str, float], model: Calibration | None = None, startup: bool = False) -> float:
    """The model's seconds of some work (cells of each kind), with a job's startup if asked."""
    prices = (model or calibration()).seconds
    return sum(prices[kind] * count for kind, count in work.items()) + (prices["startup"] if startup else 0.0)


def unit_seconds(experiment: Experiment, family: str, k: int, own_users: float) -> list[float]:
    """Seconds of one run at each point of an experiment."""
    return [seconds_of(work) for work in point_work(experiment, family, k, own_users)]


def job_seconds(experiment: Experiment, family: str, k: int, own_users: float, part: Part | None = None) -> float:
    """Seconds of the estimate job of one family on every point and run of an experiment, or on one part of it."""
    units = unit_seconds(experiment, family, k, own_users)
    seconds = experiment.slots * sum(units) if part is None else (part.stop - part.first) * units[part.point]
    return calibration().seconds["startup"] + seconds


BASE_MEGABYTES = 150
"""A job's memory before its reports: Python, numpy, scipy and the mechanisms (80-150 MB measured)."""
MEMBER_BYTES = 16
"""Bytes per set member of a protocol's ``SetGroup`` inside GIBU: the group's int32 index and the sparse matrix's
index and float64 value (11 bytes per member measured on the Zipf mixture at n = 10^6: 2.7 GB for 2.4e8 members)."""
BIT_ROW_BYTES = 32
"""Bytes per distinct report of a ``BitGroup`` inside GIBU beside its packed bits: count, log scale, weight, d."""
MEMORY_MARGIN = 1.5
"""The model's megabytes times this are what a job declares (``mem_mb``)."""
MIN_MEGABYTES = 1000
"""The least a perturb or estimate job declares."""


def declared_megabytes(megabytes: float) -> int:
    """The memory (MB) a job declares for the model's ``megabytes``: times ``MEMORY_MARGIN``, rounded up to a
    hundred, at least ``MIN_MEGABYTES``."""
    return max(MIN_MEGABYTES, math.ceil(MEMORY_MARGIN * megabytes / 100) * 100)


def report_bytes(member: Member, k: int, users: float) -> tuple[float, float, float]:
    """Bytes of ``users`` users' reports of one mechanism: as stored in the reports archive (bits packed), as an
    estimate job reads one run of them (bits one byte each), and the likelihood structure GIBU and IBU build from
    them (a protocol's sets, RAPPOR's k x distinct columns, a matrix)."""
    member = effective(member, k)
    if member.kind == "she":  # k floats a user, stored, read and held as the group's matrix
        return users * k * 8, users * k * 8, users * k * 8
    if member.kind in BIT_KINDS:  # a BitGroup: the distinct packed reports, their counts and log scales
        distinct = distinct_reports(member, k, users)
        if member.kind == "rappor":
            return distinct * (math.ceil(k / 8) + 8), distinct * k, distinct * (math.ceil(k / 8) + BIT_ROW_BYTES)
        return users * math.ceil(k / 8), users * k, distinct * (math.ceil(k / 8) + BIT_ROW_BYTES)
    if member.numeric:  # a float64 a user; EM's channel k x k (priced as a matrix's cells by ``cells``)
        return users * 8, users * 8, 3 * 8 * k * k
    if member.kind in PROTOCOL_KINDS:  # a value (GRR, HR) or a seed and a hashed value (BLH, OLH) per user
        hashed = "hashes" in KIND_OPTIONS.get(member.kind, ())
        stored, distinct = users * (12 if hashed else 8), distinct_reports(member, k, users)
        if packed_sets(member, k):
            return stored, stored, distinct * (math.ceil(k / 8) + BIT_ROW_BYTES)
        return stored, stored, MEMBER_BYTES * distinct * set_size(member, k)
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
        stored += experiment.slots * sum(size[0] for size in sizes)
        unpacked = max(unpacked, sum(size[1] for size in sizes))
        if family in ITERATIVE:
            structures = [size[2] for size in sizes]
            structure = max(structure, sum(structures) if family == "gibu" else max(structures))
    megabytes = BASE_MEGABYTES + (stored + unpacked + structure) / 1e6
    return declared_megabytes(megabytes)


def mechanisms_megabytes(experiment: Experiment, k: int) -> int:
    """The memory (MB) a mechanisms job declares: ``BASE_MEGABYTES`` plus three k x k float64 arrays (a matrix, its
    temporaries) per distinct matrix mechanism (protocols, RAPPOR, numeric ones: none), times ``MEMORY_MARGIN``."""
    matrices = len({(m.kind, m.parameter) for m in experiment.members
                    if m.kind not in PROTOCOL_KINDS and m.kind != "rappor" and not m.numeric})
    megabytes = BASE_MEGABYTES + matrices * 3 * 8 * float(k) ** 2 / 1e6
    return declared_megabytes(megabytes)


def mechanisms_megabytes_of(experiment: Experiment) -> int:
    """``mechanisms_megabytes`` with k read from the experiment's alphabet (``MIN_MEGABYTES`` before it exists)."""
    size = dataset_size(experiment)
    return MIN_MEGABYTES if size is None else mechanisms_megabytes(experiment, size[0])


DATA_RECORD_BYTES = 24
"""Bytes per record of a study's data job beyond ``BASE_MEGABYTES`` (4*10^7 records: 948 MB measured, 2026-11-27)."""


def data_megabytes(records: float) -> int:
    """The memory (MB) a study's data job declares for about ``records`` records."""
    megabytes = BASE_MEGABYTES + DATA_RECORD_BYTES * records / 1e6
    return declared_megabytes(megabytes)


def machine_megabytes() -> int:
    """This machine's physical memory (MB)."""
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 10**6)


def largest_job(experiment: Experiment, k: int, own_users: float) -> tuple[str, int]:
    """(job, MB) of the experiment's job that declares the most memory: mechanisms, perturb or an estimate family."""
    jobs = {"mechanisms": mechanisms_megabytes(experiment, k), "perturb": job_megabytes(experiment, None, k, own_users)}
    jobs |= {f"estimate {family}": job_megabytes(experiment, family, k, own_users) for family in experiment.families}
    return max(jobs.items(), key=lambda item: item[1])


def job_megabytes_of(experiment: Experiment, family: str | None) -> int:
    """``job_megabytes`` with k and the users read from the experiment's dataset; ``MIN_MEGABYTES`` while the dataset
    does not exist yet (Snakemake asks for a job's resources when the job is ready to run, after its inputs exist)."""
    size = dataset_size(experiment)
    return MIN_MEGABYTES if size is None else job_megabytes(experiment, family, *size)


def dataset_size(experiment: Experiment) -> tuple[int, int] | None:
    """k and the number of the dataset's own users (0 without them), read from the dataset's files (relative to the
    working directory); None while they do not exist yet (the data rules write them at the start of a first run).
    Read once per version of the files: Snakemake asks for a ready job's resources again every second while it
    waits for a core, and loading a dataset of 10^6 users each time kept its scheduler busy (15% of a core)."""
    alphabet, data = Path(experiment.alphabet_file), Path(experiment.data_file)
    try:
        stamps = tuple((path.stat().st_mtime_ns, path.stat().st_size) for path in (alphabet, data))
    except FileNotFoundError:
        return None
    return _dataset_size(str(alphabet.resolve()), str(data.resolve()), stamps)


@cache
def _dataset_size(alphabet: str, data: str, stamps: tuple) -> tuple[int, int]:
    """``dataset_size`` of the files as they are at ``stamps`` (their modification times and sizes)."""
    k = int(json.loads(Path(alphabet).read_text())["k"])
    with np.load(data) as arrays:
        users = int(arrays["secrets"].size) if "secrets" in arrays.files else 0
    return k, users


@dataclass(frozen=True)
class JobCost:
    """The model's seconds for one estimate job (``part``: '' for a whole job, else the part's name)."""

    study: str
    experiment: str
    family: str
    seconds: float
    part: str = ""

    def warning(self, budget_minutes: float) -> str:
        """The line the workflow prints when the job is over budget."""
        rule, part = ("estimate_part", f", part={self.part}") if self.part else ("estimate", "")
        return (f"privest: warning: job {rule} (study={self.study}, experiment={self.experiment}, "
                f"family={self.family}{part}) is estimated at ~{describe(self.seconds)} "
                f"(budget {describe(60 * budget_minutes)}, config key {BUDGET_KEY})")


def describe(seconds: float) -> str:
    """'~40 s', '12 min', '1.1 h': a cost as the warning prints it."""
    return (f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.0f} min" if seconds < 3600
            else f"{seconds / 3600:.2g} h")


def estimate_jobs(experiments: Mapping[str, Mapping[str, Experiment]],
                  runs_per_job: Mapping[str, int] | None = None,
                  prior: Mapping[str, tuple[int, float]] | None = None) -> list[JobCost]:
    """The model's cost of every estimate job of the experiments {study: {name: Experiment}} whose dataset exists, or
    whose study has a ``prior`` size (study -> (k, users) before its data job ran: a researcher's own study): one
    per family, or one per part where the scale splits it (``runs_per_job``: study -> runs, as ``experiment.parts``
    takes it)."""
    costs = []
    for study, by_name in experiments.items():
        for name, experiment in by_name.items():
            size = dataset_size(experiment) or (prior or {}).get(study)
            if size is None:
                continue
            for family in experiment.families:
                split = parts(experiment, family, (runs_per_job or {}).get(study))
                whole = [JobCost(study, name, family, job_seconds(experiment, family, *size))]
                costs.extend([JobCost(study, name, family, job_seconds(experiment, family, *size, part), part.name)
                              for part in split] or whole)
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
    return Progress(f"estimate {family}", [s for s in seconds for _ in range(experiment.slots)], heartbeat)
