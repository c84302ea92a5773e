"""Property-based tests of the public API's input validation (issue 15, points 4 and 5).

Every public function and class of privest (``privest.__all__`` and each module's public names, enumerated here, not
listed by hand) is called with one argument corrupted at a time and every other argument valid: wrong shapes,
NaN and inf, negative probabilities, counts or distances, non-stochastic matrices, non-binary bits, out-of-range
indices and wrong types (a float for an int, an int for a Generator, a tuple for an object, a string for an array).
The call must raise ValueError or TypeError whose message names the argument: never return a number, never fail
with another exception deep inside. ``test_every_public_callable_is_covered`` fails when a public function has
neither such a test nor a reason, in ``NO_DATA``, why it takes no data to check.

Hypothesis draws the corruption's details (where the NaN goes, how far a row sum is off, which wrong type); the
profile of tests/conftest.py makes the draws the same on every run. The last tests are properties of valid inputs.
"""

import importlib
import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privest
from privest import counts, estimators, heavy_hitters, lp, mechanisms, numeric, protocols, rappor, sampling, shokri
from privest.alphabets import Alphabet, Grid, linear_distances
from privest.rappor import RapporReports

MODULES = ("alphabets", "counts", "estimators", "heavy_hitters", "lp", "mechanisms", "metrics", "numeric", "protocols",
           "rappor", "sampling", "shokri")


def public_callables() -> set[str]:
    """The qualified names (``module.qualname``) of every public function, class and public method of a public class
    that privest exports: ``privest.__all__`` and each module's ``__all__`` (or its names without a leading _).

    A callable is named after the public module a user imports it from: the module of MODULES that defines it, or whose
    package does (``privest.estimators.iterative.ibu`` is ``privest.estimators.ibu``), else the first of MODULES
    whose ``__all__`` lists it (``privest.groups.Group`` is ``privest.estimators.Group``, ``privest._checks``'s
    ``check_row_stochastic`` is ``privest.mechanisms.check_row_stochastic``); a callable of none of them is not
    public (the other validators of ``privest._checks``)."""
    exported = {}
    for module_name in MODULES:
        module = importlib.import_module(f"privest.{module_name}")
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        for name in names:
            exported.setdefault(id(getattr(module, name)), f"privest.{module_name}")
    objects = [getattr(privest, name) for name in privest.__all__]
    for module_name in MODULES:
        module = importlib.import_module(f"privest.{module_name}")
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        objects += [getattr(module, name) for name in names]
    found = set()
    for obj in objects:
        module = getattr(obj, "__module__", "") or ""
        if not callable(obj) or not module.startswith("privest"):
            continue  # not privest's
        home = next((f"privest.{m}" for m in MODULES if module == f"privest.{m}" or module.startswith(f"privest.{m}.")),
                    None) or exported.get(id(obj))
        if home is None:
            continue  # a validator of privest._checks that no public module exports
        found.add(f"{home}.{obj.__qualname__}")
        if inspect.isclass(obj):
            for name, member in vars(obj).items():
                if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, classmethod)):
                    found.add(f"{home}.{obj.__qualname__}.{name}")
    return found


# --- bad values -------------------------------------------------------------------------------------------------------

NOT_AN_ARRAY = ("abc", object(), {"a": 1})


def _position(data: st.DataObject, array: np.ndarray) -> tuple[int, ...]:
    return tuple(data.draw(st.integers(0, n - 1)) for n in array.shape)


def _with(array: Any, data: st.DataObject, value: float) -> np.ndarray:
    array = np.array(array, dtype=np.float64)
    array[_position(data, array)] = value
    return array


def _wrong_ndim(good: Any, data: st.DataObject) -> np.ndarray:
    good = np.asarray(good)
    return good.ravel() if good.ndim == 2 else data.draw(st.sampled_from([good[None, :], good[:, None]]))


def _wrong_length(good: Any, data: st.DataObject) -> np.ndarray:
    """One entry (1-D) or one column (2-D) fewer or more."""
    good = np.asarray(good)
    if good.shape[-1] > 1 and data.draw(st.booleans()):
        return good[..., :-1]
    return np.concatenate([good, good[..., :1]], axis=-1)


def _not_stochastic(good: Any, data: st.DataObject) -> np.ndarray:
    bad = np.array(good, dtype=np.float64)
    row = data.draw(st.integers(0, bad.shape[0] - 1))
    bad[row] *= data.draw(st.one_of(st.floats(0.0, 0.9), st.floats(1.1, 10.0)))
    return bad


def _without_one_key(good: dict, data: st.DataObject) -> dict:
    drop = data.draw(st.sampled_from(sorted(good)))
    return {key: value for key, value in good.items() if key != drop}


CORRUPT: dict[str, Callable[[Any, st.DataObject], Any]] = {
    # arrays
    "nan": lambda good, data: _with(good, data, np.nan),
    "inf": lambda good, data: _with(good, data, data.draw(st.sampled_from([np.inf, -np.inf]))),
    "negative": lambda good, data: _with(good, data, -data.draw(st.floats(1e-6, 1e3))),
    "ndim": _wrong_ndim,
    "length": _wrong_length,
    "not_array": lambda good, data: data.draw(st.sampled_from(NOT_AN_ARRAY)),
    "none": lambda good, data: None,
    "unnormalised": lambda good, data: np.asarray(good) * data.draw(st.one_of(st.floats(0.1, 0.9),
                                                                               st.floats(1.1, 10.0))),
    "zero_sum": lambda good, data: np.zeros(np.shape(good)),
    "not_stochastic": _not_stochastic,
    "non_integer": lambda good, data: _with(good, data, data.draw(st.sampled_from([0.5, 1.25, 2.5]))),
    "out_of_range": lambda good, data: _with(good, data, data.draw(st.integers(10**6, 10**7))).astype(np.int64),
    "non_binary": lambda good, data: _with(good, data, data.draw(st.sampled_from([2, 3, 255, -1]))).astype(np.int64),
    "asymmetric": lambda good, data: np.asarray(good) + np.triu(np.ones(np.shape(good)), 1),
    "diagonal": lambda good, data: np.asarray(good) + np.eye(len(good)),
    # scalars
    "float": lambda good, data: float(good) + data.draw(st.sampled_from([0.0, 0.5])),
    "bool": lambda good, data: True,
    "text": lambda good, data: str(good),
    "tuple": lambda good, data: (good,),
    "nonpositive": lambda good, data: -data.draw(st.floats(0.0, 1e6)),
    "nan_scalar": lambda good, data: math.nan,
    "inf_scalar": lambda good, data: data.draw(st.sampled_from([math.inf, -math.inf])),
    "negative_scalar": lambda good, data: -data.draw(st.floats(1e-9, 1e6)),
    "outside_unit": lambda good, data: data.draw(st.one_of(st.floats(1.0001, 10.0), st.floats(-10.0, 0.0))),
    "unknown": lambda good, data: data.draw(st.sampled_from(["", "nope", "KRR ", "squarem2"])),
    "int": lambda good, data: data.draw(st.integers(-5, 5)),
    # objects
    "seed": lambda good, data: data.draw(st.integers(0, 2**32)),
    "legacy_rng": lambda good, data: np.random.RandomState(0),
    "grid_tuple": lambda good, data: (good.columns, good.rows, good.cell_km),
    "dict": lambda good, data: {"columns": 2, "rows": 2, "cell_km": 1.0},
    "empty": lambda good, data: [],
    "member_nan": lambda good, data: [_with(good[0], data, np.nan), *good[1:]],
    "member_not_stochastic": lambda good, data: [_not_stochastic(good[0], data), *good[1:]],
    "member_length": lambda good, data: [np.asarray(good[0])[:-1], *good[1:]],
    "member_tuple": lambda good, data: [("a", None), *good[1:]],
    "wrong_count": lambda good, data: list(good)[:-1],
    "missing_key": lambda good, data: _without_one_key(good, data),
    "bad_value": lambda good, data: {**good, data.draw(st.sampled_from(sorted(set(good) - {"kind"}))):
                                     data.draw(st.sampled_from(["abc", 2.5, None, -3]))},
    "unknown_kind": lambda good, data: {**good, "kind": data.draw(st.sampled_from(["square", None, 3]))},
    "items": lambda good, data: tuple(good.items()),
}

ARRAY = ("nan", "not_array", "none")
KINDS: dict[str, tuple[str, ...]] = {
    "distribution": (*ARRAY, "inf", "negative", "ndim", "unnormalised"),
    "weights": (*ARRAY, "inf", "negative", "ndim", "zero_sum"),
    "stochastic": (*ARRAY, "inf", "negative", "ndim", "not_stochastic"),
    "matrix": (*ARRAY, "inf", "negative", "ndim"),
    "distances": (*ARRAY, "inf", "negative", "ndim"),
    "finite": (*ARRAY, "inf"),
    "indices": (*ARRAY, "non_integer", "out_of_range", "negative"),
    "bits": (*ARRAY, "ndim", "non_binary"),
    "int": ("float", "bool", "text", "none", "tuple"),
    "positive": ("nonpositive", "nan_scalar", "inf_scalar", "text", "none", "tuple"),
    "non_negative": ("negative_scalar", "nan_scalar", "inf_scalar", "text", "none"),
    "alpha": ("outside_unit", "nan_scalar", "text", "none"),
    "choice": ("unknown", "int", "tuple"),
    "text": ("int", "none", "tuple"),
    "rng": ("seed", "none", "text", "legacy_rng", "tuple"),
    "grid": ("grid_tuple", "dict", "text", "none", "int"),
    "alphabet": ("tuple", "dict", "text", "none"),
    "matrices": ("empty", "member_nan", "member_not_stochastic", "text", "none"),
    "groups": ("empty", "member_tuple", "text", "none"),
    "spec": ("missing_key", "bad_value", "unknown_kind", "items", "text"),
    "arrays": ("missing_key", "items", "text", "none"),
    "object": ("tuple", "text", "none", "int"),
    "objects": ("empty", "member_tuple", "text", "none"),
}


@dataclass(frozen=True)
class Arg:
    """How to corrupt one argument: its kind's categories, minus ``skip``, plus ``extra``; ``minimum`` adds the
    'below the minimum' case of an integer."""

    kind: str
    extra: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    minimum: int | None = None

    def categories(self) -> list[str]:
        found = [c for c in KINDS[self.kind] if c not in self.skip] + list(self.extra)
        return found + (["below"] if self.minimum is not None else [])


@dataclass(frozen=True)
class Case:
    """One public callable: the qualified names it covers, a valid call (``good()`` gives the keyword arguments),
    and how to corrupt each argument."""

    names: tuple[str, ...]
    call: Callable[..., Any]
    good: Callable[[], dict[str, Any]]
    args: dict[str, Arg] = field(default_factory=dict)


def _krr3():
    return privest.krr(3, 1.0)


def _bits():
    return np.array([[1, 0, 0, 1], [0, 1, 0, 0], [1, 0, 0, 1]], dtype=np.uint8)


def _reports():
    return RapporReports.from_bits(_bits(), 1.0)


def _sketch(name: str) -> "protocols.Sketch":
    """A small sketch of each kind on 100 items."""
    options = {"cms": {"hashes": 4, "width": 16}, "hcms": {"hashes": 4, "width": 16}, "flh": {"hashes": 4},
               "pcs": {"hashes": 4, "width": 16}, "rappor_bloom": {"bits": 16, "cohorts": 4}}
    return protocols.by_name(name, 100, 1.0, **options.get(name, {}))


def _sketch_reports(name: str) -> Any:
    return _sketch(name).sample(np.array([0, 1, 5, 5, 99]), np.random.default_rng(0))


def _program():
    program = lp.LinearProgram([1.0, 2.0])
    return program


def _set_group():
    return protocols.grr(3, 1.0).group(np.array([0, 1, 1, 2]))


def _bit_group():
    return protocols.sue(3, 1.0).group(np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]], dtype=bool))


G3 = Grid(2, 2, 1.0)
D3 = linear_distances(3)
P3 = np.array([0.2, 0.3, 0.5])
C3 = np.array([5.0, 3.0, 2.0])
RNG = Arg("rng")
EPS = Arg("positive")
K2 = Arg("int", minimum=2)
N1 = Arg("int", minimum=1)
DELTA = Arg("positive")
MAX_ITER = Arg("int", minimum=1)
POST = Arg("choice")
HASHES = Arg("int", minimum=1, skip=("none",))  # None is a valid hashes
THRESHOLD = Arg("alpha", skip=("none", "outside_unit"), extra=("inf_scalar", "negative_scalar"))  # None: the default
EPS1 = Arg("positive", skip=("none",))  # None: eps / 2
INDICES = Arg("indices")
SIZE = Arg("int", minimum=1, skip=("none",))  # None: the default (k buckets, every bucket a bit)
KS = Arg("indices", skip=("out_of_range",))  # any size >= 2 is a valid attribute
BITFLIP_REPORTS = Arg("finite", extra=("ndim",))  # -1, 0 and 1 are all valid entries: only non-numbers are bad


def _bitflip():
    return protocols.dbitflip(4, 1.0, 2, 1)


def _bitflip_reports():
    return _bitflip().sample(np.array([0, 1, 3]), np.random.default_rng(0))


REAL = Arg("positive", skip=("nonpositive",))  # any finite real number
VALUES = Arg("finite", ("ndim", "out_of_range"))  # numbers within the mechanism's range


def _heavy(name: str) -> Any:
    """A small heavy-hitter protocol of each kind on 2^10 items (FLH with 4 hashes)."""
    return {"pem": heavy_hitters.pem(2**10, 1.0, start=2, step=4, hashes=4),
            "treehist": heavy_hitters.treehist(2**10, 1.0, step=5, hashes=4),
            "sfp": heavy_hitters.sfp(2**10, 1.0, step=5, hashes=4)}[name]


HEAVY_VALUES = np.array([0, 7, 7, 1023, 512])


def _sw():
    return numeric.square_wave(1.0)


def _sw_reports():
    return _sw().sample(np.linspace(0.0, 1.0, 40), np.random.default_rng(0))


def _multidim():
    return protocols.smp((3, 4), 1.0, "grr")


def _multidim_reports():
    return _multidim().sample(np.array([[0, 1], [2, 3], [1, 0]]), np.random.default_rng(0))

CASES: list[Case] = [
    # alphabets
    Case(("alphabets.linear_distances",), privest.linear_distances, lambda: dict(k=4, spacing=1.0),
         {"k": N1, "spacing": Arg("positive")}),
    Case(("alphabets.Grid",), Grid, lambda: dict(columns=2, rows=3, cell_km=1.0),
         {"columns": N1, "rows": N1, "cell_km": Arg("positive")}),
    Case(("alphabets.Grid.column_row",), lambda index: Grid(2, 3, 1.0).column_row(index),
         lambda: dict(index=np.arange(6)), {"index": Arg("indices")}),
    Case(("alphabets.Grid.index",), lambda column, row: Grid(2, 3, 1.0).index(column, row),
         lambda: dict(column=np.array([0, 1]), row=np.array([0, 2])),
         {"column": Arg("indices"), "row": Arg("indices")}),
    Case(("alphabets.Grid.cell_of_km",), lambda east, north: Grid(2, 3, 1.0).cell_of_km(east, north),
         lambda: dict(east=np.array([0.5, 1.5]), north=np.array([0.5, 2.5])),
         {"east": Arg("finite"), "north": Arg("finite")}),
    Case(("alphabets.Alphabet",), Alphabet, lambda: dict(k=6, grid=Grid(2, 3, 1.0)),
         {"k": N1, "grid": Arg("grid", skip=("none",))}),
    Case(("alphabets.Alphabet.from_dict",), Alphabet.from_dict,
         lambda: dict(spec={"kind": "planar", "columns": 2, "rows": 3, "cell_km": 1.0}), {"spec": Arg("spec")}),
    Case(("alphabets.Alphabet.emd",), lambda p, q: Alphabet(3).emd(p, q), lambda: dict(p=P3, q=P3[::-1]),
         {"p": Arg("distribution", ("length",)), "q": Arg("distribution", ("length",))}),
    # metrics
    Case(("metrics.emd",), privest.emd, lambda: dict(p=P3, q=P3[::-1], distances=D3),
         {"p": Arg("distribution", ("length",)), "q": Arg("distribution", ("length",)),
          "distances": Arg("distances", ("length",))}),
    Case(("metrics.emd_1d",), privest.emd_1d, lambda: dict(p=P3, q=P3[::-1], spacing=1.0),
         {"p": Arg("distribution", ("length",)), "q": Arg("distribution", ("length",)), "spacing": EPS}),
    Case(("metrics.total_variation",), privest.total_variation, lambda: dict(p=P3, q=P3[::-1]),
         {"p": Arg("distribution", ("length",)), "q": Arg("distribution", ("length",))}),
    # mechanisms
    Case(("mechanisms.average",), privest.average,
         lambda: dict(mechanisms=[_krr3(), privest.geometric(3, 1.0)], weights=[1.0, 2.0]),
         {"mechanisms": Arg("matrices"), "weights": Arg("weights", ("length",), skip=("none",))}),
    Case(("mechanisms.by_name",), privest.by_name, lambda: dict(kind="krr", alphabet=Alphabet(3), eps=1.0),
         {"kind": Arg("choice"), "alphabet": Arg("alphabet"), "eps": EPS}),
    Case(("mechanisms.check_row_stochastic",), privest.check_row_stochastic,
         lambda: dict(A=_krr3(), name="A", atol=1e-12), {"A": Arg("stochastic"), "atol": Arg("non_negative")}),
    Case(("mechanisms.exponential",), privest.exponential, lambda: dict(distances=D3, eps=1.0),
         {"distances": Arg("distances"), "eps": EPS}),
    Case(("mechanisms.geo_indistinguishability_level",), mechanisms.geo_indistinguishability_level,
         lambda: dict(A=privest.geometric(3, 1.0), distances=D3),
         {"A": Arg("matrix"), "distances": Arg("distances", ("length",))}),
    Case(("mechanisms.geometric",), privest.geometric, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS}),
    Case(("mechanisms.geometric_untruncated",), mechanisms.geometric_untruncated,
         lambda: dict(k=3, eps=1.0, z_min=-2, z_max=4),
         {"k": K2, "eps": EPS, "z_min": Arg("int"), "z_max": Arg("int")}),
    Case(("mechanisms.is_geo_indistinguishable",), privest.is_geo_indistinguishable,
         lambda: dict(A=privest.geometric(3, 1.0), distances=D3, eps=1.0, rtol=1e-9),
         {"A": Arg("matrix"), "distances": Arg("distances", ("length",)), "eps": EPS, "rtol": Arg("non_negative")}),
    Case(("mechanisms.is_ldp",), privest.is_ldp, lambda: dict(A=_krr3(), eps=1.0, rtol=1e-9),
         {"A": Arg("matrix"), "eps": EPS, "rtol": Arg("non_negative")}),
    Case(("mechanisms.krr",), privest.krr, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS}),
    Case(("mechanisms.laplace",), privest.laplace, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS}),
    Case(("mechanisms.ldp_level",), privest.ldp_level, lambda: dict(A=_krr3()), {"A": Arg("matrix")}),
    Case(("mechanisms.planar_geometric",), privest.planar_geometric, lambda: dict(grid=G3, eps=1.0),
         {"grid": Arg("grid"), "eps": EPS}),
    Case(("mechanisms.planar_laplace",), privest.planar_laplace, lambda: dict(grid=G3, eps=1.0),
         {"grid": Arg("grid"), "eps": EPS}),
    Case(("mechanisms.planar_geometric_remapped",), mechanisms.planar_geometric_remapped,
         lambda: dict(grid=G3, output_grid=Grid(1, 1, 2.0), eps=1.0),
         {"grid": Arg("grid"), "output_grid": Arg("grid"), "eps": EPS}),
    Case(("mechanisms.remap_to_grid",), mechanisms.remap_to_grid,
         lambda: dict(grid=G3, output_grid=Grid(1, 1, 2.0), atol=1e-9),
         {"grid": Arg("grid"), "output_grid": Arg("grid"), "atol": Arg("non_negative")}),
    Case(("mechanisms.rappor_flip_probability",), mechanisms.rappor_flip_probability, lambda: dict(eps=1.0),
         {"eps": EPS}),
    # sampling
    Case(("sampling.Rappor",), sampling.Rappor, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS}),
    Case(("sampling.check_secrets",), sampling.check_secrets, lambda: dict(secrets=np.array([0, 2, 1]), k=3),
         {"secrets": Arg("indices", ("ndim",)), "k": N1}),
    Case(("sampling.population",), privest.population,
         lambda: dict(mechanisms=[_krr3(), sampling.Rappor(3, 1.0)], secret_counts=np.array([[5, 3, 2], [4, 4, 4]]),
                      rng=np.random.default_rng(0)),
         {"mechanisms": Arg("matrices", ("wrong_count",)),
          "secret_counts": Arg("indices", ("ndim", "length"), skip=("out_of_range",)), "rng": RNG}),
    Case(("sampling.rappor",), sampling.rappor,
         lambda: dict(secrets=np.array([0, 2, 1]), k=3, eps=1.0, rng=np.random.default_rng(0)),
         {"secrets": Arg("indices", ("ndim",)), "k": K2, "eps": EPS, "rng": RNG}),
    Case(("sampling.rng_for",), privest.rng_for, lambda: dict(seed=2026), {"seed": Arg("int", skip=("tuple",))}),
    Case(("sampling.sample",), privest.sample,
         lambda: dict(A=_krr3(), secrets=np.array([0, 2, 1]), rng=np.random.default_rng(0)),
         {"A": Arg("stochastic"), "secrets": Arg("indices", ("ndim",)), "rng": RNG}),
    Case(("sampling.sample_counts",), privest.sample_counts,
         lambda: dict(A=_krr3(), secret_counts=np.array([5, 3, 2]), rng=np.random.default_rng(0)),
         {"A": Arg("stochastic"), "secret_counts": Arg("indices", ("ndim", "length"), skip=("out_of_range",)),
          "rng": RNG}),
    Case(("sampling.split_secrets",), sampling.split_secrets,
         lambda: dict(secrets=np.array([0, 2, 1, 1]), k=3, groups=2, rng=np.random.default_rng(0)),
         {"secrets": Arg("indices", ("ndim",)), "k": N1, "groups": N1, "rng": RNG}),
    Case(("sampling.split_users",), privest.split_users,
         lambda: dict(n=10, groups=2, theta=P3, rng=np.random.default_rng(0)),
         {"n": N1, "groups": N1, "theta": Arg("weights"), "rng": RNG}),
    # rappor
    Case(("rappor.RapporReports",), RapporReports, lambda: dict(bits=_bits()[:2], counts=np.array([3, 2]), eps=1.0),
         {"bits": Arg("bits"), "counts": Arg("weights", ("length",), skip=("zero_sum",)), "eps": EPS}),
    Case(("rappor.RapporReports.from_bits",), RapporReports.from_bits, lambda: dict(bits=_bits(), eps=1.0),
         {"bits": Arg("bits"), "eps": EPS}),
    Case(("rappor.RapporReports.from_arrays",), RapporReports.from_arrays,
         lambda: dict(arrays=_reports().to_arrays("x_"), prefix="x_"),
         {"arrays": Arg("arrays"), "prefix": Arg("text")}),
    Case(("rappor.RapporReports.to_arrays",), lambda prefix: _reports().to_arrays(prefix), lambda: dict(prefix="x_"),
         {"prefix": Arg("text")}),
    Case(("rappor.distinct_rows",), rappor.distinct_rows, lambda: dict(bits=_bits()), {"bits": Arg("bits")}),
    Case(("rappor.flip_probability",), rappor.flip_probability, lambda: dict(eps=1.0),
         {"eps": Arg("positive", skip=("tuple",))}),  # a tuple of eps is one per user
    Case(("rappor.log_probability",), rappor.log_probability, lambda: dict(bits=_bits(), eps=1.0),
         {"bits": Arg("bits"), "eps": EPS}),
    # estimators
    Case(("estimators.Group",), estimators.Group,
         lambda: dict(G=_krr3(), counts=C3, log_scale=np.zeros(3)),
         {"G": Arg("matrix"), "counts": Arg("weights", ("length",)), "log_scale": Arg("finite", ("length",))}),
    Case(("estimators.SetGroup",), estimators.SetGroup, lambda: vars(_set_group()).copy(),
         {"k": N1, "indptr": Arg("indices", ("length",), skip=("out_of_range",)), "indices": Arg("indices"),
          "counts": Arg("weights", ("length",)), "high": EPS, "low": EPS, "log_scale": Arg("finite", ("length",))}),
    Case(("estimators.BitGroup",), estimators.BitGroup, lambda: vars(_bit_group()).copy(),
         {"k": N1, "bits": Arg("bits", skip=("non_binary",)), "counts": Arg("weights", ("length",)), "high": EPS,
          "low": EPS, "log_scale": Arg("finite", ("length",))}),
    Case(("protocols.PackedBits",), protocols.PackedBits,
         lambda: dict(bits=np.packbits(np.array([[1, 0, 1], [0, 1, 1]], dtype=bool), axis=1), k=3),
         {"bits": Arg("bits", skip=("non_binary",)), "k": N1}),
    Case(("estimators.combine_results",), privest.combine_results,
         lambda: dict(estimates=[P3, P3[::-1]], n=[10, 20]),
         {"estimates": Arg("objects", ("member_nan", "member_length")), "n": Arg("weights", ("length",))}),
    Case(("estimators.gibu",), privest.gibu,
         lambda: dict(groups=[(_krr3(), C3)], delta=1e-10, max_iter=100, theta0=P3, accelerate=None),
         {"groups": Arg("groups"), "delta": DELTA, "max_iter": MAX_ITER,
          "theta0": Arg("weights", ("length",), skip=("none",)), "accelerate": Arg("choice")}),
    Case(("estimators.squarem",), estimators.squarem,
         lambda: dict(groups=[(_krr3(), C3)], delta=1e-10, max_iter=100, tol=1e-9, theta0=P3),
         {"groups": Arg("groups"), "delta": Arg("positive", skip=("none",)), "max_iter": MAX_ITER,
          "tol": Arg("positive", skip=("none",)), "theta0": Arg("weights", ("length",), skip=("none",))}),
    Case(("estimators.ibu",), privest.ibu,
         lambda: dict(A=_krr3(), q=C3, delta=1e-10, max_iter=100, theta0=P3, accelerate=None),
         {"A": Arg("stochastic"), "q": Arg("weights", ("length",)), "delta": DELTA, "max_iter": MAX_ITER,
          "theta0": Arg("weights", ("length",), skip=("none",)), "accelerate": Arg("choice")}),
    Case(("estimators.ibu_m",), privest.ibu_m,
         lambda: dict(mechanisms=[_krr3(), privest.geometric(3, 1.0)], counts=[C3, C3[::-1]], delta=1e-10,
                      max_iter=100),
         {"mechanisms": Arg("matrices"), "counts": Arg("objects", ("member_nan", "member_length", "wrong_count")),
          "delta": DELTA, "max_iter": MAX_ITER}),
    Case(("estimators.ibu_runs",), privest.ibu_runs,
         lambda: dict(A=_krr3(), counts=np.array([C3, C3[::-1]]), delta=1e-10, max_iter=100),
         {"A": Arg("stochastic"), "counts": Arg("weights", ("length",)), "delta": DELTA, "max_iter": MAX_ITER}),
    Case(("estimators.gibu_matrix_runs",), privest.estimators.gibu_matrix_runs,
         lambda: dict(matrices=[_krr3(), privest.geometric(3, 1.0)], counts=np.array([[C3, C3[::-1]]]), delta=1e-10,
                      max_iter=100),
         {"matrices": Arg("matrices"), "delta": DELTA, "max_iter": MAX_ITER}),
    Case(("estimators.inv",), privest.inv, lambda: dict(A=_krr3(), q=C3, post=None),
         {"A": Arg("stochastic"), "q": Arg("weights", ("length",)), "post": POST}),
    Case(("estimators.bootstrap",), privest.bootstrap,
         lambda: dict(groups=[(_krr3(), C3)], rng=np.random.default_rng(0), replicates=10, level=0.9),
         {"groups": Arg("groups"), "rng": RNG, "replicates": Arg("int", minimum=10), "level": Arg("alpha")}),
    Case(("estimators.inv_variance",), privest.inv_variance, lambda: dict(A=_krr3(), q=C3),
         {"A": Arg("stochastic"), "q": Arg("weights", ("length",))}),
    Case(("estimators.inv_interval",), privest.inv_interval, lambda: dict(A=_krr3(), q=C3, level=0.95),
         {"A": Arg("stochastic"), "q": Arg("weights", ("length",)), "level": Arg("alpha")}),
    Case(("estimators.IbuResult.interval",), lambda level: privest.ibu(_krr3(), C3).interval(level),
         lambda: dict(level=0.95), {"level": Arg("alpha")}),
    Case(("estimators.inv_m",), privest.inv_m,
         lambda: dict(mechanisms=[_krr3(), privest.geometric(3, 1.0)], counts=[C3, C3[::-1]], post=None),
         {"mechanisms": Arg("matrices"), "counts": Arg("objects", ("member_nan", "member_length", "wrong_count")),
          "post": POST}),
    Case(("estimators.inv_runs",), privest.inv_runs, lambda: dict(A=_krr3(), counts=np.array([C3, C3[::-1]])),
         {"A": Arg("stochastic"), "counts": Arg("weights", ("length",))}),
    Case(("estimators.krr_mle",), privest.krr_mle, lambda: dict(counts=C3, eps=1.0),
         {"counts": Arg("weights"), "eps": EPS}),
    Case(("estimators.likely_subset_krr",), estimators.likely_subset_krr, lambda: dict(reports=np.array([0, 2, 2])),
         {"reports": Arg("indices", ("ndim",), skip=("out_of_range",))}),
    Case(("estimators.likely_subset_linear",), estimators.likely_subset_linear,
         lambda: dict(alphabet=np.arange(4.0), reports=np.array([0.5, 2.0])),
         {"alphabet": Arg("finite", ("ndim",)), "reports": Arg("finite")}),
    Case(("estimators.likely_subset_planar",), estimators.likely_subset_planar,
         lambda: dict(centres=G3.centres(), reports=np.array([[0.5, 0.5], [1.0, 1.5]]), delta=0.5),
         {"centres": Arg("finite", ("ndim",)), "reports": Arg("finite", ("ndim",)), "delta": Arg("non_negative")}),
    Case(("estimators.log_likelihood",), estimators.log_likelihood,
         lambda: dict(theta=P3, groups=[(_krr3(), C3)]),
         {"theta": Arg("distribution", ("length",)), "groups": Arg("groups")}),
    Case(("estimators.matrix_group",), privest.matrix_group, lambda: dict(A=_krr3(), counts=C3),
         {"A": Arg("stochastic"), "counts": Arg("weights", ("length",))}),
    Case(("estimators.normalise",), privest.normalise, lambda: dict(v=np.array([0.5, -0.1, 0.6])),
         {"v": Arg("finite", ("ndim",))}),
    Case(("estimators.post_process",), estimators.post_process, lambda: dict(v=np.array([0.5, -0.1, 0.6]), post=None),
         {"v": Arg("finite", ("ndim",)), "post": POST}),
    Case(("estimators.project_simplex",), privest.project_simplex, lambda: dict(v=np.array([0.5, -0.1, 0.6])),
         {"v": Arg("finite", ("ndim",))}),
    Case(("estimators.rap",), privest.rap, lambda: dict(bits=_bits(), eps=np.ones(3), post=None),
         {"bits": Arg("bits"), "eps": Arg("positive", ("length",)), "post": POST}),
    Case(("estimators.rap_grouped",), privest.rap_grouped, lambda: dict(reports=[_reports()], post=None),
         {"reports": Arg("objects"), "post": POST}),
    Case(("estimators.rappor_group",), privest.rappor_group, lambda: dict(reports=_reports()),
         {"reports": Arg("object")}),
    # protocols (constructors and factories; the methods are tested below, per protocol)
    *[Case((f"protocols.{cls.__name__}", f"protocols.{cls.__name__.lower()}"),
           cls, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS})
      for cls in (protocols.GRR, protocols.SUE, protocols.OUE, protocols.SS, protocols.HR, protocols.SHE)],
    *[Case((f"protocols.{cls.__name__}", f"protocols.{cls.__name__.lower()}"),
           cls, lambda: dict(k=3, eps=1.0, threshold=0.7), {"k": K2, "eps": EPS, "threshold": THRESHOLD})
      for cls in (protocols.THE,)],
    Case(("protocols.adp",), protocols.adp, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS}),
    Case(("protocols.the_threshold",), protocols.the_threshold, lambda: dict(eps=1.0), {"eps": EPS}),
    *[Case((f"protocols.{cls.__name__}", f"protocols.{cls.__name__.lower()}"),
           cls, lambda: dict(k=3, eps=1.0, hashes=16), {"k": K2, "eps": EPS, "hashes": HASHES})
      for cls in (protocols.BLH, protocols.OLH)],
    *[Case((), factory, lambda: dict(k=3, eps=1.0), {"k": K2, "eps": EPS})
      for factory in (protocols.grr, protocols.sue, protocols.oue, protocols.ss, protocols.hr, protocols.she)],
    *[Case((), factory, lambda: dict(k=3, eps=1.0, hashes=16), {"k": K2, "eps": EPS, "hashes": HASHES})
      for factory in (protocols.blh, protocols.olh)],
    # sketch oracles (constructors, factories, methods, reports and hashes)
    *[Case((f"protocols.{cls.__name__}", f"protocols.{cls.__name__.lower()}"), cls,
           lambda: dict(k=2**40, eps=1.0, hashes=4, width=16), {"k": K2, "eps": EPS, "hashes": N1, "width": K2})
      for cls in (protocols.CMS, protocols.HCMS, protocols.PCS)],
    Case(("protocols.FLH", "protocols.flh"), protocols.FLH, lambda: dict(k=2**40, eps=1.0, hashes=4),
         {"k": K2, "eps": EPS, "hashes": N1}),
    Case(("protocols.HM", "protocols.hm"), protocols.HM, lambda: dict(k=2**40, eps=1.0, t=2),
         {"k": K2, "eps": EPS, "t": Arg("int", minimum=1, skip=("none",))}),
    *[Case((), factory, lambda: dict(k=2**40, eps=1.0), {"k": K2, "eps": EPS})
      for factory in (protocols.cms, protocols.hcms, protocols.flh, protocols.hm, protocols.pcs,
                      protocols.rappor_bloom)],
    Case(("protocols.RapporBloom", "protocols.rappor_bloom"), protocols.RapporBloom,
         lambda: dict(k=2**40, eps=1.0, hashes=2, bits=16, cohorts=4),
         {"k": K2, "eps": EPS, "hashes": N1, "bits": K2, "cohorts": N1}),
    *[Case(("protocols.Sketch.sample",), lambda items, rng, name=name: _sketch(name).sample(items, rng),
           lambda: dict(items=np.array([0, 1, 99]), rng=np.random.default_rng(0)), {"items": INDICES, "rng": RNG})
      for name in protocols.SKETCH_NAMES],
    *[Case((f"protocols.Sketch.{method}",),
           lambda reports, items, name=name, method=method: getattr(_sketch(name), method)(reports, items),
           lambda name=name: dict(reports=_sketch_reports(name), items=np.array([0, 5])),
           {"reports": Arg("object"), "items": INDICES})
      for name in protocols.SKETCH_NAMES for method in ("estimate", "estimate_variance")],
    *[Case(("protocols.Sketch.interval",), lambda reports, items, level, name=name: _sketch(name).interval(
        reports, items, level), lambda name=name: dict(reports=_sketch_reports(name), items=np.array([0]), level=0.9),
           {"reports": Arg("object"), "items": INDICES, "level": Arg("alpha")}) for name in protocols.SKETCH_NAMES],
    *[Case(("protocols.Sketch.count",), lambda reports, name=name: _sketch(name).count(reports),
           lambda name=name: dict(reports=_sketch_reports(name)), {"reports": Arg("object")})
      for name in protocols.SKETCH_NAMES],
    *[Case((f"protocols.{name.upper()}.sketch",), lambda reports, name=name: _sketch(name).sketch(reports),
           lambda name=name: dict(reports=_sketch_reports(name)), {"reports": Arg("object")})
      for name in ("cms", "hcms", "pcs")],
    *[Case(("protocols.Sketch.candidate_group",),
           lambda reports, candidates, name=name: _sketch(name).candidate_group(reports, candidates),
           lambda name=name: dict(reports=_sketch_reports(name), candidates=np.array([0, 5])),
           {"reports": Arg("object"), "candidates": INDICES})
      for name in ("cms", "hcms", "flh", "hm", "pcs", "rappor_bloom")],
    *[Case((f"protocols.RapporBloom.{method}",),
           lambda reports, candidates, method=method: getattr(_sketch("rappor_bloom"), method)(reports, candidates),
           lambda: dict(reports=_sketch_reports("rappor_bloom"), candidates=np.array([0, 5])),
           {"reports": Arg("object"), "candidates": INDICES}) for method in ("decode", "regression")],
    *[Case((f"protocols.RapporBloom.{method}",), lambda reports, method=method: getattr(
        _sketch("rappor_bloom"), method)(reports), lambda: dict(reports=_sketch_reports("rappor_bloom")),
           {"reports": Arg("object")}) for method in ("counts", "co_occurrence")],
    Case(("protocols.RapporBloom.filters",), lambda items: _sketch("rappor_bloom").filters(items),
         lambda: dict(items=np.array([0, 7])), {"items": INDICES}),
    Case(("protocols.nonnegative_lasso",), protocols.nonnegative_lasso,
         lambda: dict(X=np.eye(3), y=np.array([0.5, 0.2, 0.0]), penalty=0.01),
         {"X": Arg("finite", ("ndim",)), "y": Arg("finite", ("length",)), "penalty": Arg("non_negative")}),
    Case(("protocols.BloomReports",), protocols.BloomReports, lambda: dict(
        cohorts=np.array([0, 1]), bits=protocols.PackedBits(np.zeros((2, 1), dtype=np.uint8), 8)),
         {"cohorts": Arg("indices", skip=("out_of_range",)), "bits": Arg("object")}),
    Case(("protocols.FLH.cells",), lambda items: _sketch("flh").cells(items), lambda: dict(items=np.array([0, 7])),
         {"items": INDICES}),
    Case(("protocols.CmsReports",), protocols.CmsReports, lambda: dict(
        hashes=np.array([0, 1]), bits=protocols.PackedBits(np.zeros((2, 1), dtype=np.uint8), 8)),
         {"hashes": Arg("indices", skip=("out_of_range",)), "bits": Arg("object")}),
    Case(("protocols.PcsReports",), protocols.PcsReports, lambda: dict(
        hashes=np.array([0, 1]), bits=protocols.PackedBits(np.zeros((2, 1), dtype=np.uint8), 8)),
         {"hashes": Arg("indices", skip=("out_of_range",)), "bits": Arg("object")}),
    Case(("protocols.PCS.cells_and_signs",), lambda items: _sketch("pcs").cells_and_signs(items),
         lambda: dict(items=np.array([0, 7])), {"items": INDICES}),
    Case(("protocols.HcmsReports",), protocols.HcmsReports,
         lambda: dict(hashes=np.array([0, 1]), rows=np.array([3, 2]), signs=np.array([1, -1])),
         {"hashes": INDICES, "rows": Arg("indices", ("length",), skip=("out_of_range",)), "signs": INDICES}),
    Case(("protocols.HmReports",), protocols.HmReports,
         lambda: dict(rows=np.array([[3, 2]], dtype=np.uint64), signs=np.array([[1, -1]])),
         {"rows": Arg("indices", ("ndim",), skip=("out_of_range",)), "signs": Arg("indices", ("length",))}),
    *[Case((f"protocols.{hash_.__name__}",), hash_, lambda: dict(values=np.array([0, 2**63 + 5], dtype=np.uint64),
                                                                 seeds=np.array([1, 2])),
           {"values": Arg("indices", skip=("out_of_range",)), "seeds": Arg("indices", skip=("out_of_range",))})
      for hash_ in (protocols.xxh64_decimal, protocols.xxh32_decimal_wide)],
    Case(("protocols.item_ids",), protocols.item_ids, lambda: dict(strings=["a", "bc"], seed=3),
         {"strings": Arg("object"), "seed": Arg("int", minimum=0)}),
    # longitudinal protocols (each class and its factory), dBitFlipPM, several rounds, several attributes
    *[Case((f"protocols.{cls.__name__}", f"protocols.{factory.__name__}"), factory,
           lambda: dict(k=3, eps=1.0, eps1=0.5), {"k": K2, "eps": EPS, "eps1": EPS1})
      for cls, factory in ((protocols.LSUE, protocols.l_sue), (protocols.LOUE, protocols.l_oue),
                           (protocols.LOSUE, protocols.l_osue), (protocols.LSOUE, protocols.l_soue))],
    *[Case((f"protocols.{cls.__name__}", f"protocols.{factory.__name__}"), factory,
           lambda: dict(k=3, eps=1.0, eps1=0.5, calibration="peer"),
           {"k": K2, "eps": EPS, "eps1": EPS1, "calibration": Arg("choice")})
      for cls, factory in ((protocols.LGRR, protocols.l_grr),)],
    Case(("protocols.l_adp",), protocols.l_adp, lambda: dict(k=3, eps=1.0, eps1=0.5, calibration="exact"),
         {"k": K2, "eps": EPS, "eps1": EPS1, "calibration": Arg("choice")}),
    *[Case((f"protocols.{cls.__name__}", f"protocols.{factory.__name__}"), factory,
           lambda: dict(k=3, eps=1.0, eps1=0.5, calibration="exact", hashes=16),
           {"k": K2, "eps": EPS, "eps1": EPS1, "calibration": Arg("choice"), "hashes": HASHES})
      for cls, factory in ((protocols.LBLH, protocols.l_blh), (protocols.LOLH, protocols.l_olh))],
    Case(("protocols.LGRR.sample_memo",), lambda secrets, rng: protocols.l_grr(3, 1.0).sample_memo(secrets, rng),
         lambda: dict(secrets=np.array([0, 1, 2]), rng=np.random.default_rng(0)), {"secrets": INDICES, "rng": RNG}),
    Case(("protocols.DBitFlipPM", "protocols.dbitflip"), protocols.dbitflip,
         lambda: dict(k=4, eps=1.0, buckets=2, bits=1), {"k": K2, "eps": EPS, "buckets": SIZE, "bits": SIZE}),
    Case(("protocols.DBitFlipPM.bucket_of",), lambda secrets: _bitflip().bucket_of(secrets),
         lambda: dict(secrets=np.array([0, 3])), {"secrets": INDICES}),
    Case(("protocols.DBitFlipPM.sample",), lambda secrets, rng: _bitflip().sample(secrets, rng),
         lambda: dict(secrets=np.array([0, 3]), rng=np.random.default_rng(0)), {"secrets": INDICES, "rng": RNG}),
    Case(("protocols.DBitFlipPM.estimate",), lambda reports, post: _bitflip().estimate(reports, post),
         lambda: dict(reports=_bitflip_reports(), post=None), {"reports": BITFLIP_REPORTS, "post": POST}),
    Case(("protocols.DBitFlipPM.interval",), lambda reports, level: _bitflip().interval(reports, level),
         lambda: dict(reports=_bitflip_reports(), level=0.9), {"reports": BITFLIP_REPORTS, "level": Arg("alpha")}),
    *[Case((f"protocols.DBitFlipPM.{method}",), lambda reports, method=method: getattr(_bitflip(), method)(reports),
           lambda: dict(reports=_bitflip_reports()), {"reports": BITFLIP_REPORTS})
      for method in ("estimate_variance", "likelihood", "group", "count")],
    Case(("protocols.Rounds",), protocols.Rounds, lambda: dict(protocol=protocols.l_grr(3, 1.0), users=2,
                                                               rng=np.random.default_rng(0)),
         {"protocol": Arg("object"), "users": N1, "rng": RNG}),
    Case(("protocols.Rounds.report",),
         lambda secrets, rng: protocols.Rounds(protocols.l_sue(3, 1.0), 2, np.random.default_rng(0)).report(secrets,
                                                                                                           rng),
         lambda: dict(secrets=np.array([0, 2]), rng=np.random.default_rng(0)), {"secrets": INDICES, "rng": RNG}),
    Case(("protocols.joint_group",), protocols.joint_group,
         lambda: dict(protocol=protocols.l_grr(3, 1.0), rounds=[np.array([0, 2]), np.array([1, 2])]),
         {"protocol": Arg("object"), "rounds": Arg("object")}),
    *[Case((f"protocols.{factory.__name__}",), factory, lambda: dict(ks=(3, 4), eps=1.0, protocol="grr"),
           {"ks": KS, "eps": EPS, "protocol": Arg("choice")})
      for factory in (protocols.spl, protocols.smp, protocols.rsfd)],
    Case(("protocols.Multidimensional",), protocols.Multidimensional,
         lambda: dict(solution="smp", ks=(3, 4), eps=1.0, protocol="oue"),
         {"solution": Arg("choice"), "ks": KS, "eps": EPS, "protocol": Arg("choice")}),
    Case(("protocols.Multidimensional.sample",), lambda secrets, rng: _multidim().sample(secrets, rng),
         lambda: dict(secrets=np.array([[0, 1], [2, 3]]), rng=np.random.default_rng(0)),
         {"secrets": INDICES, "rng": RNG}),
    Case(("protocols.Multidimensional.estimate",), lambda reports, post: _multidim().estimate(reports, post),
         lambda: dict(reports=_multidim_reports(), post=None), {"reports": Arg("object"), "post": POST}),
    Case(("protocols.Multidimensional.interval",), lambda reports, level: _multidim().interval(reports, level),
         lambda: dict(reports=_multidim_reports(), level=0.9), {"reports": Arg("object"), "level": Arg("alpha")}),
    *[Case((f"protocols.Multidimensional.{method}",),
           lambda reports, method=method: getattr(_multidim(), method)(reports),
           lambda: dict(reports=_multidim_reports()), {"reports": Arg("object")})
      for method in ("estimate_variance", "groups")],
    Case(("protocols.Multidimensional.marginal",), lambda j: _multidim().marginal(j), lambda: dict(j=1),
         {"j": Arg("int", minimum=0)}),
    Case(("protocols.by_name",), protocols.by_name, lambda: dict(name="oue", k=3, eps=1.0),
         {"name": Arg("choice"), "k": K2, "eps": EPS}),
    Case(("protocols.HashReports",), protocols.HashReports,
         lambda: dict(seeds=np.array([1, 5], dtype=np.uint32), values=np.array([0, 1])),
         {"seeds": Arg("indices", ("ndim", "length"), skip=("out_of_range",)),
          "values": Arg("indices", ("ndim", "length"), skip=("out_of_range",))}),
    Case(("protocols.xxh32_decimal",), protocols.xxh32_decimal,
         lambda: dict(values=np.array([0, 17, 123456]), seeds=np.array([0, 1, 2])),
         {"values": Arg("indices", skip=("out_of_range",)), "seeds": Arg("indices", skip=("out_of_range",))}),
    # counts
    Case(("counts.as_row_stochastic",), counts.as_row_stochastic, lambda: dict(P=counts.gm(3, 0.5)),
         {"P": Arg("stochastic", ("length",))}),
    Case(("counts.by_name",), counts.by_name, lambda: dict(name="GM", n=3, alpha=0.5),
         {"name": Arg("choice"), "n": N1, "alpha": Arg("alpha")}),
    *[Case((f"counts.{f.__name__}",), f, lambda: dict(n=3, alpha=0.5), {"n": N1, "alpha": Arg("alpha")})
      for f in (counts.em, counts.em_diagonal, counts.gm, counts.wm, counts.wm_cm)],
    Case(("counts.em_exponents",), counts.em_exponents, lambda: dict(n=3), {"n": N1}),
    Case(("counts.um",), counts.um, lambda: dict(n=3), {"n": N1}),
    Case(("counts.flowchart",), counts.flowchart, lambda: dict(properties=("WH",), n=3, alpha=0.5),
         {"properties": Arg("choice", skip=("tuple",)), "n": N1, "alpha": Arg("alpha")}),
    Case(("counts.gm_score",), counts.gm_score, lambda: dict(alpha=0.5), {"alpha": Arg("alpha")}),
    Case(("counts.gm_weak_honesty_threshold",), counts.gm_weak_honesty_threshold, lambda: dict(alpha=0.5),
         {"alpha": Arg("alpha")}),
    Case(("counts.group_counts",), counts.group_counts,
         lambda: dict(bits=np.array([1, 0, 1, 1, 0, 0]), n=2, order=np.array([5, 4, 3, 2, 1, 0])),
         {"bits": Arg("bits", skip=("ndim",)), "n": N1,
          "order": Arg("indices", ("length",), skip=("none",))}),
    Case(("counts.loss",), counts.loss, lambda: dict(P=counts.gm(3, 0.5), objective="L1", weights=np.ones(4)),
         {"P": Arg("stochastic", ("length",)), "objective": Arg("choice"),
          "weights": Arg("weights", ("length",), skip=("none",))}),
    Case(("counts.mechanism_key",), counts.mechanism_key, lambda: dict(name="GM", n=3, alpha=0.5),
         {"name": Arg("choice"), "n": N1, "alpha": Arg("alpha")}),
    Case(("counts.optimal",), counts.optimal,
         lambda: dict(n=2, alpha=0.5, objective="L0", properties=("WH",), weights=np.ones(3)),
         {"n": N1, "alpha": Arg("alpha"), "objective": Arg("choice"), "properties": Arg("choice", skip=("tuple",)),
          "weights": Arg("weights", ("length",), skip=("none",))}),
    Case(("counts.properties",), counts.properties, lambda: dict(P=counts.gm(3, 0.5), alpha=0.5, tol=1e-9),
         {"P": Arg("matrix", ("length",)), "alpha": Arg("alpha"), "tol": Arg("non_negative")}),
    Case(("counts.rmse",), counts.rmse, lambda: dict(true=np.array([1, 2, 3]), noisy=np.array([1, 3, 3])),
         {"true": Arg("finite", ("length",)), "noisy": Arg("finite", ("length",))}),
    Case(("counts.wrong_fraction",), counts.wrong_fraction,
         lambda: dict(true=np.array([1, 2, 3]), noisy=np.array([1, 3, 3]), d=0),
         {"true": Arg("finite", ("length",)), "noisy": Arg("finite", ("length",)), "d": Arg("int", minimum=0)}),
    Case(("counts.sample_outputs",), counts.sample_outputs,
         lambda: dict(P=counts.gm(3, 0.5), counts=np.array([0, 3, 1]), rng=np.random.default_rng(0)),
         {"P": Arg("stochastic"), "counts": Arg("indices", ("ndim",)), "rng": RNG}),
    Case(("counts.tail_mass",), counts.tail_mass, lambda: dict(P=counts.gm(3, 0.5), d=1),
         {"P": Arg("stochastic", ("length",)), "d": Arg("int", minimum=0)}),
    Case(("counts.verdict",), counts.verdict, lambda: dict(holds=[True, False]),
         {"holds": Arg("objects", ("member_nan",), skip=("member_tuple",))}),
    # numeric
    *[Case((f"numeric.{name}",), build, lambda: dict(eps=1.0, lo=0.0, hi=2.0), {"eps": EPS, "lo": REAL, "hi": REAL})
      for name, build in (("square_wave", numeric.square_wave), ("piecewise", numeric.piecewise),
                          ("hybrid", numeric.hybrid), ("duchi", numeric.duchi), ("SquareWave", numeric.SquareWave),
                          ("Piecewise", numeric.Piecewise), ("Hybrid", numeric.Hybrid), ("Duchi", numeric.Duchi),
                          ("NumericMechanism", numeric.NumericMechanism))],
    Case(("numeric.NumericMechanism.sample",), lambda values, rng: _sw().sample(values, rng),
         lambda: dict(values=np.array([0.1, 0.5, 0.9]), rng=np.random.default_rng(0)), {"values": VALUES, "rng": RNG}),
    Case(("numeric.NumericMechanism.variance",), lambda values: _sw().variance(values),
         lambda: dict(values=np.array([0.1, 0.5, 0.9])), {"values": VALUES}),
    *[Case((f"numeric.NumericMechanism.{method}",), lambda reports, method=method: getattr(_sw(), method)(reports),
           lambda: dict(reports=_sw_reports()), {"reports": VALUES})
      for method in ("estimates", "mean", "estimate_variance")],
    Case(("numeric.NumericMechanism.mean_interval",), lambda reports, level: _sw().mean_interval(reports, level),
         lambda: dict(reports=_sw_reports(), level=0.95), {"reports": VALUES, "level": Arg("alpha")}),
    Case(("numeric.NumericMechanism.cdf",), lambda reports, value: numeric.square_wave(1.0, 0.25, 0.75).cdf(
        reports, value), lambda: dict(reports=np.array([0.0, 0.5, 1.2]), value=0.5),
         {"reports": Arg("finite", ("ndim",)), "value": Arg("alpha")}),
    Case(("numeric.NumericMechanism.channel",), lambda bins, report_bins: _sw().channel(bins, report_bins),
         lambda: dict(bins=4, report_bins=6), {"bins": Arg("int", minimum=2),
                                               "report_bins": Arg("int", minimum=2, skip=("none",))}),
    Case(("numeric.NumericMechanism.distribution",), lambda **kw: _sw().distribution(**kw),
         lambda: dict(reports=_sw_reports(), bins=4, smoothing="ems", report_bins=6, stop="paper", delta=1e-10,
                      max_iter=50),
         {"reports": VALUES, "bins": Arg("int", minimum=2), "smoothing": Arg("choice", skip=("none",)),
          "report_bins": Arg("int", minimum=2, skip=("none",)), "stop": POST, "delta": DELTA, "max_iter": MAX_ITER}),
    Case(("numeric.MeanInterval.covers",), lambda mean: numeric.MeanInterval(0.5, 0.4, 0.6, 0.95).covers(mean),
         lambda: dict(mean=0.5), {"mean": REAL}),
    # heavy hitters (constructors and factories, their methods, the scores)
    *[Case((f"heavy_hitters.{cls.__name__}", f"heavy_hitters.{factory.__name__}"), factory,
           lambda extra=extra: dict(k=2**10, eps=1.0, step=4, oracle="flh", **extra),
           {"k": K2, "eps": EPS, "step": N1, "oracle": Arg("choice"), **{key: Arg("int", minimum=0) for key in extra}})
      for cls, factory, extra in ((heavy_hitters.PEM, heavy_hitters.pem, {"start": 2}),
                                  (heavy_hitters.TreeHist, heavy_hitters.treehist, {}),
                                  (heavy_hitters.SFP, heavy_hitters.sfp, {}))],
    *[Case((f"heavy_hitters.{cls}.sample",), lambda values, rng, name=name: _heavy(name).sample(values, rng),
           lambda: dict(values=HEAVY_VALUES, rng=np.random.default_rng(0)), {"values": INDICES, "rng": RNG})
      for cls, name in (("PEM", "pem"), ("TreeHist", "treehist"), ("SFP", "sfp"))],
    *[Case((f"heavy_hitters.{cls}.run",), lambda values, rng, top, name=name: _heavy(name).run(values, rng, top),
           lambda: dict(values=HEAVY_VALUES, rng=np.random.default_rng(0), top=2),
           {"values": INDICES, "rng": RNG, "top": N1})
      for cls, name in (("PEM", "pem"), ("TreeHist", "treehist"), ("SFP", "sfp"))],
    *[Case((), lambda reports, level, prefixes, name=name: _heavy(name).estimate(reports, level, prefixes),
           lambda name=name: dict(reports=_heavy(name).sample(HEAVY_VALUES, np.random.default_rng(0))[1], level=0,
                                  prefixes=np.array([0, 3])),
           {"reports": Arg("object"), "level": Arg("int", minimum=0), "prefixes": INDICES})
      for name in ("pem", "treehist")],
    Case(("heavy_hitters.SFP.estimate_pairs",), lambda reports, position, codes: _heavy("sfp").estimate_pairs(
        reports, position, codes), lambda: dict(reports=_heavy("sfp").sample(HEAVY_VALUES, np.random.default_rng(0))[1],
                                                position=0, codes=np.array([0, 3])),
         {"reports": Arg("object"), "position": Arg("int", minimum=0), "codes": INDICES}),
    Case(("heavy_hitters.SFP.item_hash",), lambda values: _heavy("sfp").item_hash(values),
         lambda: dict(values=HEAVY_VALUES), {"values": INDICES}),
    *[Case((f"heavy_hitters.{score.__name__}",), score, lambda: dict(found=np.array([1, 2]), truth=np.array([2, 3])),
           {"found": Arg("indices", skip=("out_of_range",)), "truth": Arg("indices", skip=("out_of_range",))})
      for score in (heavy_hitters.precision, heavy_hitters.recall, heavy_hitters.ncr)],
    # lp
    Case(("lp.LinearProgram",), lp.LinearProgram, lambda: dict(cost=[1.0, 2.0], lower=0.0, upper=np.inf, sense="min"),
         {"cost": Arg("finite", ("ndim",)), "lower": Arg("finite", skip=("inf",)),
          "upper": Arg("finite", skip=("inf",)), "sense": Arg("choice")}),
    Case(("lp.LinearProgram.add_rows",), lambda **kw: _program().add_rows(**kw),
         lambda: dict(rows=[0, 0], columns=[0, 1], values=[1.0, 1.0], lower=3.0, upper=np.inf),
         {"rows": Arg("indices", ("length",), skip=("out_of_range",)), "columns": Arg("indices", ("length",)),
          "values": Arg("finite", ("length",)), "lower": Arg("finite", skip=("inf",)),
          "upper": Arg("finite", skip=("inf",))}),
    Case(("lp.LinearProgram.solve",), lambda method: _program().solve(method), lambda: dict(method="dual"),
         {"method": Arg("choice")}),
    Case(("lp.solve",), lp.solve,
         lambda: dict(cost=[1.0, 2.0], rows=[0, 0], columns=[0, 1], values=[1.0, 1.0], lower_rows=3.0,
                      upper_rows=np.inf, method="dual"),
         {"cost": Arg("finite", ("ndim",)), "columns": Arg("indices", ("length",)),
          "values": Arg("finite", ("length",)), "lower_rows": Arg("finite", skip=("inf",)),
          "method": Arg("choice")}),
    # shokri
    Case(("shokri.solve_shokri", "shokri.shokri"), shokri.solve_shokri,
         lambda: dict(distances=D3, Q=0.5, prior=P3, nearest=2, per_round=2, tol=1e-7, max_rounds=5),
         {"distances": Arg("distances", ("asymmetric", "diagonal")), "Q": Arg("non_negative"),
          "prior": Arg("distribution", ("length",), skip=("none",)), "nearest": N1,
          "per_round": Arg("int", minimum=1, skip=("none",)), "tol": EPS, "max_rounds": N1}),
    Case((), shokri.shokri, lambda: dict(distances=D3, Q=0.5, prior=P3),
         {"distances": Arg("distances", ("asymmetric", "diagonal")), "Q": Arg("non_negative"),
          "prior": Arg("distribution", ("length",), skip=("none",))}),
    Case(("shokri.blind_guess_loss",), shokri.blind_guess_loss, lambda: dict(distances=D3, prior=P3),
         {"distances": Arg("distances", ("asymmetric", "diagonal")),
          "prior": Arg("distribution", ("length",), skip=("none",))}),
    Case(("shokri.adversary_loss",), shokri.adversary_loss, lambda: dict(A=_krr3(), distances=D3, prior=P3),
         {"A": Arg("stochastic", ("length",)), "distances": Arg("distances", ("asymmetric", "diagonal")),
          "prior": Arg("distribution", ("length",), skip=("none",))}),
]

# --- the protocols' methods, on every protocol ------------------------------------------------------------------------

PROTOCOL_METHODS = ("sample", "likelihood", "group", "estimate", "variance", "support", "membership", "log_scale",
                    "distinct", "count", "to_arrays", "from_arrays", "estimate_variance", "interval")


PROTOCOL_NAMES = (*protocols.NAMES, "she", "the", "l_grr", "l_sue", "l_oue", "l_osue", "l_soue", "l_blh", "l_olh")
"""Every protocol class ("adp" builds a GRR or an OUE, "l_adp" an L-GRR or an L-OSUE, tested as those)."""
HASHED = ("blh", "olh", "l_blh", "l_olh")


def _protocol(name: str) -> protocols.Protocol:
    return protocols.by_name(name, 3, 1.0, **({"hashes": 16} if name in HASHED else {}))


def _good_reports(name: str) -> Any:
    return _protocol(name).sample(np.array([0, 1, 2, 2]), np.random.default_rng(0))


def _bad_reports(name: str, category: str, data: st.DataObject) -> Any:
    good = _good_reports(name)
    if category == "not_reports":
        return data.draw(st.sampled_from(["abc", None, {"a": 1}, 3.5]))
    if name in HASHED:
        if category == "array":
            return np.asarray(good.values)
        bad = object.__new__(protocols.HashReports)  # past the constructor's checks, as a caller's own object might be
        object.__setattr__(bad, "seeds", good.seeds)
        object.__setattr__(bad, "values", good.values + (10**6 if category == "out_of_range" else 0.5))
        return bad
    if name == "she" and category in ("out_of_range", "non_integer"):  # real reports: out of range is not finite
        bad = np.array(good, dtype=float)
        bad[data.draw(st.integers(0, bad.shape[0] - 1)), 0] = math.inf if category == "out_of_range" else math.nan
        return bad
    if category == "array":  # a matrix where values are expected, and the other way round
        return good[:, None] if good.ndim == 1 else good.ravel()
    return CORRUPT[{"non_integer": "non_integer", "out_of_range": "out_of_range" if good.ndim == 1 else "non_binary"}
                   [category]](good, data)


REPORT_CATEGORIES = ("not_reports", "array", "out_of_range", "non_integer")


def _protocol_call(name: str, method: str, reports: Any) -> Any:
    protocol = _protocol(name)
    if method == "sample":
        return protocol.sample(reports, np.random.default_rng(0))
    if method == "variance":
        return protocol.variance(reports, 10)
    if method == "to_arrays":
        return protocol.to_arrays(reports, "x_")
    if method == "from_arrays":
        return protocol.from_arrays(reports, "x_")
    return getattr(protocol, method)(reports)


# --- which public callables are covered, and which take no data -----------------------------------------------------

NO_DATA = {
    "privest.protocols.PackedBits.column_counts": "no arguments: computed from a validated PackedBits",
    "privest.protocols.PackedBits.set_counts": "no arguments: computed from a validated PackedBits",
    "privest.protocols.PackedBits.unpack": "no arguments: computed from a validated PackedBits",
    "privest.alphabets.Grid.centres": "no arguments: computed from a validated Grid",
    "privest.alphabets.Grid.distances": "no arguments: computed from a validated Grid",
    "privest.alphabets.Alphabet.distances": "no arguments: computed from a validated Alphabet",
    "privest.estimators.IbuResult": "a result record that the estimators build, not an input",
    "privest.shokri.ShokriSolution": "a result record that solve_shokri builds, not an input",
    "privest.lp.Solution": "a result record that LinearProgram.solve builds, not an input",
    "privest.protocols.RapporDecoding": "a result record that RapporBloom.decode builds, not an input",
    "privest.heavy_hitters.HeavyHitters": "a result record that the heavy-hitter protocols' run builds, not an input",
    "privest.lp.LPError": "an exception class: its argument is the message",
    "privest.lp.solver_description": "method is free text describing how the solver was driven; no data",
    "privest.counts.solver_description": "no arguments",
    "privest.rappor.RapporReports.bit_sums": "no arguments: computed from validated reports",
    "privest.protocols.Protocol": "the abstract base class: its constructor's k and eps are tested on every subclass",
    "privest.protocols.Sketch": "the abstract base class of the sketches: its k and eps are tested on every subclass",
    "privest.numeric.MeanInterval": "a result record that mean_interval builds, not an input (covers is tested)",
    "privest.numeric.NumericHistogram": "a result record that distribution builds, not an input",
    "privest.protocols.MultiReports": "a record of per-attribute reports that Multidimensional.sample builds: each "
                                      "column is checked by its attribute's protocol where it is used",
}


def covered_names() -> set[str]:
    names = {f"privest.{name}" for case in CASES for name in case.names}
    method_owners = {"privest.protocols.Protocol"} | {
        f"privest.protocols.{type(_protocol(name)).__name__}" for name in PROTOCOL_NAMES}
    names |= {f"{owner}.{method}" for owner in method_owners for method in PROTOCOL_METHODS}
    return names


def test_every_public_callable_is_covered():
    """A public function without a property test (or a reason, in NO_DATA, why it has no data to check) fails."""
    public = public_callables()
    missing = public - covered_names() - set(NO_DATA)
    assert not missing, f"public callables without a property test or a NO_DATA reason: {sorted(missing)}"
    stale = (set(NO_DATA) | {n for n in covered_names() if not n.startswith("privest.protocols.")}) - public
    assert not stale, f"covered or exempted names that are not public callables: {sorted(stale)}"


# --- the checks -----------------------------------------------------------------------------------------------------


def assert_rejected(call: Callable[[], Any], name: str) -> None:
    """call() raises ValueError or TypeError naming ``name`` (as a word); a return or another exception fails."""
    try:
        result = call()
    except (ValueError, TypeError) as error:
        assert re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", str(error)), (
            f"{type(error).__name__} does not name {name!r}: {error}")
    except Exception as error:  # any other exception is the finding
        pytest.fail(f"raised {type(error).__name__} instead of ValueError or TypeError: {error}")
    else:
        pytest.fail(f"returned {type(result).__name__} {result!r:.200}")


def _case_id(case: Case) -> str:
    return case.names[0] if case.names else f"{case.call.__module__.split('.')[-1]}.{case.call.__qualname__}"


SKETCH_PUBLIC = {"CMS", "HCMS", "FLH", "HM", "PCS", "Sketch", "CmsReports", "HcmsReports", "HmReports", "PcsReports",
                 "RapporBloom", "BloomReports", "RapporDecoding", "nonnegative_lasso",
                 "xxh64_decimal",
                 "xxh32_decimal_wide", "item_ids", *protocols.SKETCH_NAMES}
"""The sketch oracles' public names: their cases are a test function of their own ("sketches"), the protocols' one
being near the stack's limit of parametrized cases."""


def _module_of(case: Case) -> str:
    if case.names:
        return "sketches" if case.names[0].split(".")[1] in SKETCH_PUBLIC else case.names[0].split(".")[0]
    return "sketches" if getattr(case.call, "__name__", "") in SKETCH_PUBLIC else "protocols"


def _bad_argument_test(module: str) -> Callable[..., None]:
    """The test that each bad argument of ``module``'s cases is rejected by name. One test function per module: a
    hypothesis test parametrized with more than about 600 cases overflows the stack (hypothesis 6.170 nests one
    settings object per case)."""
    params = [pytest.param(case, argument, category,
                           id=f"{_case_id(case)}-{argument}-{category}")
              for case in CASES if _module_of(case) == module
              for argument, spec in case.args.items() for category in spec.categories()]

    @pytest.mark.parametrize(("case", "argument", "category"), params)
    @settings(max_examples=4, database=None)
    @given(data=st.data())
    def test(case, argument, category, data):
        kwargs = case.good()
        spec = case.args[argument]
        if category == "below":
            kwargs[argument] = spec.minimum - data.draw(st.integers(1, 5))
        else:
            kwargs[argument] = CORRUPT[category](kwargs[argument], data)
        assert_rejected(lambda: case.call(**kwargs), argument)

    test.__name__ = f"test_a_bad_argument_of_{module}_is_rejected_by_name"
    return test


for _module in sorted({_module_of(case) for case in CASES}):
    globals()[f"test_a_bad_argument_of_{_module}_is_rejected_by_name"] = _bad_argument_test(_module)


@pytest.mark.parametrize("category", REPORT_CATEGORIES)
@pytest.mark.parametrize("method", [m for m in PROTOCOL_METHODS if m not in ("sample", "variance", "from_arrays")])
@pytest.mark.parametrize("name", PROTOCOL_NAMES)
@settings(max_examples=3, database=None)
@given(data=st.data())
def test_a_protocol_rejects_bad_reports_by_name(name, method, category, data):
    reports = _bad_reports(name, category, data)
    assert_rejected(lambda: _protocol_call(name, method, reports), "reports")


@pytest.mark.parametrize("category", [*KINDS["indices"], "ndim"])
@pytest.mark.parametrize("name", PROTOCOL_NAMES)
@settings(max_examples=3, database=None)
@given(data=st.data())
def test_a_protocol_rejects_bad_secrets_and_rng_by_name(name, category, data):
    protocol, secrets = _protocol(name), np.array([0, 1, 2, 2])
    assert_rejected(lambda: protocol.sample(CORRUPT[category](secrets, data), np.random.default_rng(0)), "secrets")
    assert_rejected(lambda: protocol.sample(secrets, data.draw(st.sampled_from([0, None, "rng"]))), "rng")


@pytest.mark.parametrize("category", ["nan", "negative", "length", "not_array", "none"])
@pytest.mark.parametrize("name", PROTOCOL_NAMES)
@settings(max_examples=3, database=None)
@given(data=st.data())
def test_a_protocol_variance_rejects_bad_theta_and_n_by_name(name, category, data):
    protocol = _protocol(name)
    assert_rejected(lambda: protocol.variance(CORRUPT[category](P3, data), 10), "theta")
    bad_n = data.draw(st.sampled_from([0, -3, 2.5, "10", None]))
    assert_rejected(lambda: protocol.variance(P3, bad_n), "n")


@pytest.mark.parametrize("category", ["missing_key", "items", "text", "none"])
@pytest.mark.parametrize("name", PROTOCOL_NAMES)
@settings(max_examples=3, database=None)
@given(data=st.data())
def test_a_protocol_from_arrays_rejects_bad_arrays_by_name(name, category, data):
    protocol = _protocol(name)
    arrays = protocol.to_arrays(_good_reports(name), "x_")
    assert_rejected(lambda: protocol.from_arrays(CORRUPT[category](arrays, data), "x_"), "arrays")


# --- properties of valid inputs ---------------------------------------------------------------------------------------


def distributions(k: int) -> st.SearchStrategy[np.ndarray]:
    weights = st.lists(st.floats(0.0, 1.0), min_size=k, max_size=k).filter(lambda w: sum(w) > 1e-3)
    return weights.map(lambda w: np.asarray(w) / np.sum(w))


@given(data=st.data(), k=st.integers(2, 8), spacing=st.floats(0.1, 10.0))
@settings(max_examples=25, database=None)
def test_emd_is_non_negative_symmetric_and_equals_the_1d_closed_form(data, k, spacing):
    p, q = data.draw(distributions(k)), data.draw(distributions(k))
    d = linear_distances(k, spacing)
    assert privest.emd(p, q, d) >= 0
    assert privest.emd(p, q, d) == pytest.approx(privest.emd(q, p, d), abs=1e-9)
    assert privest.emd_1d(p, q, spacing) == pytest.approx(privest.emd(p, q, d), abs=1e-9)
    assert privest.emd(p, p, d) == pytest.approx(0.0, abs=1e-12)


@given(data=st.data(), k=st.integers(2, 6), eps=st.floats(0.1, 5.0))
@settings(max_examples=20, database=None)
def test_estimates_are_distributions_and_sampled_counts_sum_to_n(data, k, eps):
    A = privest.krr(k, eps)
    secret_counts = np.asarray(data.draw(st.lists(st.integers(0, 50), min_size=k, max_size=k).filter(any)))
    q = privest.sample_counts(A, secret_counts, np.random.default_rng(data.draw(st.integers(0, 2**16))))
    assert q.shape == (k,) and q.sum() == secret_counts.sum()
    theta = privest.ibu(A, q, max_iter=200).theta
    assert np.all(theta >= 0) and theta.sum() == pytest.approx(1.0, abs=1e-12)
    for post in ("projection", "normalization"):
        theta = privest.inv(A, q, post=post)
        assert np.all(theta >= 0) and theta.sum() == pytest.approx(1.0, abs=1e-12)
    assert privest.krr_mle(q, eps).sum() == pytest.approx(1.0, abs=1e-9)


@given(v=st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=8))
@settings(max_examples=25, database=None)
def test_project_simplex_lands_on_the_simplex_and_is_idempotent(v):
    theta = privest.project_simplex(v)
    assert np.all(theta >= 0) and theta.sum() == pytest.approx(1.0, abs=1e-9)
    assert privest.project_simplex(theta) == pytest.approx(theta, abs=1e-12)


@given(k=st.integers(2, 8), eps=st.floats(0.05, 8.0))
@settings(max_examples=20, database=None)
def test_krr_is_row_stochastic_at_its_ldp_level(k, eps):
    A = privest.krr(k, eps)
    assert privest.check_row_stochastic(A) is not None
    assert privest.ldp_level(A) == pytest.approx(eps, rel=1e-9)
