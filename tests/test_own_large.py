"""A researcher's study on a large alphabet (privest_studies.own_items, own_large; alphabet kind large): a column of
strings or integers read as written into 64-bit items, its blanks refused or dropped, every refusal of the config
check in one line naming the key, and the runs of the sketch oracles and heavy-hitter protocols scored on the top
items, reproducible from the seed."""

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest.heavy_hitters import ncr
from privest.protocols import item_ids, xxh64_decimal
from privest_studies import large_domains, own_data, own_items, own_large, own_study

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = yaml.safe_load((ROOT / "examples" / "own_study" / "large.yaml").read_text())


def words_csv(path: Path, n: int = 3000, seed: int = 5) -> Path:
    """A made-up CSV of Zipf-distributed words (column ``word``) with a few blank cells, and an ``id`` column."""
    rng = np.random.default_rng(seed)
    ranks = np.minimum(rng.zipf(1.3, n), 5000)
    words = [f"w{r}é" if r % 7 else f"w{r} x" for r in ranks]  # non-ASCII text, and a space inside a cell
    words[10] = words[20] = "  "
    path.write_text("id,word\n" + "".join(f"{i},{w}\n" for i, w in enumerate(words)), encoding="utf-8")
    return path


def config_with(csv: Path, **changes) -> dict:
    config = copy.deepcopy(EXAMPLE)
    study = config["studies"]["frequent_words"]
    study["data"]["csv"] = str(csv)
    for key, value in changes.items():
        target = study
        *path, last = key.split(".")
        for name in path:
            target = target[name]
        target[last] = value
    return config


# The items: integers as themselves, anything else hashed as text.


def test_a_column_of_plain_integers_keeps_them_and_any_other_is_hashed_as_its_text():
    items, how = own_items.items_of(["0", "7", str(2**64 - 1)])
    assert how == own_items.INTEGERS and items.tolist() == [0, 7, 2**64 - 1]
    for cells in (["7", "007"], ["7", "-1"], ["7", str(2**64)], ["7", "7.0"], ["apple", "pear"]):
        items, how = own_items.items_of(cells)
        assert how == own_items.STRINGS and items.tolist() == item_ids(cells).tolist()
        assert np.unique(items).size == len(cells)  # distinct cells, distinct items
    # the library hashes an integer item as its decimal text: 7 as an item is not "7" hashed by item_ids
    assert item_ids(["7"])[0] == xxh64_decimal(7, 0)


def test_the_alphabet_file_of_integers_takes_the_smallest_power_of_two_above_the_largest():
    assert own_items.alphabet_file(np.array([3, 4], dtype=np.uint64), own_items.INTEGERS, "x")["k"] == 8
    assert own_items.alphabet_file(np.array([0, 1], dtype=np.uint64), own_items.INTEGERS, "x")["k"] == 2
    assert own_items.alphabet_file(np.array([5], dtype=np.uint64), own_items.STRINGS, "x")["k"] == 2**64


def test_a_large_column_is_read_as_written_its_blanks_refused_or_dropped(tmp_path):
    csv = words_csv(tmp_path / "words.csv")
    data, alphabet = {"csv": str(csv), "column": "word"}, {"kind": "large"}
    with pytest.raises(ValueError, match=r"words\.csv line 12: word '  ' is blank \(2 such records; set data\.missing"):
        own_data.load_with_values(data, alphabet)
    items, values, alphabet_file, provenance = own_data.load_with_values({**data, "missing": "drop"}, alphabet)
    cells = [line.split(",", 1)[1] for line in csv.read_text(encoding="utf-8").splitlines()[1:]]
    kept = [c for c in cells if c.strip()]
    assert values is None and items.dtype == np.uint64 and provenance["dropped"]["blank"] == 2
    assert items.tolist() == item_ids(kept).tolist()  # the text as written, in file order
    assert alphabet_file["items"] == "strings" and alphabet_file["k"] == 2**64
    assert alphabet_file["distinct"] == len(set(kept))
    ids, _, id_alphabet, _ = own_data.load_with_values({"csv": str(csv), "column": "id"}, alphabet)
    assert ids.tolist() == list(range(3000)) and id_alphabet["items"] == "integers" and id_alphabet["k"] == 4096


# The config check: every refusal one line naming its key.

REFUSALS = [
    ({"experiments.top_words.compare": ["cms", "krr"]}, "experiments.top_words.compare[1]: 'krr' cannot run on a "
                                                        "large alphabet"),
    ({"experiments.top_words.compare": ["cms", "cms"]}, "experiments.top_words.compare: a protocol listed twice"),
    ({"experiments.top_words.compare": [{"kind": "cms", "eps": 1.0}]}, r"experiments.top_words.compare\[0\]: on a "
                                                                       "large alphabet a protocol is named alone"),
    ({"experiments.top_words.n": [100]}, "experiments.top_words.n: an experiment on a large alphabet takes only"),
    ({"experiments.top_words.users": 100}, "experiments.top_words.users: an experiment on a large alphabet"),
    ({"experiments.top_words.rounds": 2}, "experiments.top_words.rounds: an experiment on a large alphabet"),
    ({"experiments.top_words.estimators": ["ibu"]}, "experiments.top_words.estimators: a sketch oracle's"),
    ({"experiments.top_words.candidates": 5}, "experiments.top_words.candidates: 5 is below top"),
    ({"experiments.top_words.eps": [1.0, 1.0]}, "experiments.top_words.eps: a level listed twice"),
    ({"experiments.top_words.mechanisms": ["cms", "flh"]}, "experiments.top_words: an experiment on a large "
                                                           "alphabet needs eps and either compare"),
    ({"experiments.top_words.eps": [1.0, 30.0]}, r"experiments.top_words.eps: flh at eps = 30: eps must be"),
    ({"alphabet.k": 100}, r"studies.frequent_words.alphabet.k: a large alphabet takes only kind"),
    ({"data": {"builtin": "ages"}}, r"studies.frequent_words.data.builtin: ages is prebuilt on its own alphabet"),
]


@pytest.mark.parametrize("changes, message", REFUSALS)
def test_the_config_check_refuses_what_a_large_alphabet_cannot_run_naming_the_key(tmp_path, changes, message):
    config = config_with(words_csv(tmp_path / "words.csv"), **changes)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")
                       if "\\" not in message else message) as error:
        own_study.check(config)
    assert "\n" not in str(error.value) and "config key studies.frequent_words" in str(error.value)


def test_a_large_experiment_with_one_mechanism_is_checked_like_a_comparison_of_one(tmp_path):
    config = config_with(words_csv(tmp_path / "words.csv"))
    spec = config["studies"]["frequent_words"]["experiments"]["top_words"]
    del spec["compare"]
    spec["mechanisms"] = ["pem"]
    own_study.check(config)
    assert own_study.large_experiments(config) == {"frequent_words": {"top_words": spec}}
    assert own_study.experiments(config) == {"frequent_words": {}} and own_study.figures(config) == {
        "frequent_words": {}}


@pytest.mark.parametrize("kind", own_large.PROTOCOLS)
def test_sketches_and_heavy_hitters_are_refused_on_an_enumerated_alphabet_naming_the_key(kind):
    config = {"studies": {"ages": {"data": {"csv": str(ROOT / "examples" / "own_study" / "ages.csv"),
                                            "column": "age"}, "alphabet": {"kind": "linear", "k": 100}, "runs": 1,
                                   "experiments": {"e": {"compare": ["krr", kind], "eps": [1.0],
                                                         "estimators": ["inv"]}}}}}
    with pytest.raises(ValueError, match=rf"config key studies\.ages\.experiments\.e\.compare\[1\]: {kind} is for a "
                                         r"large alphabet \(alphabet\.kind: large"):
        own_study.check(config)


@pytest.mark.parametrize("name", ["top", "candidates"])
def test_top_and_candidates_are_refused_on_an_enumerated_alphabet(name):
    config = {"studies": {"ages": {"data": {"csv": str(ROOT / "examples" / "own_study" / "ages.csv"),
                                            "column": "age"}, "alphabet": {"kind": "linear", "k": 100}, "runs": 1,
                                   "experiments": {"e": {"mechanisms": ["krr"], "eps": [1.0], "estimators": ["inv"],
                                                         name: 10}}}}}
    with pytest.raises(ValueError, match=rf"studies\.ages\.experiments\.e\.{name}: only an experiment on a large"):
        own_study.check(config)


# The runs.


def zipf_items(n: int = 4000, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return item_ids([f"item{r}" for r in np.minimum(rng.zipf(1.5, n), 10_000)])


def test_the_runs_are_reproducible_paired_and_near_exact_at_high_eps():
    values = zipf_items()
    spec = {"compare": ["cms", "hm", "pem"], "eps": [8.0], "estimators": ["unbiased", "mle"], "top": 5}
    stopping = {"delta": 1e-8, "max_iter": 2000}
    rows = own_large.run_rows("s", "e", spec, values, 2**64, 2, 9, stopping)
    assert rows == own_large.run_rows("s", "e", spec, values, 2**64, 2, 9, stopping)  # byte-identical rerun
    assert [(r["protocol"], r["method"]) for r in rows if r["run"] == 0] == [
        ("cms", "unbiased"), ("cms", "MLE"), ("hm", "unbiased"), ("pem", "heavy hitter")]
    assert rows != own_large.run_rows("s", "e", spec, values, 2**64, 2, 10, stopping)  # another seed, other draws
    for row in rows:
        assert set(row) == set(large_domains.RUN_COLUMNS) and row["n"] == values.size and row["dataset"] == "e"
        if row["protocol"] == "cms":  # eps 8: the sketch's counts all but exact on the candidates
            assert row["precision"] == row["recall"] == row["ncr"] == 1.0 and row["mae"] < 0.01, row
    unbiased_only = own_large.run_rows("s", "e", {**spec, "estimators": ["unbiased"]}, values, 2**64, 1, 9, stopping)
    assert {r["method"] for r in unbiased_only} == {"unbiased", "heavy hitter"}


def test_the_sketches_are_asked_about_the_heavy_hitters_finds_too():
    values = zipf_items()
    ranked = large_domains.true_top(values, 3)
    items, counts = np.unique(values, return_counts=True)
    outside = np.array([int(large_domains.true_top(values, 5)[0][4]), 12345], dtype=np.uint64)
    listed, shares = own_large._with_found(ranked, [outside, ranked[0][:1]], items, counts, values.size)
    assert listed.tolist() == [*ranked[0].tolist(), *outside.tolist()]  # the list first, then the new finds in order
    assert shares[3] == large_domains.true_top(values, 5)[1][4] and shares[4] == 0.0  # 12345 is nobody's item
    assert ncr(listed[:3], ranked[0]) == 1.0
