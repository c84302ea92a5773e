"""The raw datasets: fetched from the official URL (else the local mirror), verified, then discretised (after
verifying them again against the same pins: a raw file changed since its fetch stops the job in one line).

Downloads land in data/raw/ (git-ignored); discretised, typed outputs in results/data/.
"""

DATA = config["data"]
FETCH_OPTIONS = {"mirror": DATA["mirror"], "timeout": DATA["timeout_seconds"], "attempts": DATA["retries"]}


rule fetch:
    """One raw file: an Adult file (adult.data, adult.test) from UCI or the Gowalla check-ins from SNAP, else the
    mirror; it must match a checksum pinned in config (data.adult.files, data.gowalla.accepted)."""
    output:
        file="data/raw/{name}",
        provenance="data/raw/{name}.provenance.json",
    log:
        "logs/data/fetch_{name}.log",
    wildcard_constraints:
        name="adult\\.data|adult\\.test|gowalla_checkins",
    conda:
        "../../envs/privest.yaml"
    params:
        **FETCH_OPTIONS,
        sources=lambda w: privest_studies.fetch.sources(DATA, w.name),
    script:
        "../../scripts/fetch.py"


rule discretise_adult:
    """Adult persons: ages on {0..k-1} (secrets and theta) and the count paper's binary targets."""
    input:
        data="data/raw/adult.data",
        test="data/raw/adult.test",
    output:
        persons="results/data/adult_persons.csv",
        ages="results/data/ages.npz",
        alphabet="results/data/ages_alphabet.json",
        provenance="results/data/ages_provenance.json",
    log:
        "logs/data/discretise_adult.log",
    conda:
        "../../envs/privest.yaml"
    params:
        accepted={key: privest_studies.fetch.sources(DATA, f"adult.{key}")["accepted"] for key in ("data", "test")},
        k=DATA["adult"]["k"],
        young_below=DATA["adult"]["young_below"],
    script:
        "../../scripts/discretise_adult.py"


rule discretise_checkins:
    """Check-ins of one region on its grid: the cell of each check-in, theta, the grid and the provenance.

    Region `planar` is the planar region of the studies (config data.planar_region; `auto` picks Manhattan when the
    full SNAP file is available, else San Francisco); the region actually used is recorded in the alphabet file.
    """
    input:
        checkins="data/raw/gowalla_checkins",
    output:
        data="results/data/checkins_{region}.npz",
        alphabet="results/data/checkins_{region}_alphabet.json",
        provenance="results/data/checkins_{region}_provenance.json",
    log:
        "logs/data/discretise_checkins_{region}.log",
    wildcard_constraints:
        region="planar|san_francisco|manhattan|sf_square",
    conda:
        "../../envs/privest.yaml"
    params:
        accepted=privest_studies.fetch.sources(DATA, "gowalla_checkins")["accepted"],
        region=lambda w: DATA["planar_region"] if w.region == "planar" else w.region,
        regions=config["regions"],
    script:
        "../../scripts/discretise_checkins.py"
