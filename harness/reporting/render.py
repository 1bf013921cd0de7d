"""`harness report`: write the chosen formats of one report into a folder.

Files: `report.md`, `report.tex`, `table.csv` (every cell), `runs.csv` (every run, the
`harness compare` baseline), `aggregates.csv` (when the suite declares aggregates), `curves.csv` (every run's
learning curves, when any), `claims_registered.json` (the claims' registration, when the store had one: a
report rendered from `runs.csv` reads it, `harness.claim_registry`), `leaderboard.html`
(plots embedded), `<plot>.png`, `<plot>.pdf`.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from harness.claim_registry import write_registration_file
from harness.record_json import RecordJson
from harness.curves import CURVES_FILE, curves_export
from harness.errors import HarnessError
from harness.file_names import file_safe
from harness.reporting.model import ReportData
from harness.spreadsheet_cells import quoted_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("md", "tex", "csv", "html", "png", "pdf")


def parse_formats(text: str) -> tuple[str, ...]:
    formats = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise HarnessError(f"unknown report format(s): {', '.join(unknown) or '(none given)'}",
                           field="--format", hint=f"Choose from {','.join(FORMATS)}.")
    return formats


def write_report(data: ReportData, out: Path, formats: tuple[str, ...]) -> list[Path]:
    """Render `data` in each format into `out`; returns the files written."""
    from harness.reporting.csv_table import render_aggregates_csv, render_csv
    from harness.reporting.latex import render_latex
    from harness.reporting.markdown import render_markdown

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def write(name: str, text: str) -> None:
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)

    if "md" in formats:
        write("report.md", render_markdown(data))
    if "tex" in formats:
        write("report.tex", render_latex(data))
    if "csv" in formats:
        write("table.csv", render_csv(data))
        write("runs.csv", _runs_csv(data.records))
        if data.aggregates is not None:
            write("aggregates.csv", render_aggregates_csv(data.aggregates))
        if data.curves:
            write(CURVES_FILE, quoted_text(curves_export(data.curves)).to_csv(index=False))
        registered = next((c.registration.registration for c in data.claims if c.registration.registration), None)
        if (kept := write_registration_file(out, registered)) is not None:  # beside runs.csv, which it speaks for
            written.append(kept)
    saved = {f for f in formats if f in ("png", "pdf")}
    pngs = _plots(data, out, written, saved) if saved or "html" in formats else {}  # md, tex, csv draw nothing
    if "html" in formats:
        from harness.reporting.html import render_html

        write("leaderboard.html", render_html(data, pngs))
    return written


def plot_pngs(data: ReportData) -> dict[str, bytes]:
    """PNG bytes of every plot, saving no file: what a leaderboard page embeds."""
    return _plots(data, Path(), [], set())


def _plots(data: ReportData, out: Path, written: list[Path], save: set[str]) -> dict[str, bytes]:
    """PNG bytes of every plot (for the HTML page); saved as PNG and/or PDF files when asked."""
    import matplotlib.pyplot as plt

    from harness.reporting.plots import figures

    # Labels are names from suites and plugins, drawn as written: a method named `$\frac{a$` was parsed as
    # mathtext and stopped the report. Matplotlib's switch for literal text turns that off (the plots draw no
    # mathtext of their own), and TeX, which a user's matplotlibrc can switch on, would trip over `_` and `%`.
    # The figures are drawn as they are saved, so the switch holds until then, for tick labels too.
    with plt.rc_context({"text.parse_math": False, "text.usetex": False}):
        return _drawn(figures(data), out, written, save)


def _drawn(figures: dict[str, Figure], out: Path, written: list[Path], save: set[str]) -> dict[str, bytes]:
    """Each figure's PNG bytes, saved as files in the formats of `save`; the figures are closed."""
    import matplotlib.pyplot as plt

    pngs = {}
    for name, figure in figures.items():
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
        pngs[name] = buffer.getvalue()
        png, pdf = (out / f"{file_safe(name)}.{suffix}" for suffix in ("png", "pdf"))
        if "png" in save:
            png.write_bytes(pngs[name])
            written.append(png)
        if "pdf" in save:
            figure.savefig(pdf, metadata={"Creator": None, "Producer": None, "CreationDate": None})
            written.append(pdf)
        plt.close(figure)
    return pngs


def _runs_csv(records: tuple[RecordJson, ...]) -> str:
    from harness.results import export_frame

    return quoted_text(export_frame(records).sort_values(["method", "dataset", "seed"])).to_csv(index=False)
