"""Every public import path of privest as it stood before the library was split into packages (issue 29) still
imports, and gives the same object as the name's home in the new tree.

The list was generated once, from the tree before the split (commit 7ac736a), by a script that took today's
``privest.__all__``, every name not starting with ``_`` bound at module level in ``privest/*.py`` (plus each module's
``__all__`` and the type aliases ``Post`` and ``Accelerate``), and every ``from privest.X import name`` and
``X.name`` that README.md, docs/, examples/, tests/, scripts/, benchmarks/ and privest_studies/ use. It is a literal
list on purpose: it must not follow the tree.
"""

import importlib

import pytest

PUBLIC = [
    ("privest", "Alphabet"),
    ("privest", "Grid"),
    ("privest", "Group"),
    ("privest", "IbuResult"),
    ("privest", "RapporReports"),
    ("privest", "SetGroup"),
    ("privest", "alphabets"),
    ("privest", "average"),
    ("privest", "by_name"),
    ("privest", "check_row_stochastic"),
    ("privest", "combine_results"),
    ("privest", "counts"),
    ("privest", "emd"),
    ("privest", "emd_1d"),
    ("privest", "estimators"),
    ("privest", "exponential"),
    ("privest", "geometric"),
    ("privest", "gibu"),
    ("privest", "ibu"),
    ("privest", "ibu_m"),
    ("privest", "ibu_runs"),
    ("privest", "inv"),
    ("privest", "inv_m"),
    ("privest", "inv_runs"),
    ("privest", "is_geo_indistinguishable"),
    ("privest", "is_ldp"),
    ("privest", "krr"),
    ("privest", "krr_mle"),
    ("privest", "laplace"),
    ("privest", "ldp_level"),
    ("privest", "linear_distances"),
    ("privest", "lp"),
    ("privest", "matrix_group"),
    ("privest", "mechanisms"),
    ("privest", "metrics"),
    ("privest", "normalise"),
    ("privest", "planar_geometric"),
    ("privest", "planar_laplace"),
    ("privest", "population"),
    ("privest", "project_simplex"),
    ("privest", "protocols"),
    ("privest", "rap"),
    ("privest", "rap_grouped"),
    ("privest", "rappor"),
    ("privest", "rappor_group"),
    ("privest", "rng_for"),
    ("privest", "sample"),
    ("privest", "sample_counts"),
    ("privest", "sampling"),
    ("privest", "shokri"),
    ("privest", "split_users"),
    ("privest", "total_variation"),
    ("privest._kernel", "ibu_updates"),
    ("privest.alphabets", "Alphabet"),
    ("privest.alphabets", "Grid"),
    ("privest.alphabets", "linear_distances"),
    ("privest.counts", "COMBINATIONS"),
    ("privest.counts", "FIGURE6_CLAIMS"),
    ("privest.counts", "LPError"),
    ("privest.counts", "MECHANISMS"),
    ("privest.counts", "PROPERTIES"),
    ("privest.counts", "SIMPLEX"),
    ("privest.counts", "SOLVER"),
    ("privest.counts", "as_row_stochastic"),
    ("privest.counts", "by_name"),
    ("privest.counts", "em"),
    ("privest.counts", "em_diagonal"),
    ("privest.counts", "em_exponents"),
    ("privest.counts", "flowchart"),
    ("privest.counts", "gm"),
    ("privest.counts", "gm_score"),
    ("privest.counts", "gm_weak_honesty_threshold"),
    ("privest.counts", "group_counts"),
    ("privest.counts", "loss"),
    ("privest.counts", "mechanism_key"),
    ("privest.counts", "optimal"),
    ("privest.counts", "properties"),
    ("privest.counts", "rmse"),
    ("privest.counts", "sample_outputs"),
    ("privest.counts", "solver_description"),
    ("privest.counts", "tail_mass"),
    ("privest.counts", "um"),
    ("privest.counts", "verdict"),
    ("privest.counts", "wm"),
    ("privest.counts", "wm_cm"),
    ("privest.counts", "wrong_fraction"),
    ("privest.estimators", "COMPILED_KERNEL"),
    ("privest.estimators", "Accelerate"),
    ("privest.estimators", "CONDITION_LIMIT"),
    ("privest.estimators", "Group"),
    ("privest.estimators", "GroupLike"),
    ("privest.estimators", "IbuResult"),
    ("privest.estimators", "POSTS"),
    ("privest.estimators", "Post"),
    ("privest.estimators", "SetGroup"),
    ("privest.estimators", "combine_results"),
    ("privest.estimators", "gibu"),
    ("privest.estimators", "ibu"),
    ("privest.estimators", "ibu_m"),
    ("privest.estimators", "ibu_runs"),
    ("privest.estimators", "inv"),
    ("privest.estimators", "inv_m"),
    ("privest.estimators", "inv_runs"),
    ("privest.estimators", "krr_mle"),
    ("privest.estimators", "likely_subset_krr"),
    ("privest.estimators", "likely_subset_linear"),
    ("privest.estimators", "likely_subset_planar"),
    ("privest.estimators", "log_likelihood"),
    ("privest.estimators", "matrix_group"),
    ("privest.estimators", "normalise"),
    ("privest.estimators", "post_process"),
    ("privest.estimators", "project_simplex"),
    ("privest.estimators", "rap"),
    ("privest.estimators", "rap_grouped"),
    ("privest.estimators", "rappor_group"),
    ("privest.estimators", "squarem"),
    ("privest.lp", "LPError"),
    ("privest.lp", "LinearProgram"),
    ("privest.lp", "SIMPLEX"),
    ("privest.lp", "Solution"),
    ("privest.lp", "solve"),
    ("privest.lp", "solver_description"),
    ("privest.mechanisms", "MAX_PLANAR_WINDOW"),
    ("privest.mechanisms", "PLANAR_RELATIVE_TAIL"),
    ("privest.mechanisms", "average"),
    ("privest.mechanisms", "by_name"),
    ("privest.mechanisms", "check_row_stochastic"),
    ("privest.mechanisms", "exponential"),
    ("privest.mechanisms", "geo_indistinguishability_level"),
    ("privest.mechanisms", "geometric"),
    ("privest.mechanisms", "geometric_untruncated"),
    ("privest.mechanisms", "is_geo_indistinguishable"),
    ("privest.mechanisms", "is_ldp"),
    ("privest.mechanisms", "krr"),
    ("privest.mechanisms", "laplace"),
    ("privest.mechanisms", "ldp_level"),
    ("privest.mechanisms", "planar_geometric"),
    ("privest.mechanisms", "planar_geometric_remapped"),
    ("privest.mechanisms", "planar_laplace"),
    ("privest.mechanisms", "rappor_flip_probability"),
    ("privest.mechanisms", "remap_to_grid"),
    ("privest.mechanisms", "shokri"),
    ("privest.metrics", "emd"),
    ("privest.metrics", "emd_1d"),
    ("privest.metrics", "total_variation"),
    ("privest.protocols", "BLH"),
    ("privest.protocols", "EPS_MAX"),
    ("privest.protocols", "EPS_MIN"),
    ("privest.protocols", "GRR"),
    ("privest.protocols", "HR"),
    ("privest.protocols", "HashReports"),
    ("privest.protocols", "NAMES"),
    ("privest.protocols", "OLH"),
    ("privest.protocols", "OLH_EPS_MAX"),
    ("privest.protocols", "OUE"),
    ("privest.protocols", "Protocol"),
    ("privest.protocols", "SS"),
    ("privest.protocols", "SUE"),
    ("privest.protocols", "blh"),
    ("privest.protocols", "by_name"),
    ("privest.protocols", "grr"),
    ("privest.protocols", "hr"),
    ("privest.protocols", "olh"),
    ("privest.protocols", "oue"),
    ("privest.protocols", "ss"),
    ("privest.protocols", "sue"),
    ("privest.protocols", "xxh32_decimal"),
    ("privest.rappor", "RapporReports"),
    ("privest.rappor", "distinct_rows"),
    ("privest.rappor", "flip_probability"),
    ("privest.rappor", "log_probability"),
    ("privest.sampling", "Mechanism"),
    ("privest.sampling", "Rappor"),
    ("privest.sampling", "Reports"),
    ("privest.sampling", "check_secrets"),
    ("privest.sampling", "population"),
    ("privest.sampling", "rappor"),
    ("privest.sampling", "rng_for"),
    ("privest.sampling", "sample"),
    ("privest.sampling", "sample_counts"),
    ("privest.sampling", "split_secrets"),
    ("privest.sampling", "split_users"),
    ("privest.shokri", "FIRST_SIMPLEX"),
    ("privest.shokri", "SOLVERS"),
    ("privest.shokri", "SOLVER_METHOD"),
    ("privest.shokri", "ShokriSolution"),
    ("privest.shokri", "adversary_loss"),
    ("privest.shokri", "blind_guess_loss"),
    ("privest.shokri", "log"),
    ("privest.shokri", "shokri"),
    ("privest.shokri", "solve_shokri"),
]


def _resolve(module: str, name: str) -> object:
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("module", "name"), PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_public_import_path_still_imports(module, name):
    if module == "privest._kernel" and not _resolve("privest.estimators", "COMPILED_KERNEL"):
        pytest.skip("privest._kernel is not built")
    namespace: dict = {}
    exec(f"from {module} import {name}", namespace)  # the statement a user writes
    assert namespace[name] is _resolve(module, name)


@pytest.mark.parametrize(("module", "name"), PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_public_function_or_class_is_the_object_of_its_home_module(module, name):
    obj = _resolve(module, name) if module != "privest._kernel" or _resolve(
        "privest.estimators", "COMPILED_KERNEL") else None
    home, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not (callable(obj) and isinstance(home, str) and home.startswith("privest.") and qualname):
        pytest.skip("not a function or class defined in privest")
    assert _resolve(home, qualname) is obj


NEW_HOME = {
    # (old path, name): (the module that defines the object in the new tree, its name there)
    ("privest", "Alphabet"): ("privest.alphabets", "Alphabet"),
    ("privest", "Grid"): ("privest.alphabets", "Grid"),
    ("privest", "Group"): ("privest.groups", "Group"),
    ("privest", "IbuResult"): ("privest.estimators._iteration", "IbuResult"),
    ("privest", "RapporReports"): ("privest.rappor", "RapporReports"),
    ("privest", "SetGroup"): ("privest.groups", "SetGroup"),
    ("privest", "average"): ("privest.mechanisms.properties", "average"),
    ("privest", "by_name"): ("privest.mechanisms.lookup", "by_name"),
    ("privest", "check_row_stochastic"): ("privest._checks", "check_row_stochastic"),
    ("privest", "combine_results"): ("privest.estimators.mixtures", "combine_results"),
    ("privest", "emd"): ("privest.metrics", "emd"),
    ("privest", "emd_1d"): ("privest.metrics", "emd_1d"),
    ("privest", "exponential"): ("privest.mechanisms.linear", "exponential"),
    ("privest", "geometric"): ("privest.mechanisms.linear", "geometric"),
    ("privest", "gibu"): ("privest.estimators.iterative", "gibu"),
    ("privest", "ibu"): ("privest.estimators.iterative", "ibu"),
    ("privest", "ibu_m"): ("privest.estimators.mixtures", "ibu_m"),
    ("privest", "ibu_runs"): ("privest.estimators.iterative", "ibu_runs"),
    ("privest", "inv"): ("privest.estimators.inversion", "inv"),
    ("privest", "inv_m"): ("privest.estimators.mixtures", "inv_m"),
    ("privest", "inv_runs"): ("privest.estimators.inversion", "inv_runs"),
    ("privest", "is_geo_indistinguishable"): ("privest.mechanisms.properties", "is_geo_indistinguishable"),
    ("privest", "is_ldp"): ("privest.mechanisms.properties", "is_ldp"),
    ("privest", "krr"): ("privest.mechanisms.linear", "krr"),
    ("privest", "krr_mle"): ("privest.estimators.closed_form", "krr_mle"),
    ("privest", "laplace"): ("privest.mechanisms.linear", "laplace"),
    ("privest", "ldp_level"): ("privest.mechanisms.properties", "ldp_level"),
    ("privest", "linear_distances"): ("privest.alphabets", "linear_distances"),
    ("privest", "matrix_group"): ("privest.groups", "matrix_group"),
    ("privest", "normalise"): ("privest.simplex", "normalise"),
    ("privest", "planar_geometric"): ("privest.mechanisms.planar", "planar_geometric"),
    ("privest", "planar_laplace"): ("privest.mechanisms.planar", "planar_laplace"),
    ("privest", "population"): ("privest.sampling", "population"),
    ("privest", "project_simplex"): ("privest.simplex", "project_simplex"),
    ("privest", "rap"): ("privest.estimators.rappor", "rap"),
    ("privest", "rap_grouped"): ("privest.estimators.rappor", "rap_grouped"),
    ("privest", "rappor_group"): ("privest.groups", "rappor_group"),
    ("privest", "rng_for"): ("privest.sampling", "rng_for"),
    ("privest", "sample"): ("privest.sampling", "sample"),
    ("privest", "sample_counts"): ("privest.sampling", "sample_counts"),
    ("privest", "split_users"): ("privest.sampling", "split_users"),
    ("privest", "total_variation"): ("privest.metrics", "total_variation"),
    ("privest._kernel", "ibu_updates"): ("privest._kernel", "ibu_updates"),
    ("privest.alphabets", "Alphabet"): ("privest.alphabets", "Alphabet"),
    ("privest.alphabets", "Grid"): ("privest.alphabets", "Grid"),
    ("privest.alphabets", "linear_distances"): ("privest.alphabets", "linear_distances"),
    ("privest.counts", "COMBINATIONS"): ("privest.counts", "COMBINATIONS"),
    ("privest.counts", "FIGURE6_CLAIMS"): ("privest.counts", "FIGURE6_CLAIMS"),
    ("privest.counts", "LPError"): ("privest.lp", "LPError"),
    ("privest.counts", "MECHANISMS"): ("privest.counts", "MECHANISMS"),
    ("privest.counts", "PROPERTIES"): ("privest.counts", "PROPERTIES"),
    ("privest.counts", "SIMPLEX"): ("privest.counts", "SIMPLEX"),
    ("privest.counts", "SOLVER"): ("privest.counts", "SOLVER"),
    ("privest.counts", "as_row_stochastic"): ("privest.counts", "as_row_stochastic"),
    ("privest.counts", "by_name"): ("privest.counts", "by_name"),
    ("privest.counts", "em"): ("privest.counts", "em"),
    ("privest.counts", "em_diagonal"): ("privest.counts", "em_diagonal"),
    ("privest.counts", "em_exponents"): ("privest.counts", "em_exponents"),
    ("privest.counts", "flowchart"): ("privest.counts", "flowchart"),
    ("privest.counts", "gm"): ("privest.counts", "gm"),
    ("privest.counts", "gm_score"): ("privest.counts", "gm_score"),
    ("privest.counts", "gm_weak_honesty_threshold"): ("privest.counts", "gm_weak_honesty_threshold"),
    ("privest.counts", "group_counts"): ("privest.counts", "group_counts"),
    ("privest.counts", "loss"): ("privest.counts", "loss"),
    ("privest.counts", "mechanism_key"): ("privest.counts", "mechanism_key"),
    ("privest.counts", "optimal"): ("privest.counts", "optimal"),
    ("privest.counts", "properties"): ("privest.counts", "properties"),
    ("privest.counts", "rmse"): ("privest.counts", "rmse"),
    ("privest.counts", "sample_outputs"): ("privest.counts", "sample_outputs"),
    ("privest.counts", "solver_description"): ("privest.counts", "solver_description"),
    ("privest.counts", "tail_mass"): ("privest.counts", "tail_mass"),
    ("privest.counts", "um"): ("privest.counts", "um"),
    ("privest.counts", "verdict"): ("privest.counts", "verdict"),
    ("privest.counts", "wm"): ("privest.counts", "wm"),
    ("privest.counts", "wm_cm"): ("privest.counts", "wm_cm"),
    ("privest.counts", "wrong_fraction"): ("privest.counts", "wrong_fraction"),
    ("privest.estimators", "COMPILED_KERNEL"): ("privest.estimators._iteration", "COMPILED_KERNEL"),
    ("privest.estimators", "Accelerate"): ("privest.estimators.iterative", "Accelerate"),
    ("privest.estimators", "CONDITION_LIMIT"): ("privest.estimators.inversion", "CONDITION_LIMIT"),
    ("privest.estimators", "Group"): ("privest.groups", "Group"),
    ("privest.estimators", "GroupLike"): ("privest.groups", "GroupLike"),
    ("privest.estimators", "IbuResult"): ("privest.estimators._iteration", "IbuResult"),
    ("privest.estimators", "POSTS"): ("privest.simplex", "POSTS"),
    ("privest.estimators", "Post"): ("privest.simplex", "Post"),
    ("privest.estimators", "SetGroup"): ("privest.groups", "SetGroup"),
    ("privest.estimators", "combine_results"): ("privest.estimators.mixtures", "combine_results"),
    ("privest.estimators", "gibu"): ("privest.estimators.iterative", "gibu"),
    ("privest.estimators", "ibu"): ("privest.estimators.iterative", "ibu"),
    ("privest.estimators", "ibu_m"): ("privest.estimators.mixtures", "ibu_m"),
    ("privest.estimators", "ibu_runs"): ("privest.estimators.iterative", "ibu_runs"),
    ("privest.estimators", "inv"): ("privest.estimators.inversion", "inv"),
    ("privest.estimators", "inv_m"): ("privest.estimators.mixtures", "inv_m"),
    ("privest.estimators", "inv_runs"): ("privest.estimators.inversion", "inv_runs"),
    ("privest.estimators", "krr_mle"): ("privest.estimators.closed_form", "krr_mle"),
    ("privest.estimators", "likely_subset_krr"): ("privest.estimators.likely", "likely_subset_krr"),
    ("privest.estimators", "likely_subset_linear"): ("privest.estimators.likely", "likely_subset_linear"),
    ("privest.estimators", "likely_subset_planar"): ("privest.estimators.likely", "likely_subset_planar"),
    ("privest.estimators", "log_likelihood"): ("privest.estimators.iterative", "log_likelihood"),
    ("privest.estimators", "matrix_group"): ("privest.groups", "matrix_group"),
    ("privest.estimators", "normalise"): ("privest.simplex", "normalise"),
    ("privest.estimators", "post_process"): ("privest.simplex", "post_process"),
    ("privest.estimators", "project_simplex"): ("privest.simplex", "project_simplex"),
    ("privest.estimators", "rap"): ("privest.estimators.rappor", "rap"),
    ("privest.estimators", "rap_grouped"): ("privest.estimators.rappor", "rap_grouped"),
    ("privest.estimators", "rappor_group"): ("privest.groups", "rappor_group"),
    ("privest.estimators", "squarem"): ("privest.estimators.iterative", "squarem"),
    ("privest.lp", "LPError"): ("privest.lp", "LPError"),
    ("privest.lp", "LinearProgram"): ("privest.lp", "LinearProgram"),
    ("privest.lp", "SIMPLEX"): ("privest.lp", "SIMPLEX"),
    ("privest.lp", "Solution"): ("privest.lp", "Solution"),
    ("privest.lp", "solve"): ("privest.lp", "solve"),
    ("privest.lp", "solver_description"): ("privest.lp", "solver_description"),
    ("privest.mechanisms", "MAX_PLANAR_WINDOW"): ("privest.mechanisms.planar", "MAX_PLANAR_WINDOW"),
    ("privest.mechanisms", "PLANAR_RELATIVE_TAIL"): ("privest.mechanisms.planar", "PLANAR_RELATIVE_TAIL"),
    ("privest.mechanisms", "average"): ("privest.mechanisms.properties", "average"),
    ("privest.mechanisms", "by_name"): ("privest.mechanisms.lookup", "by_name"),
    ("privest.mechanisms", "check_row_stochastic"): ("privest._checks", "check_row_stochastic"),
    ("privest.mechanisms", "exponential"): ("privest.mechanisms.linear", "exponential"),
    ("privest.mechanisms", "geo_indistinguishability_level"): (
        "privest.mechanisms.properties", "geo_indistinguishability_level"),
    ("privest.mechanisms", "geometric"): ("privest.mechanisms.linear", "geometric"),
    ("privest.mechanisms", "geometric_untruncated"): ("privest.mechanisms.linear", "geometric_untruncated"),
    ("privest.mechanisms", "is_geo_indistinguishable"): ("privest.mechanisms.properties", "is_geo_indistinguishable"),
    ("privest.mechanisms", "is_ldp"): ("privest.mechanisms.properties", "is_ldp"),
    ("privest.mechanisms", "krr"): ("privest.mechanisms.linear", "krr"),
    ("privest.mechanisms", "laplace"): ("privest.mechanisms.linear", "laplace"),
    ("privest.mechanisms", "ldp_level"): ("privest.mechanisms.properties", "ldp_level"),
    ("privest.mechanisms", "planar_geometric"): ("privest.mechanisms.planar", "planar_geometric"),
    ("privest.mechanisms", "planar_geometric_remapped"): ("privest.mechanisms.planar", "planar_geometric_remapped"),
    ("privest.mechanisms", "planar_laplace"): ("privest.mechanisms.planar", "planar_laplace"),
    ("privest.mechanisms", "rappor_flip_probability"): ("privest.mechanisms.linear", "rappor_flip_probability"),
    ("privest.mechanisms", "remap_to_grid"): ("privest.mechanisms.planar", "remap_to_grid"),
    ("privest.mechanisms", "shokri"): ("privest.shokri", "shokri"),
    ("privest.metrics", "emd"): ("privest.metrics", "emd"),
    ("privest.metrics", "emd_1d"): ("privest.metrics", "emd_1d"),
    ("privest.metrics", "total_variation"): ("privest.metrics", "total_variation"),
    ("privest.protocols", "BLH"): ("privest.protocols.hashing", "BLH"),
    ("privest.protocols", "EPS_MAX"): ("privest.protocols.base", "EPS_MAX"),
    ("privest.protocols", "EPS_MIN"): ("privest.protocols.base", "EPS_MIN"),
    ("privest.protocols", "GRR"): ("privest.protocols.response", "GRR"),
    ("privest.protocols", "HR"): ("privest.protocols.response", "HR"),
    ("privest.protocols", "HashReports"): ("privest.protocols.hashing", "HashReports"),
    ("privest.protocols", "NAMES"): ("privest.protocols.factories", "NAMES"),
    ("privest.protocols", "OLH"): ("privest.protocols.hashing", "OLH"),
    ("privest.protocols", "OLH_EPS_MAX"): ("privest.protocols.hashing", "OLH_EPS_MAX"),
    ("privest.protocols", "OUE"): ("privest.protocols.unary", "OUE"),
    ("privest.protocols", "Protocol"): ("privest.protocols.base", "Protocol"),
    ("privest.protocols", "SS"): ("privest.protocols.subsets", "SS"),
    ("privest.protocols", "SUE"): ("privest.protocols.unary", "SUE"),
    ("privest.protocols", "blh"): ("privest.protocols.factories", "blh"),
    ("privest.protocols", "by_name"): ("privest.protocols.factories", "by_name"),
    ("privest.protocols", "grr"): ("privest.protocols.factories", "grr"),
    ("privest.protocols", "hr"): ("privest.protocols.factories", "hr"),
    ("privest.protocols", "olh"): ("privest.protocols.factories", "olh"),
    ("privest.protocols", "oue"): ("privest.protocols.factories", "oue"),
    ("privest.protocols", "ss"): ("privest.protocols.factories", "ss"),
    ("privest.protocols", "sue"): ("privest.protocols.factories", "sue"),
    ("privest.protocols", "xxh32_decimal"): ("privest.protocols.xxh32", "xxh32_decimal"),
    ("privest.rappor", "RapporReports"): ("privest.rappor", "RapporReports"),
    ("privest.rappor", "distinct_rows"): ("privest.rappor", "distinct_rows"),
    ("privest.rappor", "flip_probability"): ("privest.rappor", "flip_probability"),
    ("privest.rappor", "log_probability"): ("privest.rappor", "log_probability"),
    ("privest.sampling", "Mechanism"): ("privest.sampling", "Mechanism"),
    ("privest.sampling", "Rappor"): ("privest.sampling", "Rappor"),
    ("privest.sampling", "Reports"): ("privest.sampling", "Reports"),
    ("privest.sampling", "check_secrets"): ("privest._checks", "check_secrets"),
    ("privest.sampling", "population"): ("privest.sampling", "population"),
    ("privest.sampling", "rappor"): ("privest.sampling", "rappor"),
    ("privest.sampling", "rng_for"): ("privest.sampling", "rng_for"),
    ("privest.sampling", "sample"): ("privest.sampling", "sample"),
    ("privest.sampling", "sample_counts"): ("privest.sampling", "sample_counts"),
    ("privest.sampling", "split_secrets"): ("privest.sampling", "split_secrets"),
    ("privest.sampling", "split_users"): ("privest.sampling", "split_users"),
    ("privest.shokri", "FIRST_SIMPLEX"): ("privest.shokri", "FIRST_SIMPLEX"),
    ("privest.shokri", "SOLVERS"): ("privest.shokri", "SOLVERS"),
    ("privest.shokri", "SOLVER_METHOD"): ("privest.shokri", "SOLVER_METHOD"),
    ("privest.shokri", "ShokriSolution"): ("privest.shokri", "ShokriSolution"),
    ("privest.shokri", "adversary_loss"): ("privest.shokri", "adversary_loss"),
    ("privest.shokri", "blind_guess_loss"): ("privest.shokri", "blind_guess_loss"),
    ("privest.shokri", "log"): ("privest.shokri", "log"),
    ("privest.shokri", "shokri"): ("privest.shokri", "shokri"),
    ("privest.shokri", "solve_shokri"): ("privest.shokri", "solve_shokri"),
}
"""Where each public name (not a module) is defined in the new tree: the old path must give that very object."""


@pytest.mark.parametrize(("module", "name"), list(NEW_HOME), ids=[f"{m}.{n}" for m, n in NEW_HOME])
def test_public_import_path_is_the_object_of_its_new_home(module, name):
    if module == "privest._kernel" and not _resolve("privest.estimators", "COMPILED_KERNEL"):
        pytest.skip("privest._kernel is not built")
    assert _resolve(module, name) is _resolve(*NEW_HOME[(module, name)])


# One namespace (issue 48, item 4): every mechanism and protocol is privest.<name>; a module keeps its name.
MATRIX_MECHANISMS = ("krr", "geometric", "geometric_untruncated", "laplace", "exponential", "planar_geometric",
                     "planar_geometric_remapped", "planar_laplace")
"""The matrix mechanisms' constructors of privest.mechanisms (Shokri et al.'s is the module rule's case below)."""


@pytest.mark.parametrize("name", [*importlib.import_module("privest.protocols").NAMES, "Protocol"])
def test_every_protocol_constructor_is_a_top_level_name(name):
    import privest

    assert name in privest.__all__ and getattr(privest, name) is getattr(privest.protocols, name)


@pytest.mark.parametrize("name", MATRIX_MECHANISMS)
def test_every_matrix_mechanism_is_a_top_level_name(name):
    import privest

    assert name in privest.__all__ and getattr(privest, name) is getattr(privest.mechanisms, name)


def test_a_module_keeps_its_name_and_its_function_is_one_level_down():
    import types

    import privest

    for module in ("rappor", "shokri"):
        namespace: dict = {}
        exec(f"from privest import {module}", namespace)
        assert isinstance(namespace[module], types.ModuleType) and namespace[module] is privest.__dict__[module]
    assert privest.shokri.shokri is privest.mechanisms.shokri
    assert privest.sample_rappor is privest.sampling.rappor and privest.Rappor is privest.sampling.Rappor
    assert privest.krr is not privest.grr  # k-RR's matrix and the same channel as a protocol: two names


def test_the_protocols_under_their_top_level_names_estimate_as_under_the_package():
    import numpy as np

    import privest

    rng = privest.rng_for(2026, "one namespace")
    reports = privest.oue(6, 1.0).sample(np.repeat(np.arange(6), 50), rng)
    assert np.array_equal(privest.ibu(privest.oue(6, 1.0), reports).theta,
                          privest.ibu(privest.protocols.oue(6, 1.0), reports).theta)
