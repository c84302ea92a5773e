"""The reproduction report: results/REPRODUCTION.md and the captions and tables of `snakemake --report`.

workflow/report/papers.yaml lists every figure and table of the three papers; `reported(path)` flags a figure for the
HTML report under its paper (category) and item (subcategory) with a caption that rule reproduction writes from the
outputs (what it shows, mechanisms, scale, region, runs, and our numbers beside the paper's).
"""


REPORTED = reported_files()


rule reproduction:
    """REPRODUCTION.md: every figure and table of the three papers, our files, status and numbers beside the paper's
    (computed from the outputs), and the report's captions and table pages."""
    input:
        catalogue=CATALOGUE_PATH,
        outputs=study_targets(),
        data=reproduction_data(),
    output:
        markdown="results/REPRODUCTION.md",
        table="results/reproduction.csv",
        numbers="results/reproduction_numbers.csv",
        summary="results/reproduction_summary.txt",
        html=report("results/reproduction.html", caption="../report/reproduction.rst", category="Reproduction"),
        captions=[caption_file(path) for path in REPORTED],
        tables=[reported(table_page(path), source=path) for path in REPORTED if path.endswith(".csv")],
    params:
        catalogue=CATALOGUE,
        config=config,
        files=catalogue_files(),
        reported=REPORTED,
    log:
        "logs/reproduction.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/reproduction.py"


rule gallery:
    """The README gallery: small copies of a few key figures in docs/gallery/ (committed). Not part of `all`: run
    `snakemake gallery` after the figures are built."""
    input:
        [f"results/{path}" for path in config["report"]["gallery"].values()],
    output:
        [f"docs/gallery/{name}.png" for name in config["report"]["gallery"]],
    params:
        width=640,
    log:
        "logs/gallery.log",
    localrule: True
    run:
        run_in_process(log, build_gallery, list(input), list(output), params.width)
