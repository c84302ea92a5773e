"""The catalogue of the papers' items (workflow/report/papers.yaml) and where the reproduction report puts things:
which of our files each item shows, the captions and table pages of the HTML report, and the data the checks read."""

import fnmatch
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from privest_studies import files, reproduction

REPORT_DIR = "results/report"


def load_catalogue(path: str, config: Mapping[str, Any]) -> dict:
    """The catalogue with its placeholders filled from the config and the papers' printed numbers (each paper's
    ``published``); one line naming the item when one is wrong."""
    catalogue = files.load_yaml(path)
    for study, paper in catalogue.items():
        for entry in paper["items"]:
            try:
                entry.update(reproduction.fill(entry, config, paper.get("published")))
            except KeyError as error:
                raise ValueError(f"workflow/report/papers.yaml: {study} {entry['item']}: no key "
                                 f"{error.args[0]}") from None
    return catalogue


def _split(path: str) -> tuple[str, str]:
    study, _, rest = path.removeprefix("results/").partition("/")
    return study, rest


def entry_of(catalogue: Mapping, path: str) -> tuple[str, dict] | None:
    """The study and catalogue entry whose files include a results path (results/<study>/...), if any."""
    study, rest = _split(path)
    for entry in catalogue.get(study, {}).get("items", []):
        if any(fnmatch.fnmatch(rest, pattern) for pattern in entry.get("files", [])):
            return study, entry
    return None


def caption_file(path: str) -> str:
    """The generated caption of a reported file: results/report/captions/<study>/<name>.rst."""
    study, rest = _split(path)
    return f"{REPORT_DIR}/captions/{study}/{PurePath(rest).stem}.rst"


def table_page(path: str) -> str:
    """The HTML page of a paper's table (a CSV of ours) shown in the report:
    results/report/tables/<study>/<name>.html."""
    study, rest = _split(path)
    return f"{REPORT_DIR}/tables/{study}/{PurePath(rest).stem}.html"


def subcategory(entry: Mapping) -> str:
    """The report's subcategory of an item: 'Figure 9 (section 7.3)', or the item alone where no paper numbers it
    (a study beyond the papers)."""
    return f"{entry['item']} (section {entry['section']})" if entry.get("section") else str(entry["item"])


def catalogue_files(catalogue: Mapping, targets: Sequence[str]) -> dict[str, list[str]]:
    """Each catalogue item's files among the study targets, pattern by pattern ('study/item' -> paths); one line naming
    the item when one of its patterns matches no target."""
    files: dict[str, list[str]] = {}
    for study, paper in catalogue.items():
        for entry in paper["items"]:
            for pattern in entry.get("files", []):
                found = [p for p in targets if fnmatch.fnmatch(p, f"results/{study}/{pattern}")]
                if not found:
                    raise ValueError(f"workflow/report/papers.yaml: {study} {entry['item']}: no output matches "
                                     f"{pattern!r}")
                files.setdefault(f"{study}/{entry['item']}", []).extend(found)
    return files


def reported_files(files: Mapping[str, Sequence[str]]) -> list[str]:
    """The files the catalogue lists (the PNGs and the tables of the report), each once."""
    return list(dict.fromkeys(path for paths in files.values() for path in paths))


def reproduction_data(config: Mapping[str, Any]) -> list[str]:
    """The provenance and alphabet files the report reads (counts, the regions used), each once, and the tables its
    checks read that are not targets of their study."""
    regions = ["planar", "sf_square", config["free_will"]["alphabets"]["planar"]["region"],
               config["ibu_consistency"]["theory"]["section8"]["planar"]["region"]]
    names = ["ages_provenance", "checkins_planar_provenance"] + [f"checkins_{r}_alphabet" for r in regions]
    tables = [f"results/constrained_counts/tables/{name}.csv"
              for name in ("fig08a_objectives", "fig08b_objectives", "fig10_adult")]
    return [f"results/data/{name}.json" for name in dict.fromkeys(names)] + tables
