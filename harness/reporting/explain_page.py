"""A suite's explain page in the leaderboard site: one anchored block per measured cell, each holding what
`harness explain` prints for it and the command that prints it; every leaderboard cell links to its block.

Anchors are positions (`cell-<method>-<dataset>-<metric>`, indices into the report's methods, datasets and
metrics), so a name with markup or spaces never reaches an `id` or a URL fragment.
"""
from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.explain import Explanation, explain, explanation_text
from harness.file_names import file_safe
from harness.reporting.model import ReportData
from harness.reporting.site_model import suite_page

CellKey = tuple[str, str, str]  # (method, dataset, metric), as `ReportData.cells`


@dataclass(frozen=True)
class ExplainBlock:
    anchor: str
    method: str
    dataset: str
    metric: str
    command: str  # the `harness explain` call that prints `text`
    text: str


@dataclass(frozen=True)
class ExplainPage:
    suite: str
    page: str         # relative to the site's root
    leaderboard: str  # the suite's leaderboard page, relative to the site's root
    blocks: tuple[ExplainBlock, ...]

    def hrefs(self) -> dict[CellKey, str]:
        """Each explained cell's link from a page one folder deep (the suite's leaderboard)."""
        return {(b.method, b.dataset, b.metric): f"../{self.page}#{b.anchor}" for b in self.blocks}


def explain_page_path(suite: str) -> str:
    """`explain/<suite>.html`: a folder of its own, so no suite's name can make it another suite's page."""
    return f"explain/{file_safe(suite)}.html"


@dataclass(frozen=True)
class ExplainSource:
    """Where a suite's runs are read from, as the commands of its explain page name it."""

    arguments: str      # `harness explain`'s suite and source options, shell-quoted
    store: Path | None  # the store the runs come from (their predictions files are beside it); None: an export


def explain_source(suite_file: Path, runs_file: Path | None, store: Path | None = None, root: Path | None = None,
                   plugins: Sequence[str] = ()) -> ExplainSource:
    """Runs from the export `runs_file`, else from `store` (with the data root that matches them to the suite),
    and the plugins the suite's names need."""
    words = [str(suite_file)]
    if runs_file is not None:
        words += ["--runs", str(runs_file)]
    else:
        words += ["--store", str(store)] if store is not None else []
        words += ["--data-root", str(root)] if root is not None else []
    for plugin in plugins:
        words += ["--plugin", plugin]
    return ExplainSource(shlex.join(words), None if runs_file is not None else store)


def explain_page(data: ReportData, source: ExplainSource) -> ExplainPage:
    """The blocks of every measured cell of `data` (read from `source`), methods then datasets then metrics in the
    report's order."""
    metrics = list(data.metrics)
    interval = "" if data.interval == "t" else f" --interval {data.interval}"
    blocks = []
    for i, method in enumerate(data.methods):
        for j, dataset in enumerate(data.datasets):
            present = [m for m in metrics if data.cell(method, dataset, m) is not None]
            if not present:
                continue  # never run: the leaderboard shows '—' and links nowhere
            whole = explain(data, method, dataset, present, source.store)
            for arithmetic in whole.metrics:
                metric = arithmetic.info.name
                one: Explanation = dataclasses.replace(whole, metrics=(arithmetic,))
                command = f"harness explain {source.arguments} {shlex.join((method, dataset, metric))}{interval}"
                blocks.append(ExplainBlock(f"cell-{i}-{j}-{metrics.index(metric)}", method, dataset, metric,
                                           command, explanation_text(one)))
    return ExplainPage(data.suite.suite, explain_page_path(data.suite.suite), suite_page(data.suite.suite),
                       tuple(blocks))
