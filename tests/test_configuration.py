"""The config check (privest_studies.configuration): nested --config overrides arrive as strings, and those that read
as the number or boolean the schema wants are accepted as that value; the rest fail naming the key."""

from pathlib import Path

import pytest
import yaml

from privest_studies import configuration

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def project_config() -> dict:
    return yaml.safe_load((ROOT / "config.yaml").read_text())


def test_strings_that_read_as_the_schemas_numbers_become_numbers():
    config = project_config()
    config["ibu_consistency"]["ibu"].update(max_iter="5000", delta="1e-9")
    config["scales"]["quick"]["ibu_consistency"]["eps_linear"] = ["0.5", "2"]
    config["seed"] = "7"
    configuration.check(config, SCHEMA)
    assert config["ibu_consistency"]["ibu"] == {**config["ibu_consistency"]["ibu"], "max_iter": 5000, "delta": 1e-9}
    assert type(config["ibu_consistency"]["ibu"]["max_iter"]) is int
    assert config["scales"]["quick"]["ibu_consistency"]["eps_linear"] == [0.5, 2]
    assert config["seed"] == 7


@pytest.mark.parametrize(
    ("path", "value"),
    [(("ibu_consistency", "ibu", "max_iter"), "5000.5"), (("ibu_consistency", "ibu", "max_iter"), "many"),
     (("ibu_consistency", "ibu", "max_iter"), "0"), (("ibu_consistency", "ibu", "delta"), "tiny")],
)
def test_strings_that_do_not_read_as_the_wanted_value_fail_naming_the_key(path, value):
    config = project_config()
    parent = config
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    with pytest.raises(ValueError, match=f"config key {'.'.join(path)}: "):
        configuration.check(config, SCHEMA)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), "inf", "-inf", "nan", "1e400", 1e400])
def test_an_infinite_or_nan_number_fails_naming_the_key(value):
    """Issue 46: eps .inf, .nan, "inf" and 1e400 passed the schema and failed in the mechanisms job."""
    config = project_config()
    config["scales"]["quick"]["ibu_consistency"]["eps_linear"] = [0.5, value]
    with pytest.raises(ValueError, match=r"config key scales\.quick\.ibu_consistency\.eps_linear\.1: .* is not a "
                                         r"finite number"):
        configuration.check(config, SCHEMA)


def test_a_string_where_the_schema_wants_a_string_stays_a_string():
    config = project_config()
    config["scale"] = "paper"
    configuration.check(config, SCHEMA)
    assert config["scale"] == "paper"


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_a_studys_config_is_its_own_key_and_its_scale_is_the_chosen_scales_key(scale):
    config = project_config() | {"scale": scale}
    for study in ("ibu_consistency", "free_will", "standard_protocols", "constrained_counts"):
        assert configuration.study_config(config, study) is config[study]
        assert configuration.scale_config(config, study) is config["scales"][scale][study]
