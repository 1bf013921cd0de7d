"""Does USplat4D's uncertainty say more than "this Gaussian was not seen"? (issue 61)

Eq. 5 gives phi to a Gaussian no training view sees, and the motion prior leaves unseen Gaussians stale, so
Spearman(u, error) over all moving Gaussians is high even for a flag. Beside it (metrics.uncertainty_spearman):

- `visibility_spearman`: Spearman's rho between the trivial visibility baseline, the share of training frames
  in which a Gaussian is unseen (the scene's own visibility, `ScoredMotion.seen`), and the same per-Gaussian
  error the method's uncertainty rates: what a visibility flag alone achieves on that run's errors.
- `uncertainty_partial_spearman`: the rank partial correlation of uncertainty and error given that share
  (Pearson's partial correlation of the three rank vectors): what the uncertainty ranks beyond visibility.
- `uncertainty_spearman_visible`: Spearman's rho over the moving Gaussians seen in every training frame, where
  the visibility share is 0 for all and cannot rank anything (are the visible-but-wrong ones flagged?).

A method without uncertainty (or a constant one) ranks nothing and scores 0 on the uncertainty figures, as
metrics.uncertainty_spearman does; a figure whose Gaussians are too few (under 3) or rank nothing is NaN.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import rankdata, spearmanr

from harness import Metric

if TYPE_CHECKING:
    from methods.dynamic_splatting.scored import ScoredMotion


def unseen_share(seen: np.ndarray) -> np.ndarray:
    """(N,) the share of frames (rows of `seen`, (T, N) bool) in which each Gaussian is not seen."""
    return 1.0 - seen.mean(axis=0)


def partial_spearman(x: np.ndarray, y: np.ndarray, given: np.ndarray) -> float:
    """Spearman's partial correlation of x and y given `given`: r_xy.z = (r_xy - r_xz r_yz) /
    sqrt((1 - r_xz^2)(1 - r_yz^2)) on average ranks (written out: scipy has no partial correlation). When x or y
    ranks exactly as `given` does, nothing is left beyond it: 0."""
    r = np.corrcoef(np.vstack([rankdata(x), rankdata(y), rankdata(given)]))
    denominator = np.sqrt(max(0.0, (1 - r[0, 2] ** 2) * (1 - r[1, 2] ** 2)))
    return float((r[0, 1] - r[0, 2] * r[1, 2]) / denominator) if denominator > 1e-9 else 0.0


def _rho(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(spearmanr(x, y).statistic)


def _rates_nothing(u: np.ndarray) -> bool:
    return bool(np.isnan(u).all() or np.ptp(u) == 0)


def visibility_spearman(run: ScoredMotion) -> float:
    moving = run.moving
    return _rho(unseen_share(run.seen)[moving], run.assessed_error[moving])


def uncertainty_partial_spearman(run: ScoredMotion) -> float:
    u, error = run.uncertainty[run.moving], run.assessed_error[run.moving]
    if _rates_nothing(u):
        return 0.0
    share = unseen_share(run.seen)[run.moving]
    return _rho(u, error) if np.ptp(share) == 0 else partial_spearman(u, error, share)


def uncertainty_spearman_visible(run: ScoredMotion) -> float:
    if _rates_nothing(run.uncertainty[run.moving]):
        return 0.0
    always = run.moving & run.seen.all(axis=0)
    u = run.uncertainty[always]
    return 0.0 if u.size >= 3 and np.ptp(u) == 0 else _rho(u, run.assessed_error[always])


VISIBILITY_SPEARMAN = Metric(
    "visibility_spearman", visibility_spearman, higher_is_better=True,
    description="Spearman's rho between the share of training frames a Gaussian is unseen and the rated error")
UNCERTAINTY_PARTIAL_SPEARMAN = Metric(
    "uncertainty_partial_spearman", uncertainty_partial_spearman, higher_is_better=True,
    description="rank partial correlation of uncertainty and error given the share of frames unseen")
UNCERTAINTY_SPEARMAN_VISIBLE = Metric(
    "uncertainty_spearman_visible", uncertainty_spearman_visible, higher_is_better=True,
    description="Spearman's rho of uncertainty and error over the moving Gaussians seen in every training frame")
