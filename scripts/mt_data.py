"""Rule mt_data: the data of the multi-freq-ldpy tutorials study, from the verified raw Adult files: the ages of the
complete persons (label-encoded, with their alphabet), six Adult columns' tuples, and the synthetic tuples of
MS-FIMU's shape (drawn once from the config seed)."""

import numpy as np

from privest.sampling import rng_for
from privest_studies import datasets, fetch, files, jobs
from privest_studies import multi_freq_ldpy_tutorials as mt


def main() -> None:
    study = snakemake.params.multidim
    for key in ("data", "test"):
        fetch.verify(getattr(snakemake.input, key), snakemake.params.accepted[key])
    persons = datasets.read_adult([snakemake.input.data, snakemake.input.test])
    ages, alphabet = mt.ages_data(persons)
    files.save_json(snakemake.output.ages_alphabet, alphabet)
    files.save_npz(snakemake.output.ages, **ages)
    secrets, ks = mt.adult_tuples(persons, study["adult_columns"])
    files.save_npz(snakemake.output.adult, secrets=secrets, ks=np.array(ks, dtype=np.int64),
                   columns=np.array(study["adult_columns"]))
    synthetic = mt.synthetic_tuples(study["synthetic"], rng_for(int(snakemake.params.seed), mt.STUDY, "synthetic"))
    files.save_npz(snakemake.output.synthetic, secrets=synthetic,
                   ks=np.array(study["synthetic"]["ks"], dtype=np.int64))


jobs.run_or_exit(main, snakemake.log)
