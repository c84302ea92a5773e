"""Rule ibu_fig01: original, noisy and estimated distributions of Adult ages (run 0), one figure per method."""

import numpy as np

from privest import alphabets
from privest_studies import files, jobs, plotting


def main() -> None:
    alphabet = alphabets.Alphabet.from_dict(files.load_json(snakemake.input.alphabet))
    data = files.load_npz(snakemake.input.data)
    theta = data["theta"]
    reports = files.load_npz(snakemake.input.reports)
    (point,) = np.flatnonzero(reports["points"] == snakemake.params.eps)
    counts = reports["counts"][point, 0, 0]
    estimates = {}
    for path in snakemake.input.estimates:
        archive = files.load_npz(path)
        estimates |= {str(m): archive["theta"][i, point, 0] for i, m in enumerate(archive["methods"])}
    outputs = iter(snakemake.output)
    for panel, method in zip("abc", snakemake.params.methods, strict=False):
        fig, ax = plotting.figure(figsize=(5.2, 3.4))
        plotting.linear_distributions(ax, {"original": theta, "noisy": counts / counts.sum(),
                                           method: estimates[method]}, xlabel="age (years)")
        ax.set_title(f"Figure 1({panel}): {method}, EMD = {alphabet.emd(theta, estimates[method]):.3f}")
        note = (f"Adult ages, n = {data['secrets'].size:,}; truncated geometric ε = {snakemake.params.eps:g}; "
                f"run 0")
        if method == "IBU":
            note += f"; {plotting.stopping_note(snakemake.params.stopping)}"
        fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=7)
        ax.set_xlim(0, alphabet.k - 1)
        ax.set_ylim(bottom=0, top=1.15 * max(np.max(theta), np.max(estimates[method])))
        plotting.save(fig, next(outputs), next(outputs))


jobs.run_or_exit(main, snakemake.log)
