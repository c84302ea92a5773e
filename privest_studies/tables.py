"""Tables for people: the markdown beside a paper table's CSV."""

from collections.abc import Mapping, Sequence


def markdown_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str]) -> str:
    """A GitHub markdown table of dict rows in ``columns`` order (the .md beside a paper table's CSV)."""
    def cell(value: object) -> str:
        text = f"{value:.6g}" if isinstance(value, float) else str(value)
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"
