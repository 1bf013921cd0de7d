"""GADBench's metrics, all x100, on test nodes: AUROC, AUPRC (average precision), Rec@K.

Written with numpy rank statistics rather than calling scikit-learn so scoring stays
fast and import-light; `tests/graph_anomaly/test_metrics.py` checks them against
scikit-learn's `roc_auc_score` and `average_precision_score`, ties included.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from harness import Metric


def _validated(y_true: np.ndarray, y_score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y_true = np.asarray(y_true).astype(bool).ravel()
    y_score = np.asarray(y_score, dtype=np.float64).ravel()
    if y_true.shape != y_score.shape:
        raise ValueError(f"{y_true.size} labels but {y_score.size} scores")
    return y_true, y_score


def auroc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Mann-Whitney U with mid-ranks for ties, i.e. sklearn's `roc_auc_score`, x100."""
    y_true, y_score = _validated(y_true, y_score)
    n_pos = int(y_true.sum())
    n_neg = y_true.size - n_pos
    if n_pos == 0 or n_neg == 0 or not np.isfinite(y_score).all():
        return float("nan")
    ranks = rankdata(y_score)
    u = ranks[y_true].sum() - n_pos * (n_pos + 1) / 2
    return 100.0 * u / (n_pos * n_neg)


def auprc(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Average precision, sum over thresholds of (R_n - R_{n-1}) P_n; tied scores form one threshold."""
    y_true, y_score = _validated(y_true, y_score)
    n_pos = int(y_true.sum())
    if n_pos == 0 or not np.isfinite(y_score).all():
        return float("nan")
    order = np.argsort(-y_score, kind="mergesort")
    scores, labels = y_score[order], y_true[order]
    last_of_tie = np.r_[np.flatnonzero(np.diff(scores)), scores.size - 1]
    true_pos = np.cumsum(labels)[last_of_tie]
    predicted_pos = last_of_tie + 1
    precision = true_pos / predicted_pos
    recall_gain = np.diff(np.r_[0, true_pos]) / n_pos
    return 100.0 * float(np.sum(recall_gain * precision))


def recall_at_k(y_true: np.ndarray, y_score: np.ndarray) -> float:
    """Share of anomalies among the K top-scored nodes, K = number of anomalies (GADBench)."""
    y_true, y_score = _validated(y_true, y_score)
    k = int(y_true.sum())
    if k == 0 or not np.isfinite(y_score).all():
        return float("nan")
    top_k = np.argsort(-y_score, kind="mergesort")[:k]
    return 100.0 * float(y_true[top_k].sum()) / k


AUROC = Metric("auroc", auroc, higher_is_better=True, unit="%", description="area under the ROC curve, x100")
AUPRC = Metric("auprc", auprc, higher_is_better=True, unit="%", description="average precision, x100")
REC_AT_K = Metric(
    "rec_at_k", recall_at_k, higher_is_better=True, unit="%",
    description="recall among the top-K scored nodes, K = number of test anomalies, x100; nodes with equal "
                "scores keep their index order (stable sort), so ties favour lower node ids",
)


@dataclass(frozen=True)
class HomophilyBinMetric(Metric):
    """A metric on the test nodes whose local homophily h_i lies in [low, high) ([low, 1] for the last bin).

    h_i = |{j in N(i): y_j = y_i}| / |N(i)|, from all labels (ground truth); APF reports its
    results per homophily group this way. A bin without both classes scores NaN: ranking
    needs both (on Reddit every anomaly has h_i = 0 and every normal user h_i = 1).
    """

    low: float = 0.0
    high: float = 1.0

    def selects(self, homophily: np.ndarray) -> np.ndarray:
        upper = homophily <= self.high if self.high >= 1.0 else homophily < self.high
        return (homophily >= self.low) & upper

    def in_bin(self, y_true: np.ndarray, y_score: np.ndarray, homophily: np.ndarray) -> float:
        selected = self.selects(homophily)
        labels = np.asarray(y_true)[selected]
        if labels.all() or not labels.any():  # one class only (or empty): nothing to rank
            return float("nan")
        return self(labels, np.asarray(y_score)[selected])


def _auprc_in_bin(low: float, high: float) -> HomophilyBinMetric:
    closing = "]" if high >= 1.0 else ")"
    return HomophilyBinMetric(
        f"auprc_h{round(100 * low):02d}_{round(100 * high)}", auprc, higher_is_better=True, version="2", unit="%",
        description=f"average precision on test nodes with local homophily in [{low:.1f}, {high:.1f}{closing}, x100",
        low=low, high=high,
    )


AUPRC_H00_20 = _auprc_in_bin(0.0, 0.2)
AUPRC_H20_40 = _auprc_in_bin(0.2, 0.4)
AUPRC_H40_60 = _auprc_in_bin(0.4, 0.6)
AUPRC_H60_80 = _auprc_in_bin(0.6, 0.8)
AUPRC_H80_100 = _auprc_in_bin(0.8, 1.0)
HOMOPHILY_BINS = (AUPRC_H00_20, AUPRC_H20_40, AUPRC_H40_60, AUPRC_H60_80, AUPRC_H80_100)


def local_homophily(edge_index: np.ndarray, y: np.ndarray) -> np.ndarray:
    """h_i, the share of i's neighbours with i's label, float64 [N]; NaN for isolated nodes."""
    src, dst = np.asarray(edge_index)
    same = np.bincount(src, weights=(y[src] == y[dst]).astype(np.float64), minlength=y.size)
    degree = np.bincount(src, minlength=y.size).astype(np.float64)
    return np.divide(same, degree, out=np.full(y.size, np.nan), where=degree > 0)
