"""The rules the house keeps (issue 29; the house style's "Growing the house"), read from the source with ``ast``.

Imports point down, in this order (each module imports only modules to its left; ``privest._kernel``, the compiled
IBU loop, sits below everything):

    _checks -> metrics -> alphabets -> simplex -> consistency -> intervals -> rappor -> groups -> lp -> shokri
    -> mechanisms (linear, planar, properties -> lookup) -> sampling
    -> protocols (xxh32 -> digests -> packed -> _laplace -> base -> response, unary, subsets, hashing -> histogram,
       longitudinal
       -> rounds, bitflip -> sketches -> fast_hashing, hadamard_mechanism, count_sketch, rappor_bloom
       -> factories -> multidim)
    -> estimators (_calls -> _bits, _sets -> _iteration -> _squarem -> iterative -> inversion -> mixtures, closed_form,
       rappor, likely, bootstrap)
    -> counts
    -> numeric (_em -> base -> mechanisms)
    -> heavy_hitters (scores -> base -> prefix -> puzzle)
    -> auditing -> privest (the top-level re-exports)

The study layer (``privest_studies``) keeps an order of its own, lowest first (``STUDY_ORDER``):

    files, jobs, configuration, tables, uncertainty, regions, plotting,   what every study and script shares
    run_cost
    -> fetch -> datasets -> own_csv -> own_records -> own_items -> own_data    the data: fetched, read, binned
    -> experiment (mechanisms -> families -> spec -> reports -> estimates -> scores) -> cost    the one chain
    -> ibu_theory -> reproduction (records -> placeholders -> printed -> checks -> judging) -> report -> rendering
                                                                           the papers' theory, checks and report
    -> constrained_counts, ibu_consistency, free_will, standard_protocols, estimator_comparison,
       multi_freq_ldpy_tutorials, large_domains -> large_figures, own_columns, own_large -> own_study -> own_figures,
       sw_vs_geometric
                                                                           the studies

Between layers: the library (``privest``) never imports the study code (``privest_studies``), the workflow
(``snakemake``) or ``scripts``; the study code never imports ``scripts`` or ``snakemake`` (a script reads
``snakemake`` and calls the study code).

Also: validators live in ``privest/_checks.py`` only (no ``def check_`` or ``def _check_`` elsewhere in privest/); a
function-level import is for a heavy optional dependency only (``LAZY`` below) with a comment saying why; every
public module of privest declares ``__all__``; no module of privest or privest_studies is over 500 lines unless its
docstring says why ("over 500 lines because ..."; ``LONG_STUDY_MODULES`` lists the study modules still waiting for
their split).
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "privest"
STUDIES = ROOT / "privest_studies"

ORDER = (
    "privest._kernel",
    "privest._checks",
    "privest.metrics",
    "privest.alphabets",
    "privest.simplex",
    "privest.consistency",
    "privest.intervals",
    "privest.rappor",
    "privest.groups",
    "privest.lp",
    "privest.shokri",
    "privest.mechanisms.linear",
    "privest.mechanisms.planar",
    "privest.mechanisms.properties",
    "privest.mechanisms.lookup",
    "privest.mechanisms",
    "privest.sampling",
    "privest.protocols.xxh32",
    "privest.protocols.digests",
    "privest.protocols.packed",
    "privest.protocols._laplace",
    "privest.protocols.base",
    "privest.protocols.response",
    "privest.protocols.unary",
    "privest.protocols.subsets",
    "privest.protocols.hashing",
    "privest.protocols.histogram",
    "privest.protocols.longitudinal",
    "privest.protocols.bitflip",
    "privest.protocols.rounds",
    "privest.protocols.sketches",
    "privest.protocols.fast_hashing",
    "privest.protocols.hadamard_mechanism",
    "privest.protocols.count_sketch",
    "privest.protocols.rappor_bloom",
    "privest.protocols.factories",
    "privest.protocols.multidim",
    "privest.protocols",
    "privest.estimators._calls",
    "privest.estimators._bits",
    "privest.estimators._sets",
    "privest.estimators._iteration",
    "privest.estimators._squarem",
    "privest.estimators.iterative",
    "privest.estimators.inversion",
    "privest.estimators.mixtures",
    "privest.estimators.closed_form",
    "privest.estimators.rappor",
    "privest.estimators.likely",
    "privest.estimators.bootstrap",
    "privest.estimators",
    "privest.counts",
    "privest.numeric._em",
    "privest.numeric.base",
    "privest.numeric.mechanisms",
    "privest.numeric",
    "privest.heavy_hitters.scores",
    "privest.heavy_hitters.base",
    "privest.heavy_hitters.prefix",
    "privest.heavy_hitters.puzzle",
    "privest.heavy_hitters",
    "privest.auditing",
    "privest",
)
"""Every module of privest, lowest first: a module imports only modules before it."""

LAZY = {
    "ot": "POT costs a second to import; only EMD on a grid needs it",
    "scipy": "scipy.sparse, scipy.linalg and scipy.spatial cost 0.1-0.3 s each; only some estimators need them",
    "highspy": "the LP solver loads with the first LP, not with privest",
    "importlib": "importlib.metadata loads email and zipfile; only the LP's solver description needs it",
}
"""The only packages a function may import, each with why it is not imported at the top."""

STUDY_ORDER = (
    "privest_studies.files",
    "privest_studies.jobs",
    "privest_studies.configuration",
    "privest_studies.tables",
    "privest_studies.uncertainty",
    "privest_studies.regions",
    "privest_studies.plotting",
    "privest_studies.run_cost",
    "privest_studies.fetch",
    "privest_studies.datasets",
    "privest_studies.own_csv",
    "privest_studies.own_records",
    "privest_studies.own_items",
    "privest_studies.own_data",
    "privest_studies.experiment.mechanisms",
    "privest_studies.experiment.families",
    "privest_studies.experiment.spec",
    "privest_studies.experiment.reports",
    "privest_studies.experiment.estimates",
    "privest_studies.experiment.scores",
    "privest_studies.experiment",
    "privest_studies.cost",
    "privest_studies.ibu_theory",
    "privest_studies.reproduction.records",
    "privest_studies.reproduction.placeholders",
    "privest_studies.reproduction.printed",
    "privest_studies.reproduction.checks_ibu",
    "privest_studies.reproduction.checks_counts",
    "privest_studies.reproduction.checks_free_will",
    "privest_studies.reproduction.checks_beyond",
    "privest_studies.reproduction.checks",
    "privest_studies.reproduction.judging",
    "privest_studies.reproduction",
    "privest_studies.report",
    "privest_studies.rendering",
    "privest_studies.free_will_verdicts",
    "privest_studies.constrained_counts",
    "privest_studies.ibu_consistency",
    "privest_studies.free_will",
    "privest_studies.standard_protocols",
    "privest_studies.estimator_comparison",
    "privest_studies.multi_freq_ldpy_tutorials",
    "privest_studies.large_domains",
    "privest_studies.large_figures",
    "privest_studies.own_columns",
    "privest_studies.own_large",
    "privest_studies.own_study",
    "privest_studies.own_figures",
    "privest_studies.sw_vs_geometric",
)
"""Every module of privest_studies, lowest first: a module imports only modules before it."""

MAX_LINES = 500

LONG_STUDY_MODULES = {
}
"""Study modules over MAX_LINES without a reason in their docstring, each with why it is allowed for now."""


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    return {_module_name(path): path for path in sorted(folder.rglob("*.py"))}


LIBRARY_MODULES = _sources(LIBRARY)
STUDY_MODULES = _sources(STUDIES)


def _known(name: str) -> bool:
    return name in LIBRARY_MODULES or name in ORDER or name in STUDY_MODULES or name in STUDY_ORDER


def _imports(path: pathlib.Path) -> list[tuple[str, int, bool]]:
    """(imported module, line, at function level) for every import of the file. ``from a import b`` imports a.b when
    that is a module, else a. Relative imports are resolved against the file's package."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                found.extend((alias.name, child.lineno, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parent = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                for alias in child.names:
                    target = f"{base}.{alias.name}"
                    found.append((target if _known(target) else base, child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def _edges(modules: dict[str, pathlib.Path], top: str) -> dict[str, set[str]]:
    """Which modules of the package ``top`` each of its ``modules`` imports, with the packages that an import of a
    submodule runs."""
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target, _, _ in _imports(path):
            if target != top and not target.startswith(top + "."):
                continue
            parts = target.split(".")
            for i in range(2, len(parts) + 1):  # importing privest.a.b runs privest.a first
                prefix = ".".join(parts[:i])
                if _known(prefix) and not name.startswith(prefix + ".") and prefix != name:
                    edges[name].add(prefix)
    return edges


def _library_edges() -> dict[str, set[str]]:
    return _edges(LIBRARY_MODULES, "privest")


def _study_edges() -> dict[str, set[str]]:
    return _edges(STUDY_MODULES, "privest_studies")


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of imports (module, ..., the same module), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def walk(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for target in sorted(edges.get(name, ())):
            if state.get(target) == 1:
                return [*path, name, target]
            if target not in state and (cycle := walk(target, [*path, name])):
                return cycle
        state[name] = 2
        return None

    for name in sorted(edges):
        if name not in state and (cycle := walk(name, [])):
            return cycle
    return None


def test_every_library_module_has_a_place_in_the_order():
    assert sorted(set(LIBRARY_MODULES) - set(ORDER)) == [], "add the new module to ORDER (and to the docstring)"
    assert sorted(set(ORDER) - set(LIBRARY_MODULES) - {"privest._kernel"}) == [], "ORDER names a module that is gone"


def test_library_imports_point_down_in_the_stated_order():
    rank = {name: i for i, name in enumerate(ORDER)}
    upward = [f"{name} imports {target}" for name, targets in _library_edges().items() for target in targets
              if rank[target] >= rank[name]]
    assert upward == []


def test_library_imports_have_no_cycle():
    cycle = _cycle(_library_edges())
    assert cycle is None, " -> ".join(cycle)


def test_every_study_module_has_a_place_in_the_order():
    assert sorted(set(STUDY_MODULES) - set(STUDY_ORDER)) == [], "add the new module to STUDY_ORDER (and the docstring)"
    assert sorted(set(STUDY_ORDER) - set(STUDY_MODULES)) == [], "STUDY_ORDER names a module that is gone"


def test_study_imports_point_down_in_the_stated_order():
    rank = {name: i for i, name in enumerate(STUDY_ORDER)}
    upward = [f"{name} imports {target}" for name, targets in _study_edges().items() for target in targets
              if rank[target] >= rank[name]]
    assert upward == []


def test_study_imports_have_no_cycle():
    cycle = _cycle(_study_edges())
    assert cycle is None, " -> ".join(cycle)


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("privest", ("privest_studies", "snakemake", "scripts")),
    ("privest_studies", ("scripts", "snakemake")),
])
def test_layers_import_only_downwards(folder, forbidden):
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for path in sorted((ROOT / folder).rglob("*.py")) for target, line, _ in _imports(path)
             if target.split(".")[0] in forbidden]
    assert wrong == []


def test_function_level_imports_are_heavy_optional_dependencies_with_a_comment():
    wrong = []
    for name, path in LIBRARY_MODULES.items():
        lines = path.read_text().split("\n")
        for target, line, in_function in _imports(path):
            if not in_function:
                continue
            text, above = lines[line - 1], lines[line - 2].strip()
            if target.split(".")[0] not in LAZY:
                wrong.append(f"{name}:{line} imports {target} in a function (not a heavy optional dependency)")
            elif "#" not in text and not above.startswith("#"):
                wrong.append(f"{name}:{line} imports {target} in a function without a comment saying why")
    assert wrong == []


def test_validators_live_in_checks_only():
    wrong = [f"{path.relative_to(ROOT)}:{node.lineno} def {node.name}"
             for name, path in LIBRARY_MODULES.items() if name != "privest._checks"
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.FunctionDef) and node.name.lstrip("_").startswith("check_")]
    assert wrong == []


def test_every_public_module_declares_all():
    public = [name for name in LIBRARY_MODULES if not any(part.startswith("_") for part in name.split("."))]
    missing = [name for name in public if not any(
        isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        for node in ast.parse(LIBRARY_MODULES[name].read_text()).body)]
    assert missing == []


def _long_without_a_reason(modules: dict[str, pathlib.Path]) -> list[str]:
    return [f"{name}: {n} lines" for name, path in modules.items()
            if (n := len(path.read_text().split("\n"))) > MAX_LINES
            and "over 500 lines because" not in (ast.get_docstring(ast.parse(path.read_text())) or "")]


def test_no_library_module_is_over_500_lines_without_a_reason_at_its_top():
    assert _long_without_a_reason(LIBRARY_MODULES) == []


def test_no_study_module_is_over_500_lines_without_a_reason_at_its_top():
    long = {entry.split(":")[0]: entry for entry in _long_without_a_reason(STUDY_MODULES)}
    assert [entry for name, entry in long.items() if name not in LONG_STUDY_MODULES] == []
    assert [name for name in LONG_STUDY_MODULES if name not in long] == [], "short now: drop it from LONG_STUDY_MODULES"


def test_all_lists_only_names_the_module_has():
    import importlib

    for name in LIBRARY_MODULES:
        module = importlib.import_module(name)
        missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
        assert missing == [], f"{name}.__all__ names {missing}"


def test_the_layout_page_lists_every_module():
    """docs/layout.md names every module of privest and privest_studies (and the one idea it holds): a new module
    is added there too."""
    page = (ROOT / "docs" / "layout.md").read_text()
    missing = [str(p.relative_to(ROOT)) for layer in ("privest", "privest_studies")
               for p in sorted((ROOT / layer).rglob("*.py")) if f"`{p.relative_to(ROOT)}`" not in page]
    assert not missing, f"docs/layout.md does not list {missing}"
