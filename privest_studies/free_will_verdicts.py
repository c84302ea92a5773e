"""The free-will study's numbers that the report judges (``privest_studies.reproduction.checks_free_will`` alone turns
them into verdicts): the per-run EMDs of each (mechanism set, n, method), the cells of Tables 1 and 2 as EMD ratios
to GIBU with their intervals, the paired per-run differences behind the paper's qualitative findings, and the exact
expected squared error of Propositions 2 and 3's raw estimates.

A table cell's number is the EMD ratio of the column's method to GIBU at the set's largest n **with its interval**
(``uncertainty.ratio_interval``: the delta method on the paired per-run EMDs, Student's t on runs - 1 degrees of
freedom); a finding's is the paired per-run difference d = EMD(better) - EMD(worse) with its t interval
(``uncertainty.difference_interval``) and the ratio EMD(worse) / EMD(better) with its interval."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privest_studies import tables
from privest_studies.experiment import RAW_SUFFIX
from privest_studies.uncertainty import NA_RATIO, Ratio, difference_interval, ratio_interval

REFERENCE = "GIBU"
"""The method every table ratio is taken over: its own column of Tables 1-2 is the reference (1.00 by definition)."""


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


def ratio_to_gibu(scores: Mapping[tuple[str, int, str], Summary], mechanism_set: str, method: str,
                  level: float = 0.95) -> Ratio | None:
    """The method's mean EMD over GIBU's at the set's largest n, with its interval (``ratio_interval``, paired by
    run); NA when the method cannot run, None when it was not run on this set."""
    n = largest_n(scores, mechanism_set)
    if (mechanism_set, n, method) not in scores:
        return None
    summary = scores[(mechanism_set, n, method)]
    if not summary.available:
        return NA_RATIO
    return ratio_interval(summary.emd, scores[(mechanism_set, n, REFERENCE)].emd, level)


RATIO_COLUMNS = ["row", "column", "mechanism_set", "alphabet", "n", "method", "reference", "runs", "ratio",
                 "ratio_low", "ratio_high", "level", "paper"]
"""The columns of tables/table01.csv and table02.csv (``ratio_table``'s lines)."""


def ratio_table(scores: Mapping[tuple[str, int, str], Summary], spec: Mapping,
                alphabets: Mapping[str, str] | None = None, level: float = 0.95) -> list[dict]:
    """The numbers of Table 1 or 2 computed from measured EMDs. spec: {'columns': [{'label', 'methods'}], 'rows':
    [{'label', 'mechanism_sets', 'paper': [verdict per column, in column order]}]}; alphabets: each mechanism set's
    alphabet (linear, planar, ...).

    One line per (row, column, mechanism set): the best variant of the column's methods (e.g. projection or
    normalisation, by its ratio) and its EMD ratio to the reference (GIBU) at the largest n with the interval at
    ``level`` (NaN where the method cannot run), and the paper's verdict of the cell (the report judges the cell).
    """
    lines = []
    columns = [(column["label"], column["methods"]) for column in spec["columns"]]
    for row in spec["rows"]:
        if len(row["paper"]) != len(columns):
            raise ValueError(f"row {row['label']!r}: paper needs one verdict per column ({len(columns)})")
        for (column, methods), paper in zip(columns, row["paper"], strict=True):
            cells = []
            for mechanism_set in row["mechanism_sets"]:
                ratios = {m: ratio_to_gibu(scores, mechanism_set, m, level) for m in methods}
                ratios = {m: r for m, r in ratios.items() if r is not None}
                if not ratios:
                    continue
                finite = {m: r.value for m, r in ratios.items() if r.available}
                best = min(finite, key=finite.get) if finite else next(iter(ratios))
                r = ratios[best]
                cells.append({"mechanism_set": mechanism_set, "alphabet": (alphabets or {}).get(mechanism_set, ""),
                              "method": best, "reference": REFERENCE, "n": largest_n(scores, mechanism_set),
                              "runs": r.runs,
                              "ratio": r.value, "ratio_low": r.low, "ratio_high": r.high, "level": level})
            if not cells:
                raise ValueError(f"table cell ({row['label']}, {column}): none of {methods} ran on "
                                 f"{row['mechanism_sets']}")
            lines += [{"row": row["label"], "column": column, **c, "paper": paper} for c in cells]
    return lines


def ratio_markdown(title: str, lines: Sequence[Mapping]) -> str:
    """A rendered Table 1 or 2 of numbers: each cell the EMD ratio to GIBU at the largest n (one per mechanism set)
    with its interval, and the paper's verdict. The verdicts are the reproduction report's."""
    columns = list(dict.fromkeys(line["column"] for line in lines))
    runs = sorted({int(line["runs"]) for line in lines if np.isfinite(line["ratio"])})
    levels = sorted({float(line["level"]) for line in lines})
    out = [f"# {title}", "",
           f"Each cell: the EMD ratio of the column's best variant to GIBU at the largest n (one per mechanism set) "
           f"with its {', '.join(f'{x:.0%}' for x in levels)} interval over {', '.join(map(str, runs))} runs (delta "
           "method on the paired per-run EMDs, Student's t on runs - 1 degrees of freedom), and the paper's verdict. "
           f"The {REFERENCE} column is the reference (its own EMD over itself). Our verdicts, and whether they agree "
           "with the paper's, are in the reproduction report (results/REPRODUCTION.md).", "",
           "| | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for row in dict.fromkeys(line["row"] for line in lines):
        cells = []
        for column in columns:
            mine = [line for line in lines if line["row"] == row and line["column"] == column]
            ratios = ", ".join(Ratio(c["ratio"], c["ratio_low"], c["ratio_high"], c["runs"]).text() for c in mine)
            cells.append(f"{ratios} · paper: {mine[0]['paper']}")
        out.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


FINDING_COLUMNS = ["check", "test", "mechanism_set", "n", "better", "worse", "runs", "emd_better", "emd_worse",
                   "mean_difference", "standard_error", "difference_low", "difference_high", "ratio", "ratio_low",
                   "ratio_high", "level"]
"""The columns of tables/findings.csv (``finding_numbers``' lines)."""

FINDING_TESTS = ("better", "similar")
"""better: the paper's "superior", "outperforms", "clearly better"; similar: the paper's "similar" (both ways)."""


def finding_numbers(scores: Mapping[tuple[str, int, str], Summary], checks: Sequence[Mapping], level: float = 0.95
                    ) -> list[dict]:
    """The numbers behind the paper's qualitative findings, at each set's largest n, paired by run (same reports).

    Each check {'name', 'test', 'better', 'worse', 'mechanism_sets' (optional: every set that ran both)}: 'worse' is
    a method, a list of methods, or 'any' (every other method). One line per (check, set, worse method): the paired
    per-run difference d = EMD(better) - EMD(worse) with its t interval at ``level`` (``difference_interval``), and
    the ratio EMD(worse) / EMD(better) with its interval (``ratio_interval``). Pairs where either method cannot run
    (NA) are left out."""
    lines = []
    sets = sorted({s for (s, _n, _m) in scores})
    for check in checks:
        if check["test"] not in FINDING_TESTS:
            raise ValueError(f"check {check['name']!r}: test must be one of {FINDING_TESTS}, got {check['test']!r}")
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
                d, r = difference_interval(a.emd, b.emd, level), ratio_interval(b.emd, a.emd, level)
                lines.append({"check": check["name"], "test": check["test"], "mechanism_set": mechanism_set,
                              "n": n, "better": better, "worse": method, "runs": d.runs, "emd_better": a.mean,
                              "emd_worse": b.mean, "mean_difference": d.mean, "standard_error": d.se,
                              "difference_low": d.low, "difference_high": d.high, "ratio": r.value,
                              "ratio_low": r.low, "ratio_high": r.high, "level": level})
    return lines


def findings_markdown(lines: Sequence[Mapping]) -> str:
    """The numbers of ``finding_numbers`` as a markdown page, one row per comparison (the verdicts are the
    reproduction report's)."""
    rows = [{"check": line["check"], "test": line["test"], "set": line["mechanism_set"], "n": f"{line['n']:,}",
             "better": line["better"], "worse": line["worse"], "runs": line["runs"],
             "EMD better": f"{line['emd_better']:.4g}", "EMD worse": f"{line['emd_worse']:.4g}",
             "d [interval]": f"{line['mean_difference']:+.3g} [{line['difference_low']:+.3g}, "
                             f"{line['difference_high']:+.3g}]",
             "worse / better": Ratio(line["ratio"], line["ratio_low"], line["ratio_high"], line["runs"]).text()}
            for line in lines]
    columns = ["check", "test", "set", "n", "better", "worse", "runs", "EMD better", "EMD worse", "d [interval]",
               "worse / better"]
    levels = sorted({float(line["level"]) for line in lines})
    return ("# The numbers behind the paper's qualitative findings\n\n"
            f"At each set's largest n, d = EMD(better) - EMD(worse) per run (the same reports for both), its mean "
            f"with its {', '.join(f'{x:.0%}' for x in levels)} interval (Student's t on runs - 1 degrees of freedom), "
            "and the ratio of the mean EMDs with its interval (delta method). The verdicts are in the reproduction "
            "report (results/REPRODUCTION.md).\n\n" + tables.markdown_table(rows, columns))


# --- Propositions 2 and 3: the exact expected squared error ------------------------------------------------------


def expected_mse(proposition: int, theta: np.ndarray, eps: Sequence[float], users: Sequence[int]) -> float:
    """E||theta_hat - theta||^2 of the raw [INV]_M (Proposition 2, k-RR) or [RAP]_M (Proposition 3, RAPPOR) estimate
    when users[j] users drawn i.i.d. from theta apply the mechanism of eps[j], computed from the estimate's variance
    (not from the propositions' formulas): both estimates are unbiased, so the error is the sum over x of the
    variance.

    [INV]_M (eq. 9): theta_hat = c q - (1/(e^eps[n] - 1)) 1 with c = (e^eps[n] + k - 1) / (e^eps[n] - 1), eps[n] of
    eq. (8) and q the pooled report frequencies; a group of u users on k-RR(eps_j) reports z with probability
    p_jz = b_j + (1 - k b_j) theta_z, b_j = 1 / (k - 1 + e^eps_j), so E = c^2 / n^2 sum_j u_j (1 - ||p_j||^2).
    [RAP]_M (eq. 14): bit x of a user on flip probability f_j = 1 / (1 + e^(eps_j / 2)) is 1 with probability
    b_jx = f_j + (1 - 2 f_j) theta_x; theta_hat = (s - f_bar) / (1 - 2 f_bar) with f_bar the users' mean flip
    probability (eq. 13), so E = sum_j u_j sum_x b_jx (1 - b_jx) / (n^2 (1 - 2 f_bar)^2)."""
    theta = np.asarray(theta, dtype=np.float64)
    eps, users = np.asarray(eps, dtype=np.float64), np.asarray(users, dtype=np.float64)
    k, n = len(theta), users.sum()
    if proposition == 2:
        b = 1.0 / (k - 1 + np.exp(eps))
        reports = b[:, None] + (1 - k * b[:, None]) * theta[None, :]
        b_n = users @ b / n  # eq. (8): 1 / (k - 1 + e^eps[n])
        c = (1 / b_n) / (1 / b_n - k)  # (e^eps[n] + k - 1) / (e^eps[n] - 1)
        return float(c**2 * (users @ (1 - (reports**2).sum(axis=1))) / n**2)
    if proposition == 3:
        f = 1.0 / (1.0 + np.exp(eps / 2))
        f_bar = users @ f / n
        bits = f[:, None] + (1 - 2 * f[:, None]) * theta[None, :]
        return float(users @ (bits * (1 - bits)).sum(axis=1) / (n**2 * (1 - 2 * f_bar) ** 2))
    raise ValueError(f"proposition must be 2 or 3, got {proposition}")

