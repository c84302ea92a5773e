"""privest_studies.datasets on tiny generated files: Adult parsing, both Gowalla formats, cells by hand, the region
rule."""

import gzip
import math
import re
import runpy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from privest.alphabets import Grid
from privest_studies import datasets, files
from privest_studies.regions import Box

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

ADULT_DATA = (
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40,"
    " United-States, <=50K\n"
    "50, ?, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13,"
    " United-States, >50K\n"
    "28, Private, 338409, Bachelors, 13, Married-civ-spouse, Prof-specialty, Wife, Black, Female, 0, 0, 40, Cuba,"
    " <=50K\n"
    "\n"
)
ADULT_TEST = (
    "|1x3 Cross validator\n"
    "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40,"
    " United-States, <=50K.\n"
    "44, Private, 160323, Some-college, 10, Married-civ-spouse, Machine-op-inspct, Husband, Black, Female, 7688, 0,"
    " 40, ?, >50K.\n"
    "\n"
)

SF = {"lat_min": 37.7228, "lat_max": 37.7946, "lon_min": -122.5153, "lon_max": -122.3789}
REGIONS = {  # the shape of config.yaml's regions
    "san_francisco": {"box": SF, "columns": 24, "rows": 16, "cell_km": 0.5},
    "manhattan": {
        "box": {"lat_min": 40.7044, "lat_max": 40.7942, "lon_min": -74.0205, "lon_max": -73.9374},
        "columns": 14,
        "rows": 20,
        "cell_km": 0.5,
    },
    "sf_square": {
        "centre": {"lat": 37.7696, "lon": -122.4194},
        "side_km": 5.0,
        "columns": 5,
        "rows": 5,
        "cell_km": 1.0,
        "output_columns": 4,
        "output_rows": 4,
    },
}
# Two check-ins in the San Francisco box (one also in the 5 km square), one in Manhattan.
CHECKINS = [(37.7749, -122.4194), (37.7300, -122.5000), (40.7500, -73.9900)]


class _Names(SimpleNamespace):
    """Stands in for Snakemake's named lists (attribute access and ``get``)."""

    def get(self, key: str, default: object = None) -> object:
        return getattr(self, key, default)


@pytest.fixture
def adult_files(tmp_path: Path) -> list[Path]:
    data, test = tmp_path / "adult.data", tmp_path / "adult.test"
    data.write_text(ADULT_DATA)
    test.write_text(ADULT_TEST)
    return [data, test]


def _snap_lines(points: list[tuple[float, float]]) -> str:
    return "".join(f"{i}\t2010-10-19T23:55:27Z\t{lat}\t{lon}\t{22847 + i}\n" for i, (lat, lon) in enumerate(points))


@pytest.fixture
def snap_gz(tmp_path: Path) -> Path:
    path = tmp_path / "checkins_full"  # no telling extension: the kind is detected by content
    with gzip.open(path, "wt") as f:
        f.write(_snap_lines(CHECKINS))
    return path


@pytest.fixture
def sf_box_csv(tmp_path: Path) -> Path:
    path = tmp_path / "gowalla_sf_box_latlon.csv"
    path.write_text("".join(f"{lat},{lon}\n" for lat, lon in CHECKINS[:2]))
    return path


# ------------------------------------------------------------------------------------------------------------ Adult


def test_read_adult_parses_both_files_and_the_test_quirks(adult_files: list[Path]) -> None:
    df = datasets.read_adult(adult_files)
    assert len(df) == 5
    assert df["source"].tolist() == [str(adult_files[0])] * 3 + [str(adult_files[1])] * 2
    assert df["line"].tolist() == [1, 2, 3, 2, 3]
    assert df["age"].tolist() == [39, 50, 28, 25, 44]
    assert df["income"].tolist() == ["<=50K", ">50K", "<=50K", "<=50K", ">50K"]  # periods removed
    assert pd.isna(df.loc[1, "workclass"]) and pd.isna(df.loc[4, "native_country"])  # "?" is missing
    assert df.loc[3, "fnlwgt"] == 226802 and df.loc[0, "native_country"] == "United-States"


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("39, State-gov, 77516, Bachelors, 13, Never-married\n", "expected 15 comma-separated fields, got 6"),
        (ADULT_DATA.splitlines()[0].replace("39", "3x9", 1) + "\n", "age is '3x9', not an integer"),
        (ADULT_DATA.splitlines()[0].replace("<=50K", "maybe") + "\n", "income is 'maybe'"),
    ],
)
def test_read_adult_names_file_and_line_of_a_malformed_record(tmp_path: Path, bad_line: str, message: str) -> None:
    path = tmp_path / "adult.data"
    path.write_text(ADULT_DATA.splitlines(keepends=True)[0] + bad_line + "\n")
    with pytest.raises(ValueError, match="line 2") as error:
        datasets.read_adult(path)
    assert str(path) in str(error.value) and message in str(error.value)


def test_adult_ages_targets_and_theta(adult_files: list[Path]) -> None:
    df = datasets.read_adult(adult_files)
    ages = datasets.adult_ages(df, k=100)
    assert ages.dtype == np.int64 and ages.tolist() == [39, 50, 28, 25, 44]
    targets = datasets.adult_targets(df, young_below=30)
    assert targets["income"].tolist() == [0, 1, 0, 0, 1]
    assert targets["gender"].tolist() == [1, 1, 0, 1, 0]
    assert targets["young"].tolist() == [0, 0, 1, 1, 0]
    assert datasets.adult_targets(df, young_below=40)["young"].tolist() == [1, 0, 1, 1, 0]
    with pytest.raises(ValueError, match="outside X"):
        datasets.adult_ages(df, k=45)


def test_discretise_adult_gives_table_theta_and_provenance(adult_files: list[Path]) -> None:
    table, theta, alphabet, provenance = datasets.discretise_adult(adult_files, k=100, young_below=30)
    assert alphabet == {"kind": "linear", "k": 100}
    assert list(table.columns) == ["age", "income", "gender", "young"]
    assert theta.shape == (100,) and theta[39] == pytest.approx(0.2) and theta.sum() == pytest.approx(1.0)
    assert provenance["rows_read"] == provenance["rows_kept"] == 5 and provenance["rows_dropped"] == {}
    assert [s["records"] for s in provenance["sources"]] == [3, 2]
    assert provenance["sources"][0]["sha256"] == files.file_digests(adult_files[0])["sha256"]
    assert provenance["counts"] == {"income": 2, "gender": 3, "young": 2}


def test_adult_table_drops_persons_without_a_target_and_says_why(tmp_path: Path) -> None:
    path = tmp_path / "adult.data"
    path.write_text(ADULT_DATA.replace("Female", "?"))
    table, dropped = datasets.adult_table(datasets.read_adult(path))
    assert len(table) == 2 and dropped == {"missing_sex": 1}


def test_empirical_theta_counts_over_the_alphabet() -> None:
    np.testing.assert_array_equal(datasets.empirical_theta(np.array([0, 1, 1, 3]), 5), [0.25, 0.5, 0, 0.25, 0])
    with pytest.raises(ValueError, match="must lie in"):
        datasets.empirical_theta(np.array([0, 5]), 5)


# ---------------------------------------------------------------------------------------------------------- Gowalla


def test_read_checkins_detects_the_full_snap_file_gzipped_or_plain(snap_gz: Path, tmp_path: Path) -> None:
    lat, lon, kind = datasets.read_checkins(snap_gz)
    assert kind == "snap_full"
    np.testing.assert_array_equal(np.column_stack([lat, lon]), CHECKINS)
    plain = tmp_path / "loc-gowalla_totalCheckins.txt"
    plain.write_text(_snap_lines(CHECKINS))
    assert datasets.read_checkins(plain)[2] == "snap_full"


def test_read_checkins_detects_the_sf_box_file(sf_box_csv: Path) -> None:
    lat, lon, kind = datasets.read_checkins(sf_box_csv)
    assert kind == "sf_box"
    np.testing.assert_array_equal(lat, [37.7749, 37.7300])
    np.testing.assert_array_equal(lon, [-122.4194, -122.5000])


def test_read_checkins_rejects_unknown_and_malformed_files(tmp_path: Path) -> None:
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("a;b;c\n")
    with pytest.raises(ValueError, match="not a Gowalla check-in file"):
        datasets.read_checkins(unknown)
    for content, message in [
        ("37.7,-122.4\nnorth,-122.4\n", "record 2: check-in coordinates"),
        ("37.7,-122.4\n37.7,\n", "record 2: check-in coordinates"),
    ]:
        bad = tmp_path / "bad.csv"
        bad.write_text(content)
        with pytest.raises(ValueError, match=message):
            datasets.read_checkins(bad)


@pytest.mark.parametrize(("content", "message"), [
    ("37.7,-122.4\n137.0,-122.4\n", r"latitude \(field 1\): record 2 has latitude 137.0"),
    ("37.7,-122.4\n37.7,inf\n", r"longitude \(field 2\): record 2 has longitude inf"),
    ("-90.5,0.0\n37.7,-190.0\n", r"latitude \(field 1\): record 1 has latitude -90.5"),
])
def test_read_checkins_rejects_impossible_coordinates_naming_file_field_and_record(tmp_path: Path, content: str,
                                                                                     message: str) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    with pytest.raises(ValueError, match=f"{re.escape(str(bad))}: {message}"):
        datasets.read_checkins(bad)


def test_discretise_checkins_rejects_impossible_coordinates_and_counts_those_outside_the_box() -> None:
    box, grid = Box(37.70, 37.80, -122.50, -122.40), Grid(columns=8, rows=11, cell_km=1.0)
    for lat, lon, name in (([37.75, 137.0], [-122.45, -122.45], "lat"), ([37.75, 37.75], [-122.45, np.nan], "lon")):
        with pytest.raises(ValueError, match=f"{name}: record 2"):
            datasets.discretise_checkins(np.array(lat), np.array(lon), box, grid)
    _, counts = datasets.discretise_checkins(np.array([37.75, 40.0]), np.array([-122.45, -74.0]), box, grid)
    assert counts["dropped"] == {"outside_box": 1} and counts["kept"] == 1


def test_discretise_checkins_matches_a_hand_computation() -> None:
    # Box 0.1 x 0.1 degrees about latitude 37.75: 1 degree of latitude = 110.574 km, of longitude
    # 111.320 * cos(37.75 deg) = 88.0195 km; a grid of 8 x 11 cells of 1 km (the box is 8.80 x 11.06 km: clamped).
    box, grid = Box(37.70, 37.80, -122.50, -122.40), Grid(columns=8, rows=11, cell_km=1.0)
    lat = np.array([37.7250, 37.70, 37.80, 37.81, 37.75])
    lon = np.array([-122.4650, -122.50, -122.40, -122.45, -122.5001])
    # (37.7250, -122.4650): north 0.025 * 110.574 = 2.764 -> row 2; east 0.035 * 88.0195 = 3.081 -> column 3: 2*8+3.
    # The south-west corner is cell 0. The north-east corner: north 11.057 -> row 11 clamped to 10, east 8.802 ->
    # column 8 clamped to 7: 10*8+7 = 87. The last two points lie outside (north of it, west of it).
    assert 0.035 * 111.320 * math.cos(math.radians(37.75)) == pytest.approx(3.0807, abs=1e-4)
    cells, provenance = datasets.discretise_checkins(lat, lon, box, grid)
    assert cells.tolist() == [19, 0, 87]
    assert provenance == {"rows": 5, "kept": 3, "dropped": {"outside_box": 2}}


def test_square_box_is_side_km_wide_in_the_grid_projection() -> None:
    box = datasets.square_box(37.7696, -122.4194, 5.0)
    assert (box.lat_min + box.lat_max) / 2 == pytest.approx(37.7696)
    assert (box.lon_min + box.lon_max) / 2 == pytest.approx(-122.4194)
    east, north = box.to_km(np.array([box.lat_max]), np.array([box.lon_max]))
    assert east[0] == pytest.approx(5.0, abs=1e-9) and north[0] == pytest.approx(5.0, abs=1e-9)
    assert datasets.region_box(REGIONS["sf_square"]) == box


def test_planar_region_auto_rule() -> None:
    assert datasets.planar_region_choice("snap_full", "auto") == "manhattan"
    assert datasets.planar_region_choice("sf_box", "auto") == "san_francisco"
    assert datasets.planar_region_choice("snap_full", "san_francisco") == "san_francisco"
    assert datasets.planar_region_choice("sf_box", "san_francisco") == "san_francisco"
    assert datasets.planar_region_choice("snap_full", "manhattan") == "manhattan"
    with pytest.raises(ValueError, match="needs the full SNAP file"):
        datasets.planar_region_choice("sf_box", "manhattan")
    with pytest.raises(ValueError, match="planar_region must be"):
        datasets.planar_region_choice("sf_box", "paris")


def test_discretise_region_resolves_auto_and_reports(snap_gz: Path, sf_box_csv: Path) -> None:
    cells, theta, alphabet, provenance = datasets.discretise_region(snap_gz, "auto", REGIONS)
    assert provenance["region"] == alphabet["region"] == "manhattan" and provenance["source"]["kind"] == "snap_full"
    assert alphabet["kind"] == "planar" and alphabet["requested"] == "auto" and alphabet["k"] == 280
    assert provenance["rows_in_file"] == 3 and provenance["rows_kept"] == 1
    assert provenance["rows_dropped"] == {"outside_box": 2}
    assert theta.shape == (280,) and theta[cells[0]] == 1.0
    cells, theta, alphabet, provenance = datasets.discretise_region(sf_box_csv, "sf_square", REGIONS)
    assert alphabet["k"] == 25 and alphabet["output_grid"] == {"columns": 4, "rows": 4, "cell_km": 1.25, "k": 16}
    # (37.7749, -122.4194): the centre's longitude, (37.7749 - 37.7696) * 110.574 = 0.586 km north of the centre,
    # so 3.086 km from the south edge: row 3, column 2, cell 3*5+2.
    assert provenance["rows_kept"] == 1 and cells.tolist() == [17]


def test_discretise_region_refuses_a_region_outside_the_sf_extract(sf_box_csv: Path) -> None:
    with pytest.raises(ValueError, match="needs the full SNAP file"):
        datasets.discretise_region(sf_box_csv, "manhattan", REGIONS)
    outside = {"elsewhere": REGIONS["manhattan"]}
    with pytest.raises(ValueError, match="not inside the San Francisco extract"):
        datasets.discretise_region(sf_box_csv, "elsewhere", outside)


# ---------------------------------------------------------------------------------------------------------- scripts


def pinned(path: Path, kind: str) -> dict:
    """The accepted version of a raw file that is exactly the file at path."""
    return {"name": path.name, "kind": kind, "sha256": files.file_digests(path)["sha256"]}


def test_discretise_scripts_write_their_outputs(adult_files: list[Path], sf_box_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    adult = SimpleNamespace(
        input=_Names(data=str(adult_files[0]), test=str(adult_files[1])),
        params=_Names(accepted={"data": [pinned(adult_files[0], "adult")], "test": [pinned(adult_files[1], "adult")]},
                      k=100, young_below=30),
        output=_Names(persons=str(out / "persons.csv"), ages=str(out / "ages.npz"),
                      alphabet=str(out / "ages_alphabet.json"), provenance=str(out / "ages_provenance.json")),
        log=[str(out / "adult.log")],
    )  # fmt: skip
    runpy.run_path(str(SCRIPTS / "discretise_adult.py"), init_globals={"snakemake": adult})
    assert (out / "persons.csv").read_text().splitlines()[:2] == ["age,income,gender,young", "39,0,1,0"]
    ages = files.load_npz(out / "ages.npz")
    assert ages["theta"].shape == (100,) and ages["secrets"].tolist() == [39, 50, 28, 25, 44]
    assert files.load_json(out / "ages_alphabet.json") == {"kind": "linear", "k": 100}
    checkins = SimpleNamespace(
        input=_Names(checkins=str(sf_box_csv)),
        params=_Names(accepted=[pinned(sf_box_csv, "sf_box")], region="auto", regions=REGIONS),
        output=_Names(data=str(out / "checkins_planar.npz"), alphabet=str(out / "checkins_planar_alphabet.json"),
                      provenance=str(out / "checkins_planar_provenance.json")),
        log=[str(out / "checkins.log")],
    )  # fmt: skip
    runpy.run_path(str(SCRIPTS / "discretise_checkins.py"), init_globals={"snakemake": checkins})
    alphabet = files.load_json(out / "checkins_planar_alphabet.json")
    assert alphabet["region"] == "san_francisco" and alphabet["kind"] == "planar" and alphabet["k"] == 384
    data = files.load_npz(out / "checkins_planar.npz")
    assert data["secrets"].shape == (2,) and data["theta"].shape == (384,)
    assert files.load_json(out / "checkins_planar_provenance.json")["rows_kept"] == 2
