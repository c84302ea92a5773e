"""Rule svg_figures: one figure per column of the SW+EMS or geometric+IBU study: the mean EMD (in the column's unit)
of SW+EMS, SW+EM and geometric+IBU against eps, the paired difference EMD(SW+EMS) - EMD(geometric+IBU) with its
interval, and the mean estimates (Square Wave's with its interval) beside the data's mean."""

from pathlib import PurePath

from privest_studies import files, jobs, plotting
from privest_studies import sw_vs_geometric as svg

STYLE = {"SW+EMS": ("C0", "-", "o"), "SW+EM": ("C0", ":", "s"), "geometric+IBU": ("C3", "--", "x")}


def main() -> None:
    config = snakemake.params.config
    summary, pairs = files.load_table(snakemake.input.summary), files.load_table(snakemake.input.paired)
    runs = config["scales"][config["scale"]][svg.STUDY]["runs"]
    outputs = list(snakemake.output)
    for column in config[svg.STUDY]["columns"]:
        unit = config[svg.STUDY]["columns"][column]["unit"]
        lines = svg.figure_lines(summary, column)
        pair = pairs[pairs["column"] == column].sort_values("eps")
        fig, (emd, diff, mean) = plotting.figure(ncols=3, figsize=(15.0, 4.8))
        for line, rows in lines.items():
            colour, style, marker = STYLE[line]
            emd.errorbar(rows["eps"], rows["emd_mean"], yerr=rows["emd_sd"], color=colour, linestyle=style,
                         marker=marker, markersize=4, capsize=3, label=line)
        emd.set_xscale("log", base=2)
        emd.set_yscale("log")
        emd.set_xlabel("eps (LDP level over the column's range)")
        emd.set_ylabel(f"EMD to the data's histogram ({unit})")
        emd.set_title(f"Mean EMD over {runs} runs (bars: ± 1 s.d.)", fontsize=9)
        emd.legend(fontsize=8)
        level = float(config["report"]["level"])
        diff.errorbar(pair["eps"], pair["difference"], yerr=[pair["difference"] - pair["low"],
                                                             pair["high"] - pair["difference"]],
                      color="k", marker="o", markersize=4, capsize=3,
                      label=f"mean of paired d, {level:.0%} t interval")
        diff.axhline(0.0, color="0.5", linewidth=0.8)
        diff.set_xscale("log", base=2)
        diff.set_xlabel("eps (LDP level over the column's range)")
        diff.set_ylabel(f"d = EMD(SW+EMS) − EMD(geometric+IBU) ({unit})")
        diff.set_title("Paired difference over runs (below 0: SW+EMS closer)", fontsize=9)
        diff.legend(fontsize=8)
        sw, geo = lines["SW+EMS"], lines["geometric+IBU"]
        mean.errorbar(sw["eps"], sw["mean_mean"], yerr=[sw["mean_mean"] - sw["mean_lower_mean"],
                                                        sw["mean_upper_mean"] - sw["mean_mean"]],
                      color="C0", marker="o", markersize=4, capsize=3,
                      label="Square Wave's unbiased mean (bars: its 95% interval, ends averaged over runs)")
        mean.plot(geo["eps"], geo["mean_mean"], color="C3", linestyle="--", marker="x",
                  label="geometric+IBU: the histogram's mean (no interval)")
        mean.axhline(float(sw["mean_true"].iloc[0]), color="0.3", linewidth=0.9, linestyle=":",
                     label="the data's mean")
        mean.set_xscale("log", base=2)
        mean.set_xlabel("eps (LDP level over the column's range)")
        mean.set_ylabel(f"mean estimate, averaged over runs ({unit})")
        mean.set_title("The mean", fontsize=9)
        mean.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
        for ax in (emd, diff, mean):
            ax.set_xticks(sorted(pair["eps"]), [f"{e:g}" for e in sorted(pair["eps"])])
        fig.suptitle(f"Beyond the papers: SW+EMS or geometric+IBU? {svg.column_label(config, column)}, every person "
                     f"once a run (scale: {config['scale']})", fontsize=10)
        rule = config[svg.STUDY]["ibu"]
        capped = ", ".join(f"{line} {int(rows['capped_runs'].sum())}" for line, rows in lines.items())
        fig.text(0.5, -0.12, "SW+EMS: Square Wave (Li et al. 2020) with EMS on the bins, the paper's stopping rule; "
                 "SW+EM: EM on its discretised channel to the MLE;\ngeometric+IBU: the truncated geometric mechanism "
                 f"on the bins with IBU (stop at ΔL < {rule['delta']:g} or {rule['max_iter']:,} iterations); runs "
                 f"stopped by that cap: {capped}.",
                 ha="center", va="top", fontsize=7.5)
        fig.subplots_adjust(top=0.86, wspace=0.3)
        pdf, png = (p for p in outputs if PurePath(p).stem == column)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
