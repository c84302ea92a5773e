"""The raw datasets: fetched from the official URL (else the local mirror), verified, then discretised.

Downloads land in data/raw/ (git-ignored); discretised, typed outputs in results/data/.
"""

DATA = config["data"]
FETCH_OPTIONS = {"mirror": DATA["mirror"], "timeout": DATA["timeout_seconds"], "attempts": DATA["retries"]}


rule fetch_adult:
    """One Adult file (adult.data or adult.test) from UCI, else the mirror; its sha256 is pinned in config."""
    output:
        file=ensure("data/raw/{name}", sha256=lambda w: DATA["adult"]["files"][w.name]["sha256"]),
        provenance="data/raw/{name}.provenance.json",
    wildcard_constraints:
        name="adult\\.(data|test)",
    params:
        urls=lambda w: [DATA["adult"]["files"][w.name]["url"]],
        accepted=lambda w: [{"name": w.name, "kind": "adult", "sha256": DATA["adult"]["files"][w.name]["sha256"]}],
        **FETCH_OPTIONS,
    log:
        "logs/data/fetch_{name}.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fetch.py"


rule fetch_gowalla:
    """The Gowalla check-ins from SNAP, else the mirror (the full file or the San Francisco extract)."""
    output:
        file="data/raw/gowalla_checkins",
        provenance="data/raw/gowalla_checkins.provenance.json",
    params:
        urls=[DATA["gowalla"]["url"]],
        accepted=DATA["gowalla"]["accepted"],
        **FETCH_OPTIONS,
    log:
        "logs/data/fetch_gowalla.log",
    conda:
        "../../envs/privest.yaml"
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
    params:
        k=DATA["adult"]["k"],
        young_below=DATA["adult"]["young_below"],
    log:
        "logs/data/discretise_adult.log",
    conda:
        "../../envs/privest.yaml"
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
    wildcard_constraints:
        region="planar|san_francisco|manhattan|sf_square",
    params:
        region=lambda w: DATA["planar_region"] if w.region == "planar" else w.region,
        regions=config["regions"],
    log:
        "logs/data/discretise_checkins_{region}.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/discretise_checkins.py"
