"""Rule ibu_fig11: IBU's estimate from RAPPOR reports against the original distribution, one panel per synthetic
dataset (IBU paper Figure 11: X = {0..9}, 10^5 users, eps = 0.5), run 0."""

import numpy as np

from privest import alphabets
from privest_studies import files, jobs, plotting


def main() -> None:
    eps = snakemake.params.eps
    outputs = iter(snakemake.output)
    panels = zip(snakemake.input.alphabets, snakemake.input.data, snakemake.input.reports, snakemake.input.estimates,
                 strict=True)
    for panel, (alphabet_path, data_path, reports_path, estimates_path) in zip("abcdefgh", panels, strict=False):
        spec = files.load_json(alphabet_path)
        reports = files.load_npz(reports_path)
        (point,) = np.flatnonzero(reports["points"] == eps)
        users = reports["secret_counts"][point, 0, 0]
        original = users / users.sum()
        estimates = files.load_npz(estimates_path)
        (method,) = np.flatnonzero(estimates["methods"] == "IBU")
        estimate = estimates["theta"][method, point, 0]
        iterations, capped = estimates["iterations"][method, point, 0], estimates["capped"][method, point, 0]
        emd = alphabets.Alphabet.from_dict(spec).emd(original, estimate)
        x = np.arange(spec["k"])
        fig, ax = plotting.figure(figsize=(5.2, 3.4))
        ax.bar(x - 0.2, original, width=0.4, color=plotting.METHOD_COLOURS["original"], alpha=0.75,
               label=f"original ({users.sum():,} users drawn)")
        ax.bar(x + 0.2, estimate, width=0.4, color=plotting.METHOD_COLOURS["IBU"], label="IBU estimate")
        ax.plot(x, files.load_npz(data_path)["theta"], "k_", markersize=14, label=f"θ = {spec['label']}")
        ax.set_xticks(x)
        ax.set_xlabel("x ∈ X")
        ax.set_ylabel("probability")
        ax.set_ylim(0, 1.4 * max(original.max(), estimate.max()))
        ax.legend(loc="upper left")
        ax.set_title(f"Figure 11({panel}): RAPPOR ε = {eps:g}, θ = {spec['label']}; IBU EMD = {emd:.4f}",
                     fontsize=9)
        fig.text(0.5, -0.02, f"run 0; {plotting.stopping_note(snakemake.params.stopping)}: stopped after "
                 f"{int(iterations):,}" + (" (cap)" if capped else ""), ha="center", va="top", fontsize=7)
        plotting.save(fig, next(outputs), next(outputs))


jobs.run_or_exit(main, snakemake.log)
