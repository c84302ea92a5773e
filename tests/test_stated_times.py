"""Every time and size that README.md and the guide (docs/site/guide/*.md) state comes from a committed record, and is
compared with it here: the quick-scale run (docs/quick-scale/cost.md, written by `make reproduce`'s scale_record),
the paper-scale run (docs/paper-scale/cost.md), the examples as the docs run them (docs/examples-timing.md, written by
benchmarks/time_examples.py), and the benchmarks' records (benchmarks/README.md, docs/performance-peers.md). The
records are read, not copied: a new record that moves a number fails here until the docs say the new number.

A statement is a number with a unit of time or size (`4.7 min`, `about 10 s`, `1-4 GB`, `95-108 µs`). Its paragraph
names the record it comes from, and the record holds the same quantity to the statement's rounding (`4.7 min` is
4.65-4.75 min; `about 90 s`, whose zero is not significant, 85-95 s). The few that are settings or limits rather than
measurements (a default of Snakemake's, a config key's value) are listed in SETTINGS with the reason; the
measurements no committed record holds yet, in UNRECORDED, to be recorded or dropped. A paragraph's number may match
any number of the record it names; the whole runs' times (`make reproduce` at both scales, the own-study example)
must equal their record's own line.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs" / "site" / "guide").glob("*.md"))]
QUICK_COST = ROOT / "docs" / "quick-scale" / "cost.md"
PAPER_COST = ROOT / "docs" / "paper-scale" / "cost.md"
EXAMPLES = ROOT / "docs" / "examples-timing.md"
BENCHMARKS = ROOT / "benchmarks" / "README.md"
RECORDS = [QUICK_COST, PAPER_COST, EXAMPLES, BENCHMARKS, ROOT / "docs" / "performance-peers.md"]

# Seconds, or bytes (decimal prefixes, as the records print them), or CPU seconds.
UNITS = {
    "ns": ("time", 1e-9), "µs": ("time", 1e-6), "us": ("time", 1e-6), "ms": ("time", 1e-3), "s": ("time", 1),
    "sec": ("time", 1), "second": ("time", 1), "seconds": ("time", 1), "min": ("time", 60),
    "minute": ("time", 60), "minutes": ("time", 60), "h": ("time", 3600), "hour": ("time", 3600),
    "hours": ("time", 3600), "CPU-seconds": ("cpu", 1), "CPU seconds": ("cpu", 1), "CPU hour": ("cpu", 3600),
    "CPU hours": ("cpu", 3600), "bytes": ("size", 1), "KB": ("size", 1e3), "kB": ("size", 1e3),
    "MB": ("size", 1e6), "GB": ("size", 1e9), "KiB": ("size", 2**10), "MiB": ("size", 2**20), "GiB": ("size", 2**30),
}
NUMBER = r"\d[\d,]*(?:\.\d+)?"
UNIT = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
QUANTITY = re.compile(rf"(?<![\w.^/-])(about |~)?({NUMBER})(?:\s?(?:-|–| to )\s?({NUMBER}))?\s?({UNIT})(?![\w-])")

# (file, the words around it): a setting, a limit or a threshold, not a measurement.
SETTINGS = {
    ("cluster.md", "(40 s by default)"): "a default of the SLURM executor plugin",
    ("cluster.md", "60 s for outputs to appear"): "a setting of the cluster profile",
    ("cluster.md", "1-4 GB (perturb and estimate"): "what the profile requests: the cost model's bounds",
    ("cluster.md", "up to 7.8 GB for the standard-protocols"): "the cost model's request (privest_studies.cost)",
    ("own-study.md", "at most 1 MB"): "a limit of the data check",
    ("performance.md", "From 48 bytes a row"): "a threshold of the compiled code",
    ("performance.md", "8 KB do not fit in L1"): "the size of 8 rows of k = 1024 doubles",
    ("reproducing.md", "48 bytes a row"): "a threshold of the compiled code",
    ("reproducing.md", "a line every 30 s"): "how often a running job reports",
    ("reproducing.md", "(budget 30 min"): "a config key's default in an example message",
    ("reproducing.md", "estimated at ~1.2 h"): "an example message",
    ("reproducing.md", "about 8 GB for the standard-protocols"): "the cost model's request (privest_studies.cost)",
    ("own-study.md", "20 bins of 5 hours"): "the width of the example's bins of hours per week",
    ("README.md", "loc-gowalla_totalCheckins.txt.gz`, 105 MB"): "the size of the public file its checksum fixes",
    ("own-study.md", "elapsed 12s, remaining ~20s"): "an example of a progress line",
    ("own-study.md", "once 10 seconds and a tenth more"): "how often a long job reports its progress",
}
# (file, the words around it): measurements that no committed record holds yet. Each is to be recorded (a benchmark
# whose record names it) or dropped from the page; the list only shrinks (test_every_listed_setting_is_still_stated).
UNRECORDED: dict[tuple[str, str], str] = {}


def paragraphs(text: str) -> list[str]:
    """Blocks of prose: split at blank lines and list items; a table's rows one by one, each with its header row
    (which may name the record its cells come from); fenced code left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    blocks = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.strip().splitlines()
        if lines and all(line.startswith("|") for line in lines):
            blocks += [f"{lines[0]}\n{row}" for row in lines[2:]] or [block]
        else:
            blocks += [part for part in re.split(r"\n(?=- |\| )", block) if part.strip()]
    return blocks


def quantities(text: str) -> list[tuple[str, str, float, float]]:
    """(the statement, its dimension, its value in base units, half its rounding step in base units), a range's two
    ends each; `± 1 s.d.` is no time."""
    found = []
    for match in QUANTITY.finditer(text):
        about, low, high, unit = match.groups()
        if unit == "s" and text[match.end():match.end() + 3] == ".d.":
            continue
        dimension, scale = UNITS[unit]
        for literal in filter(None, (low, high)):
            digits = literal.replace(",", "")
            if "." in digits:
                step = 10.0 ** -len(digits.split(".")[1])
            else:
                zeros = len(digits) - len(digits.rstrip("0")) if about and digits != "0" else 0
                step = 10.0 ** zeros
            found.append((match.group(0).strip(), dimension, float(digits) * scale, step * scale / 2))
    return found


def named_records(paragraph: str) -> list[Path]:
    """The records a paragraph names: by path, or through a benchmark script whose record is benchmarks/README.md."""
    named = [r for r in RECORDS if str(r.relative_to(ROOT)) in paragraph]
    if re.search(r"benchmarks/bench_\w+\.py|make bench-\w+", paragraph) and BENCHMARKS not in named:
        named.append(BENCHMARKS)
    return named


def table_quantities(text: str) -> list[tuple[str, str, float, float]]:
    """The plain numbers of a record's tables whose column header names the unit (`wall time (s)`, `after CPU s`)."""
    found = []
    for table in re.findall(r"(?:^\|.*\|[ \t]*\n?)+", text, re.M):
        header, _, *rows = table.splitlines()
        units = []
        for cell in header.strip("|").split("|"):
            match = re.search(rf"(?:\(({UNIT})\)|\b({UNIT}))\s*$", cell.strip())
            unit = match and (match.group(1) or match.group(2))
            units.append(unit and (("cpu", 1) if "CPU" in cell and UNITS[unit][0] == "time" else UNITS[unit]))
        for row in rows:
            for unit, cell in zip(units, row.strip("|").split("|"), strict=False):
                if unit and re.fullmatch(NUMBER, cell.strip()):
                    found.append((cell.strip(), unit[0], float(cell.strip().replace(",", "")) * unit[1], 0.0))
    return found


def holds(record: Path, dimension: str, value: float, half_step: float) -> bool:
    text = record.read_text()
    return any(d == dimension and abs(v - value) <= half_step * (1 + 1e-9) + 1e-12
               for _, d, v, _ in quantities(text) + table_quantities(text))


def statements() -> list[tuple[str, str, str]]:
    """(file name, the statement, its paragraph) for every time or size of the docs that is not a setting."""
    found = []
    for doc in DOCS:
        for paragraph in paragraphs(doc.read_text()):
            flat = " ".join(paragraph.split())
            for statement, *_ in quantities(flat):
                if not any(doc.name == name and words in flat and statement in words
                           for name, words in [*SETTINGS, *UNRECORDED]):
                    found.append((doc.name, statement, flat))
    return found


@pytest.mark.parametrize(("name", "words"), sorted([*SETTINGS, *UNRECORDED]))
def test_every_listed_setting_is_still_stated(name, words):
    """A setting (or an unrecorded number) no page states any more leaves its list, so that the lists cannot excuse
    a new measurement."""
    (doc,) = [d for d in DOCS if d.name == name]
    assert words in " ".join(doc.read_text().split()), f"{name} no longer says {words!r}: drop it from SETTINGS"


def test_every_stated_time_and_size_is_in_the_record_its_paragraph_names():
    wrong = []
    for name, statement, paragraph in dict.fromkeys(statements()):
        records = named_records(paragraph)
        if not records:
            wrong.append(f"{name}: {statement!r} names no record: ...{paragraph[:160]}...")
            continue
        for _, dimension, value, half_step in quantities(statement):
            if not any(holds(record, dimension, value, half_step) for record in records):
                wrong.append(f"{name}: {statement!r} is in none of {[str(r.relative_to(ROOT)) for r in records]}")
    assert not wrong, "\n".join(wrong)


def record_value(record: Path, pattern: str) -> tuple[str, float]:
    """The quantity a record states after `pattern` (a regular expression), with its value in base units: a number
    with its unit, or a table's cell under a header that names the unit."""
    text = record.read_text()
    match = re.search(pattern + rf"\s*({NUMBER}\s?(?:{UNIT}))", text)
    if match:
        ((_, _, value, _),) = quantities(match.group(1))
        return match.group(1), value
    cells = [(c, v) for c, _, v, _ in table_quantities(text) if re.search(pattern + rf"\s*{re.escape(c)} \|", text)]
    assert len(cells) == 1, f"{record.relative_to(ROOT)} states no one quantity after {pattern!r}"
    return cells[0]


def stated(doc: Path, pattern: str) -> tuple[str, float, float]:
    """The quantity a page states after `pattern`, its value and half its rounding step."""
    match = re.search(pattern + rf"\s*((?:about )?{NUMBER}\s?(?:{UNIT}))", " ".join(doc.read_text().split()))
    assert match, f"{doc.relative_to(ROOT)} states nothing after {pattern!r}"
    ((_, _, value, half_step),) = quantities(match.group(1))
    return match.group(1), value, half_step


@pytest.mark.parametrize(("doc", "says", "record", "records"), [
    ("README.md", r"`make reproduce` takes", QUICK_COST, r"Wall time of the run:"),
    ("README.md", r"`make reproduce CONFIG=scale=paper` gives the published settings:", PAPER_COST,
     r"Wall time of the run:"),
    ("docs/site/guide/reproducing.md", r"1000/60s`\):", PAPER_COST, r"Wall time of the run:"),
    ("docs/site/guide/own-study.md", r"The ages example took", EXAMPLES,
     r"\| `\.venv/bin/snakemake --cores all own_studies --configfile examples/own_study/config\.yaml` \|"),
])
def test_each_runs_time_is_the_one_its_record_states(doc, says, record, records):
    """The whole runs' times: the quick and the paper `make reproduce`, the own-study example, each the record's
    own line (not just any number of it)."""
    statement, value, half_step = stated(ROOT / doc, says)
    recorded, truth = record_value(record, records)
    assert abs(value - truth) <= half_step * (1 + 1e-9), (
        f"{doc} says {statement!r}; {record.relative_to(ROOT)} says {recorded}")


def test_the_check_fails_on_a_number_its_record_does_not_hold(tmp_path):
    """4.7 min matches 4.7 min and about 5 min, not about 4 minutes; a table's cell under `wall time (s)` is in
    seconds; 88.3 s matches about 90 s, not about 10 s; `± 1 s.d.` is no time."""
    record = tmp_path / "cost.md"
    record.write_text("Wall time of the run: 4.7 min.\n\n| command | wall time (s) |\n|---|---:|\n| `x` | 88.3 |\n")
    assert holds(record, "time", *quantities("4.7 min")[0][2:])
    assert holds(record, "time", *quantities("about 5 min")[0][2:])
    assert not holds(record, "time", *quantities("about 4 minutes")[0][2:])
    assert holds(record, "time", *quantities("about 90 s")[0][2:])
    assert not holds(record, "time", *quantities("about 10 s")[0][2:])
    assert not holds(record, "size", *quantities("4.7 MB")[0][2:])
    assert record_value(record, r"\| `x` \|") == ("88.3", 88.3)
    assert [q[0] for q in quantities("mean ± 1 s.d., 1,781 MB, 42-53 ms")] == ["1,781 MB", "42-53 ms", "42-53 ms"]
