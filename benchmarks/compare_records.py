"""Compare an old record of a whole run with a new one: the items whose status changed and the judged numbers whose
'ours' changed, each change classed mechanically (the tool classes, it does not explain).

    python benchmarks/compare_records.py OLD NEW_DIR [--record docs/paper-scale] [--repo .] [--out FILE.md]

OLD is a commit whose RECORD directory holds the old reproduction.csv and reproduction_numbers.csv (read with
`git -C REPO show`), or a directory holding them. NEW_DIR holds the new two files (a record, or a run's results/).

A judged number of the old record is paired with one of the new record of the same study and item:
- same quantity: the quantity texts equal (whitespace normalised);
- reworded: the quantity text changed: the only unpaired number of its item on each side, or the only one on each
  side whose text before the first ': ' is the same;
- split: one old number whose text before the first ': ' is that of several new ones (compared with their texts
  joined by '; ');
- dropped, new: no counterpart.
The 'ours' texts of a pair are compared through the numbers they print (a number is the same when the two printed
values agree to the coarser of their printed precisions):
- same text: equal after whitespace normalisation;
- same values, reworded: the same numbers (in any order), other words;
- same values, now with intervals: every old number is among the new ones, and the new text prints intervals
  ('[low, high]') the old did not;
- same values, more numbers: every old number is among the new ones, without new intervals;
- values changed: an old number is not among the new ones.
It reports, never judges: the exit status is 0 unless the arguments are wrong.
"""

import argparse
import io
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from privest_studies.rendering import with_verdicts

ITEMS, NUMBERS = "reproduction.csv", "reproduction_numbers.csv"
SAME_QUANTITY, REWORDED, SPLIT, DROPPED, NEW = "same quantity", "reworded", "split", "dropped", "new"
MATCHES = (SAME_QUANTITY, REWORDED, SPLIT, DROPPED, NEW)
SAME_TEXT, SAME_REWORDED, WITH_INTERVALS, MORE_NUMBERS, CHANGED = (
    "same text", "same values, reworded", "same values, now with intervals", "same values, more numbers",
    "values changed")
VALUE_CLASSES = (SAME_TEXT, SAME_REWORDED, WITH_INTERVALS, MORE_NUMBERS, CHANGED)
# A printed number: digits (thousands may be grouped by commas: 48,842), a fraction, an exponent (2.8e-16); a minus
# sign counts only where it cannot be a hyphen (not after a letter, digit or point).
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_INTERVAL = re.compile(r"\[\s*-?[\d.eE+-]+\s*,\s*-?[\d.eE+-]+\s*\]")


@dataclass(frozen=True)
class Printed:
    """A number as printed: its value and half a unit of its last printed digit."""

    value: float
    half_unit: float

    def same(self, other: "Printed") -> bool:
        """The same number at the coarser of the two printed precisions."""
        return abs(self.value - other.value) <= max(self.half_unit, other.half_unit) * (1 + 1e-9)


def normalised(text: object) -> str:
    """The text with runs of whitespace as one space, stripped; a missing cell is ''."""
    return "" if pd.isna(text) else " ".join(str(text).split())


def numbers_in(text: object) -> list[Printed]:
    """Every number printed in ``text``, in order."""
    found = []
    for match in _NUMBER.finditer(normalised(text)):
        token = match.group().replace(",", "")
        mantissa, _, exponent = token.lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        found.append(Printed(float(token), 0.5 * 10.0 ** (int(exponent or 0) - decimals)))
    return found


def _among(old: list[Printed], new: list[Printed]) -> bool:
    """Every old number matched by a distinct new one."""
    left = list(new)
    for number in old:
        hit = next((i for i, candidate in enumerate(left) if number.same(candidate)), None)
        if hit is None:
            return False
        del left[hit]
    return True


def value_class(old: object, new: object) -> str:
    """How the 'ours' text ``new`` differs from ``old`` (one of VALUE_CLASSES)."""
    if normalised(old) == normalised(new):
        return SAME_TEXT
    before, after = numbers_in(old), numbers_in(new)
    if _among(before, after) and len(before) == len(after):
        return SAME_REWORDED
    if _among(before, after):
        more_intervals = len(_INTERVAL.findall(normalised(new))) > len(_INTERVAL.findall(normalised(old)))
        return WITH_INTERVALS if more_intervals else MORE_NUMBERS
    return CHANGED


def _key(quantity: str) -> str:
    return quantity.split(": ", 1)[0]


def pair_numbers(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """One row per old number and per new number left unpaired: study, item, the old and new quantity, paper, ours,
    verdict and tolerance (a split's new texts joined by '; '), how many new numbers the row holds, ``match`` (one
    of MATCHES) and ``change`` (one of VALUE_CLASSES; '' for dropped and new)."""
    old, new = with_verdicts(old), with_verdicts(new)
    rows = []
    old_groups, new_groups = _groups(old), _groups(new)
    for key in dict.fromkeys([*new_groups, *old_groups]):  # the new record's order, then items it dropped
        before = old_groups.get(key, pd.DataFrame(columns=old.columns))
        after = new_groups.get(key, pd.DataFrame(columns=new.columns))
        rows += _pair_item(key, before, after)
    return pd.DataFrame(rows)


def _groups(numbers: pd.DataFrame) -> dict:
    return {key: rows for key, rows in numbers.groupby(["study", "item"], sort=False)}


def _row(study, item, match, before=None, after=()) -> dict:
    """One output row from an old number (or None) and the new numbers (none, one, or a split's several)."""
    after = list(after)
    joined = "; ".join(normalised(a["ours"]) for a in after)
    row = {"study": study, "item": item, "match": match, "new_count": len(after),
           "old_quantity": normalised(before["quantity"]) if before is not None else "",
           "new_quantity": "; ".join(normalised(a["quantity"]) for a in after),
           "paper": normalised(after[0]["paper"]) if after else normalised(before["paper"]),
           "old_ours": normalised(before["ours"]) if before is not None else "", "new_ours": joined,
           "old_verdict": before["verdict"] if before is not None else "",
           "new_verdict": "; ".join(str(a["verdict"]) for a in after),
           "old_tolerance": normalised(before["tolerance"]) if before is not None else "",
           "new_tolerance": "; ".join(normalised(a["tolerance"]) for a in after)}
    row["change"] = value_class(before["ours"], joined) if before is not None and after else ""
    return row


def _pair_item(key: tuple, before: pd.DataFrame, after: pd.DataFrame) -> list[dict]:
    """The numbers of one item paired as the module says: same quantity, then by the text before ': ', then the sole
    leftovers; what remains is dropped or new."""
    study, item = key
    old_left = {i: r for i, r in before.iterrows()}
    new_left = {i: r for i, r in after.iterrows()}
    rows = []
    by_text = {}
    for i, r in new_left.items():
        by_text.setdefault(normalised(r["quantity"]), []).append(i)
    for i, r in list(old_left.items()):
        candidates = by_text.get(normalised(r["quantity"]), [])
        if candidates:
            j = candidates.pop(0)
            rows.append(_row(study, item, SAME_QUANTITY, r, [new_left.pop(j)]))
            del old_left[i]
    old_keys = Counter(_key(normalised(r["quantity"])) for r in old_left.values())
    for i, r in list(old_left.items()):
        prefix = _key(normalised(r["quantity"]))
        mates = [j for j, n in new_left.items() if _key(normalised(n["quantity"])) == prefix]
        if old_keys[prefix] == 1 and mates:
            rows.append(_row(study, item, REWORDED if len(mates) == 1 else SPLIT, r, [new_left.pop(j) for j in mates]))
            del old_left[i]
    if len(old_left) == 1 and len(new_left) == 1:
        rows.append(_row(study, item, REWORDED, *old_left.values(), new_left.values()))
        old_left, new_left = {}, {}
    rows += [_row(study, item, DROPPED, r) for r in old_left.values()]
    rows += [_row(study, item, NEW, None, [n]) for n in new_left.values()]
    return rows


def status_changes(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Every item of either record: study, item, old and new status ('' where the record has no such item) and
    why, and whether the status or the why changed."""
    items = old.merge(new, on=["study", "item"], how="outer", suffixes=("_old", "_new"), sort=False)
    for column in ("status_old", "status_new", "why_old", "why_new"):
        items[column] = items[column].map(normalised)
    items["status_changed"] = items["status_old"] != items["status_new"]
    items["why_changed"] = items["why_old"] != items["why_new"]
    return items[["study", "item", "status_old", "status_new", "why_old", "why_new", "status_changed",
                  "why_changed"]]


def _cell(text: object) -> str:
    return normalised(text).replace("|", "\\|")


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows])


def markdown(old_items: pd.DataFrame, new_items: pd.DataFrame, old_numbers: pd.DataFrame,
             new_numbers: pd.DataFrame, old_name: str, new_name: str) -> str:
    """The comparison as markdown: counts, the items whose status changed, the items whose why alone changed, the
    numbers whose 'ours' changed (with their classes), and the numbers whose verdict alone changed."""
    items = status_changes(old_items, new_items)
    pairs = pair_numbers(old_numbers, new_numbers)
    statuses = sorted(set(items["status_old"]) | set(items["status_new"]) - {""})
    lines = [f"# {old_name} against {new_name}", "",
             f"Items: {int((items['status_old'] != '').sum())} before, {int((items['status_new'] != '').sum())} now; "
             f"judged numbers: {len(old_numbers)} before, {len(new_numbers)} now.", ""]
    lines += _table(["status", "before", "now"],
                    [[s, int((items["status_old"] == s).sum()), int((items["status_new"] == s).sum())]
                     for s in statuses if s])
    counted = pairs.assign(change=pairs["change"].replace("", "—"),
                           old=(pairs["match"] != NEW).astype(int), new=pairs["new_count"])
    tally = counted.groupby(["match", "change"], sort=False)[["old", "new"]].sum()
    lines += ["", "## Numbers by class", ""]
    lines += _table(["match", "'ours'", "old numbers", "new numbers"],
                    [[m, c, int(tally.loc[(m, c), "old"]), int(tally.loc[(m, c), "new"])]
                     for m in MATCHES for c in (*VALUE_CLASSES, "—") if (m, c) in tally.index])
    moved = items[items["status_changed"]]
    lines += ["", f"## Items whose status changed ({len(moved)})", ""]
    lines += _table(["study", "item", "before", "now", "why (now)"],
                    [[r.study, r.item, r.status_old, f"**{r.status_new}**", r.why_new] for r in moved.itertuples()])
    reworded = items[~items["status_changed"] & items["why_changed"]]
    lines += ["", f"## Items whose status held and whose 'why' changed ({len(reworded)})", ""]
    lines += _table(["study", "item", "status", "why (before)", "why (now)"],
                    [[r.study, r.item, r.status_new, r.why_old, r.why_new] for r in reworded.itertuples()])
    changed = pairs[(pairs["change"] != SAME_TEXT) | (pairs["match"] != SAME_QUANTITY)]
    lines += ["", f"## Numbers whose quantity or 'ours' changed, dropped or new ({len(changed)} rows)", ""]
    lines += _table(["study", "item", "quantity (before)", "quantity (now, if other)", "match", "'ours'", "before",
                     "now", "verdict"],
                    [[r.study, r.item, r.old_quantity, "" if r.new_quantity == r.old_quantity else r.new_quantity,
                      r.match, r.change, r.old_ours, r.new_ours, _verdicts(r.old_verdict, r.new_verdict)]
                     for r in changed.itertuples()])
    turned = pairs[(pairs["match"] == SAME_QUANTITY) & (pairs["change"] == SAME_TEXT)
                   & (pairs["old_verdict"] != pairs["new_verdict"])]
    lines += ["", f"## Numbers with the same quantity and 'ours' and another verdict ({len(turned)})", ""]
    lines += _table(["study", "item", "quantity", "ours", "verdict"],
                    [[r.study, r.item, r.new_quantity, r.new_ours, _verdicts(r.old_verdict, r.new_verdict)]
                     for r in turned.itertuples()])
    retold = pairs[(pairs["match"] == SAME_QUANTITY) & (pairs["old_tolerance"] != pairs["new_tolerance"])]
    lines += ["", f"Numbers of the same quantity whose tolerance text changed: {len(retold)}."]
    return "\n".join(lines) + "\n"


def _verdicts(before: str, after: str) -> str:
    before, after = before or "—", after or "—"
    return before if before == after else f"{before} → {after}"


def read_old(old: str, record: str, repo: Path, name: str) -> pd.DataFrame:
    """One file of the old record: from the directory ``old``, or from ``record`` at commit ``old`` of ``repo``."""
    if Path(old).is_dir():
        return pd.read_csv(Path(old) / name)
    shown = subprocess.run(["git", "-C", str(repo), "show", f"{old}:{record.rstrip('/')}/{name}"],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        sys.exit(f"compare_records: OLD {old!r} is neither a directory nor a commit holding {record}/{name}")
    return pd.read_csv(io.StringIO(shown.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", help="a commit of REPO, or a directory holding the old record's two CSV files")
    parser.add_argument("new", type=Path, help="a directory holding the new record's two CSV files")
    parser.add_argument("--record", default="docs/paper-scale", help="the record's directory in the old commit")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the git checkout holding OLD")
    parser.add_argument("--out", type=Path, help="also write the markdown here")
    args = parser.parse_args()
    for name in (ITEMS, NUMBERS):
        if not (args.new / name).is_file():
            sys.exit(f"compare_records: NEW {args.new} holds no {name}")
    text = markdown(read_old(args.old, args.record, args.repo, ITEMS), pd.read_csv(args.new / ITEMS),
                    read_old(args.old, args.record, args.repo, NUMBERS), pd.read_csv(args.new / NUMBERS),
                    f"The record at {args.old}", f"the record in {args.new}")
    if args.out:
        args.out.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
