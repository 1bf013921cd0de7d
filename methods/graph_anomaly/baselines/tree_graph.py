"""RFGraph and XGBGraph: tree ensembles on neighbour-aggregated features (GADBench, Tang et al., NeurIPS 2023).

GADBench (`models/detector.py`, `GIN_noparam` in `models/gnn.py`) feeds a tree ensemble the
node features concatenated with `num_layers` rounds of parameter-free GIN aggregation with
eps = -1, i.e. h_k = aggr_{j in N(i)} h_{k-1}(j), self excluded, and [x, h_1, ..., h_hops]
as input. Its defaults: 2 hops, mean aggregation (`param_space` also tries sum and max);
positive-class sample weight #neg/#pos on the training nodes; a random forest of 100 trees
(gini, max_features "sqrt") and XGBoost's own defaults (eta 0.3, depth 6, 100 rounds).
Trees are fitted on the training nodes only.

Model selection on validation AUPRC, which GADBench's default run does not do: RFGraph picks
`max_features` from GADBench's `param_space` choices; XGBGraph picks the number of boosting
rounds in 1..`max_rounds` (200, the top of GADBench's `n_estimators` range), earliest on ties.
"""
from __future__ import annotations

from abc import abstractmethod
from typing import TypeVar

import numpy as np
import torch
from sklearn.ensemble import RandomForestClassifier
from torch_geometric.utils import scatter

from harness import Method, RunContext
from methods.graph_anomaly.metrics import auprc
from methods.graph_anomaly.params import RFGraphParams, TreeGraphParams, XGBGraphParams
from methods.graph_anomaly.task import NodeScoringInputs


def neighbour_aggregation(x: np.ndarray, edge_index: np.ndarray, hops: int, aggr: str) -> np.ndarray:
    """[x, h_1, ..., h_hops] with h_k(i) = aggr of h_{k-1} over the sources of edges into i.

    GADBench's `GIN_noparam`; a node without neighbours gets zeros, as DGL's reducers give.
    """
    h = torch.as_tensor(x, dtype=torch.float32)
    src, dst = torch.as_tensor(edge_index, dtype=torch.long)
    blocks = [h]
    for _ in range(hops):
        h = scatter(h[src], dst, dim=0, dim_size=h.shape[0], reduce=aggr)
        blocks.append(h)
    return torch.cat(blocks, dim=1).numpy()


def positive_weights(train_y: np.ndarray) -> np.ndarray:
    """Sample weights 1 for normals and #neg/#pos for anomalies, GADBench's `self.weight`."""
    positives = int((train_y == 1).sum())
    negatives = int((train_y == 0).sum())
    if positives == 0 or negatives == 0:
        raise ValueError(f"training labels need both classes, got {positives} anomalies and {negatives} normals")
    return np.where(train_y == 1, negatives / positives, 1.0)


TGP = TypeVar("TGP", bound=TreeGraphParams)


class _TreeGraphDetector(Method[TGP]):
    """Shared parameters and feature building; a subclass fits and selects its ensemble."""

    def run(self, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        if not np.any(inputs.val_y == 1):
            raise ValueError("validation labels hold no anomaly, so validation AUPRC is undefined")
        features = neighbour_aggregation(inputs.x, inputs.edge_index, self.params.hops, self.params.aggr)
        return self.fit_and_score(features, inputs, ctx).astype(np.float64)

    @abstractmethod
    def fit_and_score(self, features: np.ndarray, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        """Anomaly scores of all nodes from trees fitted on the training rows of `features`."""


class RFGraphDetector(_TreeGraphDetector[RFGraphParams]):
    """GADBench's RFGraph: scikit-learn's random forest, one fit per `max_features` choice."""

    def fit_and_score(self, features: np.ndarray, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        weights = positive_weights(inputs.train_y)
        best_auprc, best_model, best_choice = -np.inf, None, None
        for max_features in self.params.max_features_grid:
            model = RandomForestClassifier(
                n_estimators=self.params.n_estimators, max_features=max_features,
                n_jobs=ctx.threads, random_state=ctx.seed,
            ).fit(features[inputs.train_idx], inputs.train_y, sample_weight=weights)
            val_auprc = auprc(inputs.val_y, model.predict_proba(features[inputs.val_idx])[:, 1])
            if best_model is None or val_auprc > best_auprc:
                best_auprc, best_model, best_choice = val_auprc, model, max_features
        if best_model is None:
            raise ValueError("max_features_grid is empty")
        ctx.record("best_max_features_index", self.params.max_features_grid.index(best_choice))
        ctx.record("best_val_auprc", best_auprc, "%", higher_is_better=True)
        return best_model.predict_proba(features)[:, 1]


class XGBGraphDetector(_TreeGraphDetector[XGBGraphParams]):
    """GADBench's XGBGraph: XGBoost (hist) with the number of rounds chosen on validation AUPRC."""

    def fit_and_score(self, features: np.ndarray, inputs: NodeScoringInputs, ctx: RunContext) -> np.ndarray:
        import xgboost  # optional dependency (the `graph` extra), imported only when this detector runs

        p = self.params
        model = xgboost.XGBClassifier(
            n_estimators=p.max_rounds, learning_rate=p.learning_rate, max_depth=p.max_depth,
            tree_method="hist", n_jobs=ctx.threads, random_state=ctx.seed,
        ).fit(features[inputs.train_idx], inputs.train_y, sample_weight=positive_weights(inputs.train_y))
        val_x = features[inputs.val_idx]
        curve = [auprc(inputs.val_y, model.predict_proba(val_x, iteration_range=(0, r))[:, 1])
                 for r in range(1, p.max_rounds + 1)]
        best_rounds = int(np.argmax(curve)) + 1  # argmax takes the first maximum: fewest rounds on ties
        ctx.record("best_rounds", best_rounds, "round")
        ctx.record("best_val_auprc", curve[best_rounds - 1], "%", higher_is_better=True)
        return model.predict_proba(features, iteration_range=(0, best_rounds))[:, 1]
