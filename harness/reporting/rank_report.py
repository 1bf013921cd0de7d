"""A report's rank statistics on its headline metric: rank uncertainty always, the multi-dataset comparison
(Friedman, Nemenyi, Holm-corrected Wilcoxon; `rank_tests`) when the suite has enough methods and datasets.

Each cell enters as its mean over its finite seeds. A method without a measured cell on some dataset is left out
(a mean rank over fewer datasets is not comparable) and named, so a reader knows who is missing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from harness.reporting.rank_tests import (MIN_DATASETS, MIN_METHODS, Friedman, PairTest, critical_difference,
                                          friedman, nemenyi_groups, nemenyi_q, pairwise_wilcoxon)
from harness.reporting.rank_uncertainty import RankUncertainty, rank_uncertainty
from harness.stats import ALPHA

if TYPE_CHECKING:
    from harness.reporting.model import ReportData


@dataclass(frozen=True)
class DatasetComparison:
    """The methods compared over the datasets as blocks: Friedman's test and its two post-hoc procedures."""

    friedman: Friedman
    q: float    # Nemenyi's critical value
    cd: float   # Nemenyi's critical difference of mean ranks
    pairs: tuple[PairTest, ...]  # Holm-corrected pairwise Wilcoxon over datasets
    alpha: float = ALPHA

    @property
    def differ(self) -> bool:
        """Whether Friedman rejects equal mean ranks: the post-hoc results are read only then (Demsar 2006)."""
        return self.friedman.p_value < self.alpha

    def groups(self) -> list[tuple[int, int]]:
        """The critical-difference diagram's bars, as positions in the mean ranks sorted best first."""
        return nemenyi_groups(list(self.friedman.mean_ranks), self.cd)


@dataclass(frozen=True)
class RankReport:
    metric: str
    methods: tuple[str, ...]   # the methods compared, in report order (the comparison's matrix columns)
    datasets: tuple[str, ...]  # the blocks
    left_out: tuple[str, ...]  # suite methods without a measured cell on every dataset
    lost_seeds: int            # compared cells whose failed or NaN seeds are left out of their mean
    uncertainty: RankUncertainty
    comparison: DatasetComparison | None
    not_compared: str          # why there is no comparison; "" when there is one

    @property
    def figure_name(self) -> str:
        """The critical-difference diagram's plot name (`plots.figures`), when there is a comparison."""
        return f"cd_{self.metric}"


def rank_report(data: ReportData) -> RankReport | None:
    """The rank statistics of the report's main metric; None when it has no direction or fewer than two
    methods have a cell on every dataset that any method ran."""
    metric = data.main_metric
    higher = data.metrics[metric].higher_is_better
    if higher is None:
        return None
    measured = {(m, d): cell for m in data.methods for d in data.datasets
                if (cell := data.cell(m, d, metric)) is not None and math.isfinite(cell.stats.mean)}
    datasets = tuple(d for d in data.datasets if any((m, d) in measured for m in data.methods))
    methods = tuple(m for m in data.methods if all((m, d) in measured for d in datasets))
    if len(methods) < 2:
        return None
    observed = np.array([[measured[(m, d)].stats.mean for m in methods] for d in datasets])
    samples = {(m, d): _finite(measured[(m, d)].values) for m in methods for d in datasets}
    lost = sum(1 for m in methods for d in datasets if (c := measured[(m, d)]).failed_runs or c.stats.n_nonfinite)
    reason = _not_compared(len(methods), len(datasets))
    comparison = None if reason else _comparison(observed, higher)
    return RankReport(metric, methods, datasets, tuple(m for m in data.methods if m not in methods), lost,
                      rank_uncertainty(methods, datasets, observed, samples, higher), comparison, reason)


def _comparison(observed: np.ndarray, higher_is_better: bool) -> DatasetComparison:
    datasets, methods = observed.shape
    return DatasetComparison(friedman(observed, higher_is_better), nemenyi_q(methods),
                             critical_difference(methods, datasets), pairwise_wilcoxon(observed, higher_is_better))


def _not_compared(methods: int, datasets: int) -> str:
    if datasets == 1:
        return "one dataset: there are no blocks to compare over, so only the ranks' uncertainty over seeds is shown"
    if methods < MIN_METHODS or datasets < MIN_DATASETS:
        return (f"it needs at least {MIN_METHODS} methods and {MIN_DATASETS} datasets with a cell for every method; "
                f"here {methods} methods on {datasets} datasets")
    return ""


def _finite(values: tuple[float, ...]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array)]
