"""Rule fw_propositions: Propositions 2 and 3 of the free-will paper. The closed-form bound on E||theta_hat -
theta||^2 of the raw [INV]_M (k-RR mechanisms) and [RAP]_M (RAPPOR) estimates beside their simulated mean squared
error over runs with its interval (Student t on runs - 1 degrees of freedom), and the exact expected error
(``free_will_verdicts.expected_mse``), against n; one panel per configured mechanism set."""

import numpy as np

from privest_studies import experiment, files, free_will, free_will_verdicts, jobs, plotting, uncertainty

NAMES = {"[INV]_M-raw": r"$[\mathrm{INV}]_\mathrm{M}$ (eq. 9)", "[RAP]_M-raw": r"$[\mathrm{RAP}]_\mathrm{M}$ (eq. 14)"}


def main() -> None:
    table = files.load_table(snakemake.input.scores, dtypes={"note": str})
    panels = snakemake.params.panels
    columns = min(2, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = plotting.figure(nrows=rows, ncols=columns, figsize=(5.2 * columns, 4.0 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    lines = []
    for ax, panel, mechanisms_path, theta_path, letter in zip(axes.flat, panels, snakemake.input.mechanisms,
                                                               snakemake.input.thetas, "abcdefgh", strict=False):
        members = experiment.mechanisms_from_arrays(files.load_npz(mechanisms_path))[0]
        theta = files.load_npz(theta_path)["theta"]
        rows = table[(table["mechanism_set"] == panel["mechanism_set"]) & (table["method"] == panel["method"])]
        for n, runs in rows.sort_values("run").groupby("n")["l2sq"]:
            bound = free_will.proposition_bound(panel["proposition"], theta, members, int(n))
            mse = uncertainty.mean_interval(runs.to_numpy(dtype=float), snakemake.params.level)
            lines.append({"mechanism_set": panel["mechanism_set"], "proposition": panel["proposition"],
                          "method": panel["method"], "n": int(n), "eps_n": bound["eps_n"], "bound": bound["bound"],
                          "floor": bound["floor"], "runs": mse.runs, "mse_mean": mse.mean,
                          "mse_sd": float(runs.std(ddof=1)), "mse_low": mse.low, "mse_high": mse.high,
                          "level": mse.level, "mse_over_bound": mse.mean / bound["bound"],
                          "expected": free_will_verdicts.expected_mse(
                              panel["proposition"], theta, [m.parameter for m in members],
                              free_will.group_sizes(int(n), len(members)))})
        mine = [line for line in lines if line["mechanism_set"] == panel["mechanism_set"]]
        n = np.array([line["n"] for line in mine])
        grid = np.geomspace(n.min(), n.max(), 50)
        bounds = [free_will.proposition_bound(panel["proposition"], theta, members, round(x)) for x in grid]
        ax.plot(grid, [b["bound"] for b in bounds], color="black", lw=1.4,
                label=f"Proposition {panel['proposition']} bound")
        ax.plot(grid, [b["floor"] for b in bounds], color="0.5", lw=1.0, ls=":", label="no privacy (1-Σθ²)/n")
        ax.errorbar(n, [line["mse_mean"] for line in mine], yerr=[line["mse_sd"] for line in mine], fmt="o",
                    ms=4, capsize=3, color=plotting.METHOD_COLOURS.get(panel["method"].replace("-raw", "-P")),
                    label=f"{NAMES[panel['method']]}, simulated")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of users n (log scale)")
        ax.set_ylabel(r"$E\,\|\hat\theta - \theta\|_2^2$ (log scale)")
        ax.set_title(f"({letter}) {panel['mechanism_set']}: {experiment.describe(members)}\n"
                     f"ε[n] = {mine[0]['eps_n']:.3f}, k = {len(theta)}", fontsize=8.5)
        ax.legend(fontsize=7)
    fig.suptitle("Propositions 2 and 3: closed-form l2² bounds against the simulated mean squared error\n"
                 "of the raw estimates (before post-processing)", fontsize=10)
    fig.tight_layout()
    fig.text(0.5, -0.02, f"{snakemake.params.runs} runs per n (mean ± 1 s.d.); users split equally over the "
             "mechanisms; the bound holds with equality when every user has the same ε", ha="center", va="top",
             fontsize=7)
    plotting.save(fig, *snakemake.output.figure)
    files.save_rows(lines, list(lines[0]), snakemake.output.table)


jobs.run_or_exit(main, snakemake.log)
