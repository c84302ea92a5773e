"""Rule own_study_large: an experiment of one's own study on a large alphabet (privest_studies.own_large): every
record's item reported by each sketch oracle and heavy-hitter protocol at each eps in every run, the top items'
frequencies estimated and the top items found, scored; the tidy table of the runs."""

from privest_studies import files, jobs, large_domains, own_large, own_study


def main() -> None:
    params = snakemake.params
    study = params.study
    values = files.load_npz(snakemake.input.data)["items"]
    k = int(files.load_json(snakemake.input.alphabet)["k"])
    rows = own_large.run_rows(snakemake.wildcards.own_study, snakemake.wildcards.own_large, params.spec, values, k,
                              int(study["runs"]), int(params.seed), {**own_study.STOPPING, **study.get("ibu", {})})
    files.save_rows(rows, large_domains.RUN_COLUMNS, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
