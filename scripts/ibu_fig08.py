"""Rule ibu_fig08: the original, noisy, INV-P, INV-N and IBU distributions on the planar grid (run 0 at one eps),
each titled with its EMD (IBU paper Figure 8), and the table of our EMDs beside the paper's."""

import numpy as np
from matplotlib.colors import LogNorm

from privest_studies import files, jobs, plotting, regions, tables

PANELS = {"a": "original", "b": "noisy", "c": "INV-P", "d": "INV-N", "e": "IBU"}


def main() -> None:
    spec = files.load_json(snakemake.input.alphabet)
    data = files.load_npz(snakemake.input.data)
    theta = data["theta"]
    eps, published = snakemake.params.eps, snakemake.params.published
    reports = files.load_npz(snakemake.input.reports)
    (point,) = np.flatnonzero(reports["points"] == eps)
    counts = reports["counts"][point, 0, 0]
    distributions = {"original": theta, "noisy": counts / counts.sum()}
    for path in snakemake.input.estimates:
        archive = files.load_npz(path)
        distributions |= {str(m): archive["theta"][i, point, 0] for i, m in enumerate(archive["methods"])}
    scores = files.load_table(snakemake.input.scores)
    scores = scores[(scores["eps"] == eps) & (scores["run"] == 0)].set_index("method")
    region = regions.region_name(spec)
    norm = LogNorm(vmin=1e-5, vmax=max(d.max() for d in distributions.values()), clip=True)
    outputs = iter(snakemake.output.figures)
    for panel, name in PANELS.items():
        fig, ax = plotting.figure(figsize=(5.6, 4.2))
        image = plotting.planar_heatmap(ax, distributions[name], spec, norm=norm)
        fig.colorbar(image, ax=ax, label="probability (log scale, floor 1e-5)", shrink=0.8)
        emd = "" if name == "original" else f" (EMD = {scores.loc[name, 'emd']:.4f} km)"
        ax.set_title(f"Figure 8({panel}): {name}{emd}\n{region}", fontsize=9)
        note = f"planar geometric ε = {eps:g} per km, run 0 of {snakemake.params.experiment}"
        if name == "IBU":
            note += (f"; {plotting.stopping_note(snakemake.params.stopping)}: stopped after "
                     f"{int(scores.loc['IBU', 'iterations']):,}" + (" (cap)" if scores.loc["IBU", "capped"] else ""))
        ax.text(0.5, -0.2, note, ha="center", va="top", fontsize=7, transform=ax.transAxes)
        plotting.save(fig, next(outputs), next(outputs))
    published_region = regions.region_name(snakemake.params.published_region)
    rows = [{"method": m, "emd_km": float(scores.loc[m, "emd"]), "published_emd_km": float(published[m]),
             "emd_over_noisy": float(scores.loc[m, "emd"] / scores.loc["noisy", "emd"]),
             "published_over_noisy": float(published[m] / published["noisy"]),
             "iterations": int(scores.loc[m, "iterations"]), "region": region, "checkins": int(data["secrets"].size),
             "published_region": published_region, "published_checkins": snakemake.params.published_checkins}
            for m in ("noisy", "INV-P", "INV-N", "IBU")]
    columns = list(rows[0])
    files.save_rows(rows, columns, snakemake.output.table)
    same = spec.get("region") == snakemake.params.published_region["region"]
    caveat = ("The region is the paper's." if same else
              f"The regions differ (config data.planar_region: {spec.get('requested')}; Manhattan needs the full "
              "Gowalla file), so compare the ratios to the noisy EMD rather than the EMDs themselves.")
    files.write_text(snakemake.output.markdown,
                  f"# IBU paper Figure 8: EMD (km) to the original distribution, planar geometric ε = {eps:g}\n\n"
                  f"Ours: {region}, run 0; the paper's: {published_region}. {caveat}\n\n"
                  + tables.markdown_table(rows, columns, float_format="{:.4f}"))


jobs.run_or_exit(main, snakemake.log)
