"""The reproduction report: results/REPRODUCTION.md and the captions and tables of `snakemake --report`.

workflow/report/papers.yaml lists every figure and table of the three papers; `reported(path)` flags a figure for the
HTML report under its paper (category) and item (subcategory) with a caption that rule reproduction writes from the
outputs (what it shows, mechanisms, scale, region, runs, and our numbers beside the paper's).
"""

REPORT_FILES = privest_studies.report.catalogue_files(CATALOGUE, study_targets())
REPORTED = privest_studies.report.reported_files(REPORT_FILES)


rule reproduction:
    """REPRODUCTION.md: every figure and table of the three papers, our files, status and numbers beside the paper's
    (computed from the outputs), and the report's captions and table pages."""
    input:
        outputs=study_targets(),
        data=privest_studies.report.reproduction_data(config),
    output:
        markdown="results/REPRODUCTION.md",
        table="results/reproduction.csv",
        numbers="results/reproduction_numbers.csv",
        summary="results/reproduction_summary.txt",
        html=report("results/reproduction.html", caption="../report/reproduction.rst", category="Reproduction"),
        captions=[privest_studies.report.caption_file(path) for path in REPORTED],
        tables=[
            reported(privest_studies.report.table_page(path), source=path)
            for path in REPORTED
            if path.endswith(".csv")
        ],
    log:
        "logs/reproduction.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        catalogue=CATALOGUE,
        config=config,
        files=REPORT_FILES,
        reported=REPORTED,
    script:
        "../../scripts/reproduction.py"


rule gallery:
    """The README gallery: small copies of a few key figures in docs/gallery/ (committed). Not part of `all`: run
    `snakemake gallery` after the figures are built."""
    input:
        [f"results/{path}" for path in config["report"]["gallery"].values()],
    output:
        [f"docs/gallery/{name}.png" for name in config["report"]["gallery"]],
    log:
        "logs/gallery.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        width=640,
    script:
        "../../scripts/gallery.py"


SCALE_RECORD = f"docs/{config['scale']}-scale"
OTHER_SCALE = "quick" if config["scale"] == "paper" else "paper"


rule scale_record:
    """The record of a whole run at the active scale, committed as its evidence (docs/<scale>-scale/): the
    reproduction report and its tables, small copies of the gallery's figures, the items and judged numbers whose
    verdict differs from the other scale's record (when there is one), and the run's cost per rule. Not part of
    `all`: `snakemake scale_record` after the run (e.g. with `--config scale=paper`)."""
    input:
        markdown=rules.reproduction.output.markdown,
        table=rules.reproduction.output.table,
        numbers=rules.reproduction.output.numbers,
        figures=[f"results/{path}" for path in config["report"]["gallery"].values()],
    output:
        markdown=f"{SCALE_RECORD}/REPRODUCTION.md",
        table=f"{SCALE_RECORD}/reproduction.csv",
        numbers=f"{SCALE_RECORD}/reproduction_numbers.csv",
        changes=f"{SCALE_RECORD}/changes.md",
        cost=f"{SCALE_RECORD}/cost.md",
        gallery=[f"{SCALE_RECORD}/gallery/{name}.png" for name in config["report"]["gallery"]],
    log:
        "logs/scale_record.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        scales=[OTHER_SCALE, config["scale"]],
        other=f"docs/{OTHER_SCALE}-scale",
        width=480,
    script:
        "../../scripts/scale_record.py"
