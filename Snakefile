"""privest: regenerate the figures and tables of three papers on local privacy from the raw public datasets.

snakemake --cores all                        # the quick scale (minutes)
snakemake --cores all --config scale=paper   # the published settings

The workflow is workflow/Snakefile (the entry point that `module` declarations and snakedeploy use); this file
includes it, so that `snakemake` at the root of the checkout runs it.
"""

# `include:` keeps the including file's default target; here the included file is the whole workflow, and its rule
# all (every figure, table and the reproduction report) is the default target, as when it is run itself.
workflow.include("workflow/Snakefile", overwrite_default_target=True)
