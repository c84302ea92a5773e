"""Rule ld_figures: one figure per dataset of the large-domains study (privest_studies.large_figures): against eps, a
row per n, the errors of the top items' frequencies and the precision, recall and NCR of the top items found, mean
over runs; one colour per protocol, the unbiased estimate solid, the candidate MLE dashed, a heavy-hitter protocol's
own list dotted."""

from pathlib import PurePath

from privest_studies import files, jobs, large_figures, plotting
from privest_studies import large_domains as ld


def main() -> None:
    config = snakemake.params.config
    study = config[ld.STUDY]
    runs = config["scales"][config["scale"]][ld.STUDY]["runs"]
    table = files.load_table(snakemake.input.summary)
    outputs = list(snakemake.output)
    for dataset in ld.DATASETS:
        lines = table[table["dataset"] == dataset]
        total = int(lines["n"].max())
        k = int(lines["k"].iloc[0])
        rule = study["ibu"]
        notes = [
            f"Mean over {runs} run{'s' if runs != 1 else ''} (scale {config['scale']}), every user reporting once a "
            f"run. Candidate list: the true top {study['candidates']} items (the oracles are asked about these only); "
            f"the top {study['top']} found: the candidates with the largest estimates.",
            f"With {study['top']} found and {study['top']} true, precision equals recall unless counts tie at the "
            f"{study['top']}th item; a heavy-hitter protocol may return fewer. NCR: the true top {study['top']} "
            f"weighted {study['top']}, ..., 1 by rank, the found ones' share of the weights.",
            "Truth: the users' own shares; the true top set: every item whose count reaches the "
            f"{study['top']}th largest. MLE: GIBU on Sketch.candidate_group (not for HM), stop at gap < "
            f"{rule['delta']:g} or {rule['max_iter']:,} updates; runs stopped by the cap: "
            f"{int(lines['capped_runs'].sum())}."]
        fig = large_figures.draw(
            lines, ld.protocols_of(config), int(study["top"]),
            f"Frequent items of a large domain: {ld.title(dataset, config, k)}: the top {study['top']} items' "
            f"frequencies and the top {study['top']} found by each protocol", notes,
            lambda n, dataset=dataset, total=total: ld.n_label(n, dataset, config, total))
        pdf, png = (p for p in outputs if PurePath(p).stem == dataset)
        plotting.save(fig, pdf, png)


jobs.run_or_exit(main, snakemake.log)
