"""The Markdown grid of results that the report and the terminal summary both draw.

A label column, then one right-aligned column per dataset (or method); cells arrive as the
caller shows them, their text from `layout.format_stats` (the report escapes and marks them,
the terminal prints names as they are), so both tables read each value the same way.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence


def markdown_table(corner: str, columns: Sequence[str], rows: Iterable[tuple[str, Sequence[str]]]) -> list[str]:
    """The table's lines: header, alignment, then one line per (row label, cells)."""
    lines = [_line(corner, columns), "|---|" + "---:|" * len(columns)]
    return lines + [_line(label, cells) for label, cells in rows]


def _line(label: str, cells: Sequence[str]) -> str:
    return f"| {label} | " + " | ".join(cells) + " |"
