"""Tables for people: the markdown beside a paper table's CSV."""

from collections.abc import Mapping, Sequence


def markdown_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str], float_format: str = "{:.6g}") -> str:
    """A GitHub markdown table of dict rows in ``columns`` order (the .md beside a paper table's CSV): floats in
    ``float_format``, everything else as ``str`` gives it, a '|' in a cell escaped."""
    def cell(value: object) -> str:
        text = float_format.format(value) if isinstance(value, float) else str(value)
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"
