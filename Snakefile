"""privest: regenerate the figures and tables of three papers on local privacy from the raw public datasets.

snakemake --cores all                        # the quick scale (minutes)
snakemake --cores all --config scale=paper   # the published settings
"""

from snakemake.logging import logger
from snakemake.utils import min_version

import privest_studies.configuration

min_version("8.20")

# Snakemake's messages wait until workflow/rules/common.smk has checked the config: an error is its one line alone.
HELD_LOG = privest_studies.configuration.HeldLog(logger)


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/experiment.smk"
include: "workflow/rules/ibu_consistency.smk"
include: "workflow/rules/ibu_theory.smk"
include: "workflow/rules/constrained_counts.smk"
include: "workflow/rules/free_will.smk"
include: "workflow/rules/standard_protocols.smk"
include: "workflow/rules/estimator_comparison.smk"
include: "workflow/rules/own_study.smk"
include: "workflow/rules/report.smk"


# Every figure and table of the active scale (the papers' and the standard-protocols study beyond them), and the
# reproduction report that sets them beside the papers.
rule all:
    default_target: True
    input:
        study_targets(),
        rules.reproduction.output.markdown,
        rules.reproduction.output.summary,
        rules.reproduction.output.html,
