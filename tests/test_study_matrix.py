"""The space a researcher's own study promises (docs/site/guide/own-study.md), generated: every mechanism kind on every
alphabet kind, alone at each eps with every estimator family, and in free-will mixtures by n that pair each family of
mechanisms (matrices, RAPPOR, the standard protocols) with each other, all three together included. Each cell runs
through the functions the rules call (config -> experiments, mechanisms stored and read back from an npz, perturb,
reports stored and read back, estimate, score) at a tiny size, and either gives distributions and finite scores or
NaN scores with the reason (the papers' "NA") where the family cannot run, as ``expected_na`` says independently.

The numeric mechanisms (issue 50: square_wave, piecewise, hybrid, duchi) run alone on a numeric alphabet, their
reports numbers, with every family (IBU: EM on the discretised channel; EMS; the others NA); on any other alphabet, or
in a mixture, the config check refuses them in one line naming the key.

``CELLS`` counts the (kind or mixture, alphabet, estimator family) cells; the closing note of issue 22 quotes it.
"""

import itertools
from pathlib import Path

import numpy as np
import pytest

from privest import protocols
from privest.alphabets import Alphabet
from privest.mechanisms.properties import ldp_level
from privest_studies import experiment, files, large_domains, own_columns, own_data, own_large, own_study

MATRIX = ("krr", "geometric", "laplace", "exponential")
PROTOCOLS = ("grr", "sue", "oue", "blh", "olh", "ss", "hr")
MORE_PROTOCOLS = ("she", "the", "adp", "l_grr", "l_sue", "l_oue", "l_osue", "l_soue", "l_adp", "l_blh", "l_olh")
"""Histogram encoding, ADP and the longitudinal protocols (issue 49): alone on every alphabet with every family, and
mixed with one mechanism of each family (k-RR, RAPPOR, GRR)."""
KINDS = (*MATRIX, "rappor", *PROTOCOLS)
NUMERIC = experiment.NUMERIC_KINDS
OPTIONED = tuple({"kind": kind, **{option: value for option, value in {"hashes": 16, "eps1": 0.4, "calibration": "peer"}
                                   .items() if option in experiment.KIND_OPTIONS[kind]}}
                 for kind in experiment.LONGITUDINAL_KINDS)
"""Each longitudinal kind with every member option it takes (``experiment.KIND_OPTIONS``) set away from its default:
eps1 0.4 (not eps / 2), calibration peer, a hash family of 16; alone on every alphabet with every family."""
ALPHABETS = {
    "linear": ({"kind": "linear", "k": 6}, {"kind": "linear", "k": 6}),
    "binned": ({"kind": "binned", "min": 0.0, "max": 12.5, "bins": 5},
               {"kind": "linear", "k": 5, "spacing": 2.5, "unit": "hours"}),
    "planar": ({"kind": "planar", "box": {"lat_min": 0.0, "lat_max": 0.02, "lon_min": 0.0, "lon_max": 0.03},
                "columns": 3, "rows": 2, "cell_km": 1.2, "latitude": "lat", "longitude": "lon"},
               {"kind": "planar", "columns": 3, "rows": 2, "cell_km": 1.2}),
    "categorical": ({"kind": "categorical"}, {"kind": "categorical", "categories": ["a", "b", "c", "d", "e"]}),
    "numeric": ({"kind": "numeric", "min": 0.0, "max": 12.5, "bins": 5, "unit": "hours"},
                {"kind": "linear", "k": 5, "spacing": 2.5, "unit": "hours", "min": 0.0, "max": 12.5, "bins": 5,
                 "numeric": True}),
}
"""alphabet name -> (the config's alphabet, the alphabet file the study's data job writes)."""
SINGLE = ("inv", "rap", "ibu", "inv_r", "ibu_r", "rap_r", "inv_m", "ibu_m", "rap_m", "gibu", "ems")
MIXTURE = ("inv_r", "ibu_r", "rap_r", "inv_m", "ibu_m", "rap_m", "gibu")
STOPPING = {"delta": 1e-8, "max_iter": 300}


def family_of(kind: str) -> str:
    return ("matrix" if kind in MATRIX else "rappor" if kind == "rappor" else "numeric" if kind in NUMERIC
            else "protocol")


def expected_na(family: str, kinds: tuple[str, ...]) -> bool:
    """Whether an estimator family cannot run on these mechanisms (free-will section 4-6 and README): RAP and [RAP]
    need RAPPOR only; INV and the [e]_M families need matrices with one set of observables; [INV]_R and [IBU]_R take
    matrices and protocols, not RAPPOR; IBU and GIBU run on anything but numbers; on a numeric mechanism only IBU
    (EM on its discretised channel) and EMS run, and EMS on nothing else; gibu_joint on longitudinal protocols only."""
    families = {family_of(kind) for kind in kinds}
    if family == "gibu_joint":  # one likelihood of a user's rounds, summed over the memo they share
        return not all(kind.startswith("l_") for kind in kinds)
    if family == "ems" or "numeric" in families:
        return not (families == {"numeric"} and family in ("ibu", "ems"))
    if family in ("ibu", "gibu"):
        return False
    if family in ("rap", "rap_r", "rap_m"):
        return families != {"rappor"}
    if family in ("inv_m", "ibu_m"):
        return families != {"matrix"}
    if family == "inv":
        return "rappor" in families
    return "rappor" in families  # inv_r, ibu_r


def study(alphabet: str, experiments: dict) -> dict:
    return {"studies": {"cell": {"data": {"csv": "cell.csv", "column": "x"}, "alphabet": ALPHABETS[alphabet][0],
                                 "runs": 2, "ibu": STOPPING, "experiments": experiments}}}


def run_chain(spec: experiment.Experiment, alphabet: Alphabet, tmp_path: Path,
              alphabet_file: dict | None = None) -> tuple[dict, list[dict]]:
    """The chain as the rules run it, every archive written and read back: each family's estimates, and the score
    rows."""
    rng = np.random.default_rng(7)
    secrets = np.sort(rng.integers(0, alphabet.k, size=150))
    data = {"secrets": secrets, "theta": np.bincount(secrets, minlength=alphabet.k) / secrets.size}
    bounds = experiment.bounds_of(alphabet_file or {})
    if bounds is not None:  # each record's number, in its bin
        data["values"] = bounds[0] + (secrets + rng.random(secrets.size)) * alphabet.spacing
    built = experiment.build_mechanisms(spec.members, alphabet, bounds=bounds)
    files.save_npz(tmp_path / "mechanisms.npz", **experiment.mechanisms_to_arrays(spec.members, built))
    members, built = experiment.mechanisms_from_arrays(files.load_npz(tmp_path / "mechanisms.npz"))
    assert members == list(spec.members)
    files.save_npz(tmp_path / "reports.npz", **experiment.perturb(spec, built, data, seed=11))
    reports = files.load_npz(tmp_path / "reports.npz")
    estimates = {family: experiment.estimate(spec, family, built, reports, spec.stopping_rule)
                 for family in spec.families}
    numeric = None if bounds is None else (*bounds, float(data["values"].mean()))
    return estimates, experiment.score(spec, alphabet, data["theta"], reports, list(estimates.values()), numeric)[0]


def check_cells(estimates: dict, rows: list[dict], kinds: tuple[str, ...]) -> None:
    """Each family's estimates are distributions where it runs, NaN with a reason at every point where it cannot;
    every score row of a distribution is finite or NA with its reason."""
    for family, archive in estimates.items():
        distributions = [not m.endswith(experiment.RAW_SUFFIX) for m in map(str, archive["methods"])]
        if expected_na(family, kinds):
            assert np.isnan(archive["theta"]).all(), family
            assert all(len(note) > 10 for note in map(str, archive["notes"])), (family, archive["notes"])
        else:
            assert np.isfinite(archive["theta"]).all() and not any(map(str, archive["notes"])), family
            np.testing.assert_allclose(archive["theta"][distributions].sum(axis=-1), 1.0, atol=1e-9)
    for row in rows:
        if not row["method"].endswith(experiment.RAW_SUFFIX):
            error = row["tv" if "tv" in row else "emd"]  # the EMD, named tv on categories (experiment.error_column)
            assert (np.isfinite(error) and error >= 0 and row["note"] == "") or (
                np.isnan(error) and row["note"].startswith("NA: ")), row
        if "mean" in row and np.isfinite(row[experiment.error_column("linear")]):  # a numeric alphabet's mean
            numbers = any(kind in NUMERIC for kind in kinds)
            assert row["mean_of"] == ("reports" if numbers else "histogram"), row
            assert np.isfinite(row["mean"]) and np.isfinite(row["mean_lower"]) == numbers, row
            if numbers:
                assert row["mean_lower"] <= row["mean"] <= row["mean_upper"], row


SINGLE_CASES = [(kind, alphabet) for kind in (*KINDS, *MORE_PROTOCOLS, *NUMERIC) for alphabet in ALPHABETS]
PAIRS = list(itertools.combinations(KINDS, 2)) + [(kind, other) for kind in MORE_PROTOCOLS
                                                   for other in ("krr", "rappor", "grr")]
TRIPLES = [(m, "rappor", p) for m in MATRIX for p in PROTOCOLS]
OPTION_CASES = [(member, alphabet) for member in OPTIONED for alphabet in ALPHABETS]
ROUND_CASES = [(kind, alphabet) for kind in experiment.LONGITUDINAL_KINDS for alphabet in ALPHABETS]
"""Each longitudinal kind over three rounds, a fifth of the values redrawn each round, on every alphabet with every
family: every round of every run estimated and scored."""
JOINT = ("gibu", "gibu_joint")
"""The families of the joint-rounds cells: GIBU on each round alone and from rounds 1..t together."""
JOINT_CASES = ROUND_CASES
"""Each longitudinal kind over three rounds with no redraw (the users keep their values), on every alphabet with GIBU
and gibu_joint, which the config check refuses with a redraw."""
NUMERIC_MIXTURES = [(kind, other) for kind in NUMERIC for other in ("krr", "geometric", "rappor", "grr", "duchi")
                    if other != kind]
"""Each numeric kind in a mixture by n with one mechanism of each family: refused by the config check."""
CELLS = (sum(len(SINGLE) for kind, alphabet in (*SINGLE_CASES, *OPTION_CASES, *ROUND_CASES))
         + len(JOINT) * len(JOINT_CASES)
         + len(MIXTURE) * len(ALPHABETS) * (len(PAIRS) + len(TRIPLES) + len(NUMERIC_MIXTURES)))


@pytest.mark.parametrize(("kind", "alphabet"), SINGLE_CASES)
def test_every_kind_alone_at_each_eps_with_every_estimator_family(kind, alphabet, tmp_path):
    config = study(alphabet, {"alone": {"mechanisms": [kind], "eps": [1.0, 3.0], "users": 150,
                                        "estimators": list(SINGLE)}})
    if alphabet == "categorical" and kind in ("geometric", "laplace"):
        with pytest.raises(ValueError, match=f"the {kind} mechanism needs a geometry") as error:
            own_study.experiments(config)
        assert "\n" not in str(error.value)
        return
    if alphabet != "numeric" and kind in NUMERIC:
        says = f"the {kind} mechanism reports the numbers of a numeric column; it needs alphabet.kind numeric"
        with pytest.raises(ValueError, match=rf"experiments\.alone\.mechanisms\[0\]: {says}") as error:
            own_study.experiments(config)
        assert "\n" not in str(error.value)
        return
    (spec,) = own_study.experiments(config)["cell"].values()
    check_cells(*run_chain(spec, Alphabet.from_dict(ALPHABETS[alphabet][1]), tmp_path, ALPHABETS[alphabet][1]),
                (kind,))


@pytest.mark.parametrize(("member", "alphabet"), OPTION_CASES,
                         ids=[f"{'_'.join(map(str, m.values()))}-{a}" for m, a in OPTION_CASES])
def test_every_longitudinal_kind_with_its_options_alone_with_every_estimator_family(member, alphabet, tmp_path):
    config = study(alphabet, {"alone": {"mechanisms": [member], "eps": [1.0, 3.0], "users": 150,
                                        "estimators": list(SINGLE)}})
    (spec,) = own_study.experiments(config)["cell"].values()
    assert {m.kind for m in spec.members} == {member["kind"]}
    assert all(m.options == {key: value for key, value in member.items() if key != "kind"} for m in spec.members)
    built = experiment.build_mechanisms(spec.members, Alphabet.from_dict(ALPHABETS[alphabet][1]))
    assert all(m.eps1 == 0.4 and getattr(m, "calibration", "peer") == "peer" for m in built), built
    check_cells(*run_chain(spec, Alphabet.from_dict(ALPHABETS[alphabet][1]), tmp_path), (member["kind"],))


@pytest.mark.parametrize(("kind", "alphabet"), ROUND_CASES)
def test_every_longitudinal_kind_over_rounds_with_every_estimator_family(kind, alphabet, tmp_path):
    config = study(alphabet, {"weekly": {"mechanisms": [kind], "eps": [1.0, 3.0], "users": 150, "rounds": 3,
                                         "redraw": 0.2, "estimators": list(SINGLE)}})
    (spec,) = own_study.experiments(config)["cell"].values()
    estimates, rows = run_chain(spec, Alphabet.from_dict(ALPHABETS[alphabet][1]), tmp_path)
    assert all(archive["theta"].shape[2] == 2 * 3 for archive in estimates.values())
    assert {(row["round"], row["run"]) for row in rows} == {(t, r) for t in (1, 2, 3) for r in (0, 1)}
    check_cells(estimates, rows, (kind,))


@pytest.mark.parametrize(("kind", "alphabet"), JOINT_CASES)
def test_every_longitudinal_kind_over_rounds_of_unchanged_values_with_the_joint_rounds_family(kind, alphabet, tmp_path):
    config = study(alphabet, {"weekly": {"mechanisms": [kind], "eps": [1.0, 3.0], "users": 150, "rounds": 3,
                                         "estimators": list(JOINT)}})
    (spec,) = own_study.experiments(config)["cell"].values()
    estimates, rows = run_chain(spec, Alphabet.from_dict(ALPHABETS[alphabet][1]), tmp_path)
    check_cells(estimates, rows, (kind,))
    alone, joint = (estimates[family]["theta"][0] for family in JOINT)
    np.testing.assert_allclose(joint[:, ::3], alone[:, ::3], atol=1e-6)  # round 1 of each run: the per-round GIBU


@pytest.mark.parametrize("kinds", PAIRS + TRIPLES, ids="+".join)
def test_every_mixture_of_mechanism_families_by_n(kinds, tmp_path):
    for alphabet in ALPHABETS:
        mechanisms = [{"kind": kind, "eps": 2.0} for kind in kinds]
        config = study(alphabet, {"mix": {"mechanisms": mechanisms, "n": [120, 240], "estimators": list(MIXTURE)}})
        if alphabet == "categorical" and {"geometric", "laplace"} & set(kinds):
            with pytest.raises(ValueError, match="needs a geometry"):
                own_study.experiments(config)
            continue
        (spec,) = own_study.experiments(config)["cell"].values()
        check_cells(*run_chain(spec, Alphabet.from_dict(ALPHABETS[alphabet][1]), tmp_path, ALPHABETS[alphabet][1]),
                    kinds)


@pytest.mark.parametrize("kinds", NUMERIC_MIXTURES, ids="+".join)
def test_a_numeric_mechanism_in_a_mixture_is_refused_naming_the_key(kinds):
    for alphabet in ALPHABETS:
        mechanisms = [{"kind": kind, "eps": 2.0} for kind in kinds]
        config = study(alphabet, {"mix": {"mechanisms": mechanisms, "n": [120, 240], "estimators": list(MIXTURE)}})
        first = min(i for i, kind in enumerate(kinds) if kind in NUMERIC)
        said = ("reports numbers, not the bins a mixture shares; it runs alone" if alphabet == "numeric"
                else "it needs alphabet.kind numeric")
        with pytest.raises(ValueError, match=rf"experiments\.mix\.mechanisms\[{first}\]: .*{said}") as error:
            own_study.experiments(config)
        assert "\n" not in str(error.value)


def test_numeric_and_binned_mechanisms_compared_on_the_same_users_with_the_mean(tmp_path):
    config = study("numeric", {"side": {"compare": ["square_wave", "piecewise", "geometric"], "eps": [1.0, 4.0],
                                        "users": 300, "estimators": ["ibu", "ems"]}})
    specs = own_study.experiments(config)["cell"]
    assert list(specs) == ["side_square_wave", "side_piecewise", "side_geometric"]
    alphabet_file = ALPHABETS["numeric"][1]
    drawn = []
    for name, spec in specs.items():
        estimates, rows = run_chain(spec, Alphabet.from_dict(alphabet_file), tmp_path, alphabet_file)
        drawn.append(files.load_npz(tmp_path / "reports.npz")["secret_counts"])
        check_cells(estimates, rows, (spec.members[0].kind,))
        assert all(row["mean_true"] == rows[0]["mean_true"] for row in rows)
        if name != "side_geometric":
            reports = files.load_npz(tmp_path / "reports.npz")
            assert reports["p0_r0_m0_values"].shape == (300,)
            assert {row["method"] for row in rows if np.isfinite(row["emd"])} == {"IBU", "EMS"}
    for other in drawn[1:]:
        np.testing.assert_array_equal(other, drawn[0])


@pytest.mark.parametrize("order", [("rappor", "olh", "krr"), ("krr", "rappor", "olh"), ("olh", "krr", "rappor")])
def test_a_mixture_is_stored_and_read_whatever_the_order_of_its_kinds(order):
    alphabet = Alphabet(5)
    members = [experiment.Member(kind, 1.5) for kind in order]
    built = experiment.build_mechanisms(members, alphabet)
    back_members, back = experiment.mechanisms_from_arrays(experiment.mechanisms_to_arrays(members, built))
    assert back_members == members
    for kind, original, read in zip(order, built, back, strict=True):
        if kind == "krr":
            np.testing.assert_array_equal(read, original)
        else:
            assert type(read) is type(original) and read.k == original.k and read.eps == original.eps


def test_a_comparison_runs_each_kind_on_the_same_users():
    config = study("linear", {"side": {"compare": ["krr", "oue", {"kind": "olh", "hashes": 16}], "eps": [1.0, 2.0],
                                       "users": 200, "estimators": ["inv", "ibu"]}})
    specs = own_study.experiments(config)["cell"]
    assert list(specs) == ["side_krr", "side_oue", "side_olh_16"]
    assert own_study.figures(config)["cell"] == {"side": ["side_krr", "side_oue", "side_olh_16"]}
    alphabet = Alphabet(6)
    data = {"theta": np.full(6, 1 / 6)}
    drawn = []
    for spec in specs.values():
        assert spec.axis == "eps" and [len(p.mechanisms) for p in spec.points] == [1, 1]
        reports = experiment.perturb(spec, experiment.build_mechanisms(spec.members, alphabet), data, seed=5)
        drawn.append(reports["secret_counts"])
    for other in drawn[1:]:
        np.testing.assert_array_equal(other, drawn[0])
    with pytest.raises(ValueError, match=r"give either mechanisms .* or compare"):
        own_study.experiments(study("linear", {"e": {"compare": ["krr"], "mechanisms": ["krr"], "eps": [1.0],
                                                     "estimators": ["inv"]}}))
    with pytest.raises(ValueError, match="takes the name of another"):
        own_study.experiments(study("linear", {"e": {"compare": ["krr"], "eps": [1.0], "estimators": ["inv"]},
                                               "e_krr": {"mechanisms": ["oue"], "eps": [1.0], "estimators": ["inv"]}}))


COLUMN_CASES = ([(solution, kind) for solution in ("spl", "smp") for kind in experiment.PROTOCOL_KINDS]
                + [("rsfd", kind) for kind in (*protocols.RSFD_PROTOCOLS, "olh", "l_grr")])
"""Multi-column experiments (own_columns): every solution with every protocol it takes, on a linear, a binned and a
categorical column of one CSV read jointly, with both estimator families; RS+FD with a protocol it does not take is
refused by the config check naming the key."""


@pytest.mark.parametrize(("solution", "kind"), COLUMN_CASES)
def test_every_multi_column_solution_with_every_protocol_runs_or_is_refused_naming_the_key(solution, kind, tmp_path):
    rng = np.random.default_rng(9)
    rows = zip(rng.integers(0, 6, 150), rng.uniform(0, 12.5, 150).round(2), rng.choice(list("abcde"), 150), strict=True)
    (tmp_path / "cell.csv").write_text("x,hours,town\n" + "".join(f"{a},{h},{t}\n" for a, h, t in rows))
    columns = {"x": ALPHABETS["linear"][0], "hours": ALPHABETS["binned"][0], "town": ALPHABETS["categorical"][0]}
    config = study("linear", {"cols": {"columns": columns, "solution": solution, "protocol": kind, "eps": [1.0, 3.0],
                                       "estimators": ["inv", "ibu"]}})
    config["studies"]["cell"]["data"] = {"csv": str(tmp_path / "cell.csv")}  # no data.column: the columns hold it
    del config["studies"]["cell"]["alphabet"]
    if solution == "rsfd" and kind not in protocols.RSFD_PROTOCOLS:
        with pytest.raises(ValueError, match=rf"experiments\.cols\.protocol: rsfd with '{kind}' at eps = 1: ") as error:
            own_study.check(config)
        assert "\n" not in str(error.value)
        return
    own_study.check(config)
    spec = config["studies"]["cell"]["experiments"]["cols"]
    secrets, alphabets, provenance = own_columns.load(config["studies"]["cell"]["data"], columns)
    assert provenance["records"] == provenance["kept"] == 150
    assert secrets.shape == (150, 3) and [a["k"] for a in alphabets] == [6, 5, 5]
    scored = own_columns.scores("cell", "cols", spec, secrets, alphabets, 2, 11, STOPPING)
    assert len(scored) == 2 * 2 * 3 * 3  # eps x runs x columns x (INV-N, INV-P, IBU)
    for row in scored:
        assert (np.isfinite(row["error"]) and row["error"] >= 0 and row["note"] == "") or (
            solution == "smp" and np.isnan(row["error"]) and row["note"].startswith("NA: ")), row
    assert {row["metric"] for row in scored} == {"emd", "tv"}


LARGE_CASES = [(kind, column) for kind in own_large.PROTOCOLS for column in ("word", "id")]
"""A large alphabet (own_large): every sketch oracle and heavy-hitter protocol alone at two eps with both estimators,
on a column of strings and on a column of integers of one CSV (read by the data job's function: its items, the
domain), scored on the top items; every other mechanism kind refused on it, and these protocols on every enumerated
alphabet, by the config check naming the key."""


@pytest.mark.parametrize(("kind", "column"), LARGE_CASES)
def test_every_sketch_and_heavy_hitter_runs_on_a_large_alphabet_of_strings_or_integers(kind, column, tmp_path):
    rng = np.random.default_rng(10)
    ranks = np.minimum(rng.zipf(1.5, 400), 3000)
    (tmp_path / "cell.csv").write_text("word,id\n" + "".join(f"w{r},{r * 7919}\n" for r in ranks))
    config = {"studies": {"cell": {"data": {"csv": str(tmp_path / "cell.csv"), "column": column},
                                   "alphabet": {"kind": "large"}, "runs": 2, "ibu": STOPPING,
                                   "experiments": {"big": {"compare": [kind], "eps": [1.0, 4.0],
                                                           "estimators": list(own_large.ESTIMATORS), "top": 3,
                                                           "candidates": 8}}}}}
    own_study.check(config)
    study_config = config["studies"]["cell"]
    items, _, alphabet, _ = own_data.load_with_values(study_config["data"], study_config["alphabet"])
    assert alphabet["k"] == (2**64 if column == "word" else 1 << int(ranks.max() * 7919).bit_length())
    rows = own_large.run_rows("cell", "big", study_config["experiments"]["big"], items, alphabet["k"], 2, 11, STOPPING)
    methods = ({large_domains.FOUND} if kind in own_large.HEAVY_HITTERS
               else {large_domains.UNBIASED} if kind == "hm" else {large_domains.UNBIASED, large_domains.MLE})
    assert {r["method"] for r in rows} == methods and len(rows) == 2 * 2 * len(methods)  # eps x runs x methods
    for row in rows:
        assert row["n"] == 400 and np.isfinite(row["mae"]) and row["mae"] >= 0 and row["max_error"] >= row["mae"]
        assert all(0 <= row[score] <= 1 for score in ("precision", "recall", "ncr")), row
    lines = large_domains.summary(rows)
    assert len(lines) == 2 * len(methods) and all(line["runs"] == 2 for line in lines)


@pytest.mark.parametrize("kind", KINDS + MORE_PROTOCOLS + NUMERIC)
def test_every_other_kind_is_refused_on_a_large_alphabet_naming_the_key(kind):
    config = {"studies": {"cell": {"data": {"csv": "cell.csv", "column": "x"}, "alphabet": {"kind": "large"},
                                   "runs": 1, "experiments": {"big": {"compare": ["cms", kind], "eps": [1.0],
                                                                      "estimators": ["unbiased"]}}}}}
    with pytest.raises(ValueError, match=rf"experiments\.big\.compare\[1\]: '{kind}' cannot run on a large "):
        own_large.check("config key studies.cell.experiments.big", config["studies"]["cell"]["experiments"]["big"])


@pytest.mark.parametrize(("kind", "alphabet"), [(kind, alphabet) for kind in own_large.PROTOCOLS
                                                for alphabet in ALPHABETS])
def test_sketches_and_heavy_hitters_are_refused_on_every_enumerated_alphabet(kind, alphabet):
    config = study(alphabet, {"e": {"compare": [kind], "eps": [1.0], "estimators": ["inv"]}})
    with pytest.raises(ValueError, match=rf"experiments\.e\.compare\[0\]: {kind} is for a large alphabet"):
        own_study.experiments(config)


def test_the_matrix_counts_its_cells():
    assert CELLS == (27 + 8 + 8) * 5 * 11 + 8 * 5 * 2 + 7 * 5 * (66 + 33 + 28 + 19)  # 8 x 5 x 2: the joint-rounds cells


@pytest.mark.parametrize("kind", ["geometric", "laplace", "exponential"])
def test_on_a_numeric_alphabet_a_metric_mechanism_is_eps_ldp_over_the_range_as_the_numeric_ones(kind):
    alphabet = Alphabet.from_dict({"kind": "linear", "k": 77, "spacing": 1.0})
    for eps in (0.5, 1.0, 4.0):
        (per_range,) = experiment.build_mechanisms([experiment.Member(kind, eps)], alphabet, bounds=(18.0, 95.0))
        assert eps * 0.95 <= ldp_level(per_range) <= eps * (1 + 1e-9), (kind, eps, ldp_level(per_range))
        (per_unit,) = experiment.build_mechanisms([experiment.Member(kind, eps)], alphabet)  # any other alphabet
        assert ldp_level(per_unit) > 10 * eps  # eps per year: eps * 76 years (exponential: half that)


def test_drawn_users_of_a_numeric_alphabet_hold_values_of_records_of_their_bins():
    from privest_studies.experiment.reports import _values_of

    rng = np.random.default_rng(3)
    values = rng.uniform(0, 12.5, 400)
    secrets = np.minimum((values // 2.5).astype(np.int64), 4)
    data = {"secrets": secrets, "values": values, "theta": np.bincount(secrets, minlength=5) / 400}
    np.testing.assert_array_equal(_values_of(None, data, rng), values)  # the dataset's own users: every record
    counts = np.array([30, 0, 7, 50, 13])
    drawn = _values_of(counts, data, rng)
    np.testing.assert_array_equal(np.minimum((drawn // 2.5).astype(np.int64), 4), np.repeat(np.arange(5), counts))
    assert np.isin(drawn, values).all() and np.unique(drawn[:30]).size > 10  # records of the bin, not one repeated
