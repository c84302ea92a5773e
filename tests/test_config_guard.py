"""The config guard (privest_studies.configuration): every config key that becomes part of a path is a PATH_NAME, a key
given twice in a config file is refused, and a config error is one line on the terminal and nothing else.

The coverage tests are derived, not listed by hand: the schema is searched for every mapping whose keys a user
chooses, and the loaded workflow's rules for every wildcard of an output, log or benchmark path; a new mapping or a
new wildcard that is not covered fails here until it is."""

import copy
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from privest_studies import configuration

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile")]
HOSTILE = ["../x", "../../../ESCAPE", "/tmp/privest_escape", "a;rm -rf", "$(x)", "a b", "a/b", "\uff41bc", "\u0430bc",
           "", ".", "..", "a\n", "a.b", "1abc"]
"""Names that must never reach a path: traversal, absolute, shell characters, a space, a separator, fullwidth and
Cyrillic look-alikes of a, empty, dots, a trailing newline (which a $ pattern lets through), a dot, a leading digit."""


def snakemake(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONHASHSEED": "0"})


# One pattern: the schema's definition, and where it applies.


def test_the_schemas_path_name_is_privests_path_name():
    assert SCHEMA["definitions"]["path_name"]["pattern"] == f"^{configuration.PATH_NAME.pattern}$"


def schema_nodes(node, trail=()):
    """Every mapping of the schema with the keywords that lead to it."""
    if isinstance(node, dict):
        yield trail, node
        for key, child in node.items():
            yield from schema_nodes(child, (*trail, key))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from schema_nodes(child, (*trail, i))


def test_every_mapping_whose_keys_a_user_chooses_takes_path_names_or_a_fixed_list():
    """A mapping with free keys (additionalProperties a schema, or an object without properties) may feed a path:
    its keys are path names, or one of a fixed list (enum), whether or not a rule uses them in a path today."""
    open_mappings = [
        trail for trail, node in schema_nodes(SCHEMA)
        if isinstance(node.get("additionalProperties"), dict)
        or (node.get("type") == "object" and "properties" not in node and "additionalProperties" not in node)
    ]
    assert len(open_mappings) > 10
    unchecked = [".".join(map(str, trail)) for trail, node in schema_nodes(SCHEMA) if trail in open_mappings
                 and node.get("propertyNames", {}).get("$ref") != configuration.PATH_NAME_REF
                 and "enum" not in node.get("propertyNames", {})]
    assert not unchecked, f"give these mappings propertyNames: {{$ref: '{configuration.PATH_NAME_REF}'}}: {unchecked}"


def test_the_check_reaches_every_path_name_mapping_of_the_schema():
    """check_path_names walks properties, additionalProperties and $ref only: no path_name may sit under a branch
    (oneOf, anyOf, allOf, not, items), and each definition that holds one is reached from the top."""
    refs = [trail for trail, node in schema_nodes(SCHEMA)
            if node.get("propertyNames", {}).get("$ref") == configuration.PATH_NAME_REF]
    assert not [t for t in refs if {"oneOf", "anyOf", "allOf", "not", "items"} & set(t)]
    reached = configuration.path_name_mappings(SCHEMA)
    for trail in refs:
        tail = tuple("*" if key == "additionalProperties" else key for key in trail[trail.index("definitions") + 2:]
                     if key != "properties") if trail[0] == "definitions" else None
        if tail is None:
            path = tuple("*" if key == "additionalProperties" else key for key in trail if key != "properties")
            assert path in reached, path
        else:
            assert any(found[len(found) - len(tail):] == tail for found in reached), trail


# Every wildcard of the rules' paths comes from a checked mapping or a fixed set.

CONFIG_WILDCARDS = {
    "study": [("studies",)],  # and the papers' studies, names in the code
    "own_study": [("studies",)],
    "own_figure": [("studies", "*", "experiments")],  # a figure is named after its experiment's config key
    "own_columns": [("studies", "*", "experiments")],  # a multi-column experiment, named by its config key
    "own_large": [("studies", "*", "experiments")],  # an experiment on a large alphabet, named by its config key
    "experiment": [("studies", "*", "experiments"), ("ibu_consistency", "experiments"),
                   ("free_will", "mechanism_sets"), ("sw_vs_geometric", "columns")],  # <column>_<kind>
    "column": [("sw_vs_geometric", "columns")],
    "dataset": [("ibu_consistency", "synthetic")],
}
"""Wildcard -> the config mappings whose keys it takes (`*`: any key)."""
FIXED_WILDCARDS = {
    "alphabet": "the keys of free_will.alphabets, fixed by the schema (linear, rappor, planar)",
    "region": "planar or a key of regions, fixed by the schema",
    "name": "the raw files adult.data, adult.test, gowalla_checkins",
    "family": "privest_studies.experiment.FAMILIES",
    "case": "privest_studies.ibu_consistency.LIKELY_CASES",
    "panel": "a|b of the count paper's Figure 8",
    "synthetic": "the count paper's synthetic figures",
    "figure": "the count paper's Figure 8 panels",
    "Q": "a number (a Shokri quality-loss bound)",
    "part": "point<i>_runs<a>-<b> of a split estimate job (privest_studies.experiment.Part)",
    "protocol": "estimator_comparison.protocols and large_domains.oracles and heavy_hitters, enums of the schema "
                "(grr, sue, ..., geometric; cms, hcms, flh, hm; pem, treehist, sfp)",
    "job": "privest_studies.multi_freq_ldpy_tutorials.own_jobs: <grid>_<protocol> and multidim_<dataset>_<solution> "
           "from schema enums",
}
"""Wildcard -> where its fixed values come from (its constraint must refuse every hostile name)."""

RULE_WILDCARDS = """
import json, re, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, OutputSettings, Quietness, ResourceSettings

with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
    workflow = api.workflow(resource_settings=ResourceSettings(cores=1), snakefile=Path(sys.argv[1]),
                            config_settings=ConfigSettings(configfiles=[Path(sys.argv[2])]), workdir=Path.cwd())
    found = {}
    for rule in workflow._workflow.rules:  # the parsed rules: no public API lists their paths
        for path in [*rule.output, *rule.log, *([rule.benchmark] if rule.benchmark else [])]:
            for name, constraint in re.findall(r"{(\\w+)(?:,((?:[^{}]|{[^{}]*})*))?}", str(path)):
                found.setdefault(rule.name, {})[name] = constraint or rule.wildcard_constraints.get(name)
print(json.dumps(found))
"""


def own_study_dir(work: Path, study: str = "ages_mixture", experiment: str = "krr_by_eps") -> Path:
    """A working directory with the project's config and a tiny own study (the example's CSV, one run of k-RR at one
    eps) in own.yaml under the given names."""
    (work / "examples" / "own_study").mkdir(parents=True)
    csv = "examples/own_study/ages.csv"
    (work / csv).write_text((ROOT / csv).read_text())
    (work / "config.yaml").write_text((ROOT / "config.yaml").read_text())
    example = yaml.safe_load((ROOT / "examples" / "own_study" / "config.yaml").read_text())["studies"]["ages_mixture"]
    example.update(runs=1, experiments={experiment: {"mechanisms": ["krr"], "eps": [2.0], "estimators": ["inv"]}})
    (work / "own.yaml").write_text(yaml.safe_dump({"studies": {study: example}}, allow_unicode=True))
    return work


def test_every_wildcard_of_a_rules_paths_takes_path_names_or_a_fixed_set(tmp_path):
    """The rules as Snakemake parsed them (every output, log and benchmark path, with its wildcards' constraints):
    a wildcard fed by config keys must take them from mappings the schema checks as path names; any other must be
    constrained to a set that refuses every hostile name. A new wildcard fails until it is classified here."""
    work = own_study_dir(tmp_path)
    result = subprocess.run([sys.executable, "-c", RULE_WILDCARDS, str(ROOT / "Snakefile"), str(work / "own.yaml")],
                            cwd=work, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    rules = json.loads(result.stdout.splitlines()[-1])
    assert {"mechanisms", "own_study_figure", "ibu_synthetic"} <= set(rules)
    checked = configuration.path_name_mappings(SCHEMA)
    for rule, wildcards in rules.items():
        for name, constraint in wildcards.items():
            assert name in CONFIG_WILDCARDS or name in FIXED_WILDCARDS, f"rule {rule}: classify wildcard {name}"
            for mapping in CONFIG_WILDCARDS.get(name, []):
                assert mapping in checked, f"rule {rule}: wildcard {name} takes keys of {mapping}, not checked"
            if name in FIXED_WILDCARDS:
                assert constraint, f"rule {rule}: wildcard {name} has no constraint"
                assert not [bad for bad in HOSTILE if re.fullmatch(constraint, bad)], (rule, name, constraint)


# Hostile names are refused, in one line naming the key, and nothing is written outside the working directory.


def files_under(directory: Path) -> set[Path]:
    return {path.relative_to(directory) for path in directory.rglob("*") if path.is_file()}


def git_status() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=ROOT, capture_output=True,
                          text=True).stdout


def with_key(config: dict, path: tuple[str, ...], name: str) -> str | None:
    """Add the key ``name`` (a copy of a sibling's value) to the first mapping of ``config`` at ``path``; its dotted
    key, or None when the config has no such mapping."""
    for key, mapping in configuration._mappings_at(config, path):
        if mapping:
            mapping[name] = next(iter(mapping.values()))
            return key
    return None


@pytest.mark.parametrize("name", HOSTILE, ids=ascii)
def test_a_hostile_name_is_refused_in_every_mapping_that_takes_path_names(name):
    """Every mapping the schema marks, in the project's config with the example study: the hostile key is refused in
    one line naming the mapping (check_path_names, the first step of configuration.check)."""
    project = yaml.safe_load((ROOT / "config.yaml").read_text())
    project |= yaml.safe_load((ROOT / "examples" / "own_study" / "config.yaml").read_text())
    reached = 0
    for path in configuration.path_name_mappings(SCHEMA):
        config = copy.deepcopy(project)
        key = with_key(config, path, name)
        if key is None:
            continue
        reached += 1
        with pytest.raises(ValueError) as error:
            configuration.check_path_names(config, SCHEMA)
        message = str(error.value)
        assert message.startswith(f"config key {key}: {name!a} cannot name a file") and "\n" not in message
    assert reached >= 10


@pytest.mark.parametrize(
    ("name", "where"),
    [*((name, "experiment") for name in HOSTILE), ("../x", "study"), ("/tmp/privest_escape", "study"),
     ("\u0430bc", "study")],
    ids=ascii,
)
def test_a_hostile_name_fails_the_run_in_one_line_and_nothing_is_written(tmp_path, name, where):
    """A real run (and, for a study name, a dry run too) of an own study named with a hostile name: exit 1, one line
    on stderr naming the key, nothing on stdout, no file outside .snakemake/ of the working directory, and the
    project unchanged. An absolute name points into this test's directory, so that an escape would be seen."""
    work = own_study_dir(tmp_path / "work", **{where: name.replace("/tmp", str(tmp_path))})
    before, project = files_under(tmp_path), git_status()
    for mode in (["-n"], ["--cores", "1"]) if where == "study" else (["--cores", "1"],):
        result = snakemake(*mode, "--directory", str(work), "own_studies", "--configfile", str(work / "own.yaml"),
                           cwd=work)
        assert result.returncode == 1
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        key = "config key studies" if where == "study" else "config key studies.ages_mixture.experiments"
        assert len(lines) == 1 and lines[0].startswith(f"{key}: ") and "cannot name a file" in lines[0], lines
    written = files_under(tmp_path) - before
    assert not [p for p in written if p.parts[:2] != ("work", ".snakemake")], written
    assert git_status() == project


def test_a_valid_name_writes_only_results_logs_data_and_snakemakes_directory(tmp_path):
    """The dry run and a real run of the tiny own study: every new file is under results/, logs/, data/ or
    .snakemake/ of the working directory, and the project is unchanged."""
    work = own_study_dir(tmp_path / "work", study="Okay_1", experiment="krr2")
    before, project = files_under(tmp_path), git_status()
    dry = snakemake("-n", "--directory", str(work), "own_studies", "--configfile", str(work / "own.yaml"), cwd=work)
    assert dry.returncode == 0, dry.stdout[-4000:] + dry.stderr[-4000:]
    real = snakemake("--cores", "2", "--directory", str(work), "own_studies", "--configfile", str(work / "own.yaml"),
                     cwd=work)
    assert real.returncode == 0, real.stderr[-4000:]
    written = files_under(tmp_path) - before
    assert Path("work/results/Okay_1/figures/krr2.png") in written
    allowed = {"results", "logs", "data", ".snakemake", "benchmarks"}
    assert not [p for p in written if p.parts[0] != "work" or p.parts[1] not in allowed], written
    assert git_status() == project


# Nothing silently lost: a key given twice in a config file.


def test_a_key_given_twice_is_refused_naming_the_key_and_both_lines(tmp_path):
    path = tmp_path / "own.yaml"
    path.write_text("studies:\n  dupe:\n    runs: 1\n  other:\n    runs: 2\n  dupe:\n    runs: 3\n")
    with pytest.raises(ValueError, match=r"own.yaml lines 2 and 6: config key studies.dupe is given twice"):
        configuration.check_files([str(path)])
    path.write_text("a:\n  - b: 1\n    b: 2\n")
    with pytest.raises(ValueError, match=r"lines 2 and 3: config key a\[0\].b is given twice"):
        configuration.check_files([str(path)])


def test_yaml_merge_keys_may_be_overridden_and_a_clean_file_passes(tmp_path):
    path = tmp_path / "own.yaml"
    path.write_text("base: &base {runs: 1, seed: 2}\nstudy:\n  <<: *base\n  runs: 5\n")
    configuration.check_files([str(path)])
    configuration.check_files([str(ROOT / "config.yaml"), str(ROOT / "examples" / "own_study" / "config.yaml")])


def _alias_bomb(levels: int) -> str:
    """A few hundred bytes of YAML whose nested aliases name 10^levels values."""
    lines, previous = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"], "a0"
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*{previous}"] * 10) + "]")
        previous = f"a{level}"
    return "\n".join(lines) + f"\nseed: *{previous}\n"


def test_nested_aliases_are_walked_once_and_a_config_of_a_billion_values_is_refused(tmp_path):
    """The repeated-key loader walked every alias again: 700 bytes of nested sequence aliases took about 45 minutes.
    Each node is now walked once (this check would not end in a test's time otherwise), and the config check counts
    the expanded values in time linear in the distinct lists before any other walk of the config."""
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb(9))
    configuration.check_files([str(path)])
    config = yaml.safe_load(path.read_text())
    with pytest.raises(ValueError, match=r"^config: over 10,000,000 values once its YAML aliases \(\*name\) are "
                                         r"expanded, more than the 1,000,000 a config may hold"):
        configuration.check(config, str(SCHEMA_PATH))
    small = yaml.safe_load(_alias_bomb(3))
    configuration.check_size(small)  # 2,468 values: a config may share lists by alias
    with pytest.raises(ValueError, match=r"^config: 2,345,678 values once"):
        configuration.check_size(yaml.safe_load(_alias_bomb(6)))


@pytest.mark.parametrize("which", ["configfile", "config.yaml"])
def test_a_key_given_twice_in_any_config_file_fails_the_run_in_one_line(tmp_path, which):
    work = own_study_dir(tmp_path)
    target = work / ("own.yaml" if which == "configfile" else "config.yaml")
    text = target.read_text()
    line = text.splitlines().index("seed: 2026") + 1 if which == "config.yaml" else 1
    if which == "config.yaml":
        target.write_text(text + "seed: 7\n")
        expected = f"config.yaml lines {line} and {len(text.splitlines()) + 1}: config key seed is given twice"
    else:
        target.write_text(text + "studies: {}\n")
        expected = f"own.yaml lines 1 and {len(text.splitlines()) + 1}: config key studies is given twice"
    result = snakemake("-n", "--directory", str(work), "own_studies", "--configfile", str(work / "own.yaml"), cwd=work)
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and expected in result.stderr, result.stderr


# One line on the terminal.


def test_a_multi_line_message_is_still_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info, configuration.one_line_errors():
        raise ValueError("first\nsecond")
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == "first second\n"


def test_any_other_error_goes_on_with_the_held_log_released():
    """An error that is not the config's (a file of the workflow's own that cannot be read) reaches Snakemake, which
    reports it: the log held until then is released rather than dropped with it."""
    logger = logging.getLogger("privest-held-log-test")
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    held = configuration.HeldLog(logger)
    logger.warning("before the checks")
    with pytest.raises(FileNotFoundError), configuration.one_line_errors(held):
        assert records == []
        raise FileNotFoundError("workflow/schemas/config.schema.yaml")
    logger.warning("Snakemake's report of the error")
    assert [record.getMessage() for record in records] == ["before the checks", "Snakemake's report of the error"]


def test_a_replaced_csv_reruns_the_data_job_even_with_an_older_mtime(tmp_path):
    """Snakemake's mtime rule said "Nothing to be done" when the CSV was replaced by other records with an older
    mtime, and the results described the old data. The rule's params carry the file's stamp (size, mtime, inode,
    ctime): any replacement reruns the data job, and the provenance records the content's SHA-256."""
    work = own_study_dir(tmp_path)
    target, csv = "results/ages_mixture/data.npz", work / "examples" / "own_study" / "ages.csv"
    args = (target, "--directory", str(work), "--configfile", str(work / "own.yaml"))
    assert snakemake("--cores", "1", *args, cwd=work).returncode == 0
    assert "Nothing to be done" in snakemake("-n", *args, cwd=work).stdout  # the check can say no
    first = json.loads((work / "results/ages_mixture/data_provenance.json").read_text())["sha256"]
    replacement = tmp_path / "other.csv"
    replacement.write_text("age,sex\n" + "33,F\n" * 50)
    os.utime(replacement, (946684800, 946684800))  # 2000-01-01: older than every result
    os.replace(replacement, csv)
    dry = snakemake("-n", *args, cwd=work)
    assert "own_study_data" in dry.stdout and "Nothing to be done" not in dry.stdout, dry.stdout[-2000:]
    assert snakemake("--cores", "1", *args, cwd=work).returncode == 0
    second = json.loads((work / "results/ages_mixture/data_provenance.json").read_text())["sha256"]
    assert second != first and len(second) == 64


def test_a_folder_the_run_cannot_write_is_named_before_any_job(tmp_path, monkeypatch):
    """A read-only results folder crashed Snakemake's scheduler with a 30-line traceback. (Root may write anywhere,
    so the test denies the access check itself.)"""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    configuration.check_writable()
    monkeypatch.setattr(configuration.os, "access", lambda path, mode: path != "results")
    with pytest.raises(ValueError, match=r"^results/: cannot be written \(permissions or a read-only file system\)"):
        configuration.check_writable()
