"""Rule ld_data: the Gowalla dataset of the large-domains study, from the verified raw check-ins: the cell of every
check-in of the San Francisco box on cells of config large_domains.gowalla.cell_degrees degrees (the item of a user,
on a domain of about 2^20 cells), the grid and the counts read and dropped."""

from privest_studies import datasets, fetch, files, jobs
from privest_studies import large_domains as ld


def main() -> None:
    fetch.verify(snakemake.input.checkins, snakemake.params.accepted)
    lat, lon, kind = datasets.read_checkins(snakemake.input.checkins)
    box = datasets.region_box(snakemake.params.region)
    datasets.check_coverage(kind, box)
    files.save_npz(snakemake.output[0], **ld.gowalla_cells(lat, lon, box, float(snakemake.params.cell_degrees)))


jobs.run_or_exit(main, snakemake.log)
