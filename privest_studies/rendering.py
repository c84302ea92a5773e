"""The reproduction report as text: results/REPRODUCTION.md (its summary, rows and numbers side by side) and the
same as an HTML page, the one-screen summary, the captions and table pages of the HTML report, and the changes
between two scales' records. Takes judged items (``reproduction.Item``); decides nothing.
"""

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from privest_studies.reproduction import (
    BUILT,
    BY_CONSTRUCTION,
    DIFFERS,
    REPRODUCED,
    STATUSES,
    UNAVAILABLE,
    UNDECIDED,
    VERDICTS,
    Item,
    identity_of,
)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(items: Sequence[Item], papers: Mapping[str, str], header: str,
             counted: Sequence[Item] | None = None) -> str:
    """REPRODUCTION.md: a summary (of ``counted``, default every item), then per paper one row per item and the
    numbers side by side."""
    counted = items if counted is None else counted
    lines = [header, "", summary_table(counted), ""]
    tallies = [f"- {i.tally}" for i in counted if i.tally]
    if tallies:
        lines += ["Judged cell by cell (each cell's interval against the paper's band; references not counted):", "",
                  *tallies, ""]
    for study, paper in papers.items():
        rows = [i for i in items if i.study == study]
        lines += [f"## {paper}", "", "| item | section | our files | status | why / differences |",
                  "|---|---|---|---|---|"]
        for i in rows:
            files = ", ".join(f"[{f.split('/')[-1]}]({f})" for f in i.files) or "—"
            lines.append(f"| {_cell(i.item)} | {_cell(i.section)} | {files} | **{i.status}** | {_cell(i.why)} |")
        if not any(i.comparisons for i in rows):  # a study beyond the papers: nothing to set side by side
            lines.append("")
            continue
        lines += ["", f"### {paper}: numbers side by side", "",
                  "| item | quantity | paper | ours | tolerance | verdict |", "|---|---|---|---|---|---|"]
        for i in rows:
            for c in i.comparisons:
                mark = c.verdict if c.verdict in ("agrees", "not judged") else f"**{c.verdict}**"
                lines.append(f"| {_cell(i.item)} | {_cell(c.quantity)} | {_cell(c.paper)} | {_cell(c.ours)} | "
                             f"{_cell(c.tolerance)} | {mark} |")
        lines.append("")
    return "\n".join(lines)


def counts(items: Sequence[Item]) -> dict[str, int]:
    """How many items have each status, and how many judged numbers have each verdict (agrees, differs, undecided,
    by construction)."""
    verdicts = [c.verdict for i in items for c in i.comparisons if c.verdict != "not judged"]
    return {s: sum(i.status == s for i in items) for s in STATUSES} | {"items": len(items),
                                                                        "numbers judged": len(verdicts)} | {
        f"numbers: {v}": verdicts.count(v) for v in VERDICTS if v != "not judged"}


def summary_table(items: Sequence[Item]) -> str:
    n = counts(items)
    return "\n".join(["| | count |", "|---|---|"] + [f"| {key} | {value} |" for key, value in n.items()])


def _rules_text(beyond: Sequence[Item]) -> str:
    """'; of their 2 decision rules 2 hold, 0 fail, 0 undecided' for the items beyond the papers that judge a rule
    (``reproduction.checks_beyond``); '' when none does."""
    judged = [i for i in beyond if i.comparisons]
    if not judged:
        return ""
    held, failed = sum(i.status == REPRODUCED for i in judged), sum(i.status == DIFFERS for i in judged)
    return (f"; of their {len(judged)} decision rules {held} hold, {failed} fail, "
            f"{sum(i.status == UNDECIDED for i in judged)} undecided at this scale")


def summary_text(items: Sequence[Item], figures: int, where: Mapping[str, str], beyond: Sequence[Item] = ()) -> str:
    """The one-screen summary `make reproduce` prints: files, counts of the papers' items (``items``; ``beyond``:
    the items of studies beyond the papers, counted apart), and every difference in one line each."""
    n = counts(items)
    lines = [f"privest: {figures} figure files built; {n['items']} paper items: {n[REPRODUCED]} reproduced, "
             f"{n[DIFFERS]} differ, {n[UNDECIDED]} undecided at this scale, {n[BY_CONSTRUCTION]} consistent by "
             f"construction, {n[UNAVAILABLE]} not reproducible here, {n[BUILT]} built with nothing to check; of "
             f"{n['numbers judged']} judged numbers {n['numbers: agrees']} agree, {n['numbers: differs']} differ, "
             f"{n['numbers: undecided']} are undecided and {n['numbers: by construction']} agree by construction."
             + (f" And {len(beyond)} items beyond the papers, built{_rules_text(beyond)}." if beyond else ""), ""]
    lines += [f"  {i.tally}" for i in items if i.tally]
    lines += [""] if any(i.tally for i in items) else []
    lines += [f"  {name}: {path}" for name, path in where.items()]
    lines += ["", "Differences:"]
    for i in items:
        if i.status == DIFFERS:
            lines.append(f"  {i.study} {i.item}: " + ("; ".join(
                f"{c.quantity}: paper {c.paper}, ours {c.ours}" for c in i.comparisons if c.agrees is False))[:230])
    lines += ["", "Undecided at this scale (more runs could turn them either way):"]
    lines += [f"  {i.study} {i.item}: {i.why[:230]}" for i in items if i.status == UNDECIDED]
    lines += ["", "Not reproducible here (data):"]
    lines += [f"  {i.study} {i.item}: {i.why[:200]}" for i in items
              if i.status == UNAVAILABLE and i.files]
    return "\n".join(lines) + "\n"


def scale_changes(before: pd.DataFrame, after: pd.DataFrame, before_numbers: pd.DataFrame,
                  after_numbers: pd.DataFrame, scales: tuple[str, str]) -> str:
    """Markdown: the items whose status, and the judged numbers whose verdict, differ between two records of the
    reproduction (reproduction.csv and reproduction_numbers.csv of the scales ``scales``, e.g. quick and paper)."""
    first, second = scales
    items = before.merge(after, on=["study", "item"], how="outer", suffixes=("_1", "_2"))
    moved = items[items["status_1"] != items["status_2"]]
    lines = [f"## Items whose status differs between the {first} and the {second} scale", ""]
    if moved.empty:
        lines.append(f"None: every item has the same status at both scales ({len(items)} items).")
    else:
        lines += [f"| study | item | status, {first} scale | status, {second} scale | why ({second} scale) |",
                  "|---|---|---|---|---|"]
        lines += [f"| {r.study} | {_cell(r.item)} | {r.status_1} | **{r.status_2}** | {_cell(r.why_2)} |"
                  for r in moved.fillna("").itertuples()]
    keys = ["study", "item", "key", "occurrence"]
    numbers = with_keys(with_verdicts(before_numbers)).merge(with_keys(with_verdicts(after_numbers)), on=keys,
                                                             how="outer", suffixes=("_1", "_2"))
    for column in ("verdict_1", "verdict_2"):  # missing: no such number at that scale
        numbers[column] = numbers[column].fillna("not judged")
    turned = numbers[numbers["verdict_1"] != numbers["verdict_2"]]
    lines += ["", f"## Judged numbers whose verdict differs between the {first} and the {second} scale", ""]
    if turned.empty:
        lines.append(f"None: every judged number has the same verdict at both scales ({len(numbers)} numbers).")
    else:
        lines += [f"| study | item | quantity | the paper's | ours, {first} scale | ours, {second} scale | verdict "
                  f"({first} → {second}) |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {r.study} | {_cell(r.item)} | {_cell(r.quantity_2 or r.quantity_1)} | "
                  f"{_cell(r.paper_2 or r.paper_1)} | {_cell(r.ours_1)} | {_cell(r.ours_2)} | "
                  f"{r.verdict_1} → **{r.verdict_2}** |"
                  for r in turned.fillna("").itertuples()]
    return "\n".join(lines) + "\n"


def with_keys(numbers: pd.DataFrame) -> pd.DataFrame:
    """A record's numbers with the identity of each (`key`: its own, or for a record written before keys, the
    quantity's ``reproduction.identity_of``) and its `occurrence` among the item's numbers of that identity, so that
    two records pair each number with the same one, whatever their run counts or grids."""
    keys = numbers["quantity"].map(identity_of)
    if "key" in numbers:
        keys = numbers["key"].astype(object).where(numbers["key"].notna() & (numbers["key"] != ""), keys)
    numbers = numbers.assign(key=keys)
    return numbers.assign(occurrence=numbers.groupby(["study", "item", "key"]).cumcount())


def with_verdicts(numbers: pd.DataFrame) -> pd.DataFrame:
    """A record's numbers with a `verdict` column: its own, or (a record written before verdicts had more than two
    values) read from `agrees`: True agrees, False differs, missing not judged."""
    from_agrees = numbers["agrees"].astype(object).map(
        lambda v: "not judged" if pd.isna(v) else {"True": "agrees", "False": "differs"}.get(str(v), str(v)))
    if "verdict" not in numbers:
        return numbers.assign(verdict=from_agrees)
    return numbers.assign(verdict=numbers["verdict"].astype(object).where(numbers["verdict"].notna(), from_agrees))


_RST_SPECIAL = re.compile(r"([\\|*`_])")


def rst_escape(text: str) -> str:
    return _RST_SPECIAL.sub(r"\\\1", str(text))


def caption(item: Item, shows: str, path: str) -> str:
    """The report caption of one of an item's files: what it shows, the facts, the status and the numbers (rst)."""
    section = f" (section {rst_escape(item.section)})" if item.section else ""
    lines = [f"**{rst_escape(item.paper)}, {rst_escape(item.item)}**{section}, "
             f"file {rst_escape(path.split('/')[-1])}: {rst_escape(shows)}", ""]
    lines += [f"- {rst_escape(key)}: {rst_escape(value)}" for key, value in item.facts.items()]
    lines += [f"- reproduction: **{item.status}**" + (f": {rst_escape(item.why)}" if item.why else "")]
    lines += [f"- {rst_escape(item.tally)}"] if item.tally else []
    lines += [f"- {rst_escape(c.quantity)}: paper {rst_escape(c.paper)}, ours {rst_escape(c.ours)} (tolerance: "
              f"{rst_escape(c.tolerance)}; {c.verdict})" for c in item.comparisons]
    return "\n".join(lines) + "\n"


def table_page(title: str, table: pd.DataFrame) -> str:
    """A table of ours (a CSV) as an HTML page for the report, numbers with 6 significant digits."""
    def cell(value: Any) -> str:
        return _cell(f"{value:.6g}" if isinstance(value, float) else value)

    rows = ["| " + " | ".join(map(cell, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    rows += ["| " + " | ".join(map(cell, row)) + " |" for row in table.itertuples(index=False)]
    return html_page(title, f"# {title}\n\n" + "\n".join(rows))


def html_page(title: str, body_markdown: str) -> str:
    """A self-contained HTML page of REPRODUCTION.md's tables (pipes and headings only: no markdown library)."""
    out, table = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
                  "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;margin:0.5em 0 1.5em}"
                  "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;font-size:13px}"
                  "</style></head><body>"], []
    paragraph: list[str] = []

    def inline(text: str) -> str:
        text = html.escape(text.replace("\\|", "|"))
        text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
        text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
        return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1", text)

    def flush() -> None:
        if paragraph:
            out.append(f"<p>{inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if table:
            head, *body = table
            out.append("<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr>")
            out.extend("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in body)
            out.append("</table>")
            table.clear()

    for line in body_markdown.splitlines():
        if line.startswith("|"):
            if paragraph:
                flush()
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(set(c) <= {"-"} for c in cells):
                table.append(cells)
            continue
        if line.strip() and not line.startswith("#"):
            if table:
                flush()
            paragraph.append(line.strip())
            continue
        flush()
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level}>{inline(line.lstrip('#').strip())}</h{level}>")
    flush()
    return "\n".join(out) + "</body></html>\n"
