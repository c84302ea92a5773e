"""The free-will privacy study: mechanism sets (Tables 4-8), the estimator families of sections 4-6 applied to the
same reports, the closed-form bounds of Propositions 2 and 3, the non-informative example of eq. (11), and the
verdicts of Tables 1 and 2 computed from measured EMDs.

A mechanism set is a list of mechanisms, each a matrix A[x, z] (k-RR, geometric, Shokri) or a ``perturb.Rappor``;
users are split equally over them (NOTES 6). Reports of one (n, run) are one entry per mechanism: report counts over
the columns of a matrix mechanism, or a ``RapporReports``.
"""

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privest import estimators, mechanisms
from privest.alphabets import Alphabet
from privest.mechanisms import average
from privest.rappor import RapporReports, flip_probability
from privest.sampling import Mechanism, Rappor, Reports
from privest_studies.experiment import Estimate

# --- mechanism sets (Tables 4-8) --------------------------------------------------------------------------------------

KIND_NAMES = {"krr": "k-RR", "geometric": "geometric", "rappor": "RAPPOR", "shokri": "Shokri"}


@dataclass(frozen=True)
class Member:
    """One mechanism of a set: its kind (krr, geometric, rappor, shokri) and parameter (eps, or Q for shokri)."""

    kind: str
    parameter: float

    @property
    def symbol(self) -> str:
        return "Q" if self.kind == "shokri" else "ε"


def members(spec: Mapping, shokri_Q: Sequence[float] | None = None) -> list[Member]:
    """The mechanisms of a set from its config entry {'mechanisms': [{'kind': k, 'eps': [...]} | {'kind': 'shokri',
    'Q': [...]}]}. ``shokri_Q`` keeps only those Q of the Shokri entries (a scale's subset); each must be listed."""
    result = []
    for entry in spec["mechanisms"]:
        kind = entry["kind"]
        values = [float(v) for v in (entry["Q"] if kind == "shokri" else entry["eps"])]
        if kind == "shokri" and shokri_Q is not None:
            missing = sorted(set(map(float, shokri_Q)) - set(values))
            if missing:
                raise ValueError(f"shokri_Q: {missing} are not Q values of the set ({values})")
            values = [v for v in values if v in set(map(float, shokri_Q))]
        result += [Member(kind, v) for v in values]
    if not result:
        raise ValueError("a mechanism set needs at least one mechanism")
    return result


def build(set_members: Sequence[Member], alphabet: Alphabet, shokri: Mapping[float, np.ndarray] | None = None
          ) -> list[Mechanism]:
    """The mechanisms of a set on an alphabet: matrices (k-RR, geometric: linear or planar by the alphabet; Shokri from
    the solved matrices ``shokri[Q]``) or ``Rappor`` for RAPPOR members."""
    result: list[Mechanism] = []
    for m in set_members:
        if m.kind == "rappor":
            result.append(Rappor(alphabet.k, m.parameter))
        elif m.kind == "shokri":
            if shokri is None or m.parameter not in shokri:
                raise ValueError(f"shokri: no solved matrix for Q = {m.parameter:g}")
            result.append(np.asarray(shokri[m.parameter], dtype=np.float64))
        else:
            result.append(mechanisms.by_name(m.kind, alphabet, m.parameter))
    return result


def to_arrays(set_members: Sequence[Member], mechanisms: Sequence[Mechanism]) -> dict[str, np.ndarray]:
    """The arrays that store a built set in an npz: kinds, parameters, k, and A (M, k, m) when every member is a
    matrix mechanism."""
    arrays = {"kinds": np.array([m.kind for m in set_members]),
              "parameters": np.array([m.parameter for m in set_members], dtype=np.float64),
              "k": np.int64(mechanisms[0].k if isinstance(mechanisms[0], Rappor) else mechanisms[0].shape[0])}
    if not any(isinstance(m, Rappor) for m in mechanisms):
        arrays["A"] = np.stack(mechanisms)
    return arrays


def from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[list[Member], list[Mechanism]]:
    """The set stored by ``to_arrays``."""
    set_members = [Member(str(kind), float(p)) for kind, p in zip(arrays["kinds"], arrays["parameters"], strict=True)]
    k = int(arrays["k"])
    matrices = iter(arrays["A"]) if "A" in arrays else iter(())
    mechanisms: list[Mechanism] = [Rappor(k, m.parameter) if m.kind == "rappor" else next(matrices)
                                   for m in set_members]
    return set_members, mechanisms


def describe(set_members: Sequence[Member]) -> str:
    """'10 k-RR, ε 3–8.08' or '5 geometric, ε 0.065–0.869 + 5 k-RR, ε 3–4.69': the set as the paper's text names it."""
    parts = []
    for kind in dict.fromkeys(m.kind for m in set_members):
        values = [m.parameter for m in set_members if m.kind == kind]
        symbol = "Q" if kind == "shokri" else "ε"
        span = f"{values[0]:g}" if len(values) == 1 else f"{min(values):g}–{max(values):g}"
        parts.append(f"{len(values)} {KIND_NAMES.get(kind, kind)}, {symbol} {span}")
    return " + ".join(parts)


def mechanism_table_rows(table: int, sets: Mapping[str, Mapping], subsets: Mapping[str, Sequence[float]]
                         ) -> list[dict]:
    """The rows of paper Table ``table`` (4-8) regenerated from the config's mechanism sets: one row per mechanism,
    with whether the active scale uses it (a scale may keep a subset of the Shokri Q)."""
    rows = []
    for name, spec in sets.items():
        if int(spec["table"]) != table:
            continue
        used = {(m.kind, m.parameter) for m in members(spec, subsets.get(name))}
        for i, m in enumerate(members(spec)):
            rows.append({"table": table, "mechanism_set": name, "label": spec["label"], "alphabet": spec["alphabet"],
                         "index": i + 1, "kind": m.kind, "parameter": m.symbol, "value": m.parameter,
                         "used_at_this_scale": (m.kind, m.parameter) in used})
    if not rows:
        raise ValueError(f"no mechanism set belongs to table {table}")
    return rows


def mechanism_table_markdown(table: int, title: str, rows: Sequence[Mapping]) -> str:
    """Markdown of a regenerated Table 4-8: per set and kind, the count and the parameter values (values the active
    scale leaves out are struck through)."""
    lines = [f"# Table {table}. {title}", "", "| set | alphabet | mechanisms | values |", "|---|---|---|---|"]
    for name in dict.fromkeys(r["mechanism_set"] for r in rows):
        mine = [r for r in rows if r["mechanism_set"] == name]
        for kind in dict.fromkeys(r["kind"] for r in mine):
            of_kind = [r for r in mine if r["kind"] == kind]
            values = ", ".join(f"{r['value']:g}" if r["used_at_this_scale"] else f"~~{r['value']:g}~~"
                               for r in of_kind)
            lines.append(f"| {of_kind[0]['label']} | {of_kind[0]['alphabet']} | {len(of_kind)} "
                         f"{KIND_NAMES.get(kind, kind)} | {of_kind[0]['parameter']}: {values} |")
    if any(not r["used_at_this_scale"] for r in rows):
        lines += ["", "Struck-through values are not used at this scale (config scales.<scale>.free_will.shokri_Q)."]
    return "\n".join(lines) + "\n"


# --- data -------------------------------------------------------------------------------------------------------------


def binomial_theta(k: int, p: float = 0.5) -> np.ndarray:
    """Binomial(k-1, p) on {0..k-1}: the linear theta of free-will sections 7, 8.1 and 8.3."""
    if k < 2 or not 0 < p < 1:
        raise ValueError(f"k must be at least 2 and p in (0, 1), got k={k}, p={p}")
    x = np.arange(k)
    log_pmf = np.array([math.lgamma(k) - math.lgamma(i + 1) - math.lgamma(k - i) for i in x])
    log_pmf += x * math.log(p) + (k - 1 - x) * math.log1p(-p)
    theta = np.exp(log_pmf)
    return theta / theta.sum()


def group_sizes(n: int, groups: int) -> np.ndarray:
    """Users per mechanism when n users are split as equally as possible (``perturb.split_users``)."""
    return np.full(groups, n // groups) + (np.arange(groups) < n % groups)


def reports_to_arrays(reports: Sequence[Sequence[Sequence[Reports]]]) -> dict[str, np.ndarray]:
    """Arrays for an npz of the reports indexed [point][run][mechanism]: ``counts`` (P, R, M, m) when every mechanism
    is a matrix, else each RAPPOR group under the prefix ``p{point}_r{run}_m{mechanism}_``."""
    first = reports[0][0]
    if all(not isinstance(r, RapporReports) for r in first):
        return {"counts": np.array(reports, dtype=np.int64)}
    arrays: dict[str, np.ndarray] = {}
    for p, by_run in enumerate(reports):
        for r, by_mechanism in enumerate(by_run):
            for j, group in enumerate(by_mechanism):
                if not isinstance(group, RapporReports):
                    raise ValueError("a set mixing RAPPOR and matrix mechanisms is not supported in storage")
                arrays |= group.to_arrays(f"p{p}_r{r}_m{j}_")
    return arrays


def reports_from_arrays(arrays: Mapping[str, np.ndarray], points: int, runs: int, mechanisms: int
                        ) -> list[list[list[Reports]]]:
    """The reports stored by ``reports_to_arrays``, indexed [point][run][mechanism]."""
    if "counts" in arrays:
        counts = arrays["counts"]
        return [[list(counts[p, r]) for r in range(runs)] for p in range(points)]
    return [[[RapporReports.from_arrays(arrays, f"p{p}_r{r}_m{j}_") for j in range(mechanisms)]
             for r in range(runs)] for p in range(points)]


# --- estimator families (sections 4-6) --------------------------------------------------------------------------------

FAMILY_METHODS: dict[str, tuple[str, ...]] = {
    "inv_r": ("[INV]_R-N", "[INV]_R-P"),
    "ibu_r": ("[IBU]_R",),
    "rap_r": ("[RAP]_R-N", "[RAP]_R-P"),
    "inv_m": ("[INV]_M-N", "[INV]_M-P", "[INV]_M-raw"),
    "ibu_m": ("[IBU]_M",),
    "rap_m": ("[RAP]_M-N", "[RAP]_M-P", "[RAP]_M-raw"),
    "gibu": ("GIBU",),
}
"""The methods each estimator family gives from one computation. -N: normalisation, -P: projection, -raw: the
estimate before post-processing (not a distribution: scored by l2^2 only, for Propositions 2 and 3)."""

RAW_SUFFIX = "-raw"


def method_family(method: str) -> str:
    """The estimator family that computes ``method``."""
    for family, methods in FAMILY_METHODS.items():
        if method in methods:
            return family
    known = ", ".join(m for methods in FAMILY_METHODS.values() for m in methods)
    raise ValueError(f"unknown method {method!r}; methods are {known}")


def _matrices(mechanisms: Sequence[Mechanism], method: str) -> list[np.ndarray]:
    if any(isinstance(m, Rappor) for m in mechanisms):
        raise ValueError(f"{method} needs matrix mechanisms; RAPPOR has 2^k observables")
    return [np.asarray(m) for m in mechanisms]


def _counts(reports: Sequence[Sequence[Reports]]) -> np.ndarray:
    """(runs, M, m) report counts of matrix mechanisms."""
    return np.array([[np.asarray(r) for r in by_mechanism] for by_mechanism in reports], dtype=np.float64)


def _rappor(mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]], method: str
            ) -> list[list[RapporReports]]:
    if not all(isinstance(m, Rappor) for m in mechanisms):
        raise ValueError(f"{method} needs RAPPOR mechanisms (its estimator works on bit sums)")
    return [list(by_mechanism) for by_mechanism in reports]  # type: ignore[arg-type]


def _users(reports: Sequence[Reports]) -> np.ndarray:
    return np.array([r.n if isinstance(r, RapporReports) else np.sum(r) for r in reports], dtype=np.float64)


def _inv_r(mechanisms, reports, _stopping):
    """[INV]_R (eqs. 4-5 with e = INV): INV on each mechanism's own reports, post-processed, weighted by n^A/n."""
    matrices = _matrices(mechanisms, "[INV]_R")
    out = {"[INV]_R-N": [], "[INV]_R-P": []}
    for counts in _counts(reports):
        raw = [estimators.inv(A, c) for A, c in zip(matrices, counts, strict=True)]
        n = counts.sum(axis=1)
        out["[INV]_R-N"].append(Estimate(estimators.combine_results([estimators.normalise(v) for v in raw], n)))
        out["[INV]_R-P"].append(Estimate(estimators.combine_results([estimators.project_simplex(v) for v in raw], n)))
    return out


def _ibu_r(mechanisms, reports, stopping):
    """[IBU]_R (eqs. 4-5 with e = IBU): IBU on each mechanism's own reports (batched over runs), weighted by n^A/n.
    Records the most iterations any mechanism's IBU used, and whether any hit the cap."""
    matrices = _matrices(mechanisms, "[IBU]_R")
    counts = _counts(reports)
    per_mechanism = [estimators.ibu_runs(A, counts[:, j], **stopping) for j, A in enumerate(matrices)]
    out = []
    for run, run_counts in enumerate(counts):
        results = [by_run[run] for by_run in per_mechanism]
        out.append(Estimate(estimators.combine_results([r.theta for r in results], run_counts.sum(axis=1)),
                            max(r.iterations for r in results), any(r.capped for r in results)))
    return {"[IBU]_R": out}


def _rap_r(mechanisms, reports, _stopping):
    """[RAP]_R (eqs. 4-5 with e = RAP): RAPPOR's estimator on each mechanism's own reports, weighted by n^A/n."""
    groups = _rappor(mechanisms, reports, "[RAP]_R")
    out = {"[RAP]_R-N": [], "[RAP]_R-P": []}
    for by_mechanism in groups:
        n = _users(by_mechanism)
        for method, post in (("[RAP]_R-N", "normalization"), ("[RAP]_R-P", "projection")):
            thetas = [estimators.rap_grouped([g], post=post) for g in by_mechanism]
            out[method].append(Estimate(estimators.combine_results(thetas, n)))
    return out


def _inv_m(mechanisms, reports, _stopping):
    """[INV]_M (eq. 7): INV on the average mechanism A[n] and the pooled reports; raw, normalised and projected."""
    matrices = _matrices(mechanisms, "[INV]_M")
    out = {"[INV]_M-N": [], "[INV]_M-P": [], "[INV]_M-raw": []}
    for counts in _counts(reports):
        raw = estimators.inv_m(matrices, list(counts))
        out["[INV]_M-raw"].append(Estimate(raw))
        out["[INV]_M-N"].append(Estimate(estimators.normalise(raw)))
        out["[INV]_M-P"].append(Estimate(estimators.project_simplex(raw)))
    return out


def _ibu_m(mechanisms, reports, stopping):
    """[IBU]_M (section 5.3): IBU on the average mechanism A[n] and the pooled reports (batched over runs when every
    run has the same n^A, as with the equal split)."""
    matrices = _matrices(mechanisms, "[IBU]_M")
    counts = _counts(reports)
    users = counts.sum(axis=2)
    if np.all(users == users[0]):
        results = estimators.ibu_runs(average(matrices, users[0]), counts.sum(axis=1), **stopping)
    else:
        results = [estimators.ibu_m(matrices, list(c), **stopping) for c in counts]
    return {"[IBU]_M": [Estimate(r.theta, r.iterations, r.capped) for r in results]}


def _rap_m(mechanisms, reports, _stopping):
    """[RAP]_M (eqs. 13-14): one estimate from the pooled bit sums with eps[n] of eq. (13); raw, normalised and
    projected."""
    groups = _rappor(mechanisms, reports, "[RAP]_M")
    out = {"[RAP]_M-N": [], "[RAP]_M-P": [], "[RAP]_M-raw": []}
    for by_mechanism in groups:
        raw = estimators.rap_grouped(by_mechanism)
        out["[RAP]_M-raw"].append(Estimate(raw))
        out["[RAP]_M-N"].append(Estimate(estimators.normalise(raw)))
        out["[RAP]_M-P"].append(Estimate(estimators.project_simplex(raw)))
    return out


def gibu_matrix_runs(matrices: Sequence[np.ndarray], counts: np.ndarray, delta: float = 1e-10,
                     max_iter: int = 10_000) -> list[estimators.IbuResult]:
    """GIBU (Algorithm 1) on matrix mechanisms for many runs at once: counts (runs, M, m).

    Algorithm 1's update is IBU's update on the columns of all mechanisms side by side, weighted by count / n; IBU's
    update does not change when every column is scaled by one constant, so GIBU is IBU on the row-stochastic
    [A^1 | ... | A^M] / M with the concatenated counts, which ``estimators.ibu_runs`` batches over runs. The
    log-likelihood differs from Algorithm 1's by the constant log M, so the stopping rule is the same.
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 3 or counts.shape[1] != len(matrices):
        raise ValueError(f"counts must have shape (runs, {len(matrices)}, m), got {counts.shape}")
    stacked = np.concatenate(matrices, axis=1) / len(matrices)
    return estimators.ibu_runs(stacked, counts.reshape(counts.shape[0], -1), delta=delta, max_iter=max_iter)


def _gibu(mechanisms, reports, stopping):
    """GIBU (Algorithm 1) on all reports, each mechanism with its own marginal: batched over runs for matrix
    mechanisms, one run at a time over RAPPOR groups of distinct bit vectors."""
    if not any(isinstance(m, Rappor) for m in mechanisms):
        results = gibu_matrix_runs([np.asarray(m) for m in mechanisms], _counts(reports), **stopping)
    else:
        results = []
        for by_mechanism in reports:
            groups = [estimators.rappor_group(r) if isinstance(r, RapporReports) else estimators.matrix_group(m, r)
                      for m, r in zip(mechanisms, by_mechanism, strict=True)]
            results.append(estimators.gibu(groups, **stopping))
    return {"GIBU": [Estimate(r.theta, r.iterations, r.capped) for r in results]}


FAMILIES: dict[str, Callable] = {"inv_r": _inv_r, "ibu_r": _ibu_r, "rap_r": _rap_r, "inv_m": _inv_m,
                                 "ibu_m": _ibu_m, "rap_m": _rap_m, "gibu": _gibu}


@dataclass(frozen=True)
class FamilyResult:
    """One family's estimates of one point (n) for every run: method -> estimates (one per run), and the reason the
    family cannot run on this set ('' when it ran; the estimates are then NaN, the paper's "NA")."""

    estimates: dict[str, list[Estimate]]
    note: str = ""


def estimate_family(family: str, mechanisms: Sequence[Mechanism], reports: Sequence[Sequence[Reports]],
                    stopping: Mapping) -> FamilyResult:
    """Every method of an estimator family on the reports [run][mechanism] of one n. A method that cannot run on the
    set (INV on a singular matrix, RAP on matrix reports, ...) gives NaN estimates and the error as the note."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    try:
        estimates = FAMILIES[family](mechanisms, reports, dict(stopping))
    except ValueError as error:
        k = mechanisms[0].k if isinstance(mechanisms[0], Rappor) else np.asarray(mechanisms[0]).shape[0]
        nan = Estimate(np.full(k, np.nan))
        return FamilyResult({m: [nan] * len(reports) for m in FAMILY_METHODS[family]}, " ".join(str(error).split()))
    for method, by_run in estimates.items():
        if not all(np.all(np.isfinite(e.theta)) for e in by_run):
            raise RuntimeError(f"{method}: a run gave a non-finite estimate (a numerical failure, not an NA)")
    return FamilyResult(estimates)


# --- Propositions 2 and 3 ---------------------------------------------------------------------------------------------


def krr_average_eps(eps: Sequence[float], users: Sequence[float], k: int) -> float:
    """eps[n] of eq. (8): 1/(k-1+e^eps[n]) is the user-weighted mean of 1/(k-1+e^eps_i)."""
    eps, users = np.asarray(eps, dtype=np.float64), np.asarray(users, dtype=np.float64)
    mean = users @ (1.0 / (k - 1 + np.exp(eps))) / users.sum()
    return float(np.log(1.0 / mean - (k - 1)))


def rappor_average_eps(eps: Sequence[float], users: Sequence[float]) -> float:
    """eps[n] of eq. (13): 1/(1+e^(eps[n]/2)) is the user-weighted mean of the flip probabilities 1/(1+e^(eps_i/2))."""
    users = np.asarray(users, dtype=np.float64)
    mean = users @ flip_probability(np.asarray(eps, dtype=np.float64)) / users.sum()
    return float(2 * np.log(1.0 / mean - 1))


def sampling_floor(theta: np.ndarray, n: float) -> float:
    """(1 - sum theta_x^2) / n: the expected l2^2 error of the empirical distribution of n unperturbed samples."""
    theta = np.asarray(theta, dtype=np.float64)
    return float((1 - theta @ theta) / n)


def proposition2_bound(theta: np.ndarray, eps_n: float, n: float) -> float:
    """Proposition 2: E||theta_hat - theta||^2 of [INV]_M under k-RR mechanisms is at most
    (1 - sum theta^2)/n + (k-1)/n (k + 2(e^eps[n] - 1)) / (e^eps[n] - 1)^2, with equality when all eps_i are equal."""
    k, a = len(theta), math.expm1(eps_n)
    return sampling_floor(theta, n) + (k - 1) / n * (k + 2 * a) / a**2


def proposition3_bound(theta: np.ndarray, eps_n: float, n: float) -> float:
    """Proposition 3: E||theta_hat - theta||^2 of [RAP]_M is at most (1 - sum theta^2)/n + (1/n) k e^(eps[n]/2) /
    (e^(eps[n]/2) - 1)^2, with equality when all eps_i are equal."""
    k, h = len(theta), math.exp(eps_n / 2)
    return sampling_floor(theta, n) + k * h / (n * (h - 1) ** 2)


def proposition_bound(proposition: int, theta: np.ndarray, set_members: Sequence[Member], n: int) -> dict:
    """The bound of Proposition 2 (k-RR set, [INV]_M) or 3 (RAPPOR set, [RAP]_M) for n users split equally over the
    set, with eps[n] and the sampling floor."""
    users = group_sizes(n, len(set_members))
    eps = [m.parameter for m in set_members]
    if proposition == 2:
        if any(m.kind != "krr" for m in set_members):
            raise ValueError("Proposition 2 needs a set of k-RR mechanisms")
        eps_n = krr_average_eps(eps, users, len(theta))
        bound = proposition2_bound(theta, eps_n, n)
    elif proposition == 3:
        if any(m.kind != "rappor" for m in set_members):
            raise ValueError("Proposition 3 needs a set of RAPPOR mechanisms")
        eps_n = rappor_average_eps(eps, users)
        bound = proposition3_bound(theta, eps_n, n)
    else:
        raise ValueError(f"proposition must be 2 or 3, got {proposition}")
    return {"eps_n": eps_n, "bound": bound, "floor": sampling_floor(theta, n)}


# --- the non-informative example of eq. (11) --------------------------------------------------------------------------


def noninformative_estimates(mechanisms: Sequence[np.ndarray], counts: np.ndarray, stopping: Mapping
                             ) -> dict[str, list[np.ndarray]]:
    """[IBU]_M, GIBU and [INV]_M (projected; NaN when A[n] is singular) on the counts (runs, M, m) of eq. (11)'s
    population. With half the users on A and half on A', A[n] has uniform rows: [IBU]_M cannot move from its start."""
    counts = np.asarray(counts, dtype=np.float64)
    users = counts.sum(axis=2)[0]
    matrices = [np.asarray(A, dtype=np.float64) for A in mechanisms]
    ibu_m = estimators.ibu_runs(average(matrices, users), counts.sum(axis=1), **stopping)
    gibu = gibu_matrix_runs(matrices, counts, **stopping)
    inv = []
    for run in counts:
        try:
            inv.append(estimators.inv_m(matrices, list(run), post="projection"))
        except ValueError:
            inv.append(np.full(matrices[0].shape[0], np.nan))
    return {"[IBU]_M": [r.theta for r in ibu_m], "GIBU": [r.theta for r in gibu], "[INV]_M-P": inv}


# --- summaries, findings and the verdicts of Tables 1 and 2 -----------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """Per-run EMDs of one (mechanism set, n, method), in run order."""

    emd: np.ndarray

    @property
    def available(self) -> bool:
        return bool(np.isfinite(self.emd).any())

    @property
    def mean(self) -> float:
        return float(np.mean(self.emd))


def emd_by_run(rows: Sequence[Mapping]) -> dict[tuple[str, int, str], Summary]:
    """(mechanism_set, n, method) -> the EMDs of its runs, from tidy score rows (raw methods left out)."""
    table: dict[tuple[str, int, str], dict[int, float]] = {}
    for row in rows:
        if str(row["method"]).endswith(RAW_SUFFIX):
            continue
        key = (str(row["mechanism_set"]), int(row["n"]), str(row["method"]))
        table.setdefault(key, {})[int(row["run"])] = float(row["emd"])
    return {key: Summary(np.array([runs[r] for r in sorted(runs)])) for key, runs in table.items()}


def largest_n(scores: Mapping[tuple[str, int, str], Summary], mechanism_set: str) -> int:
    ns = [n for (s, n, _m) in scores if s == mechanism_set]
    if not ns:
        raise ValueError(f"no scores for mechanism set {mechanism_set!r}")
    return max(ns)


def verdict(ratio: float, rule: Sequence[Mapping]) -> str:
    """The first verdict of the config's rule whose max_ratio the ratio does not exceed (an entry without max_ratio
    matches any ratio); 'NA' for a NaN ratio (the method cannot run)."""
    if not np.isfinite(ratio):
        return "NA"
    for entry in rule:
        if "max_ratio" not in entry or ratio <= float(entry["max_ratio"]):
            return str(entry["verdict"])
    raise ValueError("the verdict rule needs a last entry without max_ratio")


def ratio_to_gibu(scores: Mapping[tuple[str, int, str], Summary], mechanism_set: str, method: str) -> float | None:
    """Mean EMD of the method over that of GIBU at the set's largest n; NaN when the method cannot run (NA), None
    when the method was not run on this set."""
    n = largest_n(scores, mechanism_set)
    if (mechanism_set, n, method) not in scores:
        return None
    summary = scores[(mechanism_set, n, method)]
    if not summary.available:
        return float("nan")
    return summary.mean / scores[(mechanism_set, n, "GIBU")].mean


def verdict_table(scores: Mapping[tuple[str, int, str], Summary], spec: Mapping, rule: Sequence[Mapping]
                  ) -> list[dict]:
    """The cells of Table 1 or 2 computed from measured EMDs. spec: {'columns': [{'label', 'methods'}], 'rows':
    [{'label', 'mechanism_sets', 'paper': [verdict per column, in column order]}]}.

    One line per (row, column, mechanism set): the best variant of the column's methods (e.g. projection or
    normalisation) and its EMD ratio to GIBU at the largest n; the cell's verdict is that of the worst set (largest
    ratio) among the sets where the method ran; 'NA' when it could run on none.
    """
    lines = []
    columns = [(column["label"], column["methods"]) for column in spec["columns"]]
    for row in spec["rows"]:
        if len(row["paper"]) != len(columns):
            raise ValueError(f"row {row['label']!r}: paper needs one verdict per column ({len(columns)})")
        for (column, methods), paper in zip(columns, row["paper"], strict=True):
            cells = []
            for mechanism_set in row["mechanism_sets"]:
                ratios = {m: ratio_to_gibu(scores, mechanism_set, m) for m in methods}
                ratios = {m: r for m, r in ratios.items() if r is not None}
                if not ratios:
                    continue
                finite = {m: r for m, r in ratios.items() if np.isfinite(r)}
                best = min(finite, key=finite.get) if finite else next(iter(ratios))
                cells.append({"mechanism_set": mechanism_set, "method": best, "ratio": ratios[best],
                              "n": largest_n(scores, mechanism_set)})
            if not cells:
                raise ValueError(f"table cell ({row['label']}, {column}): none of {methods} ran on "
                                 f"{row['mechanism_sets']}")
            finite = [c["ratio"] for c in cells if np.isfinite(c["ratio"])]
            ours = verdict(max(finite), rule) if finite else "NA"
            lines += [{"row": row["label"], "column": column, **c, "verdict": ours, "paper": paper} for c in cells]
    return lines


def verdict_markdown(title: str, lines: Sequence[Mapping]) -> str:
    """A rendered Table 1 or 2: each cell 'ours (ratios) / paper'."""
    columns = list(dict.fromkeys(line["column"] for line in lines))
    out = [f"# {title}", "", "Each cell: our verdict (EMD ratio to GIBU at the largest n, one per mechanism set) | "
           "the paper's verdict.", "", "| | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for row in dict.fromkeys(line["row"] for line in lines):
        cells = []
        for column in columns:
            mine = [line for line in lines if line["row"] == row and line["column"] == column]
            ratios = ", ".join("NA" if not np.isfinite(c["ratio"]) else f"{c['ratio']:.2f}" for c in mine)
            cells.append(f"**{mine[0]['verdict']}** ({ratios}) · paper: {mine[0]['paper']}")
        out.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def paired_difference(better: Summary, worse: Summary) -> tuple[float, float]:
    """Mean and standard error over runs of EMD(better) - EMD(worse), paired by run (same reports)."""
    d = better.emd - worse.emd
    se = float(np.std(d, ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
    return float(np.mean(d)), se


def check_findings(scores: Mapping[tuple[str, int, str], Summary], checks: Sequence[Mapping], z: float
                   ) -> list[dict]:
    """The qualitative findings of the paper, tested at each set's largest n on the paired differences over runs.

    Each check {'name', 'test', 'better', 'worse', 'mechanism_sets' (optional: every set that ran both)}: 'worse' is
    a method, a list of methods, or 'any' (every other method). test 'not_worse': mean(better - worse) <= z SE (the
    better is not worse by more than noise); test 'better': mean(better - worse) < -z SE (strictly better beyond
    noise). Pairs where either method cannot run (NA) are skipped.
    """
    results = []
    sets = sorted({s for (s, _n, _m) in scores})
    for check in checks:
        if check["test"] not in ("not_worse", "better"):
            raise ValueError(f"check {check['name']!r}: test must be 'not_worse' or 'better', got {check['test']!r}")
        for mechanism_set in check.get("mechanism_sets", sets):
            n = largest_n(scores, mechanism_set)
            methods = sorted(m for (s, nn, m) in scores if s == mechanism_set and nn == n)
            better = check["better"]
            worse = ([m for m in methods if m != better] if check["worse"] == "any"
                     else [check["worse"]] if isinstance(check["worse"], str) else list(check["worse"]))
            for method in worse:
                if method not in methods or better not in methods:
                    continue
                a, b = scores[(mechanism_set, n, better)], scores[(mechanism_set, n, method)]
                if not (a.available and b.available):
                    continue
                mean, se = paired_difference(a, b)
                margin = z * se if np.isfinite(se) else 0.0
                passed = mean <= margin if check["test"] == "not_worse" else mean < -margin
                results.append({"check": check["name"], "test": check["test"], "mechanism_set": mechanism_set,
                                "n": n, "better": better, "worse": method, "emd_better": a.mean, "emd_worse": b.mean,
                                "mean_difference": mean, "standard_error": se, "z": z, "passed": bool(passed)})
    return results
