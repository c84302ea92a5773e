"""privest: regenerate the figures and tables of three papers on local privacy from the raw public datasets.

snakemake --cores all                        # the quick scale (minutes)
snakemake --cores all --config scale=paper   # the published settings

The workflow is workflow/Snakefile (the entry point that `module` declarations and snakedeploy use); this file
includes it, so that `snakemake` at the root of the checkout runs it.
"""


include: "workflow/Snakefile"
