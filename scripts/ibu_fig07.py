"""Rule ibu_fig07: the check-ins of the planar region on its grid (IBU paper Figure 7), log colour scale."""

import numpy as np
from matplotlib.colors import LogNorm

from privest_studies import files, jobs, plotting, regions


def main() -> None:
    spec = files.load_json(snakemake.input.alphabet)
    secrets = files.load_npz(snakemake.input.data)["secrets"]
    counts = np.bincount(secrets, minlength=spec["k"]).astype(np.float64)
    fig, ax = plotting.figure(figsize=(6.4, 4.4))
    image = plotting.planar_heatmap(ax, np.where(counts > 0, counts, np.nan), spec, norm=LogNorm(vmin=1))
    fig.colorbar(image, ax=ax, label="check-ins per cell (log scale; blank: none)", shrink=0.8)
    ax.set_title(f"Figure 7: Gowalla check-ins, {regions.region_name(spec)}\n{secrets.size:,} check-ins in "
                 f"{int((counts > 0).sum())} of {spec['k']} cells", fontsize=9)
    box = spec["box"]
    ax.text(0.5, -0.2, f"box lat {box['lat_min']}..{box['lat_max']}, lon {box['lon_min']}..{box['lon_max']} "
             f"(config planar_region: {spec['requested']}; the paper's region is Manhattan, 14 × 20 cells, "
             f"{snakemake.params.published_checkins:,} check-ins)", ha="center", va="top", fontsize=7,
             transform=ax.transAxes)
    plotting.save(fig, *snakemake.output)


jobs.run_or_exit(main, snakemake.log)
