"""CSV cells that a spreadsheet would run as formulas, quoted as OWASP advises, and unquoted when read back.

A method named `=HYPERLINK(...)` in `runs.csv`, `table.csv` or a `harness export` would run as a formula when
the file is opened in a spreadsheet (CSV injection). So a text cell starting with `=`, `+`, `-`, `@`, a tab
or a carriage return is written with a leading `'`, which spreadsheets show as text. The harness reads its
own CSV files back (`harness report --runs`, `compare`, the families' table scripts through `read_harness_csv`):
`unquoted_text` removes that quote, and a cell that
already starts with quotes before such a character is written with one more, so every name reads back as
it was. Numbers are never quoted (-0.5 stays a number), and other cells are written as they are.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

_FORMULA_START = re.compile(r"'*[=+\-@\t\r]")


def quote_cell(value: Any) -> Any:
    """`value`, with one more leading `'` when it is text a spreadsheet could take for a formula."""
    return "'" + value if isinstance(value, str) and _FORMULA_START.match(value) else value


def unquote_cell(value: Any) -> Any:
    """The inverse of `quote_cell`."""
    if isinstance(value, str) and value.startswith("'") and _FORMULA_START.match(value):
        return value[1:]
    return value


def quoted_text(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `quote_cell` applied to its text columns, ready for `to_csv`."""
    return _map_text(frame, quote_cell)


def unquoted_text(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame`, read from a CSV file the harness wrote, with its text cells as they were before `quoted_text`."""
    return _map_text(frame, unquote_cell)


def read_harness_csv(path: str | Path, **options: Any) -> pd.DataFrame:
    """A CSV file the harness wrote (`runs.csv`, `table.csv`, `curves.csv`), its names as they were: what a
    script reading a report's tables calls instead of `pandas.read_csv`."""
    import pandas as pd

    return unquoted_text(pd.read_csv(path, **options))


def _map_text(frame: pd.DataFrame, cell: Any) -> pd.DataFrame:
    text = frame.select_dtypes(include=["object", "string"]).columns
    if text.empty:
        return frame
    # The column keeps its dtype: pandas maps an all-empty string column to pyarrow's null type otherwise.
    return frame.assign(**{column: frame[column].map(cell, na_action="ignore").astype(frame[column].dtype)
                           for column in text})
